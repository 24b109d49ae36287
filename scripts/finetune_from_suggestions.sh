#!/usr/bin/env bash
# Fine-tunes a served model on the corrections its users accepted, mixed with
# a replay of the data it was trained on, so that it learns the corrections
# without forgetting the rest (trainer --init-from with weighted corpora).
#
#   curl -s -H "Authorization: Bearer $KEY" "localhost:8080/suggestions/export?format=tsv" > accepted.tsv
#   scripts/finetune_from_suggestions.sh --model models/current --suggestions accepted.tsv \
#       --replay-src data/train.en --replay-tgt data/train.de --out models/tuned-1
#   ln -sfn tuned-1 models/current && kill -HUP "$(pidof translator)"   # or POST /reload
#
# The server, started with --model models/current, loads the directory again
# on SIGHUP (or POST /reload with a review key) and swaps the tuned model in
# without dropping a request; the old one serves until the new one is loaded.
#
# Options:
#   --model DIR            the served model directory (its config gives the pair)
#   --suggestions TSV      GET /suggestions/export?format=tsv (accepted ones by default)
#   --replay-src/--replay-tgt FILE   the model's own training data, replayed
#   --out DIR              the tuned model directory (must not exist)
#   --steps N              training steps (default 600)
#   --replay-weight W      replay's weight beside the corrections' 1 (default 1)
#   --lr R                 constant learning rate (default 0.0001)
#   --trainer PATH         default build/trainer
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
model="" tsv="" replay_src="" replay_tgt="" out="" steps=600 replay_weight=1 lr=0.0001 trainer="$root/build/trainer"
need() { [ $# -ge 2 ] || { echo "$0: $1 needs a value" >&2; exit 2; }; }
while [ $# -gt 0 ]; do
  case "$1" in
    --model) need "$@"; model=$2; shift 2 ;;
    --suggestions) need "$@"; tsv=$2; shift 2 ;;
    --replay-src) need "$@"; replay_src=$2; shift 2 ;;
    --replay-tgt) need "$@"; replay_tgt=$2; shift 2 ;;
    --out) need "$@"; out=$2; shift 2 ;;
    --steps) need "$@"; steps=$2; shift 2 ;;
    --replay-weight) need "$@"; replay_weight=$2; shift 2 ;;
    --lr) need "$@"; lr=$2; shift 2 ;;
    --trainer) need "$@"; trainer=$2; shift 2 ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) echo "$0: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
for v in model tsv replay_src replay_tgt out; do
  [ -n "${!v}" ] || { echo "$0: --${v//_/-} is required (see --help)" >&2; exit 2; }
done
[ -f "$model/config.json" ] || { echo "$0: $model is not a model directory (no config.json)" >&2; exit 2; }
for f in "$tsv" "$replay_src" "$replay_tgt"; do [ -r "$f" ] || { echo "$0: cannot read $f" >&2; exit 2; }; done
[ ! -e "$out" ] || { echo "$0: $out exists; name a new directory" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The model's pair, and the corrections of that pair unescaped into two aligned files.
python3 - "$model/config.json" "$tsv" "$work" <<'PY'
import json, sys
config, tsv, work = sys.argv[1:]
data = json.load(open(config)).get("data", {})
src, tgt = data.get("src_lang", ""), data.get("tgt_lang", "")
def unescape(s):
    out, i = [], 0
    while i < len(s):
        if s[i] == "\\" and i + 1 < len(s):
            out.append({"t": "\t", "n": "\n", "r": "\r", "\\": "\\"}.get(s[i + 1], s[i + 1])); i += 2
        else:
            out.append(s[i]); i += 1
    return "".join(out)
pairs = []
with open(tsv, encoding="utf-8") as f:
    header = f.readline().rstrip("\n").split("\t")
    if header[:4] != ["source_lang", "target_lang", "source", "suggestion"]:
        sys.exit(f"{tsv} line 1: not an export of /suggestions (format=tsv)")
    for n, line in enumerate(f, 2):
        cols = line.rstrip("\n").split("\t")
        if len(cols) != 5:
            sys.exit(f"{tsv} line {n}: expected 5 tab-separated fields, found {len(cols)}")
        if (src and cols[0] != src) or (tgt and cols[1] != tgt) or cols[4] != "accepted":
            continue
        s, t = unescape(cols[2]), unescape(cols[3])
        if "\n" in s or "\n" in t:  # one pair a line in the corpus
            s, t = " ".join(s.split()), " ".join(t.split())
        pairs.append((s, t))
if not pairs:
    sys.exit(f"{tsv}: no accepted correction for {src or '?'}->{tgt or '?'}")
with open(f"{work}/corrections.src", "w") as a, open(f"{work}/corrections.tgt", "w") as b:
    for s, t in pairs:
        a.write(s + "\n"); b.write(t + "\n")
with open(f"{work}/pair", "w") as f:
    f.write(f"{src} {tgt}\n")
print(f"finetune_from_suggestions: {len(pairs)} accepted corrections for {src or '?'}->{tgt or '?'}", file=sys.stderr)
PY
read -r src_lang tgt_lang < "$work/pair" || true
cat > "$work/tune.json" <<JSON
{
  "data": {
    "src_lang": "${src_lang:-}", "tgt_lang": "${tgt_lang:-}",
    "corpora": [
      {"src": "$work/corrections.src", "tgt": "$work/corrections.tgt", "weight": 1},
      {"src": "$(realpath "$replay_src")", "tgt": "$(realpath "$replay_tgt")", "weight": $replay_weight}
    ]
  },
  "train": {"max_steps": $steps, "epochs": 1000000, "schedule": "constant", "lr": $lr, "warmup_steps": 0},
  "checkpoint": {"every_steps": $steps, "keep_last": 1, "average_last": 0},
  "valid": {"bleu": false}
}
JSON
"$trainer" --config "$work/tune.json" --init-from "$model" --out "$out"
echo "finetune_from_suggestions: $out is ready; point the served directory at it and send SIGHUP (or POST /reload)" >&2
