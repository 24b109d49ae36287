#!/usr/bin/env python3
"""Training data at scale (docs/training.md, "Several corpora, large corpora"): for
each size, a synthetic corpus of that many pairs on disk (bench/data_bench
--phase generate: Multi30k sentences, alone or two joined, gzip), then the
trainer on it with a shared data.cache_dir, three times:

  1. a fresh run to step 20: vocabulary time, encoding time and pairs/s,
     time to the first step, peak and steady resident memory;
  2. the same run resumed (--resume) at step 20, in the middle of its
     first epoch, to step 25: time to its first step;
  3. another fresh run on the same data and cache_dir: the vocabulary and
     the id cache taken from the cache, time to the first step.

Memory is read from /proc/PID/status every 0.1 s: VmRSS, and its anonymous
part RssAnon (the process's own memory, without the memory-mapped id cache
and libraries, which RssFile counts). "Peak beyond the mapped ids" is the
highest RssAnon. Disk: the text, the id cache and the vocabulary.

  bench/corpus_scale.py OUT_DIR [PAIRS ...]     (default 1000000 5000000 20000000)

The sentences come from NMT_MULTI30K (default data/multi30k from scripts/get_data.sh, its
train.de.gz and train.en.gz); without them, from a toy language.

Run from the repository root after scripts/build.sh (build/trainer and
build/data_bench). A size's corpus is generated once and kept in OUT_DIR.
"""
import json
import os
import re
import subprocess
import sys
import time

BUILD = os.environ.get("NMT_BUILD_DIR", "build")
MULTI30K = os.path.abspath(os.environ.get("NMT_MULTI30K", "data/multi30k"))


def status_kib(pid, key):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def train_lines(metrics):
    try:
        with open(metrics) as f:
            return sum(1 for line in f if '"type":"train"' in line)
    except OSError:
        return 0


def run_trainer(args, out_dir, log_path):
    """Runs the trainer; returns seconds to its first new training line, the
    run's seconds, peak VmRSS, peak RssAnon and the RssAnon samples taken
    once it trains."""
    metrics = os.path.join(out_dir, "metrics.jsonl")
    before = train_lines(metrics)
    start = time.monotonic()
    with open(log_path, "w") as log:
        proc = subprocess.Popen([f"{BUILD}/trainer"] + args, stdout=log, stderr=subprocess.STDOUT)
    first_step = None
    peak_rss = peak_anon = 0
    steady = []
    while proc.poll() is None:
        rss, anon = status_kib(proc.pid, "VmRSS"), status_kib(proc.pid, "RssAnon")
        if rss:
            peak_rss = max(peak_rss, rss)
        if anon:
            peak_anon = max(peak_anon, anon)
        if first_step is None and train_lines(metrics) > before:
            first_step = time.monotonic() - start
        if first_step is not None and anon:
            steady.append(anon)
        time.sleep(0.1)
    if proc.returncode != 0:
        sys.exit(f"trainer failed ({proc.returncode}); see {log_path}")
    if first_step is None and train_lines(metrics) > before:
        first_step = time.monotonic() - start
    return {"first_step_s": first_step, "seconds": time.monotonic() - start, "peak_rss_mib": peak_rss / 1024,
            "peak_anon_mib": peak_anon / 1024,
            "steady_anon_mib": sorted(steady)[len(steady) // 2] / 1024 if steady else float("nan")}


def log_figures(log_path):
    text = open(log_path).read()
    figures = {}
    m = re.search(r"vocabulary trained in ([\d.]+) s", text)
    figures["vocab_s"] = float(m.group(1)) if m else 0.0
    figures["vocab_cached"] = "vocabulary copied from the data cache" in text
    m = re.search(r"corpus 1 \(.*encoded in ([\d.]+) s \((\d+) pairs/s\)", text)
    figures["encode_s"] = float(m.group(1)) if m else 0.0
    figures["encode_pairs_per_s"] = int(m.group(2)) if m else 0
    figures["ids_reused"] = bool(re.search(r"corpus 1 \(.*id cache .* reused", text))
    return figures


def mib(path):
    if os.path.isdir(path):
        return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs) / 2**20
    return os.path.getsize(path) / 2**20 if os.path.exists(path) else 0.0


def config_for(work):
    return {
        "data": {"train_src": f"{work}/gen.de.gz", "train_tgt": f"{work}/gen.en.gz", "max_len": 100,
                 "cache_dir": f"{work}/cache"},
        "vocab": {"size": 8000, "type": "bpe", "joint": True},
        "model": {"d_model": 64, "n_head": 4, "ffn_hidden": 128, "n_layers": 1, "max_len": 256},
        "train": {"epochs": 1, "max_steps": 20, "batch_tokens": 2048, "threads": 2, "seed": 1, "log_every_steps": 1,
                  "warmup_steps": 100},
        "checkpoint": {"every_steps": 20, "keep_last": 1},
        "valid": {"every_steps": 100000, "bleu": False},
    }


def measure(out, pairs):
    work = os.path.abspath(os.path.join(out, str(pairs)))
    os.makedirs(work, exist_ok=True)
    if not os.path.exists(f"{work}/gen.en.gz"):
        subprocess.run([f"{BUILD}/data_bench", "--phase", "generate", "--pairs", str(pairs), "--work", work,
                        "--multi30k", MULTI30K], check=True)
    subprocess.run(["rm", "-rf", f"{work}/cache", f"{work}/run1", f"{work}/run2"], check=True)
    config = f"{work}/config.json"
    with open(config, "w") as f:
        json.dump(config_for(work), f, indent=2)
    first = run_trainer(["--config", config, "--out", f"{work}/run1"], f"{work}/run1", f"{work}/run1.log")
    first.update(log_figures(f"{work}/run1.log"))
    resumed = run_trainer(["--config", config, "--out", f"{work}/run1", "--resume", "--set", "train.max_steps=25"],
                          f"{work}/run1", f"{work}/resume.log")
    second = run_trainer(["--config", config, "--out", f"{work}/run2", "--set", "train.max_steps=5"],
                         f"{work}/run2", f"{work}/run2.log")
    second.update(log_figures(f"{work}/run2.log"))
    ids = [os.path.join(f"{work}/cache", f) for f in os.listdir(f"{work}/cache") if f.endswith(".ids")]
    return {"pairs": pairs, "text_mib": mib(f"{work}/gen.de.gz") + mib(f"{work}/gen.en.gz"),
            "ids_mib": sum(mib(p) for p in ids), "vocab_mib": mib(f"{work}/run1/vocab"),
            "first": first, "resumed": resumed, "second": second}


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    sizes = [int(s) for s in sys.argv[2:]] or [1000000, 5000000, 20000000]
    rows = []
    for pairs in sizes:
        row = measure(out, pairs)
        rows.append(row)
        print(json.dumps(row), flush=True)
    with open(os.path.join(out, "corpus_scale.json"), "w") as f:
        json.dump(rows, f, indent=2)
    print()
    print("| pairs | text gz | id cache | vocab s | encode s (pairs/s) | first step s | peak RSS | peak beyond "
          "mapped ids | steady beyond ids | resume: first step s | 2nd run: first step s (encoding) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        f, res, sec = r["first"], r["resumed"], r["second"]
        print(f"| {r['pairs']:,} | {r['text_mib']:,.0f} MiB | {r['ids_mib']:,.0f} MiB | {f['vocab_s']:.0f} | "
              f"{f['encode_s']:.0f} ({f['encode_pairs_per_s']:,}) | {f['first_step_s']:.0f} | "
              f"{f['peak_rss_mib']:,.0f} MiB | {f['peak_anon_mib']:,.0f} MiB | {f['steady_anon_mib']:,.0f} MiB | "
              f"{res['first_step_s']:.1f} | {sec['first_step_s']:.1f} "
              f"({'skipped' if sec['ids_reused'] and sec['vocab_cached'] else 'NOT skipped'}) |")
    base = rows[0]["first"]["peak_anon_mib"]
    for r in rows[1:]:
        print(f"peak beyond the mapped ids at {r['pairs']:,} pairs: {r['first']['peak_anon_mib'] / base:.3f}x "
              f"that at {rows[0]['pairs']:,}")


if __name__ == "__main__":
    main()
