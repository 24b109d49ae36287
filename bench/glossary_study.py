#!/usr/bin/env python3
"""A glossary over a test set: every term met, BLEU as good, speed beside.

The glossary is made from the sample grammar's lexicon (examples/sample/
lexicon.py): English nouns, singular and plural, with their German forms,
kept where the test set's references always write that form for them (a term
list a translator would draw from the same texts), the 50 most frequent. The
test set goes through the translator three times in one sitting, alternated
--rounds times for the timings: without a glossary, with it, and with a second
glossary of terms the model was never taught ("car" -> "Wagen", ...), which
only constrained search can put in. It prints:

  met      lines where every matched term's target form is in the output
           (as a whole word), without and with the glossary; the terms the
           translator reported unmet, each named
  BLEU     on the lines holding a term, without and with the glossary
  time     seconds for the test set --repeat times over (model loading
           included), best of the rounds, each way; and the ratio

    bench/glossary_study.py MODEL_DIR [--source examples/sample/test.en] \\
        [--reference examples/sample/test.de] [--terms 50] [--rounds 3] [--repeat 4] \\
        [--translator build/translator] [--translator-flags "..."]

Exits 1 when a line with a writable term lacks it, or when BLEU with the
glossary is lower than without by more than 1. Run from the repository root.
Time with OpenBLAS's settings unset, as users run.
"""
import argparse
import collections
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time

from translator_bleu import bleu

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "sample"))
import lexicon  # noqa: E402

UNTAUGHT = [("car", "Wagen"), ("house", "Gebäude"), ("picture", "Gemälde"), ("dog", "Köter"), ("shop", "Geschäft"),
            ("book", "Schmöker"), ("cup", "Becher"), ("forest", "Forst")]


def has_word(text, word):
    return re.search(r"(?<!\w)" + re.escape(word) + r"(?!\w)", text) is not None


def has_source_term(line, term):
    return re.search(r"(?<!\w)" + re.escape(term) + r"(?!\w)", line, re.IGNORECASE) is not None


def consistent_terms(sources, references, count):
    """Noun forms whose German form is in the reference of every line holding them, the most frequent first."""
    candidates = []
    for n in lexicon.NOUNS.values():
        candidates.append((n.en, n.de))
        if n.en_pl and n.de_pl and n.en_pl != n.en:
            candidates.append((n.en_pl, n.de_pl))
    kept = []
    for en, de in candidates:
        lines = [i for i, s in enumerate(sources) if has_source_term(s, en)]
        if len(lines) >= 2 and all(has_word(references[i], de) for i in lines):
            kept.append((len(lines), en, de))
    kept.sort(key=lambda k: (-k[0], k[1]))
    return [(en, de) for _, en, de in kept[:count]]


def translate(translator, model, src, flags, workdir, name, glossary=None):
    out = os.path.join(workdir, name + ".out")
    cmd = [translator, "--model", model, "--input", src, "--output", out] + shlex.split(flags)
    if glossary:
        cmd += ["--glossary", glossary]
    start = time.perf_counter()
    r = subprocess.run(cmd, check=True, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    with open(out) as f:
        lines = f.read().split("\n")[:-1]
    unmet = re.findall(r'the glossary term "([^"]*)" -> "([^"]*)" is not in the translation \(([^)]*)\)', r.stderr)
    return lines, seconds, unmet


def write_glossary(path, terms):
    with open(path, "w") as f:
        f.write("en\tde\n" + "".join(f"{s}\t{t}\n" for s, t in terms))


def met_lines(sources, outputs, terms):
    """(lines holding a term, of them those whose output has every matched term's target)."""
    holding = [i for i, s in enumerate(sources) if any(has_source_term(s, en) for en, _ in terms)]
    met = [i for i in holding if all(has_word(outputs[i], de) for en, de in terms if has_source_term(sources[i], en))]
    return holding, met


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("model")
    p.add_argument("--source", default="examples/sample/test.en")
    p.add_argument("--reference", default="examples/sample/test.de")
    p.add_argument("--terms", type=int, default=50)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--repeat", type=int, default=4, help="the test set this many times over, for the timings")
    p.add_argument("--translator", default="build/translator")
    p.add_argument("--translator-flags", default="")
    a = p.parse_args()
    with open(a.source) as f:
        sources = f.read().split("\n")[:-1]
    with open(a.reference) as f:
        references = f.read().split("\n")[:-1]
    terms = consistent_terms(sources, references, a.terms)
    work = tempfile.mkdtemp(prefix="glossary_study_")
    glossary, untaught = os.path.join(work, "terms.tsv"), os.path.join(work, "untaught.tsv")
    write_glossary(glossary, terms)
    write_glossary(untaught, UNTAUGHT)
    plain, _, _ = translate(a.translator, a.model, a.source, a.translator_flags, work, "plain")
    with_terms, _, unmet = translate(a.translator, a.model, a.source, a.translator_flags, work, "terms", glossary)
    forced, _, forced_unmet = translate(a.translator, a.model, a.source, a.translator_flags, work, "untaught", untaught)
    repeated = os.path.join(work, "repeated.en")
    with open(repeated, "w") as f:
        f.write("".join(line + "\n" for line in sources) * a.repeat)
    times = collections.defaultdict(list)
    for _ in range(a.rounds):  # alternated, so that drift hits each way alike
        for name, g in (("without", None), ("with", glossary), ("untaught", untaught)):
            times[name].append(translate(a.translator, a.model, repeated, a.translator_flags, work, "timed", g)[1])
    failed = False
    print(f"glossary: {len(terms)} terms from the lexicon, consistent with the references "
          f"({', '.join(f'{s}->{t}' for s, t in terms[:6])}, ...)")
    holding, met_plain = met_lines(sources, plain, terms)
    _, met_with = met_lines(sources, with_terms, terms)
    unwritable = {s for s, _, why in unmet + forced_unmet if "cannot write" in why}
    print(f"met: {len(met_plain)}/{len(holding)} lines without the glossary, {len(met_with)}/{len(holding)} with it")
    for s, t, why in sorted(set(unmet)):
        print(f"  unmet: {s} -> {t} ({why})")
    f_holding, f_met_plain = met_lines(sources, plain, UNTAUGHT)
    _, f_met = met_lines(sources, forced, UNTAUGHT)
    print(f"untaught terms ({len(UNTAUGHT)}): {len(f_met_plain)}/{len(f_holding)} lines without, "
          f"{len(f_met)}/{len(f_holding)} with constrained search")
    for s, t, why in sorted(set(forced_unmet)):
        print(f"  unmet: {s} -> {t} ({why})")
    ref_path = os.path.join(work, "holding.ref")
    with open(ref_path, "w") as f:
        f.write("\n".join(references[i] for i in holding) + "\n")
    b_plain = bleu(a.translator, [plain[i] for i in holding], ref_path, work, "holding_plain")
    b_with = bleu(a.translator, [with_terms[i] for i in holding], ref_path, work, "holding_with")
    print(f"BLEU on the {len(holding)} lines holding a term: {b_plain:.2f} without, {b_with:.2f} with the glossary")
    best = {k: min(v) for k, v in times.items()}
    print(f"time for {len(sources) * a.repeat} lines, best of {a.rounds}: {best['without']:.2f} s without, "
          f"{best['with']:.2f} s with the glossary ({len(holding) * a.repeat} constrained lines; "
          f"x{best['with'] / best['without']:.2f}), {best['untaught']:.2f} s with the untaught terms "
          f"({len(f_holding) * a.repeat} lines; x{best['untaught'] / best['without']:.2f})")
    # Every line whose terms the model can write must hold them all.
    missing = [i for i in holding if i not in met_with and not any(
        has_source_term(sources[i], en) and en in unwritable for en, _ in terms)]
    f_missing = [i for i in f_holding if i not in f_met and not any(
        has_source_term(sources[i], en) and en in unwritable for en, _ in UNTAUGHT)]
    if missing or f_missing:
        print(f"FAIL: {len(missing) + len(f_missing)} line(s) lack a term the model can write")
        failed = True
    if b_with < b_plain - 1:
        print("FAIL: BLEU with the glossary is lower by more than 1")
        failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
