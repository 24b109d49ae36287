#!/usr/bin/env python3
"""Software strings through the translator: every placeholder kept, the rest as good.

Each line of a test set becomes a software string the way gettext and Weblate
send them: one to three placeholders put between its words (printf %s %1$s %d
%.2f, {0} {name} {{ user }} ${count}, <x id="N"/>, a URL, an e-mail address)
and, on a third of the lines, a <b>...</b> pair around a word. The strings and
the plain lines go through the translator with the same flags. It prints:

  kept     lines whose output holds every placeholder exactly as often as the
           string did, byte for byte (the target: all of them)
  BLEU     against the references, of the strings' outputs with the
           placeholders taken out, and of the plain lines' outputs; the first
           may not be lower than the second by more than 1

    bench/placeholder_strings.py MODEL_DIR --source examples/sample/test.en \\
        --reference examples/sample/test.de [--lines 500] [--seed 1] \\
        [--translator build/translator] [--translator-flags "..."]

Exits 1 when a line loses or repeats a placeholder or BLEU falls by more than 1.
Run from the repository root.
"""
import argparse
import os
import random
import shlex
import subprocess
import sys
import tempfile

from translator_bleu import bleu

KINDS = ["%s", "%1$s", "%d", "%.2f", "{0}", "{name}", "{{ user }}", "${count}", '<x id="{n}"/>',
         "https://example.com/p?id={n}", "user{n}@example.org"]


def make_string(words, rng, n):
    """The line with placeholders between its words; the placeholders put in."""
    out = list(words)
    put = []
    for _ in range(rng.randint(1, 3)):
        ph = rng.choice(KINDS).replace("{n}", str(n))
        at = rng.randint(0, len(out) - 1)  # before a word, never after the final one (its mark)
        out.insert(at, ph)
        put.append(ph)
    if rng.random() < 1 / 3 and len(words) > 3:
        i = rng.randint(0, len(out) - 2)
        if out[i] not in put:
            out[i] = "<b>" + out[i] + "</b>"
            put += ["<b>", "</b>"]
    return " ".join(out), put


def translate(translator, model, lines, flags, workdir, name):
    src = os.path.join(workdir, name + ".in")
    out = os.path.join(workdir, name + ".out")
    with open(src, "w") as f:
        f.write("\n".join(lines) + "\n")
    subprocess.run([translator, "--model", model, "--input", src, "--output", out] + shlex.split(flags),
                   check=True, stderr=subprocess.DEVNULL)
    with open(out) as f:
        return f.read().split("\n")[: len(lines)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model")
    ap.add_argument("--source", required=True)
    ap.add_argument("--reference", required=True)
    ap.add_argument("--lines", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--translator", default="build/translator")
    ap.add_argument("--translator-flags", default="")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    with open(a.source) as f:
        plain = [l.rstrip("\n") for l in f][: a.lines]
    with open(a.reference) as f:
        refs = [l.rstrip("\n") for l in f][: len(plain)]
    strings, placed = [], []
    for n, line in enumerate(plain):
        s, put = make_string(line.split(), rng, n)
        strings.append(s)
        placed.append(put)
    with tempfile.TemporaryDirectory() as work:
        ref_path = os.path.join(work, "ref")
        with open(ref_path, "w") as f:
            f.write("\n".join(refs) + "\n")
        out = translate(a.translator, a.model, strings, a.translator_flags, work, "strings")
        base = translate(a.translator, a.model, plain, a.translator_flags, work, "plain")
        kept, rest, failures = 0, [], []
        for s, o, put in zip(strings, out, placed):
            ok = all(o.count(p) == s.count(p) for p in set(put))
            kept += ok
            if not ok:
                failures.append((s, o))
            r = o
            for p in sorted(set(put), key=len, reverse=True):
                r = r.replace(p, " ")
            rest.append(" ".join(r.split()))
        b_rest = bleu(a.translator, rest, ref_path, work, "rest")
        b_base = bleu(a.translator, base, ref_path, work, "base")
    n_ph = sum(len(p) for p in placed)
    print(f"strings {len(strings)}, placeholders {n_ph}")
    print(f"kept     {kept}/{len(strings)} lines with every placeholder exactly once")
    print(f"BLEU     strings without their placeholders {b_rest:.2f}, plain lines {b_base:.2f}, "
          f"difference {b_rest - b_base:+.2f}")
    for s, o in failures[:5]:
        print(f"  lost: {s}\n     -> {o}")
    sys.exit(0 if kept == len(strings) and b_rest >= b_base - 1 else 1)


if __name__ == "__main__":
    main()
