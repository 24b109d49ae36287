#!/usr/bin/env bash
# Memory of a data-parallel job on one machine: TRAINER trains CONFIG as RANKS
# ranks (--nproc-per-node), and every 5 s each rank's resident memory and its
# peak so far (VmRSS, VmHWM) are read from /proc into OUT_DIR/ranks.mem
# (seconds, pid, KiB, KiB). Prints each rank's peak, the sum of the ranks'
# peaks, and the most the ranks held at one moment.
#
#   bench/ranks_memory.sh CONFIG OUT_DIR [RANKS (2)] [TRAINER (build/trainer)] [-- TRAINER_ARGS ...]
#
# TRAINER_ARGS go to the trainer, e.g. -- --set train.max_minutes=10.
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 CONFIG OUT_DIR [RANKS] [TRAINER] [-- TRAINER_ARGS ...]" >&2
  exit 2
fi
config=$1 out=$2
shift 2
ranks=2 trainer=build/trainer
if [ $# -gt 0 ] && [ "$1" != "--" ]; then ranks=$1; shift; fi
if [ $# -gt 0 ] && [ "$1" != "--" ]; then trainer=$1; shift; fi
[ "${1:-}" = "--" ] && shift
rm -rf "${out:?}/run"
mkdir -p "$out"

"$trainer" --config "$config" --out "$out/run" --nproc-per-node "$ranks" "$@" > "$out/run.log" 2>&1 &
launcher=$!
start=$(date +%s)
: > "$out/ranks.mem"
while kill -0 "$launcher" 2> /dev/null; do
  for pid in $(pgrep -P "$launcher" || true); do
    awk -v t="$(($(date +%s) - start))" -v pid="$pid" '/^VmRSS/ {rss = $2} /^VmHWM/ {hwm = $2}
      END { if (rss) print t, pid, rss, hwm }' "/proc/$pid/status" 2> /dev/null >> "$out/ranks.mem" || true
  done
  sleep 5
done
status=0
wait "$launcher" || status=$?

awk -v ranks="$ranks" '
  { if ($4 > peak[$2]) peak[$2] = $4; at[$1] += $3 }
  END {
    mib = 1024; n = 0; sum = 0
    for (pid in peak) { n++; sum += peak[pid]; printf "rank process %s: peak %.0f MiB\n", pid, peak[pid] / mib }
    for (t in at) if (at[t] > most) most = at[t]
    printf "%d ranks (%d seen): sum of peaks %.0f MiB; most held at one moment %.0f MiB\n", ranks, n, sum / mib, most / mib
  }' "$out/ranks.mem"
exit $status
