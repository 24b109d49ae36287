#!/usr/bin/python3
"""The Python peer of bench/train_speed_bench: the same training step in plain PyTorch.

torch.nn.Transformer (Pre-LN, batch_first) with a shared, tied token embedding
scaled by sqrt(d_model), sinusoid positions, an output layer, label-smoothed
cross-entropy (ignoring pad), gradient clipping and Adam - the model and step
of our trainer, written the way a PyTorch user writes it. bf16 is one line of
CPU autocast around the forward pass, as PyTorch recommends.

It reads the token batches the C++ benchmark wrote (torch.load of a list of
[src, trg_in, gold] int64 tensors), trains on them for --warmup untimed and
--steps timed steps, cycling through the batches, and prints one JSON line:
{"tokens_per_s": ..., "seconds": ..., "tokens": ..., "steps": ...}.
Run it under Debian's /usr/bin/python3 (python3-torch).
"""
import argparse
import json
import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

PAD = 1


class PeerModel(nn.Module):
    def __init__(self, vocab, d_model, heads, ffn, layers, dropout, max_len=256):
        super().__init__()
        self.d_model = d_model
        self.emb = nn.Embedding(vocab, d_model, padding_idx=PAD)
        self.transformer = nn.Transformer(
            d_model=d_model, nhead=heads, num_encoder_layers=layers, num_decoder_layers=layers,
            dim_feedforward=ffn, dropout=dropout, batch_first=True, norm_first=True)
        self.out = nn.Linear(d_model, vocab)
        self.out.weight = self.emb.weight  # tied, as our recipe configs do
        pos = torch.arange(max_len, dtype=torch.float).unsqueeze(1)
        div = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, d_model)
        pe[:, 0::2] = torch.sin(pos * div)
        pe[:, 1::2] = torch.cos(pos * div)
        self.register_buffer("pe", pe)
        self.drop = nn.Dropout(dropout)

    def embed(self, ids):
        return self.drop(self.emb(ids) * math.sqrt(self.d_model) + self.pe[: ids.size(1)])

    def forward(self, src, trg):
        causal = self.transformer.generate_square_subsequent_mask(trg.size(1))
        h = self.transformer(self.embed(src), self.embed(trg), tgt_mask=causal,
                             src_key_padding_mask=src.eq(PAD), tgt_key_padding_mask=trg.eq(PAD),
                             memory_key_padding_mask=src.eq(PAD))
        return self.out(h)


def resident_kib(field="VmRSS"):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def train_for(a, step, batches):
    """--minutes: the memory run of bench/train_memory_peer.sh; prints steps, tokens/s and peak RSS."""
    log = open(a.rss_log, "w") if a.rss_log else None
    start = time.perf_counter()
    next_sample, steps, tokens = 0.0, 0, 0
    while True:
        elapsed = time.perf_counter() - start
        if elapsed >= next_sample and log:
            log.write(f"{int(elapsed)} {resident_kib()} {steps}\n")
            log.flush()
            next_sample += 15
        if elapsed >= 60 * a.minutes:
            break
        tokens += step(*batches[steps % len(batches)])
        steps += 1
    print(json.dumps({"steps": steps, "tokens_per_s": tokens / elapsed, "seconds": elapsed,
                      "peak_rss_mib": resident_kib("VmHWM") / 1024}))


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--batches", required=True)
    p.add_argument("--vocab", type=int, required=True)
    p.add_argument("--d-model", type=int, required=True)
    p.add_argument("--heads", type=int, required=True)
    p.add_argument("--ffn", type=int, required=True)
    p.add_argument("--layers", type=int, required=True)
    p.add_argument("--dropout", type=float, default=0.1)
    p.add_argument("--precision", choices=["fp32", "bf16"], default="fp32")
    p.add_argument("--threads", type=int, default=1, help="ATen (OpenMP) threads")
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--minutes", type=float, default=0,
                   help="train this long instead of --steps, through the batches in order, cycling")
    p.add_argument("--rss-log", help="with --minutes: 'seconds resident_KiB steps' every 15 s to this file")
    a = p.parse_args()

    torch.set_num_threads(a.threads)
    torch.manual_seed(1)
    batches = torch.load(a.batches)
    model = PeerModel(a.vocab, a.d_model, a.heads, a.ffn, a.layers, a.dropout)
    model.train()
    opt = torch.optim.Adam(model.parameters(), lr=1e-4, betas=(0.9, 0.98), eps=1e-9)

    def step(src, trg_in, gold):
        opt.zero_grad()
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=a.precision == "bf16"):
            logits = model(src, trg_in)
        loss = F.cross_entropy(logits.float().reshape(-1, a.vocab), gold.reshape(-1), ignore_index=PAD,
                               label_smoothing=0.1, reduction="sum")
        tokens = int(gold.ne(PAD).sum())
        (loss / tokens).backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        return tokens

    if a.minutes > 0:
        train_for(a, step, batches)
        return
    for i in range(a.warmup):
        step(*batches[i % len(batches)])
    tokens = 0
    start = time.perf_counter()
    for i in range(a.steps):
        tokens += step(*batches[(a.warmup + i) % len(batches)])
    seconds = time.perf_counter() - start
    print(json.dumps({"tokens_per_s": tokens / seconds, "seconds": seconds, "tokens": tokens, "steps": a.steps}))


if __name__ == "__main__":
    main()
