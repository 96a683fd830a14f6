#!/usr/bin/env bash
# Extracting many small files from several threads (issue 32, item 4): the 100,000-file corpus
# (bench/many-corpus.py) in a zip and a tar.gz made by bsdtar, extracted by `bsdtar -xf`, by Archiver on one
# thread (ARCHIVER_TEST_WORKERS=1: as before the file workers) and by Archiver with a worker per CPU, to tmpfs
# (/dev/shm) and to the disk; then 8 files of 32 MiB the same way (few large files must be no slower).
# Median of RUNS (default 5) after one warm-up; the three take turns within each run, and each starts after
# `sync`, so that the previous run's dirty pages are not its cost.
#
#   bench/many-extract.sh [BIN]   BIN: the folder of extract-with-archiver (default .build/timings/release, the
#                                 optimised build with the test hooks, `make bench-build`; a plain release build
#                                 ignores ARCHIVER_TEST_WORKERS, so its "one thread" row uses the workers too)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/.build/timings/release}
runs=${RUNS:-5}
corpus=$root/bench/corpus
[[ -d $corpus/many ]] || /usr/bin/python3 "$root/bench/many-corpus.py" "$corpus/many"
if [[ ! -d $corpus/large ]]; then
    mkdir -p "$corpus/large"
    # Text that deflate shrinks by about a quarter, as most large files people zip do not shrink much.
    for i in $(seq 8); do head -c 24M /dev/urandom | base64 -w 0 | head -c 32M >"$corpus/large/part$i.txt"; done
fi
work=$root/bench/out/many-extract
shm=/dev/shm/archiver-many-extract-$$
trap 'rm -rf "$work" "$shm"' EXIT
rm -rf "$work" && mkdir -p "$work" "$shm"
for set in many large; do
    bsdtar --format zip -cf "$work/$set.zip" -C "$corpus" "$set"
    bsdtar -czf "$work/$set.tar.gz" -C "$corpus" "$set"
done

# once PLACE TOOL ARCHIVE: the seconds TOOL takes to extract ARCHIVE into a fresh folder in PLACE.
once() {
    local dest=$1/x tool=$2 archive=$3 start end status=0
    rm -rf "$dest" && mkdir -p "$dest" && sync
    start=$(date +%s%N)
    case $tool in
        bsdtar) bsdtar -xf "$archive" -C "$dest" || status=$? ;;
        one) ARCHIVER_TEST_WORKERS=1 "$bin/extract-with-archiver" --no-notify --to "$dest" "$archive" >/dev/null || status=$? ;;
        workers) "$bin/extract-with-archiver" --no-notify --to "$dest" "$archive" >/dev/null || status=$? ;;
    esac
    end=$(date +%s%N)
    ((status == 0)) || { echo "$tool failed ($status) on $archive" >&2; exit 1; }
    rm -rf "$dest"
    awk -v n=$((end - start)) 'BEGIN { printf "%.3f", n / 1e9 }'
}

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

echo "extract-with-archiver from $bin; median of $runs runs; $(nproc) CPUs; load at start $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| files | format | to | bsdtar s | Archiver, 1 thread s (× bsdtar) | Archiver, workers s (× bsdtar) | workers vs 1 thread |"
echo "|---|---|---|---|---|---|---|"
for set in many large; do
    for format in zip tar.gz; do
        for place in tmpfs disk; do
            folder=$([[ $place == tmpfs ]] && echo "$shm" || echo "$work")
            bsdtar_s=() one_s=() workers_s=()
            for ((i = 0; i <= runs; i++)); do
                b=$(once "$folder" bsdtar "$work/$set.$format")
                o=$(once "$folder" one "$work/$set.$format")
                w=$(once "$folder" workers "$work/$set.$format")
                ((i == 0)) && continue
                bsdtar_s+=("$b") one_s+=("$o") workers_s+=("$w")
            done
            b=$(median "${bsdtar_s[@]}") o=$(median "${one_s[@]}") w=$(median "${workers_s[@]}")
            awk -v set="$set" -v f="$format" -v p="$place" -v b="$b" -v o="$o" -v w="$w" 'BEGIN {
                printf "| %s | %s | %s | %.2f | %.2f (%.2f×) | %.2f (%.2f×) | %+.0f %% |\n", set == "many" ? "100,000 small" : "8 × 32 MiB",
                    f, p, b, o, o / b, w, w / b, (w / o - 1) * 100 }'
            echo "    runs: bsdtar ${bsdtar_s[*]}; one thread ${one_s[*]}; workers ${workers_s[*]}" >&2
        done
    done
done
