#!/usr/bin/env bash
# Installs, from Debian's archive, whatever the build, the tests and the demo need.
# Idempotent and quick when everything is present; runs apt-get as root or through sudo.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config ccache git
  libtorch-dev libgloo-dev libdnnl-dev libopenblas0-pthread
  libsentencepiece-dev sentencepiece
  nlohmann-json3-dev libspdlog-dev libgtest-dev libcli11-dev zlib1g-dev
  libcpp-httplib-dev libjemalloc-dev libicu-dev libgumbo-dev libcld2-dev libzip-dev libpugixml-dev
  libyaml-cpp-dev libsqlite3-dev
)
# --test: what only the test suite uses, never the product: torchrun (in
# python3-torch) for the test that it starts a data-parallel job, iproute2
# for the one that joins two network namespaces, chromium for the server's
# page in a real browser (driven by puppeteer-core from npm, tests/clients).
# pandoc, LibreOffice (writer, impress), python3-docx and odfpy make and read
# real documents for the document tests.
if [ "${1:-}" = "--test" ]; then
  packages+=(python3-torch iproute2 chromium pandoc libreoffice-writer-nogui libreoffice-impress-nogui python3-docx python3-odf)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install_deps: all ${#packages[@]} packages present"
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then sudo=(); elif command -v sudo >/dev/null; then sudo=(sudo); else
  echo "install_deps: need root or sudo to install: ${missing[*]}" >&2; exit 1
fi

echo "install_deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install_deps: done"
