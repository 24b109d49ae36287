#!/usr/bin/env bash
# The main job on the bundled sample corpus: install what is missing, build,
# train a small English->German model (a few minutes on 2 cores), translate
# the test split it never saw, print some triples and the BLEU.
# Re-running reuses the build and the trained model; NMT_DEMO_RETRAIN=1 retrains.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)

scripts/install_deps.sh
scripts/build.sh trainer translator  # the tests and benchmarks are scripts/test.sh's business

run=${NMT_DEMO_DIR:-runs/sample}
if [ "${NMT_DEMO_RETRAIN:-0}" = 1 ]; then rm -rf "$run"; fi
if [ -f "$run/checkpoints/last.pt" ] && [ ! -f "$run/.demo-complete" ]; then
  echo "== resuming the interrupted demo training in $run"
  build/trainer --config configs/sample.json --out "$run" --resume
elif [ ! -f "$run/.demo-complete" ]; then
  echo "== training on examples/sample (English -> German) into $run"
  build/trainer --config configs/sample.json --out "$run"
else
  echo "== reusing the trained model in $run (NMT_DEMO_RETRAIN=1 to train again)"
fi
touch "$run/.demo-complete"

echo "== translating examples/sample/test.en (sentences never seen in training)"
build/translator --model "$run" --beam 4 --input examples/sample/test.en --output "$run/test.hyp.de" \
  --score examples/sample/test.de 2> "$run/test.score.log"
score=$(tail -n 1 "$run/test.score.log")

echo
# awk reads to the end: a `head` here would kill paste with SIGPIPE under pipefail.
paste -d '\n' examples/sample/test.en "$run/test.hyp.de" examples/sample/test.de |
  awk 'NR <= 24 { n = (NR - 1) % 3; printf "%s %s\n", (n == 0 ? "source:   " : n == 1 ? "output:   " : "reference:"), $0; if (n == 2) print "" }'
bleu=$(echo "$score" | sed -n 's/.*"bleu": *\([0-9][0-9.]*\).*/\1/p')
chrf=$(echo "$score" | sed -n 's/.*"chrf2": *\([0-9][0-9.]*\).*/\1/p')
echo "BLEU on the sample test split ($(wc -l < examples/sample/test.en) sentences): $bleu  (chrF2 $chrf)"
echo "wall time: $(( $(date +%s) - start )) s"
echo
echo "Model directory: $run"
echo "Translate with it:  echo 'The man sees the dog.' | build/translator --model $run"
