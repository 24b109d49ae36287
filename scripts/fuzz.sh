#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz: one per reader of untrusted
# input) and runs each for SECONDS, starting from the committed seed corpus
# plus whatever earlier runs found (build-fuzz/corpus/). Prints executions
# and coverage per target; exits non-zero when any target finds a crash, a
# hang, a leak or an unexpected exception (the input is kept under
# build-fuzz/findings/TARGET/).
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]   default 60 s each, every target
#   scripts/fuzz.sh 0                       replay the committed corpus once (regressions)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
targets=("$@")
# By default every target, as cmake/fuzzed_sources.cmake lists them (one list for the builds and this).
[ ${#targets[@]} -gt 0 ] || read -r -a targets <<< "$(sed -n '/^set(NMT_FUZZ_TARGETS/,/)/p' cmake/fuzzed_sources.cmake |
  tr -d '()' | sed 's/setNMT_FUZZ_TARGETS//' | tr -s ' \n' ' ')"

scripts/install_deps.sh
need=()
for p in clang-14 libclang-rt-14-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ]; then sudo=(); else sudo=(sudo); fi
  echo "fuzz: installing ${need[*]}"
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

scripts/build.sh nmt nmt_spm_bridge
if [ ! -f build-fuzz/build.ninja ]; then
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  CC=clang-14 CXX=clang++-14 cmake -S tests/fuzz -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DNMT_MAIN_BUILD="$PWD/build" "${launcher[@]}" >/dev/null
fi
cmake --build build-fuzz -j "${NMT_BUILD_JOBS:-$(nproc)}" --target "${targets[@]/%/_fuzz}"

export NMT_SPM_BRIDGE="$PWD/build/libnmt_spm_bridge.so"
# Leaks are findings too, but for one in LibTorch itself (tests/fuzz/lsan.supp).
export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1:${ASAN_OPTIONS:-}"
export LSAN_OPTIONS="suppressions=$PWD/tests/fuzz/lsan.supp:${LSAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
# One target: its log, its findings, and one line of the table in TARGET.result.
run_target() {
  local t=$1 seconds=$2 work="build-fuzz/corpus/$1" findings="build-fuzz/findings/$1" log="build-fuzz/$1.log"
  mkdir -p "$work" "$findings"
  local limit=(-max_total_time="$seconds") result=ok
  [ "$seconds" -eq 0 ] && limit=(-runs=0)
  "build-fuzz/${t}_fuzz" "${limit[@]}" -timeout=25 -rss_limit_mb=4096 -print_final_stats=1 \
    -artifact_prefix="$findings/" "$work" "tests/fuzz/corpus/$t" >"$log" 2>&1 || result="FAILED (see $log and $findings/)"
  local execs cov ft
  execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | awk '{print $2}' | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | awk '{print $2}')
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | awk '{print $2}')
  printf '%-14s %8s %12s %8s %8s %s\n' "$t" "$seconds" "${execs:-?}" "${cov:-?}" "${ft:-?}" "$result" >"build-fuzz/$t.result"
}
export -f run_target

# NMT_FUZZ_JOBS targets at a time (default 1: each fuzzer is one process on one core).
rm -f build-fuzz/*.result
printf '%s\n' "${targets[@]}" | xargs -P "${NMT_FUZZ_JOBS:-1}" -I{} bash -c 'run_target "$1" "$2"' _ {} "$seconds"
printf '%-14s %8s %12s %8s %8s %s\n' target seconds executions cov features result
failed=()
for t in "${targets[@]}"; do
  cat "build-fuzz/$t.result"
  grep -q FAILED "build-fuzz/$t.result" && failed+=("$t")
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: findings in ${failed[*]}" >&2
  exit 1
fi
