#!/usr/bin/env python3
"""Documents made by real tools, translated, and read back by independent readers.

From examples/sample/test.en, one sentence a paragraph, each with one noun or
adjective whose German rendering the sample's generator knows
(examples/sample/lexicon.py) made bold, italic or a link in turn; with a title,
a heading, a table, a footnote, speaker notes (a paragraph in .docx and
.odt) and an image. pandoc turns the Markdown into

.docx, .odt and .pptx (LibreOffice headless makes the .odp from the .pptx); `translator --input --output` translates each; the
result is read back with zipfile and ElementTree (and opened by python-docx and
odfpy where installed) and converted to PDF by LibreOffice headless.

Per format it prints: paragraphs and table cells before and after (they must
match), the formatting cases (the German word present in the paragraph) and
the share of them where the word carries the source word's formatting, the
spans kept (of every formatted paragraph, those whose translation has the
formatting on some word: a span lost otherwise), whether
every image and every entry without text is byte-identical, and whether
LibreOffice converted the file.

    bench/document_formatting.py MODEL_DIR [--translator build/translator]
        [--formats docx,odt,pptx] [--sentences 60] [--floor 0.9]
With --floor, exits 1 when a rate is under it or any other check fails.
Run from the repository root; needs pandoc (and soffice for the PDF check).
"""
import argparse
import contextlib
import io
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zipfile
import zlib
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "examples", "sample"))
from lexicon import ADJS, NOUNS  # noqa: E402

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
STYLE = "{urn:oasis:names:tc:opendocument:xmlns:style:1.0}"
FO = "{urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0}"
TABLE = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
KINDS = ["bold", "italic", "link"]


def png(width=6, height=4):
    """A small PNG made here, its bytes the same every run."""
    raw = b"".join(b"\0" + bytes(v for x in range(width) for v in ((x * 40) % 256, (y * 60) % 256, 128))
                   for y in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def forms():
    out = {}
    for n in NOUNS.values():
        out[n.en] = [n.de]
        if n.en_pl and n.de_pl:
            out[n.en_pl] = [n.de_pl]
    for a in ADJS.values():
        out.setdefault(a.en, [a.de] + ([a.stem] if a.stem else []))
    return out


def markdown(lines, count):
    """The Markdown source and, per formatted paragraph, (kind, German lemmas)."""
    known = forms()
    paragraphs, cases = [], []
    for line in lines:
        if len(cases) == count:
            break
        words = line.split(" ")
        for i, word in enumerate(words):
            bare = word.strip(".,?!")
            if i == 0 or bare not in known or not word.startswith(bare):
                continue
            kind = KINDS[len(cases) % 3]
            marked = {"bold": "**%s**", "italic": "*%s*", "link": "[%s](https://example.com/" + str(len(cases)) + ")"}
            words[i] = marked[kind] % bare + word[len(bare):]
            cases.append((kind, known[bare]))
            paragraphs.append(" ".join(words))
            break
    body = "\n\n".join(paragraphs)
    md = ("---\ntitle: " + lines[0] + "\n---\n\n# " + lines[1] + "\n\n" + body + "[^1]\n\n" +
          "| " + lines[2] + " | " + lines[3] + " |\n|---|---|\n| " + lines[4] + " | " + lines[5] + " |\n\n" +
          "![](picture.png)\n\n::: notes\n" + lines[7] + "\n:::\n\n[^1]: " + lines[6] + "\n")
    return md, cases


def odf_styles(root):
    """Automatic text styles: name -> set of kinds."""
    out = {}
    for s in root.iter(STYLE + "style"):
        props = s.find(STYLE + "text-properties")
        kinds = set()
        if props is not None:
            if props.get(FO + "font-weight") == "bold":
                kinds.add("bold")
            if props.get(FO + "font-style") == "italic":
                kinds.add("italic")
        out[s.get(STYLE + "name")] = kinds
    out.setdefault("Strong_20_Emphasis", {"bold"})
    out.setdefault("Emphasis", {"italic"})
    return out


def runs_of(fmt, paragraph, styles):
    """[(text, kinds)] of a paragraph element."""
    out = []
    if fmt == "docx":
        def walk(node, link):
            for c in node:
                if c.tag == W + "hyperlink":
                    walk(c, True)
                elif c.tag == W + "r":
                    rpr = c.find(W + "rPr")
                    kinds = set(["link"] if link else [])
                    if rpr is not None:
                        for tag, kind in ((W + "b", "bold"), (W + "i", "italic")):
                            e = rpr.find(tag)
                            if e is not None and e.get(W + "val") not in ("0", "false"):
                                kinds.add(kind)
                    out.append(("".join(t.text or "" for t in c.iter(W + "t")), kinds))
                elif c.tag in (W + "ins", W + "smartTag"):
                    walk(c, link)
        walk(paragraph, False)
    elif fmt == "pptx":
        for r in paragraph.iter(A + "r"):
            rpr = r.find(A + "rPr")
            kinds = set()
            if rpr is not None:
                kinds |= {"bold"} if rpr.get("b") == "1" else set()
                kinds |= {"italic"} if rpr.get("i") == "1" else set()
                kinds |= {"link"} if rpr.find(A + "hlinkClick") is not None else set()
            out.append(("".join(t.text or "" for t in r.iter(A + "t")), kinds))
    else:
        def walk(node, kinds):
            if node.text:
                out.append((node.text, set(kinds)))
            for c in node:
                if c.tag == TEXT + "note":
                    pass
                elif c.tag == TEXT + "span":
                    walk(c, kinds | styles.get(c.get(TEXT + "style-name"), set()))
                elif c.tag == TEXT + "a":
                    walk(c, kinds | {"link"})
                if c.tail:
                    out.append((c.tail, set(kinds)))
        walk(paragraph, set())
    return out


def text_parts(fmt, names):
    if fmt == "docx":
        return [n for n in names if re.fullmatch(r"word/(document|footnotes|endnotes|comments|header\d*|footer\d*)\.xml", n)]
    if fmt == "pptx":
        key = lambda n: (n.split("/")[1], int(re.search(r"(\d+)\.xml$", n).group(1)))  # noqa: E731
        return sorted([n for n in names if re.fullmatch(r"ppt/(slides/slide|notesSlides/notesSlide)\d+\.xml", n)], key=key)
    return [n for n in names if n in ("content.xml", "styles.xml")]


def read(fmt, path):
    """Paragraphs (as runs), table cells, and the bytes of every entry."""
    with zipfile.ZipFile(path) as z:
        entries = {n: z.read(n) for n in z.namelist()}
    paragraphs, cells = [], 0
    for part in text_parts(fmt, list(entries)):
        root = ET.fromstring(entries[part])
        styles = odf_styles(root) if fmt in ("odt", "odp") else {}
        tag = {"docx": [W + "p"], "pptx": [A + "p"]}.get(fmt, [TEXT + "p", TEXT + "h"])
        for p in root.iter():
            if p.tag in tag:
                paragraphs.append(runs_of(fmt, p, styles))
        cell = {"docx": W + "tc", "pptx": A + "tc"}.get(fmt, TABLE + "table-cell")
        cells += sum(1 for _ in root.iter(cell))
    return paragraphs, cells, entries


def contains(text, lemmas):
    return any(re.search(r"(^|[^\w])" + re.escape(lemma), text) for lemma in lemmas)


def opens(fmt, path):
    """Whether python-docx or odfpy (where installed) opens the file."""
    try:
        with contextlib.redirect_stdout(io.StringIO()):  # odfpy prints what its SAX parser disliked
            if fmt == "docx":
                import docx
                docx.Document(path)
            elif fmt in ("odt", "odp"):
                from odf.opendocument import load
                load(path)
        return "yes"
    except ImportError:
        return "no reader"
    except Exception as e:  # noqa: BLE001
        return "FAILED: %s" % e


def to_pdf(path, out_dir):
    if not shutil.which("soffice"):
        return "no soffice"
    profile = "file://" + os.path.join(out_dir, "lo_profile")
    r = subprocess.run(["soffice", "-env:UserInstallation=" + profile, "--headless", "--convert-to", "pdf",
                        "--outdir", out_dir, path], capture_output=True, text=True, timeout=300)
    pdf = os.path.join(out_dir, os.path.splitext(os.path.basename(path))[0] + ".pdf")
    ok = r.returncode == 0 and os.path.exists(pdf) and os.path.getsize(pdf) > 0
    return "yes" if ok else "FAILED: " + (r.stderr or r.stdout)[-300:]


def measure(fmt, args, work, cases):
    source = os.path.join(work, "doc." + fmt)
    out = os.path.join(work, "doc_de." + fmt)
    if fmt == "odp":  # pandoc writes no .odp: LibreOffice converts its .pptx
        subprocess.run(["pandoc", "doc.md", "-o", "slides.pptx"], cwd=work, check=True)
        subprocess.run(["soffice", "-env:UserInstallation=file://" + os.path.join(work, "lo_profile"), "--headless",
                        "--convert-to", "odp", "--outdir", work, os.path.join(work, "slides.pptx")],
                       check=True, capture_output=True)
        os.replace(os.path.join(work, "slides.odp"), source)
    else:
        subprocess.run(["pandoc", "doc.md", "-o", source], cwd=work, check=True)
    r = subprocess.run([args.translator, "--model", args.model, "--input", source, "--output", out],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return {"format": fmt, "error": r.stderr[-500:]}
    before, cells_before, entries_before = read(fmt, source)
    after, cells_after, entries_after = read(fmt, out)
    counted = landed = spans = kept = 0
    misses = []
    k = 0
    for src, tgt in zip(before, after):
        kinds = [kind for _, ks in src for kind in ks if kind in KINDS]
        if not kinds or k >= len(cases) or kinds[0] != cases[k][0]:
            continue
        kind, lemmas = cases[k]
        k += 1
        spans += 1
        kept += any(kind in ks and re.search(r"\w", t) for t, ks in tgt)
        text = "".join(t for t, _ in tgt)
        if not contains(text, lemmas):
            continue
        counted += 1
        if any(kind in ks and contains(t, lemmas) for t, ks in tgt):
            landed += 1
        elif len(misses) < 3:
            misses.append("".join(("[%s]" % t) if kind in ks else t for t, ks in tgt))
    parts = set(text_parts(fmt, list(entries_before)))
    media = [n for n in entries_before if re.search(r"\.(png|jpe?g|gif)$", n)]
    others = [n for n in entries_before if n not in parts and not n.endswith(("core.xml", "meta.xml"))]
    return {"format": fmt, "paragraphs": (len(before), len(after)), "cells": (cells_before, cells_after),
            "cases": counted, "landed": landed, "rate": landed / counted if counted else 0.0, "spans": (kept, spans),
            "media_same": all(entries_after.get(n) == entries_before[n] for n in media) and len(media) > 0,
            "others_same": sum(entries_after.get(n) == entries_before[n] for n in others), "others": len(others),
            "opens": opens(fmt, out), "pdf": to_pdf(out, work) if not args.no_pdf else "not asked",
            "misses": misses}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("model")
    p.add_argument("--translator", default="build/translator")
    p.add_argument("--formats", default="docx,odt,pptx,odp")
    p.add_argument("--sentences", type=int, default=60)
    p.add_argument("--source", default="examples/sample/test.en")
    p.add_argument("--floor", type=float)
    p.add_argument("--no-pdf", action="store_true")
    args = p.parse_args()
    lines = [l.strip() for l in open(args.source, encoding="utf-8") if l.strip()]
    md, cases = markdown(lines[8:], args.sentences)
    failed = False
    with tempfile.TemporaryDirectory() as work:
        with open(os.path.join(work, "doc.md"), "w", encoding="utf-8") as f:
            f.write(md)
        with open(os.path.join(work, "picture.png"), "wb") as f:
            f.write(png())
        print("%-5s %-12s %-10s %6s %7s %6s %-9s %-7s %-10s %-6s %s" % (
            "", "paragraphs", "cells", "cases", "landed", "rate", "spans", "images", "others", "opens", "pdf"))
        for fmt in args.formats.split(","):
            m = measure(fmt, args, work, cases)
            if "error" in m:
                print("%-5s translator failed: %s" % (fmt, m["error"]))
                failed = True
                continue
            print("%-5s %-12s %-10s %6d %7d %5.1f%% %-9s %-7s %-10s %-6s %s" % (
                fmt, "%d -> %d" % m["paragraphs"], "%d -> %d" % m["cells"], m["cases"], m["landed"], 100 * m["rate"],
                "%d/%d" % m["spans"],
                "same" if m["media_same"] else "CHANGED", "%d/%d same" % (m["others_same"], m["others"]),
                m["opens"], m["pdf"]))
            for miss in m["misses"]:
                print("      missed: " + miss)
            if args.floor is not None:
                failed |= (m["rate"] < args.floor or m["spans"][0] != m["spans"][1] or m["paragraphs"][0] != m["paragraphs"][1] or
                           m["cells"][0] != m["cells"][1] or not m["media_same"] or m["others_same"] != m["others"] or
                           m["opens"].startswith("FAILED") or m["pdf"].startswith("FAILED") or m["cases"] < 20)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
