#!/usr/bin/env bash
# Issue 29's must-show 3: the page typed into while the server is under the
# load test's 64 connections. Needs the models of bench/serve_models_load.sh
# (run it first with the same OUT). Starts the server, puts 64 connections on
# it over three pairs for the whole run, and meanwhile lets headless chromium
# type sentences into the page (tests/clients/page_test.mjs, 40 ms a key),
# printing for each the /translate requests the typing sent and whether the
# page showed the command line's translation.
#
#   bench/page_under_load.sh OUT [SENTENCES=3]
set -euo pipefail
cd "$(dirname "$0")/.."
out=$1 n=${2:-3}
unset OPENBLAS_NUM_THREADS OPENBLAS_CORETYPE GOTO_NUM_THREADS OMP_NUM_THREADS || true
port=$((20000 + RANDOM % 20000))
build/translator --serve --models-dir "$out/models" --port "$port" > "$out/page_server.log" 2>&1 &
server=$!
trap 'kill $server $load 2>/dev/null || true' EXIT
until curl -sf "http://127.0.0.1:$port/ready" > /dev/null; do sleep 0.5; done
c="$out/corpus"
build/serve_bench --port "$port" --input-of "de=$c/test.de,en=$c/test.en,fr=$c/test.fr" --pairs de-en,en-de,de-fr \
  --connections 64 --seconds $((60 * n)) --warmup-seconds 5 > "$out/page_load_bench.txt" &
load=$!
sleep 10
echo "| sentence | keys typed | /translate requests while typing | the command line's translation shown |"
echo "|---|---|---|---|"
for i in $(seq 1 "$n"); do
  text=$(sed -n "${i}p" "$c/test.de")
  expected=$(build/translator --model "$out/models/de-en" --threads 1 --split-sentences "$text" 2>/dev/null)
  case_json=$(python3 -c 'import json, sys; print(json.dumps({"source": "de", "target": "en", "text": sys.argv[1],
    "expected": sys.argv[2], "auto_text": sys.argv[1], "auto_name": ""}))' "$text" "$expected")
  got=$(node tests/clients/page_test.mjs "$port" "$case_json" | tail -1)
  python3 - "$got" "$text" "$expected" <<'PY'
import json, sys
got, text, expected = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]
print(f"| {text[:40]}... | {len(text)} | {got['requests_while_typing']} | {got['typed'] == expected} |")
PY
done
wait $load || true
echo; echo "The load beside it:"; tail -n +3 "$out/page_load_bench.txt"
