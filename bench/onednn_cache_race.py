#!/usr/bin/python3
"""Reproduces the oneDNN failure behind kernels/onednn_cache.h, in Python on the same library.

Debian 12's python3-torch links the same oneDNN (libdnnl.so.2, 2.6.3) as its
libtorch-dev. Threads each run bf16 `addmm`s of the decoder's weight shapes
with a random number of rows (1..400), so that oneDNN keeps creating
primitives; with the cache's default capacity (1,024) it also keeps evicting.
Prints the failures per configuration: threads x cache capacity (the default,
or one so large nothing is evicted - what PrimitiveCacheEvictionPause does).

    /usr/bin/python3 bench/onednn_cache_race.py [--products 4000] [--repeats 3]
"""
import argparse
import ctypes
import random
import subprocess
import sys
import threading

import torch

SHAPES = [(1536, 512), (512, 512), (2048, 512), (512, 2048), (8000, 512)]  # [out, in] of the base model's layers


def onednn():
    return ctypes.CDLL("libdnnl.so.2", mode=ctypes.RTLD_GLOBAL)


def run(threads, products, seed):
    weights = [torch.randn(n, k).bfloat16() for n, k in SHAPES]
    biases = [torch.randn(n).bfloat16() for n, _ in SHAPES]
    failures = []

    def work(worker):
        torch.set_num_threads(1)
        rng = random.Random(seed * 100 + worker)
        for _ in range(products // threads):
            j = rng.randrange(len(weights))
            x = torch.randn(rng.randint(1, 400), weights[j].shape[1]).bfloat16()
            try:
                torch.addmm(biases[j], x, weights[j].t())
            except RuntimeError as e:
                failures.append(str(e)[:80])

    pool = [threading.Thread(target=work, args=(w,)) for w in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    return failures


def one_run(threads, capacity, products, seed):
    """Runs in a child process (a run may crash): prints its failures as one line."""
    lib = onednn()
    lib.dnnl_set_primitive_cache_capacity(capacity)
    failures = run(threads, products, seed)
    print(len(failures), failures[0] if failures else "-")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--products", type=int, default=4000, help="bf16 products per run, split over the threads")
    parser.add_argument("--repeats", type=int, default=3, help="runs (processes) per configuration")
    parser.add_argument("--one", type=int, nargs=4, help=argparse.SUPPRESS)  # threads capacity products seed
    args = parser.parse_args()
    if args.one:
        one_run(*args.one)
        return
    default = ctypes.c_int()
    onednn().dnnl_get_primitive_cache_capacity(ctypes.byref(default))
    print(f"torch {torch.__version__}, oneDNN primitive cache capacity {default.value} by default")
    print("| threads | cache capacity | products | failed products | crashed runs | first failure |")
    print("|---|---|---|---|---|---|")
    for threads in (1, 2):
        for capacity in (default.value, 1 << 20):
            failed, crashed, first = 0, 0, "-"
            for seed in range(args.repeats):
                child = subprocess.run([sys.executable, __file__, "--one", str(threads), str(capacity),
                                        str(args.products), str(seed)], capture_output=True, text=True)
                if child.returncode != 0:
                    crashed += 1
                    first = first if first != "-" else f"exit {child.returncode}"
                    continue
                count, what = child.stdout.strip().split(" ", 1)
                failed += int(count)
                first = first if first != "-" else what
            print(f"| {threads} | {capacity} | {args.products * args.repeats} | {failed} | {crashed} | {first} |",
                  flush=True)


if __name__ == "__main__":
    main()
