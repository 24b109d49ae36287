#!/usr/bin/env bash
# Training memory against a plain PyTorch peer on the same batches, side by
# side: the trainer trains CONFIG for MINUTES on core 0 (train.threads 1, its
# validations and checkpoints as the config has them) while
# bench/pytorch_peer.py trains torch.nn.Transformer of the same shape on core 1
# (one thread, the same precision) on the trainer's own batches in the
# trainer's order, written by build/peer_batches_bench from a preparation run
# (the vocabulary is trained with the same seed, so the ids are the ones the
# trainer sees). Resident memory of each is sampled every 15 s into
# OUT_DIR/{ours,peer}.rss (seconds, KiB) and drawn in OUT_DIR/memory.svg;
# prints peak, at 5 minutes, the most after 5 minutes, final and steps for each.
#
#   bench/train_memory_peer.sh CONFIG OUT_DIR [MINUTES (30)] [PRECISION (fp32|bf16, default: the trainer's auto)]
#
# Run from the repository root (the configs name their data relative to it).
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 CONFIG OUT_DIR [MINUTES] [PRECISION]" >&2
  exit 2
fi
config=$1 out=$2 minutes=${3:-30} precision=${4:-}
build=${NMT_BUILD_DIR:-build} python=${NMT_PYTHON:-/usr/bin/python3}  # Debian's, with python3-torch
if [ -z "$precision" ]; then  # the trainer's "auto": bf16 where oneDNN has native bf16
  if grep -qw -e avx512_bf16 -e amx_bf16 /proc/cpuinfo; then precision=bf16; else precision=fp32; fi
fi
rm -rf "${out:?}/prep" "$out/ours"
mkdir -p "$out"
param() { "$python" -c "import json,sys; print(json.load(open('$config'))['$1']['$2'])"; }
# Enough batches for the peer not to cycle within MINUTES at up to 3 steps a second.
"$build/peer_batches_bench" --config "$config" --run "$out/prep" --write "$out/batches.pt" \
  --count $((minutes * 60 * 3)) > "$out/prep.log" 2>&1

source "$(dirname "$0")/rss_sample.sh"  # sample PID FILE

taskset -c 0 "$build/trainer" --config "$config" --out "$out/ours" --set train.threads=1 \
  --set train.precision="$precision" --set train.max_minutes="$minutes" > "$out/ours.log" 2>&1 &
ours=$!
sample "$ours" "$out/ours.rss" &
OPENBLAS_NUM_THREADS=1 taskset -c 1 "$python" bench/pytorch_peer.py --batches "$out/batches.pt" \
  --vocab "$(param vocab size)" --d-model "$(param model d_model)" --heads "$(param model n_head)" \
  --ffn "$(param model ffn_hidden)" --layers "$(param model n_layers)" --dropout "$(param model drop_prob)" \
  --precision "$precision" --threads 1 --minutes "$minutes" --rss-log "$out/peer.rss.raw" > "$out/peer.json"
wait "$ours"
wait
cut -d' ' -f1,2 "$out/peer.rss.raw" > "$out/peer.rss"
"$python" "$(dirname "$0")/rss_plot.py" "$out/memory.svg" "$config, $precision, one core each: resident memory" \
  ours="$out/ours.rss" "PyTorch peer=$out/peer.rss"

echo "$(param model d_model)-dim, $(param model n_layers)+$(param model n_layers) layers, $precision, $minutes minutes, one core each"
echo "| run | peak RSS | at 5 min | most after 5 min | final | steps |"
echo "|---|---|---|---|---|---|"
ours_steps=$(grep -o '"step":[0-9]*' "$out/ours/metrics.jsonl" | tail -n 1 | cut -d: -f2)
peer_steps=$(grep -o '"steps": [0-9]*' "$out/peer.json" | cut -d' ' -f2)
for run in ours peer; do
  steps=$ours_steps
  [ "$run" = peer ] && steps=$peer_steps
  awk -v name="$run" -v steps="${steps:--}" '
    { if ($2 > peak) peak = $2; if ($1 <= 300) at5 = $2; else if ($2 > after) after = $2; last = $2 }
    END {
      mib = 1024
      printf "| %s | %.0f MiB | %.0f MiB | %.0f MiB (%+.1f%%) | %.0f MiB | %s |\n", name, peak / mib, at5 / mib,
             after / mib, (at5 > 0 ? 100 * (after - at5) / at5 : 0), last / mib, steps
    }' "$out/$run.rss"
done
