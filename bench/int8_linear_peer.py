#!/usr/bin/python3
"""Is int8 worth it for decoding here? Dynamic int8 quantization of a linear
layer (torch.ao.quantization.quantize_dynamic, the quantized engines this
LibTorch has: Debian's build carries onednn and qnnpack, not FBGEMM) against
the same layer in bf16 (weights cast once, as decoding keeps them) and fp32,
for the matrix shapes of a base-model decoding step: 512 -> 1536 (Q/K/V),
512 -> 512, 512 -> 2048 and 2048 -> 512 (the feed-forward), 512 -> 8000 (the
output layer), at 128 rows (32 sentences x beam 4), 32 and 4 rows (the tail
of a batch). Prints one table row per shape: milliseconds per product and the
largest difference from fp32. Run it under Debian's /usr/bin/python3
(python3-torch, the same PyTorch 1.13 build as libtorch-dev).

  bench/int8_linear_peer.py [--threads 2] [--repeat 200]
"""
import argparse
import time

import torch

SHAPES = [(512, 1536), (512, 512), (512, 2048), (2048, 512), (512, 8000)]


def ms_per_call(fn, repeat):
    for _ in range(10):
        fn()
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - start) / repeat * 1e3


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    engines = [e for e in ("onednn", "qnnpack") if e in torch.backends.quantized.supported_engines]
    print(f"PyTorch {torch.__version__}, {args.threads} threads, quantized engines: {engines}")
    print("| rows | in x out | fp32 ms | bf16 ms | " + " | ".join(f"int8 {e} ms (max diff)" for e in engines) + " |")
    print("|---|---|---|---|" + "---|" * len(engines))
    torch.manual_seed(0)
    with torch.no_grad():
        for rows in (128, 32, 4):
            for k, n in SHAPES:
                layer = torch.nn.Linear(k, n)
                x = torch.randn(rows, k)
                ref = layer(x)
                fp32 = ms_per_call(lambda: layer(x), args.repeat)
                xb, wb, bb = x.bfloat16(), layer.weight.bfloat16(), layer.bias.bfloat16()
                bf16 = ms_per_call(lambda: torch.nn.functional.linear(xb, wb, bb), args.repeat)
                cells = []
                for engine in engines:
                    torch.backends.quantized.engine = engine
                    q = torch.ao.quantization.quantize_dynamic(torch.nn.Sequential(layer), {torch.nn.Linear},
                                                               dtype=torch.qint8)
                    t = ms_per_call(lambda: q(x), args.repeat)
                    cells.append(f"{t:.3f} ({(q(x) - ref).abs().max().item():.1e})")
                print(f"| {rows} | {k} x {n} | {fp32:.3f} | {bf16:.3f} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
