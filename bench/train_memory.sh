#!/usr/bin/env bash
# Training memory over a run, side by side: each TRAINER (an executable of
# some build) trains CONFIG on a core of its own (taskset; train.threads 1),
# all at once, so that machine load falls on every run alike. Resident memory
# is sampled every 15 s from /proc into OUT_DIR/NAME.rss (seconds, KiB). Prints,
# per trainer: the peak and final resident memory, the resident memory at
# 5 minutes and the most after it (the growth after warm-up), the training
# steps done and the final validation's BLEU.
#
#   bench/train_memory.sh CONFIG OUT_DIR TRAINER [TRAINER ...] [-- TRAINER_ARGS ...]
#
# TRAINER_ARGS go to every trainer, e.g. -- --set train.max_minutes=10.
# Run k is named run<k> and uses core k-1: as many trainers as cores at most.
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 CONFIG OUT_DIR TRAINER [TRAINER ...] [-- TRAINER_ARGS ...]" >&2
  exit 2
fi
config=$1 out=$2
shift 2
trainers=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do trainers+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
[ ${#trainers[@]} -le "$(nproc)" ] || { echo "$0: ${#trainers[@]} trainers but $(nproc) cores" >&2; exit 2; }
mkdir -p "$out"

source "$(dirname "$0")/rss_sample.sh"  # sample PID FILE

pids=()
for k in "${!trainers[@]}"; do
  name=run$((k + 1))
  rm -rf "${out:?}/$name"
  taskset -c "$k" "${trainers[$k]}" --config "$config" --out "$out/$name" --set train.threads=1 "$@" \
    > "$out/$name.log" 2>&1 &
  pid=$!
  sample "$pid" "$out/$name.rss" &
  pids+=("$pid")
done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
wait

echo "| run | trainer | peak RSS | at 5 min | most after 5 min | final | steps | final BLEU |"
echo "|---|---|---|---|---|---|---|---|"
for k in "${!trainers[@]}"; do
  name=run$((k + 1))
  steps=$(grep -o '"step":[0-9]*' "$out/$name/metrics.jsonl" | tail -n 1 | cut -d: -f2)
  bleu=$(grep -o '"final_bleu":[0-9.]*' "$out/$name/metrics.jsonl" | cut -d: -f2 | sort -n | tail -n 1 || true)
  awk -v name="$name" -v trainer="${trainers[$k]}" -v steps="${steps:--}" -v bleu="${bleu:--}" '
    { if ($2 > peak) peak = $2; if ($1 <= 300) at5 = $2; else if ($2 > after) after = $2; last = $2 }
    END {
      mib = 1024
      printf "| %s | %s | %.0f MiB | %.0f MiB | %.0f MiB (%+.1f%%) | %.0f MiB | %s | %s |\n", name, trainer,
             peak / mib, at5 / mib, after / mib, (at5 > 0 ? 100 * (after - at5) / at5 : 0), last / mib, steps, bleu
    }' "$out/$name.rss"
done
exit $status
