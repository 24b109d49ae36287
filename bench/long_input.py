#!/usr/bin/env python3
"""Run-on sentences translated whole: nothing the user wrote may be lost.

Sentences of a test set are joined into run-ons of 2, 5, 10, 20 and 40 clauses,
four ways: by ", and" (the source language's "and"), by ";", by a bare " and "
(no comma), and by nothing at all (each clause keeps its capital, no
punctuation between them). The run-ons
and, one per line, the sentences themselves go through the translator with the
same flags. Per joiner and length it prints:

  ratio  the run-ons' output/input word ratio over the one-per-line ratio
         (1.00: as much text came out as when each clause was its own line)
  BLEU   of the run-on translations against the one-per-line translations
         joined the same way (final marks dropped, the first letter lowered
         where the target corpus writes the word lowercase mid-sentence, the
         target's "and" for the source's): 100 means the run-on was translated
         exactly as its clauses are one by one

and the translator's own summary of what its coverage check found.

    bench/long_input.py MODEL_DIR --source examples/sample/test.en \\
        [--lines 200] [--lengths 2,5,10,20,40] [--floor-ratio 0.10 --floor-bleu 70] \\
        [--translator build/translator] [--translator-flags "--beam 1 ..."]

With floors it exits 1 when any row misses one. Run from the repository root.
"""
import argparse
import gzip
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

AND = {"en": "and", "de": "und", "fr": "et", "cs": "a", "es": "y", "it": "e", "nl": "en", "pt": "e"}


def lowercase_words(lines):
    """Words written lowercase more often than capitalized after a sentence's first word."""
    counts = {}
    for line in lines:
        for word in line.split()[1:]:
            key = word.lower()
            low, cap = counts.get(key, (0, 0))
            counts[key] = (low + (word[:1].islower()), cap + (word[:1].isupper()))
    return {w for w, (low, cap) in counts.items() if low > cap}


def as_clause(sentence, lowercase):
    """A sentence as a clause inside a run-on: no final mark, a function word lowered."""
    s = re.sub(r"\s*[.!?]+$", "", sentence.strip())
    first = s.split(" ", 1)[0]
    if first.lower() in lowercase:
        s = s[:1].lower() + s[1:]
    return s


def join(clauses, joiner, conjunction, lowercase):
    if joiner == "none":  # clauses as they are: capitals kept, nothing between them
        parts = [re.sub(r"\s*[.!?]+$", "", c.strip()) for c in clauses]
        glue = " "
    else:
        parts = [as_clause(c, lowercase) for c in clauses]
        glue = {"and": f", {conjunction} ", "bare": f" {conjunction} ", "semi": "; "}[joiner]
    text = glue.join(parts)
    return text[:1].upper() + text[1:] + "."


def translate(args, lines, workdir, name):
    src, hyp = os.path.join(workdir, name + ".src"), os.path.join(workdir, name + ".hyp")
    with open(src, "w") as f:
        f.write("\n".join(lines) + "\n")
    run = subprocess.run([args.translator, "--model", args.model, "--input", src, "--output", hyp] + args.extra,
                         capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"translator failed on {src}:\n{run.stderr}")
    with open(hyp) as f:
        out = f.read().split("\n")[: len(lines)]
    summary = [l for l in run.stderr.splitlines() if "coverage:" in l or "warning" in l]
    return out, summary


def bleu(args, hyps, refs, workdir):
    h, r = os.path.join(workdir, "bleu.hyp"), os.path.join(workdir, "bleu.ref")
    for path, lines in ((h, hyps), (r, refs)):
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
    run = subprocess.run([args.translator, "--score", r, "--hypotheses", h], capture_output=True, text=True)
    return json.loads(run.stderr.strip().splitlines()[-1])["bleu"]


def open_text(path):
    return gzip.open(path, "rt") if path.endswith(".gz") else open(path)


def words(lines):
    return sum(len(l.split()) for l in lines)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("model")
    p.add_argument("--source", required=True, help="one sentence a line")
    p.add_argument("--source-lang", default=None, help="default: the file's extension")
    p.add_argument("--target-lang", default=None, help="default: the model's config")
    p.add_argument("--lines", type=int, default=200)
    p.add_argument("--lengths", default="2,5,10,20,40")
    p.add_argument("--joiners", default="and,semi,bare,none", help="and (', and'), semi (';'), bare (' and '), none")
    p.add_argument("--translator", default="build/translator")
    p.add_argument("--floor-ratio", type=float, default=None, help="largest allowed |ratio - 1|")
    p.add_argument("--floor-bleu", type=float, default=None)
    p.add_argument("--translator-flags", default="", help="more translator flags for every run, as one string")
    args = p.parse_args()
    args.extra = shlex.split(args.translator_flags)
    with open(os.path.join(args.model, "config.json")) as f:
        data = json.load(f)["data"]
    source_lang = args.source_lang or data.get("src_lang") or os.path.splitext(data["train_src"])[1][1:]
    target_lang = args.target_lang or data.get("tgt_lang") or os.path.splitext(data["train_tgt"])[1][1:]
    with open_text(args.source) as f:
        sentences = [l.rstrip("\n") for l in f][: args.lines]
    with open_text(data["train_tgt"]) as f:
        target_lowercase = lowercase_words(l for _, l in zip(range(50000), f))
    with open_text(data["train_src"]) as f:
        source_lowercase = lowercase_words(l for _, l in zip(range(50000), f))
    failed = False
    with tempfile.TemporaryDirectory() as workdir:
        singles, _ = translate(args, sentences, workdir, "singles")
        base_ratio = words(singles) / words(sentences)
        print(f"one per line: {len(sentences)} sentences, {words(sentences)} words in, {words(singles)} out "
              f"(ratio {base_ratio:.3f}); translator flags: {' '.join(args.extra) or '(none)'}")
        print("| joined by | clauses | run-ons | words in | ratio / one-per-line | BLEU | coverage check |")
        print("|---|---|---|---|---|---|---|")
        for joiner in args.joiners.split(","):
            for n in (int(x) for x in args.lengths.split(",")):
                groups = [list(range(k, k + n)) for k in range(0, len(sentences) - n + 1, n)]
                runons = [join([sentences[i] for i in g], joiner, AND.get(source_lang, "and"), source_lowercase)
                          for g in groups]
                refs = [join([singles[i] for i in g], joiner, AND.get(target_lang, "and"), target_lowercase)
                        for g in groups]
                out, summary = translate(args, runons, workdir, f"{joiner}{n}")
                ratio = (words(out) / words(runons)) / base_ratio
                score = bleu(args, out, refs, workdir)
                check = next((re.sub(r"^translator: coverage: ", "", l) for l in summary if "coverage:" in l), "-")
                print(f"| {joiner} | {n} | {len(runons)} | {words(runons)} | {ratio:.3f} | {score:.1f} | {check} |")
                if (args.floor_ratio is not None and abs(ratio - 1) > args.floor_ratio) or \
                        (args.floor_bleu is not None and score < args.floor_bleu):
                    failed = True
    if failed:
        print("below the floor: |ratio - 1| <= {} and BLEU >= {}".format(args.floor_ratio, args.floor_bleu))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
