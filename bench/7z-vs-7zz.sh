#!/usr/bin/env bash
# 7z creation: our tool against 7zz itself, alternating which goes first in each pair, so that a drift of
# the machine (page cache, neighbours) falls on both. Ours runs 7zz with the same switches; compare.sh
# times the two minutes apart, which on a noisy machine can differ by 10 % between identical runs.
#
# Usage: bench/7z-vs-7zz.sh [PAIRS]     (default 5; about 100 s a pair on the shared corpus, 2 cores)
#   ARCHIVER_BIN_DIR    use these executables instead of building release
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/release-bin.sh
source "$root/bench/release-bin.sh"
pairs=${1:-5}
corpus=$root/bench/corpus
[[ -d $corpus/mixed ]] || bash "$root/../shared/bench/make-corpus.sh" "$corpus" mixed
bin=$(release_bin "$root")
work=$root/bench/out/7z-vs-7zz
rm -rf "$work" && mkdir -p "$work"

ours() {
    rm -f "$work/ours.7z"; sync
    /usr/bin/time -f %e -o "$work/time" "$bin/compress-with-archiver" --no-notify --format 7z --level normal \
        --output "$work/ours.7z" "$corpus/mixed" >/dev/null 2>&1 || [[ $? == 1 ]]
    echo "ours $(cat "$work/time")"
}
sevenzip() {
    rm -f "$work/7zz.7z"; sync
    (cd "$corpus" && /usr/bin/time -f %e -o "$work/time" 7zz a -t7z -mx5 -snl -bd "$work/7zz.7z" mixed >/dev/null 2>&1)
    echo "7zz $(cat "$work/time")"
}
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

ours >/dev/null  # warm-up: the corpus into the page cache
lines=()
for ((i = 1; i <= pairs; i++)); do
    if ((i % 2)); then lines+=("$(ours)" "$(sevenzip)"); else lines+=("$(sevenzip)" "$(ours)"); fi
    printf '%s\n' "${lines[@]: -2}"
done
a=$(median $(printf '%s\n' "${lines[@]}" | awk '$1 == "ours" {print $2}'))
b=$(median $(printf '%s\n' "${lines[@]}" | awk '$1 == "7zz" {print $2}'))
echo "median: ours $a s, 7zz $b s, ratio $(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", a / b }')×;" \
    "sizes $(stat -c %s "$work/ours.7z") and $(stat -c %s "$work/7zz.7z") bytes"
