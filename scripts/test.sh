#!/usr/bin/env bash
# One command: install what is missing, build, run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh --test
scripts/build.sh
cd build
ctest --output-on-failure -j "${NMT_TEST_JOBS:-2}" "$@"
