#!/usr/bin/env bash
# Builds the test suite with AddressSanitizer and UndefinedBehaviorSanitizer
# (in build-asan/, apart from the normal build) and runs it; any memory error,
# leak or undefined behaviour fails the test it happens in. Extra arguments go
# to ctest (scripts/sanitize.sh -R StateDict).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
if [ ! -f build-asan/build.ninja ]; then
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNMT_SANITIZE=ON -DNMT_BUILD_BENCH=OFF
fi
cmake --build build-asan -j "${NMT_BUILD_JOBS:-$(nproc)}"
# Leaks are reported but for LibTorch's own (tests/fuzz/lsan.supp); a UB
# report stops the process, so the test fails.
export ASAN_OPTIONS="detect_leaks=1:${ASAN_OPTIONS:-}"
export LSAN_OPTIONS="suppressions=$PWD/tests/fuzz/lsan.supp:${LSAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
cd build-asan
ctest --output-on-failure -j "${NMT_TEST_JOBS:-2}" --timeout 900 "$@"
