#!/usr/bin/env python3
"""Validation BLEU against target tokens processed, one line per training run,
as an SVG chart: the picture that compares recipes at the same token budget.

    bench/bleu_curves.py OUT.svg "TITLE" NAME=RUN_DIR[:TOKENS_RUN_DIR][@SHARE][+START] ...

Each line is the greedy validation BLEU logged during training (metrics.jsonl
"valid" records); the dot at its end is decoding.json's BLEU, the checkpoint,
beam and length penalty the translator uses by default. x is the target tokens
the run's steps had processed at each validation (metrics.jsonl's
"target_tokens" in the record, else in the train record of that step, else
train.log's closing count). A run from before that count was logged borrows it from
TOKENS_RUN_DIR, a run of the same data, vocabulary size, batch size and seed
(so the same batches step for step). @SHARE scales a run's x by the share of
its target tokens that the plotted direction had: @0.5 for a model trained on
two directions in equal parts, drawn against the tokens of the direction its
validation set measures. +START (millions) moves a fine-tuning run's line to
begin where its starting checkpoint had left off: the plotted direction's
tokens already in it.
"""
import json
import os
import re
import sys

from svg_lines import line_chart


def records(run, kind):
    with open(os.path.join(run, "metrics.jsonl")) as f:
        return [r for r in map(json.loads, f) if r.get("type") == kind]


def tokens_by_step(run):
    return {r["step"]: r["target_tokens"] for r in records(run, "train") if "target_tokens" in r}


def finished_tokens(run):
    """(step, tokens) from train.log's "training finished at step N (budget of B target tokens reached: T processed)"."""
    match = None
    with open(os.path.join(run, "train.log")) as f:
        for line in f:
            match = re.search(r"finished at step (\d+) \(budget of \d+ target tokens reached: (\d+) processed", line) or match
    return {int(match.group(1)): int(match.group(2))} if match else {}


def curve(run, tokens_run):
    tokens = None  # read only for a run from before validation records carried their count
    points = []
    for r in records(run, "valid"):
        if "valid_bleu" not in r:
            continue
        count = r.get("target_tokens")
        if count is None:
            if tokens is None:
                tokens = {**tokens_by_step(tokens_run), **finished_tokens(tokens_run)}
            count = tokens.get(r["step"])
        if count is None:  # a run's last validation off the logging grid, from before the count was logged
            print(f"{run}: step {r['step']} left out: {tokens_run} has no token count for it", file=sys.stderr)
            continue
        points.append((count / 1e6, r["valid_bleu"]))
    final = None
    decoding = os.path.join(run, "decoding.json")
    if os.path.exists(decoding) and points:
        with open(decoding) as f:
            final = (points[-1][0], json.load(f)["bleu"])
    return points, final


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    out, title, series = sys.argv[1], sys.argv[2], []
    for arg in sys.argv[3:]:
        name, dirs = arg.split("=", 1)
        dirs, _, start = dirs.partition("+")
        dirs, _, share = dirs.partition("@")
        run, _, tokens_run = dirs.partition(":")
        points, final = curve(run, tokens_run or run)
        if share:
            points = [(x * float(share), b) for x, b in points]
            final = (final[0] * float(share), final[1]) if final else None
        if start:
            points = [(x + float(start), b) for x, b in points]
            final = (final[0] + float(start), final[1]) if final else None
        series.append((name, points, final))
    low = min(b for _, pts, _ in series for _, b in pts[len(pts) // 3:])
    high = max(b for _, pts, fin in series for _, b in pts + ([fin] if fin else []))
    line_chart(out, title, series, "target tokens processed (millions)", "val BLEU",
               y_range=(5 * int(low // 5), 5 * int(high // 5 + 1)),
               legend=lambda name, pts: name)


if __name__ == "__main__":
    main()
