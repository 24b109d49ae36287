#!/usr/bin/env bash
# One command: install what is missing, build, run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh --test
scripts/build.sh
# LibreTranslate client libraries from npm for the server's client test
# (skipped, saying so, where npm is missing or the registry unreachable).
if command -v npm >/dev/null; then
  npm install --prefix tests/clients --no-audit --no-fund --loglevel=error || echo "test.sh: npm install failed; the client test will be skipped"
fi
cd build
ctest --output-on-failure -j "${NMT_TEST_JOBS:-2}" "$@"
