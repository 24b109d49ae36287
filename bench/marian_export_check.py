#!/usr/bin/python3
"""Does CTranslate2's own Marian converter read what `translator --export marian` writes, and
translate it as we do?

    PYTHONPATH=$CT2_ROOT/python bench/marian_export_check.py [MARIAN_DIR ...]

For each Marian folder (default: the fixtures in tests/fixtures/marian), reads it with our
translator, writes it back with `build/translator --export marian`, converts that export with
CTranslate2's OpusMTConverter (the converter OPUS-MT users run), and translates the fixture
sources with CTranslate2 (float32, beam 2, length penalty 1, at most 20 tokens) and with our
translator on the export (the same search); prints how many hypotheses agree (as text: tokens
joined by spaces, as both write them) and the largest score difference. Needs CTranslate2's Python package, built from its sources as
bench/ct2_compare.py's docstring says; prints figures, asserts nothing.
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
TRANSLATOR = os.path.join(ROOT, "build", "translator")
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "marian")


def ours(model_dir, sources, tmp, target_lang):
    path = os.path.join(tmp, "src.txt")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(" ".join(s) for s in sources) + "\n")
    args = [TRANSLATOR, "--model", model_dir, "--input", path, "--beam", "2", "--with-scores", "--length-penalty", "1",
            "--length-penalty-form", "power", "--min-length", "1", "--max-len-a", "0", "--max-len-b", "20",
            "--precision", "fp32", "--no-coverage-check", "--max-piece-tokens", "10000"]
    if target_lang:
        args += ["--target-lang", target_lang]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout.splitlines()
    rows = [line.split(" ||| ") for line in out]
    return [r[1] for r in rows], [float(r[2]) for r in rows]


def main():
    import ctranslate2
    from ctranslate2.converters import OpusMTConverter

    folders = sys.argv[1:] or [os.path.join(FIXTURES, n) for n in sorted(os.listdir(FIXTURES))
                                if os.path.exists(os.path.join(FIXTURES, n, "decoder.yml"))]
    expected = json.load(open(os.path.join(FIXTURES, "expected.json")))
    for folder in folders:
        name = os.path.basename(folder.rstrip("/"))
        sources = expected["variants"].get(name, {}).get("sources") or [["w1", "w2", "w3"], ["w4", "w5"]]
        tag = sources[0][0] if sources[0][0].startswith(">>") else ""
        with tempfile.TemporaryDirectory() as tmp:
            exported, converted = os.path.join(tmp, "exported"), os.path.join(tmp, "converted")
            subprocess.run([TRANSLATOR, "--model", folder, "--export", "marian", "--out", exported], check=True,
                           capture_output=True)
            OpusMTConverter(exported).convert(converted)
            translator = ctranslate2.Translator(converted, device="cpu", compute_type="float32", intra_threads=1)
            results = translator.translate_batch(sources, beam_size=2, max_decoding_length=20, return_scores=True)
            bare = [s[1:] if tag else s for s in sources]
            tokens, scores = ours(exported, bare, tmp, tag[2:-2] if tag else "")
            compared = [i for i, r in enumerate(results) if len(r.hypotheses[0]) < 20]
            same = sum(1 for i in compared if " ".join(results[i].hypotheses[0]) == tokens[i])
            gap = max((abs(results[i].scores[0] - scores[i]) for i in compared), default=0.0)
            print("%-26s %d/%d hypotheses the same, largest score difference %.2e (%d at the limit, not compared)"
                  % (name, same, len(compared), gap, len(results) - len(compared)))


if __name__ == "__main__":
    main()
