#!/usr/bin/env bash
# The deflate behind tar.gz, .gz and zip: which library on our 128 KiB blocks, tar.gz creation against
# bsdtar and `tar -I pigz`, zip creation against bsdtar and 7-Zip. Writes to stdout (copy the tables into
# bench/RESULTS.md).
#
# Usage: bench/deflate.sh [libraries] [targz] [zip]      (all by default)
#   libraries: zlib, libdeflate and ISA-L on a 32 MiB sample of the mixed corpus (8 pieces of 4 MiB spread
#              over its tar), one core, CPU time (bench/deflate-blocks.c)
#   targz:     tar.gz of the mixed corpus at the normal level: ours on all cores and under `taskset -c 0`,
#              bsdtar, `tar -I pigz`; median of RUNS
#   zip:       zip of the mixed corpus at the normal level: ours on all cores and under `taskset -c 0`,
#              bsdtar, `7zz a -tzip -mx5 -mmt` with as many threads as cores; median of RUNS
#   RUNS=5  CORPUS=DIR  ARCHIVER_BIN_DIR (as bench/compare.sh)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/release-bin.sh
source "$root/bench/release-bin.sh"
runs=${RUNS:-5}
parts=${*:-"libraries targz zip"}
work=$root/bench/out-deflate
rm -rf "$work" && mkdir -p "$work"
if [[ -n ${CORPUS:-} ]]; then
    source_dir=$(cd "$CORPUS" && pwd)
else
    [[ -d $root/bench/corpus/mixed ]] || bash "$root/../shared/bench/make-corpus.sh" "$root/bench/corpus" mixed
    source_dir=$root/bench/corpus/mixed
fi
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

if [[ " $parts " == *" libraries "* ]]; then
    cc -O2 -o "$work/deflate-blocks" "$root/bench/deflate-blocks.c" -lz -lisal -ldeflate
    tar -cf "$work/corpus.tar" -C "$(dirname "$source_dir")" "$(basename "$source_dir")"
    /usr/bin/python3 - "$work/corpus.tar" "$work/sample.bin" <<'PY'
import os, sys
n = os.path.getsize(sys.argv[1])
with open(sys.argv[1], 'rb') as f, open(sys.argv[2], 'wb') as out:
    for i in range(8):
        f.seek(n * i // 8)
        out.write(f.read(4 << 20))
PY
    echo "### Deflate libraries on 128 KiB blocks of $(basename "$source_dir") ($(stat -c %s "$work/sample.bin") bytes, $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))"
    "$work/deflate-blocks" "$work/sample.bin" 131072
    rm -f "$work/corpus.tar"
fi

if [[ " $parts " == *" targz "* || " $parts " == *" zip "* ]]; then
    bin=$(release_bin "$root")
    command -v pigz >/dev/null || { echo "pigz is missing (apt-get install pigz)" >&2; exit 1; }
    # measure OUTPUT COMMAND...: "median_seconds size_bytes median_peak_rss_kib" over RUNS runs after a warm-up.
    measure() {
        local output=$1; shift
        local times=() rss=()
        for ((i = 0; i <= runs; i++)); do
            rm -f "$output"
            sync
            /usr/bin/time -f "%e %M" -o "$work/time.txt" "$@" >/dev/null 2>"$work/stderr.txt" ||
                (($? == 1)) || { cat "$work/stderr.txt" >&2; return 1; }
            ((i == 0)) && continue
            read -r t m < <(tail -n 1 "$work/time.txt")
            times+=("$t"); rss+=("$m")
        done
        printf '%s %s %s\n' "$(median "${times[@]}")" "$(stat -c %s "$output")" "$(median "${rss[@]}")"
    }
    parent=$(dirname "$source_dir") name=$(basename "$source_dir")
    # table FORMAT KEY=LABEL...: the results of each KEY as a ratio to bsdtar's.
    table() {
        local format=$1; shift
        local base=${results[bsdtar]%% *}
        echo "### $format creation, $name corpus, normal level ($(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg), median of $runs)"
        echo "| tool | seconds | × bsdtar | MB | size × bsdtar | peak MiB |"
        echo "|---|---|---|---|---|---|"
        local bsize; read -r _ bsize _ <<<"${results[bsdtar]}"
        for pair in "$@"; do
            read -r seconds size rss <<<"${results[${pair%%=*}]}"
            awk -v l="${pair#*=}" -v s="$seconds" -v b="$base" -v z="$size" -v bz="$bsize" -v r="$rss" \
                'BEGIN { printf "| %s | %s | %.2f× | %.1f | %.4f× | %.0f |\n", l, s, s / b, z / 1e6, z / bz, r / 1024 }'
        done
    }
    declare -A results
    if [[ " $parts " == *" targz "* ]]; then
        ours=(--no-notify --format tar.gz --level normal)
        results[bsdtar]=$(measure "$work/b.tgz" bsdtar -czf "$work/b.tgz" -C "$parent" "$name")
        results[pigz]=$(measure "$work/p.tgz" tar -I "pigz -6" -cf "$work/p.tgz" -C "$parent" "$name")
        results[ours]=$(measure "$work/o.tgz" "$bin/compress-with-archiver" "${ours[@]}" --output "$work/o.tgz" "$source_dir")
        results[ours1]=$(measure "$work/o1.tgz" taskset -c 0 "$bin/compress-with-archiver" "${ours[@]}" --output "$work/o1.tgz" "$source_dir")
        table tar.gz "ours=Archiver, $(nproc) cores" "ours1=Archiver, taskset -c 0" "pigz=tar -I 'pigz -6'" "bsdtar=bsdtar -czf"
    fi
    if [[ " $parts " == *" zip "* ]]; then
        ours=(--no-notify --format zip --level normal)
        results[bsdtar]=$(measure "$work/b.zip" bsdtar --format zip -cf "$work/b.zip" -C "$parent" "$name")
        results[7zz]=$(cd "$parent" && measure "$work/s.zip" 7zz a -tzip -mx5 -mmt"$(nproc)" -snl -bd "$work/s.zip" "$name")
        results[ours]=$(measure "$work/o.zip" "$bin/compress-with-archiver" "${ours[@]}" --output "$work/o.zip" "$source_dir")
        results[ours1]=$(measure "$work/o1.zip" taskset -c 0 "$bin/compress-with-archiver" "${ours[@]}" --output "$work/o1.zip" "$source_dir")
        table zip "ours=Archiver, $(nproc) cores" "ours1=Archiver, taskset -c 0" "7zz=7zz a -tzip -mx5 -mmt$(nproc)" "bsdtar=bsdtar --format zip"
    fi
fi
rm -rf "$work"
