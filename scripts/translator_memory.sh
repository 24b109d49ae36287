#!/usr/bin/env bash
# Bounded memory while translating: the translator's peak resident memory
# (GNU time's maximum RSS) on LINES and on 10 x LINES input lines, made by
# cycling through SOURCE_FILE, greedy decoding to an output file, on LINES
# lines with one line of 256 MiB without a break in their middle, and on LINES
# lines of which every 100th is a sentence of 5,000 characters without
# punctuation (translated in pieces that fit the model). Input is read and
# translated in chunks, a line is read to at most 64 KiB, pieces go through
# the same batches as sentences, and output streams to a temporary file, so
# the peaks must agree within 10%; exits 1 otherwise.
#
#   scripts/translator_memory.sh MODEL_DIR SOURCE_FILE [LINES (20000)] [TRANSLATOR (build/translator)]
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 MODEL_DIR SOURCE_FILE [LINES] [TRANSLATOR]" >&2
  exit 2
fi
model=$1 source=$2 lines=${3:-20000} translator=${4:-build/translator}
[ -x /usr/bin/time ] || { echo "$0: needs GNU time (/usr/bin/time, Debian package 'time')" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

make_input() {  # N lines cycling through the source file
  local n=$1 out=$2
  local have=$(grep -c '' "$source")
  { for ((i = 0; i < (n + have - 1) / have; i++)); do cat "$source"; done; } | head -n "$n" > "$out"
}

peak_kib() {  # peak RSS of translating file $1
  /usr/bin/time -f '%M' -o "$work/time" "$translator" --model "$model" --beam 1 --input "$1" --output "$work/out" \
    2> /dev/null
  [ "$(grep -c '' "$work/out")" -eq "$(grep -c '' "$1")" ] || { echo "$0: output line count differs" >&2; exit 1; }
  tail -n 1 "$work/time"
}

make_input "$lines" "$work/small"
make_input $((10 * lines)) "$work/large"
{ head -n $((lines / 2)) "$work/small"; head -c $((256 << 20)) /dev/zero | tr '\0' 'x'; echo; tail -n +$((lines / 2 + 1)) "$work/small"; } \
  > "$work/long_line"
# Words of the source without punctuation, 5,000 characters of them.
long_sentence=$(head -n 300 "$source" | tr -d '[:punct:]' | tr '\n' ' ' | tr -s ' ' | head -c 5000)
awk -v s="$long_sentence" 'NR % 100 == 0 { print s; next } { print }' "$work/small" > "$work/long_sentences"
growth() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.1f%%", 100 * (b - a) / a }'; }
start=$(date +%s)
small=$(peak_kib "$work/small")
large=$(peak_kib "$work/large")
long=$(peak_kib "$work/long_line")
sentences=$(peak_kib "$work/long_sentences")
echo "translator peak RSS: $((small / 1024)) MiB on $lines lines, $((large / 1024)) MiB on $((10 * lines)) lines" \
  "($(growth "$small" "$large")), $((long / 1024)) MiB on $lines lines with one 256 MiB line ($(growth "$small" "$long"))," \
  "$((sentences / 1024)) MiB with every 100th line a 5,000-character sentence ($(growth "$small" "$sentences"));" \
  "$(($(date +%s) - start)) s"
for peak in "$large" "$long" "$sentences"; do
  awk -v a="$small" -v b="$peak" 'BEGIN { exit (b > 1.10 * a) ? 1 : 0 }' || { echo "more than 10% growth" >&2; exit 1; }
done
