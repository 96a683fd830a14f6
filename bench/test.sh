#!/usr/bin/env bash
# `extract-with-archiver --test` against `bsdtar -xOf A > /dev/null` (extraction to nowhere, the same
# reading and checking) on one archive per format made from CORPUS; the target is a ratio ≤ 1.00.
# Medians of RUNS runs after a warm-up. Needs a quiet machine.
#
# Usage: bench/test.sh
#   CORPUS=DIR          the folder to archive (default: bench/corpus/mixed, as compare.sh makes it)
#   RUNS=5              runs per measurement
#   FORMATS="zip ..."   subset of: zip 7z tar.gz tar.bz2 tar.xz tar.zst
#   ARCHIVER_BIN_DIR    use these executables instead of building release
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=${RUNS:-5}
formats=${FORMATS:-"zip 7z tar.gz tar.bz2 tar.xz tar.zst"}
corpus=${CORPUS:-$root/bench/corpus/mixed}
[[ -d $corpus ]] || { echo "no corpus at $corpus: set CORPUS=DIR or run bench/compare.sh once" >&2; exit 2; }
if [[ -z ${ARCHIVER_BIN_DIR:-} ]]; then
    (cd "$root" && swift build -c release --product extract-with-archiver >/dev/null && swift build -c release --product compress-with-archiver >/dev/null)
    ARCHIVER_BIN_DIR=$(cd "$root" && swift build -c release --show-bin-path)
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

now_ms() { date +%s%3N; }
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}'; }
time_ms() {
    local times=() start
    "$@" >/dev/null 2>&1  # warm-up
    for _ in $(seq "$runs"); do
        start=$(now_ms)
        "$@" >/dev/null 2>&1
        times+=($(($(now_ms) - start)))
    done
    median "${times[@]}"
}

echo "corpus $corpus ($(du -sh "$corpus" | cut -f1)); $runs runs; load $(cut -d' ' -f1 /proc/loadavg)"
for format in $formats; do
    archive=$work/corpus.$format
    "$ARCHIVER_BIN_DIR/compress-with-archiver" --no-notify --format "$format" --output "$archive" "$corpus" >/dev/null
    ours=$(time_ms "$ARCHIVER_BIN_DIR/extract-with-archiver" --no-notify --test "$archive")
    theirs=$(time_ms bash -c 'bsdtar -xOf "$1" > /dev/null' _ "$archive")
    printf '%-8s --test %6d ms | bsdtar -xOf %6d ms | ratio %s\n' "$format" "$ours" "$theirs" \
        "$(awk -v o="$ours" -v t="$theirs" 'BEGIN {printf "%.2f", o / (t ? t : 1)}')"
done
