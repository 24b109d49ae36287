#!/usr/bin/python3
"""CTranslate2's side of bench/ct2_compare.py, run by it in a child process whose
PYTHONPATH names CTranslate2's package:

    ct2_worker.py types                       compute types this CPU offers
    ct2_worker.py convert MODEL_DIR OUT TRANSLATOR
    ct2_worker.py translate --model M --src F --out PREFIX --compute-type T --beams 4,1
                  --batch N --inter I --intra J --length-penalty A [--mirror-limit]
    ct2_worker.py two_users --model M --src F --compute-type T --beam B --length-penalty A
"""
import argparse
import json
import os
import resource
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))


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


def two_users_at_once(request, lines):
    """Two users, each calling request(line) on every other line, one at a time, on its own thread:
    returns the seconds both took and every request's latency."""
    latencies = [[], []]

    def user(k):
        for line in lines[k::2]:
            start = time.perf_counter()
            request(k, line)
            latencies[k].append(time.perf_counter() - start)

    start = time.perf_counter()
    users = [threading.Thread(target=user, args=(k,)) for k in (0, 1)]
    for u in users:
        u.start()
    for u in users:
        u.join()
    return time.perf_counter() - start, latencies[0] + latencies[1]


def ct2_two_users(a):
    """Two users at once, each translating its lines one at a time (what a server with two concurrent
    users does): CTranslate2 with inter_threads 2 x intra_threads 1, each user on its own Python thread
    (translate_batch releases the GIL). Prints one JSON line: every request's latency in seconds."""
    import sentencepiece as spm
    lines = open(a.src, encoding="utf-8").read().splitlines()
    sp_src = spm.SentencePieceProcessor(model_file=os.path.join(a.model, "src.spm.model"))
    sp_tgt = spm.SentencePieceProcessor(model_file=os.path.join(a.model, "tgt.spm.model"))
    max_len = json.load(open(os.path.join(a.model, "nmt_model.json")))["max_len"]
    translator = load_translator(a.model, a.compute_type, 2, 1)

    def one(line):
        tokens = sp_src.encode([line], out_type=str)
        limit = max(1, min(int(1.5 * len(tokens[0])) + 10, max_len) - 1)
        r = translator.translate_batch(tokens, beam_size=a.beam, length_penalty=a.length_penalty,
                                       max_decoding_length=limit, max_input_length=0)
        return sp_tgt.decode(r[0].hypotheses[0])

    for line in lines[:8]:
        one(line)  # warm-up
    seconds, latencies = two_users_at_once(lambda k, line: one(line), lines)
    print(json.dumps(dict(seconds=seconds, latencies=latencies)), flush=True)


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
    elif argv[0] == "two_users":
        ap = argparse.ArgumentParser()
        for name in ("--model", "--src", "--compute-type"):
            ap.add_argument(name, required=True)
        ap.add_argument("--beam", type=int, required=True)
        ap.add_argument("--length-penalty", type=float, required=True)
        ct2_two_users(ap.parse_args(argv[1:]))
    return 0


if __name__ == "__main__":
    sys.exit(worker_main(sys.argv[1:]))
