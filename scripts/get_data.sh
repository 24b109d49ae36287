#!/usr/bin/env bash
# Fetches a public data set the committed configs train on, and checks every
# file against the SHA-256 sums committed beside this script.
#
#   scripts/get_data.sh multi30k [DIR]             # download into DIR (default data/multi30k/)
#   scripts/get_data.sh multi30k --from SRC [DIR]  # copy from a local copy or mirror folder (offline)
#
# multi30k: Multi30k task 1 (Elliott et al., 2016), raw (cased, untokenized)
# gzip files from the data set's public repository at a pinned commit: train
# and val (29,000 and 1,014 sentences in en, de, fr, cs) and the test sets
# test_2016_flickr, test_2017_flickr, test_2017_mscoco and test_2018_flickr.
# Train and val are required; a test set that SRC does not hold is skipped,
# saying so. A file is written whole under its name only once its sum is
# right (fetched into DIR/.NAME.part, checked, then renamed), so an
# interrupted or damaged fetch never leaves a file that looks complete; a
# file already in DIR with the right sum is kept, one with another sum is
# fetched again. Exit status: 0 done, 2 usage, 3 a file missing or with the
# wrong sum.
#
# Environment: NMT_MULTI30K_URL, the base address to download from (a mirror
# of data/task1/raw); NMT_GET_DATA_SUMS, another sums file in sha256sum's
# format (the tests use it with files of their own).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
me=scripts/get_data.sh

usage() {
  echo "usage: $me multi30k [--from SRC] [DIR]" >&2
  echo "  downloads Multi30k task 1 into DIR (default $repo/data/multi30k), or copies it from the folder SRC," >&2
  echo "  and checks every file against $repo/scripts/multi30k.sha256" >&2
  exit 2
}

[ $# -ge 1 ] || usage
dataset=$1; shift
case "$dataset" in
  multi30k) ;;
  -h|--help) usage ;;
  *) echo "$me: unknown data set '$dataset' (known: multi30k)" >&2; exit 2 ;;
esac

from=""
dest=""
while [ $# -gt 0 ]; do
  case "$1" in
    --from) [ $# -ge 2 ] || usage; from=$2; shift 2 ;;
    --from=*) from=${1#--from=}; shift ;;
    -h|--help) usage ;;
    -*) echo "$me: unknown option '$1'" >&2; usage ;;
    *) [ -z "$dest" ] || usage; dest=$1; shift ;;
  esac
done
dest=${dest:-$repo/data/multi30k}
sums=${NMT_GET_DATA_SUMS:-$repo/scripts/multi30k.sha256}
base_url=${NMT_MULTI30K_URL:-https://raw.githubusercontent.com/multi30k/dataset/a3d2e0d26b56f3846f66a952536ffed4e401d05a/data/task1/raw}

[ -f "$sums" ] || { echo "$me: the sums file $sums is missing" >&2; exit 3; }
if [ -n "$from" ] && [ ! -d "$from" ]; then
  echo "$me: --from $from is not a folder" >&2; exit 2
fi
if [ -z "$from" ] && ! command -v curl >/dev/null && ! command -v wget >/dev/null; then
  echo "$me: downloading needs curl or wget (apt-get install curl), or use --from SRC" >&2; exit 2
fi
mkdir -p "$dest"

sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

# Brings NAME into PART; returns 1 when the source has no such file.
fetch() {
  local name=$1 part=$2
  if [ -n "$from" ]; then
    [ -f "$from/$name" ] || return 1
    cp "$from/$name" "$part" && chmod 644 "$part"
  elif command -v curl >/dev/null; then
    curl -fsSL --retry 3 -o "$part" "$base_url/$name" || return 1
  else
    wget -q -O "$part" "$base_url/$name" || return 1
  fi
}

source_name=${from:-$base_url}
fetched=0 kept=0 skipped=()
while read -r expected name; do
  [ -n "$name" ] || continue
  target="$dest/$name"
  if [ -f "$target" ] && [ "$(sha256_of "$target")" = "$expected" ]; then
    kept=$((kept + 1)); continue
  fi
  [ -f "$target" ] && echo "$me: $target has another SHA-256 than $sums lists; fetching it again"
  part="$dest/.$name.part"
  rm -f "$part"
  if ! fetch "$name" "$part"; then
    rm -f "$part"
    case "$name" in
      test_*) skipped+=("$name"); continue ;;
      *) echo "$me: $name is not in $source_name: Multi30k's train and val files are all needed" >&2; exit 3 ;;
    esac
  fi
  got=$(sha256_of "$part")
  if [ "$got" != "$expected" ]; then
    rm -f "$part"
    echo "$me: $name from $source_name has SHA-256 $got, but $sums lists $expected:" \
         "the file is damaged or not the one the configs were tuned on; nothing was written for it" >&2
    exit 3
  fi
  mv -f "$part" "$target"
  fetched=$((fetched + 1))
done < "$sums"

if [ ${#skipped[@]} -gt 0 ]; then
  echo "$me: skipped ${#skipped[@]} test-set files that $source_name does not hold (not needed for training): ${skipped[*]}"
fi
echo "$me: $dest: $fetched files fetched, $kept already there, ${#skipped[@]} skipped; every file's SHA-256 checked"
