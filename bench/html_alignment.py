#!/usr/bin/env python3
"""Inline markup carried by alignment, measured on the bundled sample corpus.

For each sentence of examples/sample/test.en, one noun or adjective whose German
rendering the sample's generator knows (examples/sample/lexicon.py) is wrapped in
<b>...</b>; the sentences go through `translator --format html` and a case counts
where the German word (the lemma as a prefix: declined forms included) appears in
the translation at all, and it lands when it appears inside the <b> element.
Prints the cases, the rate for nouns, adjectives and all, the spans kept (of
every sentence, those whose <b> comes out once and holds a word: a span
wrapping nothing is a span lost), and a few misses.

    bench/html_alignment.py MODEL_DIR [--translator build/translator] [--layers -1,-2]
Run from the repository root after training a model on configs/sample.json.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "examples", "sample"))
from lexicon import ADJS, NOUNS  # noqa: E402


def cases(lines):
    """(html, German lemmas, kind) per sentence with a known noun or adjective."""
    forms = {}
    for n in NOUNS.values():
        forms[n.en] = ([n.de], "noun")
        if n.en_pl and n.de_pl:
            forms[n.en_pl] = ([n.de_pl], "noun")
    for a in ADJS.values():
        forms.setdefault(a.en, ([a.de] + ([a.stem] if a.stem else []), "adjective"))
    out = []
    for k, line in enumerate(lines):
        words = line.split(" ")
        # Alternate nouns and adjectives so both kinds are measured.
        order = sorted(range(len(words)), key=lambda i: (forms.get(words[i].strip(".,?!"), ([], ""))[1] !=
                                                         ("noun" if k % 2 else "adjective"), i))
        for i in order:
            bare = words[i].strip(".,?!")
            if bare in forms and words[i].startswith(bare):
                german, kind = forms[bare]
                wrapped = words[:i] + ["<b>" + bare + "</b>" + words[i][len(bare):]] + words[i + 1:]
                out.append((" ".join(wrapped), german, kind))
                break
    return out


def contains(text, lemmas):
    return any(re.search(r"(^|[^\w])" + re.escape(lemma), text) for lemma in lemmas)


def measure(model, translator, layer, items):
    with tempfile.NamedTemporaryFile("w", suffix=".html", delete=False) as f:
        f.write("\n".join(h for h, _, _ in items) + "\n")
        path = f.name
    args = [translator, "--model", model, "--format", "html", "--threads", "2"]
    if layer is not None:
        args += ["--attention-layer", str(layer)]
    with open(path) as stdin:
        out = subprocess.run(args, stdin=stdin, capture_output=True, text=True, check=True).stdout.splitlines()
    os.unlink(path)
    stats = {"noun": [0, 0], "adjective": [0, 0], "kept": [0, 0]}
    misses = []
    for (html, lemmas, kind), translated in zip(items, out):
        spans = re.findall(r"<b>(.*?)</b>", translated)
        stats["kept"][0] += 1
        stats["kept"][1] += len(spans) == 1 and re.search(r"\w", spans[0]) is not None
        plain = re.sub(r"</?b>", "", translated)
        if not contains(plain, lemmas):
            continue
        stats[kind][0] += 1
        inside = " ".join(re.findall(r"<b>(.*?)</b>", translated))
        if contains(inside, lemmas):
            stats[kind][1] += 1
        elif len(misses) < 5:
            misses.append((html, translated))
    return stats, misses


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("model")
    p.add_argument("--translator", default="build/translator")
    p.add_argument("--layers", default="default", help="comma-separated decoder layers to compare (default: the translator's)")
    p.add_argument("--test", default="examples/sample/test.en")
    a = p.parse_args()
    with open(a.test, encoding="utf-8") as f:
        items = cases([line.rstrip("\n") for line in f])
    print(f"{len(items)} sentences of {a.test} with one known noun or adjective wrapped in <b>")
    print("| layer | nouns landed | adjectives landed | all landed | spans kept |")
    print("|---|---|---|---|---|")
    for layer in a.layers.split(","):
        stats, misses = measure(a.model, a.translator, None if layer == "default" else int(layer), items)
        cells = []
        for kind in ("noun", "adjective"):
            seen, landed = stats[kind]
            cells.append(f"{landed}/{seen} ({100 * landed / max(seen, 1):.1f}%)")
        seen = sum(stats[k][0] for k in ("noun", "adjective"))
        landed = sum(stats[k][1] for k in ("noun", "adjective"))
        total, kept = stats["kept"]
        print(f"| {layer} | {cells[0]} | {cells[1]} | {landed}/{seen} ({100 * landed / max(seen, 1):.1f}%) | "
              f"{kept}/{total} ({100 * kept / max(total, 1):.1f}%) |")
        for html, translated in misses:
            print(f"    miss: {html}\n       -> {translated}")


if __name__ == "__main__":
    main()
