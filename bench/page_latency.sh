#!/usr/bin/env bash
# The page's latency (issue 53's must-show 4): a sentence typed into the page
# of a server holding one model, time from the last key to the translation
# shown (tests/clients/page_latency.mjs in headless chromium), split into the
# page's typing pause and the request's round trip. Prints a row per repeat
# and the medians. OpenBLAS's settings are unset, as users run. KEY_MS (40)
# is the time between keys.
#
#   bench/page_latency.sh MODEL_DIR SOURCE TARGET "TEXT" [REPEATS=5] [-- SERVER FLAGS...]
set -euo pipefail
cd "$(dirname "$0")/.."
model=$1 source=$2 target=$3 text=$4 repeats=${5:-5}
shift $(($# < 5 ? $# : 5)); [[ ${1:-} == -- ]] && shift
unset OPENBLAS_NUM_THREADS OPENBLAS_CORETYPE OPENBLAS_L2_SIZE GOTO_NUM_THREADS OMP_NUM_THREADS || true
port=$((20000 + RANDOM % 20000))
log=$(mktemp)
build/translator --serve --model "$model" --port "$port" "$@" > "$log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; rm -f "$log"' EXIT
until curl -sf "http://127.0.0.1:$port/ready" > /dev/null; do sleep 0.3; done
# What the page must show: the server's own answer to the whole text, as the page asks for it.
expected=$(curl -sf "http://127.0.0.1:$port/translate" -H 'Content-Type: application/json' \
  -d "$(python3 -c 'import json,sys; print(json.dumps({"q": sys.argv[1], "source": sys.argv[2], "target": sys.argv[3]}))' \
        "$text" "$source" "$target")" | python3 -c 'import json,sys; print(json.load(sys.stdin)["translatedText"])')
echo "model $model, $(grep -c . <<< "$text") sentence of $(wc -w <<< "$text") words typed at ${KEY_MS:-40} ms a key, $(date -u +%F), $(lscpu | sed -n 's/^Model name: *//p')"
echo "server: $(grep -m1 'model 100' "$log" | cut -c1-160)"
node tests/clients/page_latency.mjs "$port" "$source" "$target" "$text" "$expected" "$repeats" "${KEY_MS:-40}" | python3 -c '
import json, statistics, sys
runs = json.load(sys.stdin)
print("| repeat | last key -> shown (ms) | typing pause (ms) | /translate round trip (ms) | requests while typing |")
print("|---|---|---|---|---|")
for i, r in enumerate(runs, 1):
    print("| %d | %.0f | %.0f | %.1f | %d |" % (i, r["total_ms"], r["pause_ms"], r["round_trip_ms"], r["requests"]))
med = lambda k: statistics.median(r[k] for r in runs)
print("| median | %.0f | %.0f | %.1f | |" % (med("total_ms"), med("pause_ms"), med("round_trip_ms")))'
