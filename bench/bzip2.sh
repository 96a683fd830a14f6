#!/usr/bin/env bash
# Times listing and extracting one tar.bz2 with Archiver (blocks decoded on both cores) and with bsdtar
# (one libbz2 stream), median of RUNS, the two tools taking turns so that a busy machine slows both alike.
#
# Usage: bench/bzip2.sh ARCHIVE.tar.bz2
#   RUNS=3              runs per measurement
#   ARCHIVER_BIN_DIR    use this extract-with-archiver instead of building release
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
archive=$(realpath "$1")
runs=${RUNS:-3}
if [[ -z ${ARCHIVER_BIN_DIR:-} ]]; then
    (cd "$root" && swift build -c release --product extract-with-archiver >/dev/null)
    ARCHIVER_BIN_DIR=$root/.build/release
fi
ours=$ARCHIVER_BIN_DIR/extract-with-archiver
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

seconds() { # command...: wall seconds, output dropped; the CPU seconds (user + system) go to $work/cpu
    /usr/bin/time -f '%e %U %S' -o "$work/time" "$@" >/dev/null 2>&1 || true
    # A failing command's first line says so; the figures are on the last.
    read -r wall user system < <(tail -n 1 "$work/time")
    echo "$user + $system" | bc >"$work/cpu"
    echo "$wall"
}
median() { printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"; }

declare -A times cpu
measure() { # key command...
    local key=$1
    shift
    times[$key]+=" $(seconds "$@")"
    cpu[$key]+=" $(cat "$work/cpu")"
}
for _ in $(seq "$runs"); do
    measure bsdtar-list bsdtar -tf "$archive"
    measure ours-list "$ours" --no-notify --list "$archive"
    rm -rf "$work/x" && mkdir "$work/x"
    measure bsdtar-extract bsdtar -xf "$archive" -C "$work/x"
    rm -rf "$work/x" "$work/y"
    measure ours-extract "$ours" --no-notify --to "$work/y" "$archive"
    rm -rf "$work/y"
done
echo "$(basename "$archive"): $(stat -c %s "$archive") bytes, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "median of $runs wall seconds (all runs in brackets), then CPU seconds (user + system)"
for task in list extract; do
    b=$(median ${times[bsdtar-$task]}) o=$(median ${times[ours-$task]})
    printf '%-8s bsdtar %6.2f s [%s]   Archiver %6.2f s [%s]   ratio %.2f\n' \
        "$task" "$b" "${times[bsdtar-$task]# }" "$o" "${times[ours-$task]# }" "$(echo "$o / $b" | bc -l)"
    printf '%-8s CPU    bsdtar %6.2f s   Archiver %6.2f s\n' "" "$(median ${cpu[bsdtar-$task]})" "$(median ${cpu[ours-$task]})"
done
