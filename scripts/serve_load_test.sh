#!/usr/bin/env bash
# The server under load on loopback, beside the command line on the same
# sentences: starts `translator --serve` on a model directory, runs
# bench/serve_bench at 1, 8 and 64 connections (the last for LONG_SECONDS),
# sampling the server's resident memory, and one connection sending 64 lines
# a request; then times `translator --input` on the same sentences and prints
# its sentences/s.
#
#   scripts/serve_load_test.sh MODEL_DIR SENTENCES_FILE [SECONDS] [LONG_SECONDS] [-- TRANSLATOR_OPTIONS...]
set -euo pipefail
cd "$(dirname "$0")/.."
model=${1:?model directory}
sentences=${2:?file of source sentences, one a line}
seconds=${3:-60}
long_seconds=${4:-300}
shift $(( $# < 4 ? $# : 4 ))
[ "${1:-}" = "--" ] && shift
options=("$@")
port=${NMT_PORT:-18080}
log=$(mktemp /tmp/nmt-serve.XXXXXX.log)
plain=$(mktemp /tmp/nmt-sentences.XXXXXX.txt)
case "$sentences" in *.gz) zcat "$sentences" ;; *) cat "$sentences" ;; esac > "$plain"

build/translator --model "$model" --serve --port "$port" "${options[@]}" 2> "$log" &
server=$!
trap 'kill $server 2>/dev/null || true; rm -f "$plain"' EXIT
for _ in $(seq 600); do
  curl -sf "http://127.0.0.1:$port/ready" > /dev/null 2>&1 && break
  sleep 0.1
done
curl -sf "http://127.0.0.1:$port/ready" || { cat "$log"; echo "serve_load_test: the server did not get ready" >&2; exit 1; }
echo
read -r source target < <(curl -s "http://127.0.0.1:$port/ready" |
  python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["source"], r["target"])')
build/serve_bench --port "$port" --input "$plain" --connections 1,8 --seconds "$seconds" \
  --server-pid "$server" --source "$source" --target "$target"
build/serve_bench --port "$port" --input "$plain" --connections 64 --seconds "$long_seconds" \
  --server-pid "$server" --source "$source" --target "$target" | tail -n 2
echo
echo "one client sending 64 lines a request (what 64 one-line clients can at best be batched into):"
build/serve_bench --port "$port" --input "$plain" --connections 1 --sentences-per-request 64 --seconds "$seconds" \
  --source "$source" --target "$target" | tail -n 1
echo "server peak RSS (VmHWM): $(awk '/VmHWM/ {print $2 / 1024 " MiB"}' /proc/$server/status)"
kill -TERM $server
wait $server && echo "server exited 0 after SIGTERM"

lines=$(wc -l < "$plain")
start=$(date +%s.%N)
build/translator --model "$model" --input "$plain" "${options[@]}" > /dev/null 2>&1
end=$(date +%s.%N)
python3 -c "print('translator --input: %d sentences in %.1f s = %.1f sentences/s' % ($lines, $end - $start, $lines / ($end - $start)))"
