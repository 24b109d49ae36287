#!/usr/bin/env bash
# Builds the Docker image and proves it works: `translator --help`, a short
# training on a mounted directory, a resume, a translation, and the server
# answering both APIs from outside, failing loudly on any step. Uses `docker`
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

if command -v docker >/dev/null && docker info >/dev/null 2>&1; then
  step "building the image with docker"
  docker build -t "$image" . || fail "docker build"
  run() { docker run --rm -i -v "$work:/work" "$image" "$@"; }
else
  [ "$(id -u)" -eq 0 ] || fail "no Docker engine; the podman/buildah route needs root"
  step "no Docker engine: installing podman, buildah, debootstrap"
  command -v podman >/dev/null && command -v buildah >/dev/null && command -v debootstrap >/dev/null ||
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman buildah debootstrap >/dev/null
  if ! podman image exists docker.io/library/debian:bookworm-slim; then
    step "making a local debian:bookworm-slim base image with debootstrap"
    mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
    rootfs=$(mktemp -d /tmp/nmt-rootfs.XXXXXX)
    debootstrap --variant=minbase bookworm "$rootfs" "${mirror:-http://deb.debian.org/debian}" >/dev/null ||
      fail "debootstrap"
    tar -C "$rootfs" -c . | podman import - docker.io/library/debian:bookworm-slim >/dev/null || fail "podman import"
    rm -rf "$rootfs"
  fi
  step "building the image with podman (chroot isolation)"
  podman build --isolation=chroot --network=host -t "$image" . || fail "podman build"
  run() {
    local c
    c=$(buildah from --pull=never "localhost/$image")
    buildah run --isolation chroot -v "$work:/work" "$c" -- "$@"
    local rc=$?
    buildah rm "$c" >/dev/null
    return $rc
  }
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

step "serve: translator --serve in the image, both APIs from outside, SIGTERM ends it with exit 0"
port=${NMT_PROOF_PORT:-18089}
if command -v docker >/dev/null && docker info >/dev/null 2>&1; then
  cid=$(docker run -d -p "$port:$port" -v "$work:/work" "$image" \
        translator --model /work/run --serve --host 0.0.0.0 --port "$port") || fail "docker run --serve"
  stop_server() { docker stop -t 30 "$cid" >/dev/null; server_rc=$(docker wait "$cid"); docker rm "$cid" >/dev/null; }
else
  c=$(buildah from --pull=never "localhost/$image")
  buildah run --isolation chroot --network host -v "$work:/work" "$c" -- \
    translator --model /work/run --serve --host 0.0.0.0 --port "$port" > "$work/serve.log" 2>&1 &
  server=$!
  # buildah's own command line holds the translator's, so find the server by
  # its name and its root, which is the container's and not the host's.
  stop_server() {
    local p
    for p in $(pgrep -x translator); do
      if [ "$(readlink "/proc/$p/root")" != / ]; then kill -TERM "$p"; fi
    done
    server_rc=0
    wait "$server" || server_rc=$?
    buildah rm "$c" >/dev/null
  }
fi
for _ in $(seq 300); do curl -sf "http://127.0.0.1:$port/ready" >/dev/null 2>&1 && break; sleep 0.2; done
curl -sf "http://127.0.0.1:$port/ready" || { cat "$work/serve.log" 2>/dev/null; fail "the server did not get ready"; }
echo
answer=$(curl -sf "http://127.0.0.1:$port/translate" -H 'Content-Type: application/json' \
  -d '{"q": ["The man sees the dog.", "A dog."], "source": "en", "target": "de"}') || fail "POST /translate"
echo "LibreTranslate API: $answer"
echo "$answer" | grep -q '"translatedText":\[' || fail "no translatedText array in the answer"
answer=$(curl -sf "http://127.0.0.1:$port/translator/translate" -H 'Content-Type: application/json' \
  -d '[{"src": "The man sees the dog.", "id": 100}]') || fail "POST /translator/translate"
echo "OpenNMT-py API: $answer"
echo "$answer" | grep -q '"pred_score"' || fail "no pred_score in the answer"
stop_server
[ "$server_rc" = 0 ] || fail "the server exited with $server_rc after SIGTERM, not 0"
echo "the server exited 0 after SIGTERM"

echo
echo "docker_proof: all steps passed (work directory: $work)"
