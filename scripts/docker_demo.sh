#!/bin/sh
# Default command of the Docker image: the sample demo, writing into /work.
set -eu
share=/opt/nmt/share
run=${1:-/work/sample-run}
sed "s#examples/sample/#$share/sample/#g" "$share/sample.json" > /tmp/sample.json
if [ -f "$run/checkpoints/last.pt" ]; then
  trainer --config /tmp/sample.json --out "$run" --resume
else
  trainer --config /tmp/sample.json --out "$run"
fi
translator --model "$run" --beam 4 --input "$share/sample/test.en" --output "$run/test.hyp.de" \
  --score "$share/sample/test.de"
echo "examples (source / output):"
paste -d '\n' "$share/sample/test.en" "$run/test.hyp.de" | head -n 10
echo "model directory: $run"
