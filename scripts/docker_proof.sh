#!/usr/bin/env bash
# Builds the Docker image and proves it works: `translator --help`, a short
# training on a mounted directory, a resume, a translation, the image's
# default command (the sample demo), and the server with --models-dir
# answering curl, three LibreTranslate client libraries from npm and the page
# in Debian's chromium from outside, then exiting 0 on SIGTERM; the demo's model
# exported as an Argos Translate package and served, with no model named, from
# a packages folder mounted read-only where LibreTranslate keeps them; prints the
# image's size and the server's startup time. Fails loudly on any step. Uses `docker`
# where an engine answers; otherwise, as root on Debian, podman + buildah with
# a debootstrap base image (no registry needed).
set -euo pipefail
cd "$(dirname "$0")/.."
image=${NMT_IMAGE:-nmt}
work=$(mktemp -d /tmp/nmt-docker-proof.XXXXXX)
chmod 777 "$work"
step() { echo; echo "== $*"; }
fail() { echo "docker_proof: FAILED: $*" >&2; exit 1; }

# A short training config over the sample corpus, inside the mounted dir.
mkdir -p "$work/data"
head -n 2000 examples/sample/train.en > "$work/data/train.en"
head -n 2000 examples/sample/train.de > "$work/data/train.de"
cp examples/sample/valid.en examples/sample/valid.de "$work/data/"
cat > "$work/tiny.json" <<'JSON'
{
  "data": {"train_src": "/work/data/train.en", "train_tgt": "/work/data/train.de",
           "valid_src": "/work/data/valid.en", "valid_tgt": "/work/data/valid.de"},
  "vocab": {"size": 500},
  "model": {"d_model": 32, "n_head": 2, "ffn_hidden": 64, "n_layers": 1, "max_len": 96},
  "train": {"batch_tokens": 1000, "max_steps": 20, "threads": 2, "log_every_steps": 5},
  "checkpoint": {"every_steps": 10},
  "valid": {"every_steps": 10, "bleu": false}
}
JSON

. scripts/lib/container.sh
if docker_engine; then
  step "building the image with docker"
  docker build -t "$image" . || fail "docker build"
  run() { docker run --rm -i -v "$work:/work" "$image" "$@"; }
else
  step "no Docker engine: podman, buildah and a debootstrap base image"
  container_prepare || fail "preparing podman/buildah"
  step "building the image with podman (chroot isolation)"
  podman build --isolation=chroot --network=host -t "$image" . || fail "podman build"
  run() { container_docker run -v "$work:/work" "$image" "$@"; }
fi

step "image size"
(docker image ls "$image" 2>/dev/null || podman image ls "localhost/$image") | tee "$work/image-size.txt"

step "translator --help"
run translator --help > "$work/help.txt" || fail "translator --help"
head -n 5 "$work/help.txt"

step "short training on the mounted directory (stops at step 10)"
run trainer --config /work/tiny.json --out /work/run --set train.max_steps=10 || fail "training"
[ -f "$work/run/checkpoints/last.pt" ] || fail "no checkpoint written to the volume"

step "resume to step 20"
run trainer --config /work/tiny.json --out /work/run --resume || fail "resume"
grep -q '"step":20' "$work/run/metrics.jsonl" || fail "resume did not reach step 20"

step "translate"
echo "The man sees the dog." | run translator --model /work/run --beam 2 > "$work/out.txt" || fail "translation"
[ "$(wc -l < "$work/out.txt")" -eq 1 ] || fail "expected one output line"
echo "output: $(cat "$work/out.txt")"

step "the image's default command: the sample demo into the mounted directory"
if docker_engine; then cmd=$(docker image inspect --format '{{join .Config.Cmd " "}}' "$image")
else cmd=$(container_default_cmd "$image"); fi
[ "$cmd" = nmt-demo ] || fail "the image's default command is '$cmd', not nmt-demo"
run nmt-demo > "$work/demo.log" 2>&1 || { tail -n 20 "$work/demo.log"; fail "the sample demo (nmt-demo)"; }
grep -E '^BLEU|"bleu"|BLEU' "$work/demo.log" | tail -n 2
[ -f "$work/sample-run/test.hyp.de" ] || fail "the demo wrote no translations to the volume"

step "serve: translator --serve --models-dir in the image, answering curl, LibreTranslate clients and the page"
mkdir -p "$work/models"
cp -r "$work/sample-run" "$work/models/en-de"  # the demo's model: translations worth reading
port=${NMT_PROOF_PORT:-18089}
started=$(date +%s%N)
if docker_engine; then
  cid=$(docker run -d -p "$port:$port" -v "$work/models:/models:ro" "$image" \
        translator --serve --models-dir /models --host 0.0.0.0 --port "$port") || fail "docker run --serve"
  stop_server() { docker stop -t 30 "$cid" >/dev/null; server_rc=$(docker wait "$cid"); docker rm "$cid" >/dev/null; }
else
  c=$(buildah from --pull=never "localhost/$image")
  buildah run --isolation chroot --network host -v "$work/models:/models:ro" "$c" -- \
    translator --serve --models-dir /models --host 0.0.0.0 --port "$port" > "$work/serve.log" 2>&1 &
  server=$!
  stop_server() {
    container_stop_translators
    server_rc=0
    wait "$server" || server_rc=$?
    buildah rm "$c" >/dev/null
  }
fi
for _ in $(seq 600); do curl -sf "http://127.0.0.1:$port/ready" >/dev/null 2>&1 && break; sleep 0.1; done
curl -sf "http://127.0.0.1:$port/ready" || { cat "$work/serve.log" 2>/dev/null; fail "the server did not get ready"; }
echo
echo "startup: $(( ($(date +%s%N) - started) / 1000000 )) ms from starting the container to /ready answering 200" |
  tee "$work/startup.txt"
text="The man sees the dog."
languages=$(curl -sf "http://127.0.0.1:$port/languages") || fail "GET /languages"
echo "languages: $languages"
echo "$languages" | grep -q '"code":"en"' || fail "/languages does not list en"
answer=$(curl -sf "http://127.0.0.1:$port/translate" -H 'Content-Type: application/json' \
  -d "{\"q\": [\"$text\", \"A dog.\"], \"source\": \"en\", \"target\": \"de\"}") || fail "POST /translate"
echo "LibreTranslate API: $answer"
echo "$answer" | grep -q '"translatedText":\[' || fail "no translatedText array in the answer"
one=$(curl -sf "http://127.0.0.1:$port/translate" -d "q=$text&source=en&target=de" |
      python3 -c 'import json,sys; print(json.load(sys.stdin)["translatedText"])') || fail "POST /translate (form)"
answer=$(curl -sf "http://127.0.0.1:$port/translator/translate" -H 'Content-Type: application/json' \
  -d "[{\"src\": \"$text\", \"id\": 100}]") || fail "POST /translator/translate"
echo "OpenNMT-py API: $answer"
echo "$answer" | grep -q '"pred_score"' || fail "no pred_score in the answer"

# Clients from outside the container, as users install them (npm) and use
# them (Debian's chromium on the page).
command -v node >/dev/null && command -v npm >/dev/null ||
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null
[ -x /usr/bin/chromium ] || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
[ -d tests/clients/node_modules/libretranslate-ts ] && [ -d tests/clients/node_modules/puppeteer-core ] ||
  npm install --prefix tests/clients --no-audit --no-fund --loglevel=error >/dev/null || fail "npm install --prefix tests/clients"
clients=$(node tests/clients/one_pair_clients.mjs "$port" en de "$text") || fail "the LibreTranslate client libraries"
echo "LibreTranslate clients from npm: $clients"
expected=$(python3 -c 'import json,sys; print(json.dumps({k: sys.argv[1] for k in ("translate", "libretranslate", "libretranslate_ts")}, sort_keys=True))' "$one")
[ "$(echo "$clients" | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin), sort_keys=True))')" = "$expected" ] ||
  fail "a client library got another answer than the server's own ($one)"
mkdir -p "$work/page"
seen=$(node tests/clients/page_test.mjs "$port" "{\"source\": \"en\", \"target\": \"de\", \"text\": \"$text\"}" "$work/page") ||
  fail "the page in chromium"
echo "the page in chromium: $seen"
typed=$(echo "$seen" | python3 -c 'import json,sys; print(json.load(sys.stdin)["typed"])')
[ "$typed" = "$one" ] || fail "the page showed '$typed', the API answered '$one'"
[ -s "$work/page/page_wide.png" ] || fail "no screenshot of the page"
stop_server
[ "$server_rc" = 0 ] || fail "the server exited with $server_rc after SIGTERM, not 0"
echo "the server exited 0 after SIGTERM"

step "serve a mounted Argos Translate packages folder, read-only, as LibreTranslate's image does"
# The demo's model exported by the image as a package, then served from where
# argos-translate keeps packages in the container's home, with no model named.
mkdir -p "$work/argos-packages"
chmod 777 "$work/argos-packages"
run translator --model /work/sample-run --export argos --out /work/argos-packages/translate-en_de-1_0 ||
  fail "translator --export argos in the image"
[ -f "$work/argos-packages/translate-en_de-1_0/metadata.json" ] || fail "no package written to the volume"
packages=/home/nmt/.local/share/argos-translate/packages
if docker_engine; then
  cid=$(docker run -d -p "$port:$port" -v "$work/argos-packages:$packages:ro" "$image" \
        translator --serve --host 0.0.0.0 --port "$port") || fail "docker run --serve (packages)"
else
  c=$(buildah from --pull=never "localhost/$image")
  buildah run --isolation chroot --network host -v "$work/argos-packages:$packages:ro" "$c" -- \
    translator --serve --host 0.0.0.0 --port "$port" > "$work/serve-argos.log" 2>&1 &
  server=$!
fi
for _ in $(seq 600); do curl -sf "http://127.0.0.1:$port/ready" >/dev/null 2>&1 && break; sleep 0.1; done
curl -sf "http://127.0.0.1:$port/ready" >/dev/null || { cat "$work/serve-argos.log" 2>/dev/null; fail "the packages server did not get ready"; }
languages=$(curl -sf "http://127.0.0.1:$port/languages") || fail "GET /languages (packages)"
echo "languages: $languages"
echo "$languages" | grep -q '"code":"de"' || fail "/languages of the packages folder does not list de"
from_package=$(curl -sf "http://127.0.0.1:$port/translate" -d "q=$text&source=en&target=de" |
      python3 -c 'import json,sys; print(json.load(sys.stdin)["translatedText"])') || fail "POST /translate (packages)"
echo "from the package: $from_package"
[ -n "$from_package" ] || fail "the package served an empty translation"
stop_server
[ "$server_rc" = 0 ] || fail "the packages server exited with $server_rc after SIGTERM, not 0"
echo "the packages server exited 0 after SIGTERM"

echo
echo "docker_proof: all steps passed (work directory: $work)"
