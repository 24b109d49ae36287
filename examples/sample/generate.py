#!/usr/bin/env python3
"""Generates the bundled English->German sample corpus (train/valid/test).

Usage:
  python3 examples/sample/generate.py --out examples/sample     # writes the six files
  python3 examples/sample/generate.py --self-test           # checks the grammar

Python 3 standard library only; the output depends on the seed alone.
"""

import argparse
import os
import random
import re
import sys
from collections import Counter

sys.dont_write_bytecode = True  # keep the source tree free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import sampler  # noqa: E402

SEED = 20240611
MAX_WORDS = 18  # keeps sentences short enough for a few minutes of CPU training
SPLITS = (("test", 500), ("valid", 500), ("train", 20000))


def draw_pairs(total, seed):
    """`total` pairs with distinct English sides, in draw order, plus construction counts."""
    rng = random.Random(seed)
    draw = sampler.Sampler(rng)
    pairs, seen, kinds = [], {}, {}
    while len(pairs) < total:
        kind, (en, de) = draw.sentence()
        if len(en.split()) > MAX_WORDS:
            continue
        if en in seen:
            # The translation is a function of the English sentence: a second
            # German rendering of the same source would make the corpus unlearnable.
            assert seen[en] == de, "ambiguous source: %r -> %r / %r" % (en, seen[en], de)
            continue
        seen[en] = de
        pairs.append((en, de))
        kinds[kind] = kinds.get(kind, 0) + 1
    return pairs, kinds


def words(text):
    return re.findall(r"[^\s.,?]+|[.,?]", text)


def split_pairs(pairs, rng):
    """Shuffles and cuts the pairs into the named splits (held-out sets first).

    A pair joins a held-out set only if each of its words, on both sides, still
    occurs in the pairs left for train: held-out sets test new combinations of
    known words, never unknown words.
    """
    order = list(pairs)
    rng.shuffle(order)
    left = Counter((i, w) for p in order for i in (0, 1) for w in words(p[i]))
    held = [(name, size) for name, size in SPLITS if name != "train"]
    out = {name: [] for name, _ in SPLITS}
    current = 0
    for pair in order:
        if current < len(held):
            need = Counter((i, w) for i in (0, 1) for w in words(pair[i]))
            if all(left[w] > n for w, n in need.items()):
                left.subtract(need)
                name, size = held[current]
                out[name].append(pair)
                current += len(out[name]) == size
                continue
        out["train"].append(pair)
    return out


def check_splits(splits):
    """No shared source or target sentence across splits; held-out words all occur in train."""
    names = [n for n, _ in SPLITS]
    for side in (0, 1):
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                shared = {p[side] for p in splits[a]} & {p[side] for p in splits[b]}
                assert not shared, "%s and %s share %r" % (a, b, sorted(shared)[:3])
        train_vocab = {w for p in splits["train"] for w in words(p[side])}
        for name in ("valid", "test"):
            unseen = {w for p in splits[name] for w in words(p[side])} - train_vocab
            assert not unseen, "%s has words unseen in train: %r" % (name, sorted(unseen))


def write_splits(splits, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    for name, pairs in splits.items():
        for side, lang in ((0, "en"), (1, "de")):
            path = os.path.join(out_dir, "%s.%s" % (name, lang))
            with open(path, "w", encoding="utf-8", newline="\n") as f:
                f.write("".join(p[side] + "\n" for p in pairs))


def report(splits, kinds):
    for name, pairs in splits.items():
        print("%-5s %6d pairs" % (name, len(pairs)))
    total = sum(kinds.values())
    print("constructions: " + ", ".join("%s %.1f%%" % (k, 100.0 * v / total)
                                        for k, v in sorted(kinds.items())))
    everything = [p for pairs in splits.values() for p in pairs]
    for side, lang in ((0, "en"), (1, "de")):
        vocab = {w for p in everything for w in words(p[side])}
        lengths = sorted(len(p[side].split()) for p in everything)
        mean = sum(lengths) / len(lengths)
        in_range = sum(1 for n in lengths if 5 <= n <= 15) / len(lengths)
        print("%s: vocabulary %d words; sentence length min %d, mean %.1f, max %d; %.0f%% in 5-15"
              % (lang, len(vocab), lengths[0], mean, lengths[-1], 100 * in_range))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)),
                        help="directory for train/valid/test .en/.de (default: beside this script)")
    parser.add_argument("--seed", type=int, default=SEED, help="random seed (default %(default)s)")
    parser.add_argument("--self-test", action="store_true", help="check the grammar and exit")
    args = parser.parse_args()
    if args.self_test:
        import selftest
        selftest.run()
        return
    pairs, kinds = draw_pairs(sum(n for _, n in SPLITS), args.seed)
    splits = split_pairs(pairs, random.Random(args.seed + 1))
    check_splits(splits)
    write_splits(splits, args.out)
    report(splits, kinds)


if __name__ == "__main__":
    main()
