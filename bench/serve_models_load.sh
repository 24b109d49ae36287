#!/usr/bin/env bash
# Issue 25's load test: one server with four small models (de->en, en->de,
# en->fr, fr->en, trained here in seconds on a generated corpus whose French
# is its English word for word), so de->fr and fr->de are pivoted through
# English. First each of three direct pairs alone, then 64 connections spread
# over those three models and the two pivoted pairs for SECONDS, with a
# limited key beside them; the server's resident memory every second.
#
#   bench/serve_models_load.sh OUT [SECONDS=300] [ALONE_SECONDS=30]
#
# OpenBLAS settings unset, as users run; the server uses both cores.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$1 seconds=${2:-300} alone=${3:-30}
unset OPENBLAS_NUM_THREADS OPENBLAS_CORETYPE GOTO_NUM_THREADS OMP_NUM_THREADS || true
mkdir -p "$out/corpus" "$out/models"
python3 - "$out/corpus" <<'PY'
import random, sys
out = sys.argv[1]
en_n = ["man", "woman", "dog", "child", "bicycle", "street", "ball", "house"]
de_n = ["Mann", "Frau", "Hund", "Kind", "Fahrrad", "Straße", "Ball", "Haus"]
fr_n = ["homme", "femme", "chien", "enfant", "vélo", "rue", "balle", "maison"]
en_v = ["sees", "rides", "plays with", "walks to"]
de_v = ["sieht", "fährt", "spielt mit", "geht zu"]
fr_v = ["voit", "conduit", "joue avec", "marche vers"]
rng = random.Random(12345)
rows = {"en": [], "de": [], "fr": []}
for _ in range(2200):
    e, d, f = "A", "Ein", "Un"
    for c in range(rng.randint(1, 3)):
        a, v, b = rng.randrange(8), rng.randrange(4), rng.randrange(8)
        e += (" and the " if c else " ") + f"{en_n[a]} {en_v[v]} the {en_n[b]}"
        d += (" und der " if c else " ") + f"{de_n[a]} {de_v[v]} dem {de_n[b]}"
        f += (" et le " if c else " ") + f"{fr_n[a]} {fr_v[v]} le {fr_n[b]}"
    rows["en"].append(e + "."); rows["de"].append(d + "."); rows["fr"].append(f + ".")
for lang, lines in rows.items():
    for name, part in (("train", lines[:2000]), ("valid", lines[2000:2100]), ("test", lines[2100:])):
        with open(f"{out}/{name}.{lang}", "w") as fh:
            fh.write("\n".join(part) + "\n")
PY
for pair in de-en en-de en-fr fr-en; do
  src=${pair%-*} tgt=${pair#*-} c="$out/corpus"
  if [ ! -f "$out/models/$pair/checkpoints/last.pt" ]; then
    cat > "$out/$pair.json" <<JSON
{"data": {"train_src": "$c/train.$src", "train_tgt": "$c/train.$tgt", "valid_src": "$c/valid.$src",
          "valid_tgt": "$c/valid.$tgt", "max_len": 64},
 "vocab": {"size": 60, "type": "bpe", "joint": true},
 "model": {"d_model": 32, "n_head": 2, "ffn_hidden": 64, "n_layers": 1, "max_len": 80},
 "train": {"batch_tokens": 400, "max_steps": 600, "lr": 1.0, "warmup_steps": 40, "threads": 2, "seed": 7,
           "log_every_steps": 100},
 "checkpoint": {"every_steps": 600, "keep_last": 1},
 "valid": {"every_steps": 600, "bleu": true}}
JSON
    build/trainer --config "$out/$pair.json" --out "$out/models/$pair" > "$out/train-$pair.log" 2>&1
  fi
  echo "$pair: $(grep -o 'BLEU [0-9.]*' "$out/train-$pair.log" | tail -1)"
done
printf 'unlimited-key 0\nlimited-key 60\n' > "$out/keys.txt"
port=$((20000 + RANDOM % 20000))
build/translator --serve --models-dir "$out/models" --port "$port" --api-keys "$out/keys.txt" > "$out/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
until curl -sf "http://127.0.0.1:$port/ready" > /dev/null; do sleep 0.5; done
c="$out/corpus"
inputs="--input-of de=$c/test.de,en=$c/test.en,fr=$c/test.fr"
echo; echo "## Each direct pair alone, 64 connections, $alone s"
for pair in de-en en-de en-fr; do
  build/serve_bench --port "$port" $inputs --pairs "$pair" --connections 64 --seconds "$alone" \
    --warmup-seconds 5 --api-key unlimited-key | tail -n +5
done
echo; echo "## 64 connections over de-en, en-de, en-fr and the pivoted de-fr, fr-de, $seconds s; 2 more clients on a key limited to 60 a minute"
build/serve_bench --port "$port" $inputs --pairs de-en,en-de,en-fr,de-fr,fr-de --connections 64 --seconds "$seconds" \
  --warmup-seconds 10 --api-key unlimited-key --limited-key limited-key --limited-clients 2 --server-pid "$server"
curl -s "http://127.0.0.1:$port/metrics" | grep -E '^nmt_requests_total' > "$out/metrics.txt" || true
