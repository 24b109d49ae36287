#!/usr/bin/env bash
# Runs every command of README.md's ```sh blocks, as written, in order, in the
# repository root, so that the front page cannot rot; stops at the first
# command that fails, naming it.
#
#   scripts/check_readme.sh [--data-from DIR] [--minutes N] [--skip REGEX]... [--blocks N,M] [--list]
#
# How the commands run:
# - each line is one command (a line ending in '\' goes on on the next);
#   lines starting with '#' are comments or expected output;
# - a command with --serve starts a server: it runs in the background until
#   /ready answers on its --port (8080 unless it says), and is stopped with
#   SIGTERM at the end of its block, where it must exit 0; curl commands must
#   not answer an error;
# - `docker` is Docker where an engine answers, else podman/buildah through
#   scripts/lib/container.sh (root; a debootstrap base image).
# What may change, each printed beside the command it changes:
# - --data-from DIR: `scripts/get_data.sh` copies from DIR instead of
#   downloading (offline);
# - --minutes N: trainer commands run with `--set train.max_minutes=N` (the
#   Multi30k recipe trains for 16M target tokens, about 70 minutes here);
# - --skip REGEX: commands matching REGEX are listed as skipped, not run
#   (e.g. 'scripts/test.sh', which .ci/run runs anyway).
# --blocks N,M runs only those blocks (counted from 1, in the README's order),
# to go on after a fix; --list prints the commands and runs nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
me=scripts/check_readme.sh
data_from="" minutes="" list=0 skips=() blocks=""
while [ $# -gt 0 ]; do
  case "$1" in
    --data-from) data_from=$(cd "$2" && pwd); shift 2 ;;
    --minutes) minutes=$2; shift 2 ;;
    --skip) skips+=("$2"); shift 2 ;;
    --blocks) blocks=",$2,"; shift 2 ;;
    --list) list=1; shift ;;
    *) echo "usage: $me [--data-from DIR] [--minutes N] [--skip REGEX]... [--blocks N,M] [--list]" >&2; exit 2 ;;
  esac
done

# The README's commands: "BLOCK<TAB>COMMAND" a line, continuations joined.
commands=$(awk '
  /^```sh[[:space:]]*$/ { inblock = 1; block++; next }
  /^```/ { inblock = 0; next }
  !inblock { next }
  { line = $0 }
  pending != "" { line = pending " " line; pending = "" }
  /\\[[:space:]]*$/ { sub(/\\[[:space:]]*$/, "", line); pending = line; next }
  line ~ /^[[:space:]]*(#|$)/ { next }
  { print block "\t" line }
' README.md)
[ -n "$commands" ] || { echo "$me: no \`\`\`sh block in README.md" >&2; exit 1; }
if [ "$list" = 1 ]; then echo "$commands"; exit 0; fi

log_dir=$(mktemp -d /tmp/nmt-readme.XXXXXX)
. scripts/lib/container.sh
docker_engine_here=""
if docker_engine; then docker_engine_here=1; fi
if [ -z "$docker_engine_here" ] && grep -q $'\t''docker ' <<<"$commands"; then
  container_prepare
  docker() { container_docker "$@"; }
  export -f docker container_docker container_default_cmd
fi

servers=() server_names=()
stop_servers() {
  local i rc
  for i in "${!servers[@]}"; do
    if [[ "${server_names[$i]}" == docker* ]] && [ -z "$docker_engine_here" ]; then
      container_stop_translators
    else
      # bash -c runs a lone command in its own process; otherwise the
      # server is its child, and bash exits with the server's status.
      pkill -TERM -P "${servers[$i]}" 2>/dev/null || kill -TERM "${servers[$i]}" 2>/dev/null || true
    fi
    rc=0
    wait "${servers[$i]}" || rc=$?
    [ "$rc" = 0 ] || { echo "$me: FAILED: the server of '${server_names[$i]}' exited $rc after SIGTERM" >&2; exit 1; }
    echo "   the server stopped on SIGTERM with exit 0"
  done
  servers=() server_names=()
}
trap 'for p in "${servers[@]}"; do kill -TERM "$p" 2>/dev/null; done' EXIT

ran=0 skipped=() n=0 block=0
while IFS=$'\t' read -r b cmd; do
  n=$((n + 1))
  if [ "$b" != "$block" ]; then stop_servers; block=$b; fi
  if [ -n "$blocks" ] && [[ "$blocks" != *",$b,"* ]]; then continue; fi
  for s in "${skips[@]}"; do
    if [[ "$cmd" =~ $s ]]; then skipped+=("$cmd"); echo "-- skipped (--skip '$s'): $cmd"; continue 2; fi
  done
  run=$cmd note=""
  if [ -n "$data_from" ] && [[ "$cmd" == scripts/get_data.sh* ]]; then
    run="${cmd%%#*} --from $(printf %q "$data_from")"; note=" [+ --from $data_from]"
  fi
  if [ -n "$minutes" ] && [[ "$cmd" =~ (^|[[:space:]])build/trainer[[:space:]] ]]; then
    run="${cmd%%#*} --set train.max_minutes=$minutes"; note=" [+ --set train.max_minutes=$minutes]"
  fi
  echo "== [$n] $cmd$note"
  log="$log_dir/$n.log"
  if [[ "$cmd" == *--serve* ]]; then
    bash -c "$run" > "$log" 2>&1 < /dev/null &
    servers+=($!) server_names+=("$cmd")
    port=8080
    if [[ "$cmd" =~ --port[[:space:]]+([0-9]+) ]]; then port=${BASH_REMATCH[1]}; fi
    for _ in $(seq 1200); do
      curl -sf "http://127.0.0.1:$port/ready" >/dev/null 2>&1 && break
      kill -0 "${servers[-1]}" 2>/dev/null || { cat "$log"; echo "$me: FAILED: the server ended: $cmd" >&2; exit 1; }
      sleep 0.25
    done
    curl -sf "http://127.0.0.1:$port/ready" >/dev/null || { cat "$log"; echo "$me: FAILED: not ready in 300 s: $cmd" >&2; exit 1; }
    echo "   ready on port $port"
  else
    start=$(date +%s)
    if ! bash -c "$run" > "$log" 2>&1 < /dev/null; then  # as a user's shell: a pipeline's status is its last command's
      tail -n 30 "$log"
      echo "$me: FAILED: [$n] $cmd (log: $log)" >&2
      exit 1
    fi
    if [[ "$cmd" == curl* ]] && grep -q '"error"' "$log"; then
      cat "$log"; echo "$me: FAILED: the server answered an error: $cmd" >&2; exit 1
    fi
    tail -n 3 "$log" | cut -c1-200 | sed 's/^/   /'
    echo "   ($(( $(date +%s) - start )) s)"
  fi
  ran=$((ran + 1))
done <<<"$commands"
stop_servers

echo
echo "$me: $ran of $n README commands ran and passed, ${#skipped[@]} skipped; logs in $log_dir"
for s in "${skipped[@]}"; do echo "  skipped: $s"; done
