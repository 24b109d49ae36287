#!/usr/bin/env bash
# Redraws docs/page_wide.png and docs/page_phone.png: a server with the given
# model directories, the page in headless chromium (tests/clients/page_test.mjs,
# which types the sentence, points at a word of the translation and shoots).
#
#   tools/page_screenshots.sh SOURCE TARGET "SENTENCE" HOVER_WORD MODEL_DIR...
set -euo pipefail
cd "$(dirname "$0")/.."
source=$1 target=$2 sentence=$3 hover=$4
shift 4
models=()
for m in "$@"; do models+=(--model "$m"); done
port=$((20000 + RANDOM % 20000))
build/translator --serve "${models[@]}" --port "$port" --threads 2 > /tmp/page_screenshots.log 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
until curl -sf "http://127.0.0.1:$port/ready" > /dev/null; do sleep 0.5; done
case_json=$(python3 -c 'import json, sys; print(json.dumps({"source": sys.argv[1], "target": sys.argv[2],
  "text": sys.argv[3], "expected": "", "auto_text": sys.argv[3], "auto_name": "", "hover": sys.argv[4]}))' \
  "$source" "$target" "$sentence" "$hover")
node tests/clients/page_test.mjs "$port" "$case_json" docs > /dev/null
ls -l docs/page_wide.png docs/page_phone.png
