#!/usr/bin/env bash
# Compress Photos against vipsthumbnail and ImageMagick on the shared photo corpus
# (../shared/bench/make-photos.sh): photos/s, total size reduction, peak RSS, medians of RUNS runs.
# Every method makes the same thing: longest side at most 1500 px (never enlarged), JPEG quality 75,
# upright, using both cores.
#
# Usage: bench/photos.sh [phone|wallpapers|heic|png|albums]     (default: phone, the 12 MP set)
#   RUNS=3              runs per method (the median is reported; one warm-up run is not counted)
#   ARCHIVER_BIN_DIR    use this compress-photos-with-archiver instead of building release
#   RESULTS=FILE        where the table goes (default bench/RESULTS-photos.md; the set's section is replaced)
#   FORMATS="webp avif heic"   also time compress-photos-with-archiver writing these formats (same quality setting)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
set_name=${1:-phone}
runs=${RUNS:-3}
results=${RESULTS:-$root/bench/RESULTS-photos.md}
corpus=$root/bench/corpus/photos
work=$root/bench/out/photos
[[ -d $corpus/$set_name ]] || bash "$root/../shared/bench/make-photos.sh" "$root/bench/corpus" >&2
source_dir=$corpus/$set_name
if [[ -n ${ARCHIVER_BIN_DIR:-} ]]; then
    bin=$ARCHIVER_BIN_DIR
else
    (cd "$root" && swift build -c release --product compress-photos-with-archiver >&2)
    bin=$(cd "$root" && swift build -c release --show-bin-path)
fi
export LC_ALL=C
mapfile -t photos < <(cd "$source_dir" && find . -type f | sed 's|^\./||' | sort)
count=${#photos[@]}
input_bytes=$(cd "$source_dir" && cat -- "${photos[@]}" | wc -c)
half=$(((count + 1) / 2))

mkdir -p "$work"
list=$work/list
printf '%s\0' "${photos[@]}" > "$list"
export bin source_dir half list work

# The methods, each run as: METHOD OUT (inputs from $source_dir, copies into OUT).
archiver() {
    "$bin/compress-photos-with-archiver" --no-notify --max-size 1500 --quality 75 --format jpeg -o "$1" "$source_dir" \
        >/dev/null 2>"$work/archiver.err" || [[ $? == 1 ]]
}
vipsthumbnail_2() {  # 2 processes of one thread each: the fastest way to run it on 2 cores (../shared/notes/pdf-photo.md)
    (cd "$source_dir" && VIPS_CONCURRENCY=1 xargs -0 -P2 -n"$half" -a "$list" \
        vipsthumbnail --size '1500x1500>' -o "$1/%s.jpg[Q=75,optimize_coding]")
}
imagemagick_2() {  # one convert per photo, 2 at a time, with the JPEG shrink-on-load hint
    (cd "$source_dir" && MAGICK_THREAD_LIMIT=1 xargs -0 -P2 -a "$list" -I{} sh -c \
        'convert -define jpeg:size=1500x1500 "$1" -auto-orient -resize "1500x1500>" -quality 75 "$2/$(basename "${1%.*}").jpg"' _ {} "$1")
}
archiver_format() {
    "$bin/compress-photos-with-archiver" --no-notify --max-size 1500 --quality 75 --format "$PHOTO_FORMAT" -o "$1" "$source_dir" \
        >/dev/null 2>"$work/archiver.err" || [[ $? == 1 ]]
}
export -f archiver archiver_format vipsthumbnail_2 imagemagick_2

# measure METHOD: RUNS+1 runs; prints "median_seconds output_bytes median_peak_rss_kib files_made".
measure() {
    local method=$1 out=$work/$1 times=() rss=() bytes made seconds kib
    for ((i = 0; i <= runs; i++)); do
        rm -rf "$out" && mkdir -p "$out"
        /usr/bin/time -f '%e %M' -o "$work/time" bash -c '"$0" "$1"' "$method" "$out"
        read -r seconds kib < "$work/time"
        ((i == 0)) && continue
        times+=("$seconds"); rss+=("$kib")
    done
    bytes=$(find "$out" -type f ! -name '.*' -printf '%s\n' | awk '{s+=$1} END {print s+0}')
    made=$(find "$out" -type f ! -name '.*' | wc -l)
    printf '%s %s %s %s\n' "$(printf '%s\n' "${times[@]}" | sort -g | sed -n "$(((runs + 1) / 2))p")" "$bytes" \
        "$(printf '%s\n' "${rss[@]}" | sort -g | sed -n "$(((runs + 1) / 2))p")" "$made"
}

rows=()
for method in archiver vipsthumbnail_2 imagemagick_2 ${FORMATS:-}; do
    if [[ $method == @(webp|avif|heic) ]]; then export PHOTO_FORMAT=$method; method=archiver_format; fi
    read -r seconds bytes kib made < <(measure "$method")
    label=$(case $method in
        archiver) echo "compress-photos-with-archiver (1 process, cores + 1 workers)" ;;
        archiver_format) echo "compress-photos-with-archiver --format $PHOTO_FORMAT" ;;
        vipsthumbnail_2) echo "vipsthumbnail, 2 processes × 1 thread" ;;
        imagemagick_2) echo "ImageMagick convert -define jpeg:size, 2 at a time" ;;
    esac)
    rows+=("$(awk -v l="$label" -v s="$seconds" -v n="$count" -v m="$made" -v i="$input_bytes" -v b="$bytes" -v k="$kib" 'BEGIN {
        printf "| %s | %d/%d | %.2f | %.1f | %.1f → %.1f MB (%.1f %%) | %.0f |", l, m, n, s, n / s, i / 1e6, b / 1e6, 100 - b * 100 / i, k / 1024 }')")
    echo "${rows[-1]}" >&2
done

section="## Photos: $set_name set ($count files, $(awk -v i="$input_bytes" 'BEGIN { printf "%.1f", i / 1e6 }') MB)"
{
    echo "$section"
    echo
    echo "1500 px longest side, JPEG Q75, upright; median of $runs runs (after a warm-up) on $(nproc) cores, $(date -u +%Y-%m-%d)."
    echo "Peak RSS is the largest single process (/usr/bin/time -v); the 2-process methods hold about twice that."
    echo
    echo "| method | made | seconds | photos/s | total size | peak RSS MiB |"
    echo "|---|---|---|---|---|---|"
    printf '%s\n' "${rows[@]}"
    echo
} > "$work/section.md"
# Replace this set's section in the results file, keep the others.
if [[ -f $results ]]; then
    awk -v head="$section" 'BEGIN { skip = 0 } /^## / { skip = ($0 == head) } !skip' "$results" > "$work/rest.md"
else
    printf '# Compress Photos benchmark (bench/photos.sh)\n\n' > "$work/rest.md"
fi
cat "$work/rest.md" "$work/section.md" > "$results"
echo "Wrote $results" >&2
