#!/bin/bash
# Two builds' decoding speed in one run: decode_bench of an earlier build and
# of this one, one after the other on each model, so that both see the same
# machine (absolute figures drift on shared machines; compare rows of one run).
#
#   bench/decode_compare.sh OLD_DECODE_BENCH NEW_DECODE_BENCH MODEL_DIR:SENTENCES... [-- decode_bench options]
#
# An earlier build, e.g. the last landing:
#   git worktree add /tmp/landed <commit>
#   cmake -S /tmp/landed -B /tmp/landed/build -G Ninja -DCMAKE_BUILD_TYPE=Release -DNMT_BUILD_TESTS=OFF
#   cmake --build /tmp/landed/build --target decode_bench
# Then, for docs/performance.md's table:
#   bench/decode_compare.sh /tmp/landed/build/decode_bench build/decode_bench \
#     runs/multi30k_de_en:300 runs/base_de_en:100 -- --ref data/multi30k/val.en.gz
# By default every axis: fp32 and bf16, beam 1 and 4, batch 1 and 32, one and
# two batches at once, on 2 threads, from the validation source; options
# after "--" go to decode_bench and replace the defaults they name.
set -euo pipefail

if [ $# -lt 3 ]; then
  sed -n '2,18p' "$0" >&2
  exit 2
fi
old=$1 new=$2
shift 2
models=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  models+=("$1")
  shift
done
[ $# -gt 0 ] && shift  # the "--"
for binary in "$old" "$new"; do
  [ -x "$binary" ] || { echo "decode_compare: $binary is not an executable" >&2; exit 2; }
done

# Each default unless the options after "--" name it.
defaults=()
for pair in "--src data/multi30k/val.de.gz" "--ratio-limit 0" "--threads 2" "--precisions fp32,bf16" \
            "--beams 1,4" "--batches 1,32" "--parallel-batches 1,2"; do
  read -r name value <<< "$pair"
  [[ " $* " == *" $name "* ]] || defaults+=("$name" "$value")
done
for entry in "${models[@]}"; do
  model=${entry%%:*}
  sentences=${entry##*:}
  for binary in "$old" "$new"; do
    echo "== $binary on $model, $sentences sentences"
    "$binary" --model "$model" --limit "$sentences" "${defaults[@]}" "$@" 2>&1 | grep -E '^\| (prec|fp32|bf16|int8)|^peak'
  done
done
