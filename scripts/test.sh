#!/usr/bin/env bash
# One command: install what is missing, build, run the whole test suite.
# It names the CPU first and, once built, the kernels chosen on it
# (build/cpu_report), then runs the tests whose results depend on the vector
# ISA with the ISA forced down to AVX2, without and with VNNI
# (scripts/test_isa.sh; NMT_TEST_ISA=0 skips them), then the whole suite,
# whose summary closes the log.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "test.sh: on $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//') ($(nproc) cores)"
scripts/install_deps.sh --test
scripts/build.sh
build/cpu_report | sed 's/^/test.sh: /'
# LibreTranslate client libraries from npm for the server's client test
# (skipped, saying so, where npm is missing or the registry unreachable).
if command -v npm >/dev/null; then
  npm install --prefix tests/clients --no-audit --no-fund --loglevel=error || echo "test.sh: npm install failed; the client test will be skipped"
fi
if [ "${NMT_TEST_ISA:-1}" != 0 ]; then
  scripts/test_isa.sh avx2       # no int8 there: refused without VNNI
  scripts/test_isa.sh avx2_vnni  # int8 through oneDNN's VNNI kernels
fi
cd build
ctest --output-on-failure -j "${NMT_TEST_JOBS:-2}" "$@"
