#!/usr/bin/env bash
# Configures and builds into build/ (Release, ninja, ccache when present):
# everything, or only the targets named (scripts/build.sh trainer translator).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${NMT_BUILD_JOBS:-$(nproc)}
if [ ! -f build/build.ninja ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
fi
cmake --build build -j "$jobs" ${1:+--target "$@"}
