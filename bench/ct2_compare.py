#!/usr/bin/python3
"""Our decoding beside CTranslate2's, on the same model and the same sentences.

    CT2_PYTHONPATH=DIR bench/ct2_compare.py MODEL_DIR SRC REF [--limit N] [--threads 2]
        [--beams 4,1] [--batches 32,1] [--batch1-lines 200] [--parallel 1,2] [--precisions fp32,bf16,int8]
        [--ct2-types auto] [--repeat 3]
    CT2_PYTHONPATH=DIR bench/ct2_compare.py --equal MODEL_DIR SRC [--limit 1000]

DIR holds the `ctranslate2` Python package with its compiled extension. Without
CT2_PYTHONPATH, or when the package does not import from it, the script says so and
exits 0: nothing to compare with. To build CTranslate2 on a Debian 12 machine (no MKL
there: oneDNN and GNU OpenMP), from a checkout of github:OpenNMT/CTranslate2 with its
third_party submodules:
    apt-get install cmake ninja-build g++ libdnnl-dev pybind11-dev python3-dev python3-numpy python3-yaml \
        python3-sentencepiece python3-torch
    cmake -S CTranslate2 -B ct2-build -G Ninja -DCMAKE_BUILD_TYPE=Release -DWITH_MKL=OFF -DWITH_DNNL=ON \\
          -DOPENMP_RUNTIME=COMP -DWITH_CUDA=OFF -DCMAKE_INSTALL_PREFIX=$PWD/ct2 && cmake --build ct2-build \\
          && cmake --install ct2-build
then compile CTranslate2/python/cpp/*.cc against it with pybind11 into
ct2/python/ctranslate2/_ext$(python3-config --extension-suffix) beside a copy of
CTranslate2/python/ctranslate2, and point CT2_PYTHONPATH at ct2/python. (Debian's
oneDNN is 2.6: its Conv1D, used by Whisper only, needs oneDNN 3; disable it.)

The model is converted into WORK/ct2_model by bench/ct2_convert.py (our reference-named
export through `translator --export-state-dict`, mapped onto CTranslate2's TransformerSpec).

Speed (default): for each P in --parallel, ours is decode_bench (--threads T
--parallel-batches P) and CTranslate2 runs inter_threads P x intra_threads T/P; both
translate every line, SentencePiece included, after 8 warm-up lines, batches of
--batches sentences sorted by length (CTranslate2 gets our batches, each with our output
limit of its longest line: floor(1.5 x source) + 10 tokens, end included); target tokens
count the end token. Length
penalties differ (ours GNMT ((5+L)/6)^a, theirs L^a): ours 0.6 against theirs 0.5,
which have the same slope at 20 tokens. Each row runs --repeat times, the two engines in
turn, and keeps its fastest run (this machine's speed drifts by tens of percent within
minutes). Prints every row, ours/theirs ratios in target
tokens per second (best precision of each, and fp32/float32), BLEU of both
(`translator --score`), and the peak resident memory of each (CTranslate2: of its
process, model loading included; ours: decode_bench's per-row peak, likewise).

Equality (--equal): both in fp32 with no length penalty (where the two agree), beam 4
and greedy, our output limit floor(1.5 x source) + 10 mirrored on CTranslate2's side;
counts identical lines, lists the others with both model scores, and counts lines
where our best hypothesis scores lower than CTranslate2's by more than 0.01 (it never
should: without a length penalty both searches stop only when nothing live can win).

Time with OpenBLAS's settings unset, as users run (`env -u OPENBLAS_CORETYPE -u
OPENBLAS_L2_SIZE`); this script unsets them for its children.
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def child_env():
    env = dict(os.environ)
    for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        env.pop(k, None)
    env["PYTHONPATH"] = os.environ.get("CT2_PYTHONPATH", "")
    return env


def worker(args):
    """Runs this script in a child with CTranslate2 importable; returns its stdout."""
    r = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker"] + args, env=child_env(),
                       stdout=subprocess.PIPE, check=True, text=True)
    return r.stdout


# ---- in the worker (CTranslate2 imported) ----

def load_translator(model, compute_type, inter, intra):
    import ctranslate2
    box = {}

    # Loaded in a short-lived thread: with GNU OpenMP the loading thread's team would
    # otherwise stay counted, and every later parallel region pays a futex sleep and wake.
    def load():
        box["t"] = ctranslate2.Translator(model, device="cpu", compute_type=compute_type, inter_threads=inter,
                                          intra_threads=intra)

    t = threading.Thread(target=load)
    t.start()
    t.join()
    return box["t"]


def ct2_translate(a):
    """Times CTranslate2 on a file; prints one JSON line per beam and writes the outputs."""
    import sentencepiece as spm
    lines = open(a.src, encoding="utf-8").read().splitlines()
    sp_src = spm.SentencePieceProcessor(model_file=os.path.join(a.model, "src.spm.model"))
    sp_tgt = spm.SentencePieceProcessor(model_file=os.path.join(a.model, "tgt.spm.model"))
    max_len = json.load(open(os.path.join(a.model, "nmt_model.json")))["max_len"]
    translator = load_translator(a.model, a.compute_type, a.inter, a.intra)

    def run(batch_lines, beam):
        start = time.perf_counter()
        tokens = sp_src.encode(batch_lines, out_type=str)
        kw = dict(max_batch_size=a.batch, batch_type="examples", beam_size=beam, length_penalty=a.length_penalty,
                  return_scores=True, max_input_length=0)
        # Ours: at most floor(1.5 n) + 10 tokens with the end token, which it forces at the
        # limit; CTranslate2 does not count the end: its limit is one less.
        limits = [max(1, min(int(1.5 * len(t)) + 10, max_len) - 1) for t in tokens]
        results = [None] * len(tokens)
        if a.mirror_limit:  # each line its own limit: grouped by limit
            run.limits = limits
            for limit in sorted(set(limits)):
                idx = [i for i, l in enumerate(limits) if l == limit]
                for i, r in zip(idx, translator.translate_batch([tokens[i] for i in idx], max_decoding_length=limit,
                                                                **kw)):
                    results[i] = r
        else:
            # Our batches (longest source first, --batch at a time), each limited as ours limits
            # its longest line, so that neither engine decodes a degenerate repetition further
            # than the other; queued at once so that inter_threads > 1 runs them side by side.
            order = sorted(range(len(tokens)), key=lambda i: -len(tokens[i]))
            queued = []
            for first in range(0, len(order), a.batch):
                idx = order[first:first + a.batch]
                queued.append((idx, translator.translate_batch([tokens[i] for i in idx], asynchronous=True,
                                                               max_decoding_length=max(limits[i] for i in idx),
                                                               **kw)))
            for idx, pending in queued:
                for i, r in zip(idx, pending):
                    results[i] = r.result()
        texts = [sp_tgt.decode(r.hypotheses[0]) for r in results]
        return texts, results, time.perf_counter() - start

    run(lines[:8], 4)  # warm-up
    for beam in [int(b) for b in a.beams.split(",")]:
        texts, results, seconds = run(lines, beam)
        with open("%s.beam%d.txt" % (a.out, beam), "w", encoding="utf-8") as f:
            f.write("".join(t + "\n" for t in texts))
        with open("%s.beam%d.scores" % (a.out, beam), "w") as f:
            f.write("".join("%.6f\n" % r.scores[0] for r in results))
        if a.mirror_limit:  # which hypotheses stopped at the limit instead of ending
            with open("%s.beam%d.limited" % (a.out, beam), "w") as f:
                f.write("".join("%d\n" % (len(r.hypotheses[0]) >= l) for r, l in zip(results, run.limits)))
        tokens = sum(len(r.hypotheses[0]) + 1 for r in results)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(json.dumps(dict(beam=beam, seconds=seconds, sentences=len(lines), tokens=tokens,
                              tokens_per_s=tokens / seconds, peak_mib=peak)), flush=True)


# ---- in the main process ----

def ct2_compute_types(requested):
    if requested != "auto":
        return requested.split(",")
    out = worker(["types"])
    return out.split()


def our_rows(a, src, ref, lines, batch, parallel):
    cmd = [os.path.join(a.build, "decode_bench"), "--model", a.model, "--src", src, "--ref", ref, "--limit", str(lines),
           "--ratio-limit", "0", "--threads", str(a.threads), "--precisions", a.precisions, "--beams", a.beams,
           "--batches", str(batch), "--parallel-batches", str(parallel)]
    out = subprocess.run(cmd, env=child_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=True)
    rows = []
    for line in out.stdout.splitlines():
        c = [x.strip() for x in line.strip().strip("|").split("|")]
        if len(c) >= 10 and c[0] in ("fp32", "bf16", "int8"):
            rows.append(dict(engine="ours", type=c[0], beam=int(c[1]), batch=int(c[2]), parallel=parallel,
                             lines=lines, tokens_per_s=float(c[8]), peak_mib=float(c[9]),
                             bleu=float(c[11]) if len(c) > 11 and c[11] not in ("", "-") else None))
    return rows


def head(path, n, out):
    with open(path, encoding="utf-8") as f, open(out, "w", encoding="utf-8") as o:
        o.writelines(l for i, l in enumerate(f) if i < n)
    return out


def bleu_of(a, hypotheses, ref):
    out = subprocess.run([os.path.join(a.build, "translator"), "--score", ref, "--hypotheses", hypotheses],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=True).stdout
    return json.loads([l for l in out.splitlines() if l.startswith("{")][-1])["bleu"]


def ct2_rows(a, ct2_model, ct, src, ref, n, batch, parallel):
    prefix = os.path.join(a.work, "ct2.%s.p%d.b%d" % (ct, parallel, batch))
    out = worker(["translate", "--model", ct2_model, "--src", src, "--out", prefix, "--compute-type", ct, "--beams",
                  a.beams, "--batch", str(batch), "--inter", str(parallel), "--intra", str(max(1, a.threads // parallel)),
                  "--length-penalty", "0.5"])
    rows = []
    for line in out.splitlines():
        r = json.loads(line)
        rows.append(dict(engine="ct2", type=ct, beam=r["beam"], batch=batch, parallel=parallel, lines=n,
                         tokens_per_s=r["tokens_per_s"], peak_mib=r["peak_mib"],
                         bleu=bleu_of(a, "%s.beam%d.txt" % (prefix, r["beam"]), ref)))
    return rows


def speed(a, ct2_model, src, ref):
    types = ct2_compute_types(a.ct2_types)
    total = sum(1 for _ in open(src, encoding="utf-8"))
    rows = []
    for parallel in [int(p) for p in a.parallel.split(",")]:
        for batch in [int(b) for b in a.batches.split(",")]:
            # One sentence a batch takes long: fewer lines (the same on both sides).
            n = min(total, a.batch1_lines) if batch == 1 else total
            part_src = head(src, n, os.path.join(a.work, "src.%d.txt" % n))
            part_ref = head(ref, n, os.path.join(a.work, "ref.%d.txt" % n))
            # Both engines in turn, --repeat times: this machine's speed drifts within minutes,
            # and each row keeps its best run (the least disturbed one).
            for _ in range(a.repeat):
                group = our_rows(a, part_src, part_ref, n, batch, parallel)
                for ct in types:
                    group += ct2_rows(a, ct2_model, ct, part_src, part_ref, n, batch, parallel)
                for r in group:
                    key = (r["engine"], r["type"], r["beam"], r["batch"], r["parallel"])
                    kept = next((k for k in rows if (k["engine"], k["type"], k["beam"], k["batch"], k["parallel"]) == key),
                                None)
                    if kept is None:
                        rows.append(r)
                    else:
                        kept["tokens_per_s"] = max(kept["tokens_per_s"], r["tokens_per_s"])
                        kept["peak_mib"] = max(kept["peak_mib"], r["peak_mib"])
    print("| engine | type | beam | batch | batches at once | lines | tokens/s | peak MiB | BLEU |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print("| %s | %s | %d | %d | %d | %d | %.0f | %.0f | %s |" % (
            r["engine"], r["type"], r["beam"], r["batch"], r["parallel"], r["lines"], r["tokens_per_s"], r["peak_mib"],
            "-" if r["bleu"] is None else "%.2f" % r["bleu"]))
    print("\nratios of target tokens per second (best: the fastest precision or compute type of each):")
    print("\n| beam x batch | batches at once | ours best / CT2 best | ours fp32 / CT2 float32 | ours int8 / CT2 int8 |")
    print("|---|---|---|---|---|")
    for key in sorted({(r["beam"], r["batch"], r["parallel"]) for r in rows}, reverse=True):
        same = [r for r in rows if (r["beam"], r["batch"], r["parallel"]) == key]
        ours = {r["type"]: r["tokens_per_s"] for r in same if r["engine"] == "ours"}
        theirs = {r["type"]: r["tokens_per_s"] for r in same if r["engine"] == "ct2"}
        if not ours or not theirs:
            continue
        def ratio(mine, other):
            return "%.2f" % (ours[mine] / theirs[other]) if mine in ours and other in theirs else "-"
        print("| %d x %d | %d | %.2f | %s | %s |" % (key[0], key[1], key[2], max(ours.values()) / max(theirs.values()),
                                                   ratio("fp32", "float32"), ratio("int8", "int8")))


def equal(a, ct2_model, src):
    lines = open(src, encoding="utf-8").read().splitlines()
    for beam in (4, 1):
        ours_out = os.path.join(a.work, "ours.beam%d.txt" % beam)
        subprocess.run([os.path.join(a.build, "translator"), "--model", a.model, "--input", src, "--output", ours_out,
                        "--beam", str(beam), "--length-penalty", "0", "--precision", "fp32", "--with-scores",
                        "--threads", str(a.threads)], env=child_env(), check=True, stderr=subprocess.DEVNULL)
        ours = [l.split(" ||| ") for l in open(ours_out, encoding="utf-8").read().splitlines()]
        prefix = os.path.join(a.work, "ct2.equal")
        worker(["translate", "--model", ct2_model, "--src", src, "--out", prefix, "--compute-type", "float32",
                "--beams", str(beam), "--batch", "32", "--inter", "1", "--intra", str(a.threads),
                "--length-penalty", "0", "--mirror-limit"])
        theirs = open("%s.beam%d.txt" % (prefix, beam), encoding="utf-8").read().splitlines()
        their_scores = [float(s) for s in open("%s.beam%d.scores" % (prefix, beam)).read().split()]
        same = sum(o[1] == t for o, t in zip(ours, theirs))
        limited = [l.strip() == "1" for l in open("%s.beam%d.limited" % (prefix, beam))]
        # Scores compare where both hypotheses ended by themselves: at the length limit ours
        # forces the end token and counts its log-probability, CTranslate2 just stops.
        # 0.01: CTranslate2 renormalizes without pad and bos (pushed out of reach through their
        # bias), ours keeps their share out of every step: a few 1e-4 a sentence, never a search's worth.
        ended = [i for i in range(len(ours)) if not limited[i]]
        lower = [i for i in ended if float(ours[i][2]) < their_scores[i] - 0.01]
        higher = [i for i in ended if float(ours[i][2]) > their_scores[i] + 0.01]
        print("beam %d, fp32, no length penalty: %d of %d lines identical (%.1f%%); %d stopped at the length limit "
              "on CTranslate2's side; of the %d others, our best scores lower than CTranslate2's on %d, higher on %d "
              "(by more than 0.01)" % (beam, same, len(lines), 100.0 * same / max(1, len(lines)),
                                       len(lines) - len(ended), len(ended), len(lower), len(higher)))
        for i, (o, t) in enumerate(zip(ours, theirs)):
            if o[1] != t or i in lower:
                mark = " LIMIT" if limited[i] else " LOWER" if i in lower else " higher" if i in higher else ""
                print("  line %d%s: ours %s (%.4f) | ct2 %s (%.4f)" % (i + 1, mark, o[1], float(o[2]), t,
                                                                     their_scores[i]))


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        return worker_main(sys.argv[2:])
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model")
    ap.add_argument("src")
    ap.add_argument("ref", nargs="?")
    ap.add_argument("--equal", action="store_true")
    ap.add_argument("--limit", type=int, default=0, help="first N lines (0: all; --equal: 1000)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch1-lines", type=int, default=200, help="lines for the rows of batch 1")
    ap.add_argument("--beams", default="4,1")
    ap.add_argument("--batches", default="32,1")
    ap.add_argument("--parallel", default="1,2")
    ap.add_argument("--precisions", default="fp32,bf16,int8")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each row, both engines in turn; the best is kept")
    ap.add_argument("--ct2-types", default="auto", help="auto: float32, int8 and any bfloat16 this CPU offers")
    ap.add_argument("--build", default="build")
    ap.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "ct2_compare"))
    a = ap.parse_args()
    if not os.environ.get("CT2_PYTHONPATH"):
        print("ct2_compare: skipped: CT2_PYTHONPATH is not set (see the top of this file to build CTranslate2).")
        return 0
    probe = subprocess.run([sys.executable, "-c", "import sentencepiece, torch, ctranslate2; print(ctranslate2.__version__)"],
                           env=child_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if probe.returncode != 0:
        print("ct2_compare: skipped: ctranslate2 (from CT2_PYTHONPATH=%s), sentencepiece or torch does not import (%s)" % (
            os.environ["CT2_PYTHONPATH"], probe.stderr.strip().splitlines()[-1:]))
        return 0
    if not a.equal and not a.ref:
        ap.error("the speed comparison needs REF (or give --equal)")
    a.build, a.model = os.path.abspath(a.build), os.path.abspath(a.model)
    os.makedirs(a.work, exist_ok=True)
    limit = a.limit or (1000 if a.equal else 0)
    src = os.path.join(a.work, "src.txt")
    with open(a.src, encoding="utf-8") as f, open(src, "w", encoding="utf-8") as out:
        out.writelines(l for i, l in enumerate(f) if not limit or i < limit)
    ref = None
    if a.ref:
        ref = os.path.join(a.work, "ref.txt")
        with open(a.ref, encoding="utf-8") as f, open(ref, "w", encoding="utf-8") as out:
            out.writelines(l for i, l in enumerate(f) if not limit or i < limit)
    ct2_model = os.path.join(a.work, "ct2_model")
    print("CTranslate2 %s; converting %s" % (probe.stdout.strip(), a.model), flush=True)
    worker(["convert", a.model, ct2_model, os.path.join(a.build, "translator")])
    cpu = [l for l in subprocess.run(["lscpu"], stdout=subprocess.PIPE, text=True).stdout.splitlines()
           if l.startswith("Model name")]
    print("%s; %d threads; OpenBLAS settings unset" % (cpu[0].split(":", 1)[1].strip() if cpu else "CPU ?", a.threads),
          flush=True)
    if a.equal:
        equal(a, ct2_model, src)
    else:
        speed(a, ct2_model, src, ref)
    return 0


def worker_main(argv):
    if argv[0] == "types":
        import ctranslate2
        have = ctranslate2.get_supported_compute_types("cpu")
        print(" ".join(t for t in ("float32", "int8", "bfloat16", "int8_bfloat16") if t in have))
    elif argv[0] == "convert":
        sys.path.insert(0, HERE)
        from ct2_convert import convert
        convert(*argv[1:4])
    elif argv[0] == "translate":
        ap = argparse.ArgumentParser()
        for name in ("--model", "--src", "--out", "--compute-type", "--beams"):
            ap.add_argument(name, required=True)
        for name in ("--batch", "--inter", "--intra"):
            ap.add_argument(name, type=int, required=True)
        ap.add_argument("--length-penalty", type=float, required=True)
        ap.add_argument("--mirror-limit", action="store_true")
        ct2_translate(ap.parse_args(argv[1:]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
