#!/usr/bin/python3
"""Our decoding beside CTranslate2's, on the same model and the same sentences.

    CT2_PYTHONPATH=DIR bench/ct2_compare.py MODEL_DIR SRC REF [--limit N] [--threads 2]
        [--beams 4,1] [--batches 32,1] [--batch1-lines 200] [--parallel 1,2] [--precisions fp32,bf16,int8]
        [--ct2-types auto] [--repeat 3]
    CT2_PYTHONPATH=DIR bench/ct2_compare.py --equal MODEL_DIR SRC [--limit 1000]
    CT2_PYTHONPATH=DIR bench/ct2_compare.py --sample [options as above]
    CT2_PYTHONPATH=DIR bench/ct2_compare.py --sample --imported [options as above]

--sample compares on the sample recipe's model (`configs/sample.json`: d128, 3+3, pre-norm,
a joint vocabulary of 1,000), the model a new user trains first, in runs/sample (--sample-dir),
trained there first (about 2 minutes on 2 cores) when it holds no finished training, with the
500 lines of examples/sample/test.en and test.de.

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
--imported: ours then decodes not the model directory but that CTranslate2 model read back
by `translator --import` (WORK/imported: what a user who brings a CTranslate2 model runs),
so that both engines run the same CTranslate2 model.

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
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def child_env():
    env = dict(os.environ)
    for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        env.pop(k, None)
    env["PYTHONPATH"] = os.environ.get("CT2_PYTHONPATH", "")
    return env


def worker(args):
    """Runs bench/ct2_worker.py in a child with CTranslate2 importable; returns its stdout."""
    r = subprocess.run([sys.executable, os.path.join(HERE, "ct2_worker.py")] + args, env=child_env(),
                       stdout=subprocess.PIPE, check=True, text=True)
    return r.stdout


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


def model_max_len(model_dir):
    with open(os.path.join(model_dir, "config.json"), encoding="utf-8") as f:
        return json.load(f)["model"]["max_len"]


def equal(a, ct2_model, src):
    lines = open(src, encoding="utf-8").read().splitlines()
    for beam in (4, 1):
        ours_out = os.path.join(a.work, "ours.beam%d.txt" % beam)
        subprocess.run([os.path.join(a.build, "translator"), "--model", a.model, "--input", src, "--output", ours_out,
                        "--beam", str(beam), "--length-penalty", "0", "--precision", "fp32", "--with-scores",
                        # The engines' searches alone: no piece split at clauses, no coverage check.
                        "--no-coverage-check", "--max-piece-tokens", str(model_max_len(a.model) - 2),
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


def cpu_description():
    """The CPU's model name and the flags that decide which of our kernels and precisions run."""
    model, flags = "CPU ?", set()
    with open("/proc/cpuinfo", encoding="utf-8") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key.strip() == "model name":
                model = value.strip()
            elif key.strip() == "flags":
                flags = set(value.split())
    wanted = ("avx2", "fma", "avx512f", "avx512bw", "avx512_vnni", "avx_vnni", "avx512_bf16", "amx_bf16", "amx_int8")
    have = [f for f in wanted if f in flags]
    missing = [f for f in wanted if f not in flags]
    return "%s (%d cores; flags: %s; without %s)" % (model, os.cpu_count() or 0, " ".join(have) or "-",
                                                   " ".join(missing) or "-")


def import_ct2_model(a, ct2_model):
    """The CTranslate2 model read back by `translator --import` (its SentencePiece models beside it
    under the names OPUS-MT's conversions use); returns the imported directory."""
    import shutil
    folder, imported = os.path.join(a.work, "ct2_to_import"), os.path.join(a.work, "imported")
    for d in (folder, imported):
        shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(ct2_model, folder)
    shutil.copy(os.path.join(ct2_model, "src.spm.model"), os.path.join(folder, "source.spm"))
    shutil.copy(os.path.join(ct2_model, "tgt.spm.model"), os.path.join(folder, "target.spm"))
    subprocess.run([os.path.join(a.build, "translator"), "--import", folder, "--out", imported], check=True,
                   stdout=subprocess.DEVNULL)
    print("ours decodes %s, imported from the CTranslate2 conversion" % imported, flush=True)
    return imported


def ensure_sample_model(a):
    """Trains the sample recipe into a.model unless a finished training is there."""
    if os.path.exists(os.path.join(a.model, "decoding.json")):
        return
    print("training the sample recipe (configs/sample.json) into %s" % a.model, flush=True)
    resume = ["--resume"] if os.path.exists(os.path.join(a.model, "checkpoints", "last.pt")) else []
    subprocess.run([os.path.join(a.build, "trainer"), "--config", "configs/sample.json", "--out", a.model] + resume,
                   env=child_env(), check=True, stdout=subprocess.DEVNULL)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model", nargs="?")
    ap.add_argument("src", nargs="?")
    ap.add_argument("ref", nargs="?")
    ap.add_argument("--sample", action="store_true", help="the sample recipe's model (trained if missing)")
    ap.add_argument("--sample-dir", default="runs/sample")
    ap.add_argument("--equal", action="store_true")
    ap.add_argument("--imported", action="store_true",
                    help="ours decodes the CTranslate2 conversion read back by translator --import")
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
    if a.sample:
        a.model, a.src, a.ref = a.sample_dir, "examples/sample/test.en", "examples/sample/test.de"
        ensure_sample_model(a)
    if not a.model or not a.src:
        ap.error("give MODEL_DIR and SRC (or --sample)")
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
    if a.imported:
        a.model = import_ct2_model(a, ct2_model)
    print("%s; %d threads; OpenBLAS settings unset" % (cpu_description(), a.threads), flush=True)
    if a.equal:
        equal(a, ct2_model, src)
    else:
        speed(a, ct2_model, src, ref)
    return 0


if __name__ == "__main__":
    sys.exit(main())
