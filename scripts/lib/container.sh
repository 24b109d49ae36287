# Sourced by scripts/docker_proof.sh and scripts/check_readme.sh: run the
# README's `docker` commands where no Docker engine answers, with podman and
# buildah from Debian (as root, chroot isolation, the host's network) and a
# debootstrap base image made here, since no registry is reachable.

# True when a Docker engine answers.
docker_engine() { command -v docker >/dev/null && docker info >/dev/null 2>&1; }

# podman, buildah and debootstrap, and the base image the Dockerfile names.
container_prepare() {
  [ "$(id -u)" -eq 0 ] || { echo "container.sh: no Docker engine; the podman/buildah route needs root" >&2; return 1; }
  command -v podman >/dev/null && command -v buildah >/dev/null && command -v debootstrap >/dev/null ||
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman buildah debootstrap >/dev/null || return 1
  podman image exists docker.io/library/debian:bookworm-slim && return 0
  echo "container.sh: making a local debian:bookworm-slim base image with debootstrap"
  local mirror rootfs
  mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
  rootfs=$(mktemp -d /tmp/nmt-rootfs.XXXXXX)
  debootstrap --variant=minbase bookworm "$rootfs" "${mirror:-http://deb.debian.org/debian}" >/dev/null || return 1
  tar -C "$rootfs" -c . | podman import - docker.io/library/debian:bookworm-slim >/dev/null || return 1
  rm -rf "$rootfs"
}

# The default command of IMAGE, one word a line.
container_default_cmd() {
  podman image inspect --format '{{range .Config.Cmd}}{{println .}}{{end}}' "localhost/$1" | sed '/^$/d'
}

# Stops every translator running inside a container (its root is not the
# host's): buildah's own command line holds the translator's, so the server
# is found by its name and its root.
container_stop_translators() {
  local p
  for p in $(pgrep -x translator); do
    if [ "$(readlink "/proc/$p/root")" != / ]; then kill -TERM "$p"; fi
  done
}

# `docker build` and `docker run` as the README writes them, without an
# engine: build -> podman build; run [--rm] [-i] [-t] [-p H:C] [-v A:B[:ro]]
# [--user U] IMAGE [COMMAND...] -> buildah run on a fresh container of IMAGE
# (ports need no mapping on the host's network).
container_docker() {
  local verb=$1; shift
  case "$verb" in
    build) podman build --isolation=chroot --network=host "$@" ;;
    run)
      local opts=() image="" c rc=0
      while [ $# -gt 0 ]; do
        case "$1" in
          --rm|-i|-t|-it|--interactive|--tty) shift ;;
          -p|--publish) shift 2 ;;
          -v|--volume) opts+=(-v "$2"); shift 2 ;;
          -u|--user) opts+=(--user "$2"); shift 2 ;;
          -*) echo "container.sh: docker run option $1 is not handled here" >&2; return 2 ;;
          *) image=$1; shift; break ;;
        esac
      done
      [ -n "$image" ] || { echo "container.sh: docker run without an image" >&2; return 2; }
      local cmd=("$@")
      [ ${#cmd[@]} -gt 0 ] || mapfile -t cmd < <(container_default_cmd "$image")
      c=$(buildah from --pull=never "localhost/$image") || return 1
      buildah run --isolation chroot --network host "${opts[@]}" "$c" -- "${cmd[@]}" || rc=$?
      buildah rm "$c" >/dev/null
      return $rc ;;
    *) echo "container.sh: docker $verb is not handled here" >&2; return 2 ;;
  esac
}
