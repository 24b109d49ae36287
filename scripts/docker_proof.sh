#!/usr/bin/env bash
# Builds the Docker image and proves it works: `translator --help`, a short
# training on a mounted directory, a resume, and a translation, failing loudly
# on any step. Uses `docker` where an engine answers; otherwise, as root on
# Debian, podman + buildah with a debootstrap base image (no registry needed).
set -euo pipefail
cd "$(dirname "$0")/.."
image=${NMT_IMAGE:-nmt}
work=$(mktemp -d /tmp/nmt-docker-proof.XXXXXX)
chmod 777 "$work"
step() { echo; echo "== $*"; }
fail() { echo "docker_proof: FAILED: $*" >&2; exit 1; }

# A short training config over the sample corpus, inside the mounted dir.
mkdir -p "$work/data"
head -n 2000 data/sample/train.en > "$work/data/train.en"
head -n 2000 data/sample/train.de > "$work/data/train.de"
cp data/sample/valid.en data/sample/valid.de "$work/data/"
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

echo
echo "docker_proof: all steps passed (work directory: $work)"
