#!/usr/bin/python3
"""Does CTranslate2's own Translator run what `translator --export ct2` writes as we do?

    PYTHONPATH=$CT2_ROOT/python bench/ct2_export_check.py MODEL_DIR SRC_FILE [LINES]
    PYTHONPATH=$CT2_ROOT/python bench/ct2_export_check.py --argos PACKAGE_DIR SRC_FILE [LINES]

Exports MODEL_DIR (a model directory of ours) with `build/translator --export ct2`, translates the
first LINES (default 500) lines of SRC_FILE with CTranslate2 (its text cut by the exported
source.spm, its output joined by target.spm) and with our translator, both in float32 without
length penalty, beam 4 and greedy, each line with the same output limit, and prints how many
lines and scores agree. Needs CTranslate2's Python package (built from its sources as
bench/ct2_compare.py's docstring says) and python3-sentencepiece; prints figures, asserts nothing.

--argos: an Argos Translate package folder (one `translator --export argos` wrote, or any), its
lines translated by CTranslate2 called as argos-translate calls it (SentencePiece pieces,
beam 4, length penalty 0.2, unknowns replaced, the pieces joined back by SentencePiece) and
by our translator with the package's own defaults; prints how many lines agree.
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TRANSLATOR = os.path.join(HERE, "..", "build", "translator")


def ours(model_dir, lines, beam, path):
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    out = subprocess.run([TRANSLATOR, "--model", model_dir, "--input", path, "--beam", str(beam), "--with-scores",
                          "--length-penalty", "0", "--precision", "fp32", "--no-coverage-check",
                          "--max-piece-tokens", "10000", "--threads", "2"],
                         check=True, capture_output=True, text=True).stdout.splitlines()
    rows = [line.split(" ||| ") for line in out]
    return [r[1] for r in rows], [float(r[2]) for r in rows]


def theirs(ct2_dir, lines, beam, max_len):
    import ctranslate2
    import sentencepiece as spm
    src = spm.SentencePieceProcessor(model_file=os.path.join(ct2_dir, "source.spm"))
    tgt = spm.SentencePieceProcessor(model_file=os.path.join(ct2_dir, "target.spm"))
    translator = ctranslate2.Translator(ct2_dir, device="cpu", compute_type="float32", intra_threads=2)
    texts, scores = [], []
    for tokens in src.encode(lines, out_type=str):
        # Ours: at most floor(1.5 n) + 10 tokens with the end token; CTranslate2's limit counts it too,
        # but its last step ends a hypothesis without it: one less.
        limit = max(1, min(int(1.5 * len(tokens)) + 10, max_len - 2) - 1)
        r = translator.translate_batch([tokens], beam_size=beam, length_penalty=0, min_decoding_length=0,
                                       max_decoding_length=limit, return_scores=True, max_input_length=0)[0]
        texts.append(tgt.decode(r.hypotheses[0]))
        # CTranslate2 divides by length^0 = 1: the summed log-probability, as ours without penalty.
        scores.append(r.scores[0])
    return texts, scores


def argos(package, src_file, n):
    import ctranslate2
    import sentencepiece as spm
    lines = [l.rstrip("\n") for l in open(src_file, encoding="utf-8")][:n]
    sp = spm.SentencePieceProcessor(model_file=os.path.join(package, "sentencepiece.model"))
    translator = ctranslate2.Translator(os.path.join(package, "model"), device="cpu", compute_type="float32",
                                        intra_threads=2)
    theirs = []
    for tokens in sp.encode(lines, out_type=str):
        r = translator.translate_batch([tokens], replace_unknowns=True, max_batch_size=32, batch_type="tokens",
                                       beam_size=4, num_hypotheses=1, length_penalty=0.2, return_scores=True)[0]
        text = sp.decode_pieces(r.hypotheses[0]).replace("\u2581", " ")
        theirs.append(text[1:] if text.startswith(" ") else text)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "src.txt")
        open(path, "w", encoding="utf-8").write("\n".join(lines) + "\n")
        ours = subprocess.run([TRANSLATOR, "--model", package, "--input", path, "--precision", "fp32", "--threads", "2"],
                              check=True, capture_output=True, text=True).stdout.splitlines()
    same = sum(a == b for a, b in zip(ours, theirs))
    print(f"argos-translate's call: {same}/{len(lines)} lines identical")
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if a != b and i < 50:
            print(f"  line {i + 1}: ours {a!r}\n           argos {b!r}")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--argos":
        return argos(sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 500)
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    model_dir, src_file = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 500
    lines = [l.rstrip("\n") for l in open(src_file, encoding="utf-8")][:n]
    import json
    max_len = json.load(open(os.path.join(model_dir, "config.json")))["model"]["max_len"]
    with tempfile.TemporaryDirectory() as tmp:
        ct2_dir = os.path.join(tmp, "ct2")
        subprocess.run([TRANSLATOR, "--model", model_dir, "--export", "ct2", "--out", ct2_dir], check=True,
                       stderr=subprocess.DEVNULL)
        for beam in (4, 1):
            a_text, a_score = ours(model_dir, lines, beam, os.path.join(tmp, "src.txt"))
            b_text, b_score = theirs(ct2_dir, lines, beam, max_len)
            same = sum(x == y for x, y in zip(a_text, b_text))
            diff = [abs(x - y) for x, y, s, t in zip(a_score, b_score, a_text, b_text) if s == t]
            print(f"beam {beam}: {same}/{len(lines)} lines identical; score difference on those: "
                  f"max {max(diff, default=0):.2e}, mean {sum(diff) / max(len(diff), 1):.2e}")
            worst = sorted(range(len(lines)), key=lambda i: -abs(a_score[i] - b_score[i]))[:3]
            for i in worst:
                print(f"  line {i + 1}: score ours {a_score[i]:.4f}, ct2 {b_score[i]:.4f}: {a_text[i]!r}")
            for i, (x, y) in enumerate(zip(a_text, b_text)):
                if x != y and i < 50:
                    print(f"  line {i + 1}: ours {x!r}\n  {'':{len(str(i + 1)) + 7}}ct2  {y!r}")


if __name__ == "__main__":
    main()
