#!/usr/bin/env bash
# Times compress and extract with Archiver and with bsdtar (plus 7zz and unzip where they apply) on the
# shared benchmark corpus, same format and level, several runs each; writes bench/RESULTS.md.
#
# Usage: bench/compare.sh [mixed|big]
#   RUNS=5              runs per measurement (the median is reported; one warm-up run is not counted)
#   FORMATS="zip ..."   subset of: zip tar.gz tar.xz tar.zst 7z
#   CORPUS=DIR          time this folder instead of the shared corpus
#   ARCHIVER_BIN_DIR    use these executables instead of building release
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=${RUNS:-5}
formats=${FORMATS:-"zip tar.gz tar.xz tar.zst 7z"}
which_corpus=${1:-mixed}
work=$root/bench/out
results=$root/bench/RESULTS.md
threads=$(nproc)

if [[ -n ${CORPUS:-} ]]; then
    source_dir=$(cd "$CORPUS" && pwd)
else
    corpus_root=$root/bench/corpus
    if [[ $which_corpus == big ]]; then
        [[ -f $corpus_root/big.bin ]] || bash "$root/../shared/bench/make-corpus.sh" "$corpus_root" big
        mkdir -p "$corpus_root/big-folder" && ln -f "$corpus_root/big.bin" "$corpus_root/big-folder/big.bin"
        source_dir=$corpus_root/big-folder
    else
        [[ -d $corpus_root/mixed ]] || bash "$root/../shared/bench/make-corpus.sh" "$corpus_root" mixed
        source_dir=$corpus_root/mixed
    fi
fi
if [[ -n ${ARCHIVER_BIN_DIR:-} ]]; then
    bin=$ARCHIVER_BIN_DIR
else
    (cd "$root" && swift build -c release >&2)
    bin=$(cd "$root" && swift build -c release --show-bin-path)
fi
parent=$(dirname "$source_dir")
name=$(basename "$source_dir")
rm -rf "$work" && mkdir -p "$work"

# measure LABEL OUTPUT -- COMMAND...: runs COMMAND (after removing OUTPUT) RUNS+1 times, prints
# "median_seconds size_bytes median_peak_rss_kib" for the counted runs.
measure() {
    local output=$1; shift
    local times=() rss=() size=0
    for ((i = 0; i <= runs; i++)); do
        rm -rf "$output"
        [[ $output == */x ]] && mkdir -p "$output"
        # Exit 1 is "done with warnings": the corpus holds absolute symlinks, which Archiver refuses to create.
        local status=0
        /usr/bin/time -f "%e %M" -o "$work/time.txt" "$@" >/dev/null 2>"$work/stderr.txt" || status=$?
        if ((status > 1)); then echo "failed ($status): $*" >&2; cat "$work/stderr.txt" >&2; return 1; fi
        ((i == 0)) && continue
        # time(1) puts "Command exited with non-zero status N" first when the status is not 0.
        read -r t m < <(tail -n 1 "$work/time.txt")
        times+=("$t"); rss+=("$m")
    done
    size=$(du -sb "$output" | cut -f1)
    printf '%s %s %s\n' "$(median "${times[@]}")" "$size" "$(median "${rss[@]}")"
}

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

rows=()
# row OP FORMAT TOOL RESULT BASE_SECONDS
row() {
    local op=$1 format=$2 tool=$3 seconds size rss ratio
    read -r seconds size rss <<<"$4"
    ratio=$(awk -v a="$seconds" -v b="$5" 'BEGIN { printf (b > 0 ? "%.2f×" : "–"), a / b }')
    rows+=("| $op | $format | $tool | $seconds | $ratio | $(awk -v s="$size" 'BEGIN{printf "%.1f", s/1e6}') | $(awk -v r="$rss" 'BEGIN{printf "%.0f", r/1024}') |")
    printf '%-8s %-8s %-34s %8ss %7s %9s MB %6s MiB\n' "$op" "$format" "$tool" "$seconds" "$ratio" \
        "$(awk -v s="$size" 'BEGIN{printf "%.1f", s/1e6}')" "$(awk -v r="$rss" 'BEGIN{printf "%.0f", r/1024}')" >&2
}

for format in $formats; do
    archive=$work/ours.$format
    # Compress: ours, then bsdtar at the same level (and threads where ours uses them), then 7-Zip.
    ours=$(measure "$archive" "$bin/compress-with-archiver" --format "$format" --level normal --output "$archive" "$source_dir")
    case $format in
        zip) base=$(measure "$work/b.zip" bsdtar --format zip -cf "$work/b.zip" -C "$parent" "$name") ;;
        tar.gz) base=$(measure "$work/b.tgz" bsdtar -czf "$work/b.tgz" -C "$parent" "$name") ;;
        tar.xz) base=$(measure "$work/b.txz" bsdtar -cJf "$work/b.txz" -C "$parent" "$name") ;;
        tar.zst) base=$(measure "$work/b.tzst" bsdtar --zstd -cf "$work/b.tzst" -C "$parent" "$name") ;;
        7z) base=$(measure "$work/b.7z" bsdtar --format 7zip --options 7zip:compression=lzma2,7zip:compression-level=5 \
                -cf "$work/b.7z" -C "$parent" "$name") ;;
    esac
    base_s=${base%% *}
    row compress "$format" "Archiver" "$ours" "$base_s"
    row compress "$format" "bsdtar (same level)" "$base" "$base_s"
    case $format in
        tar.xz)
            row compress "$format" "bsdtar, $threads threads" \
                "$(measure "$work/bt.txz" bsdtar --options xz:threads="$threads" -cJf "$work/bt.txz" -C "$parent" "$name")" "$base_s" ;;
        tar.zst)
            row compress "$format" "bsdtar, $threads threads" \
                "$(measure "$work/bt.tzst" bsdtar --zstd --options zstd:threads="$threads" -cf "$work/bt.tzst" -C "$parent" "$name")" "$base_s" ;;
        zip) row compress "$format" "7zz -tzip (its default, threads)" \
                "$(cd "$parent" && measure "$work/s.zip" 7zz a -tzip -snl -bd "$work/s.zip" "$name")" "$base_s" ;;
        7z) row compress "$format" "7zz -t7z -mx5 (threads)" \
                "$(cd "$parent" && measure "$work/s.7z" 7zz a -t7z -mx5 -snl -bd "$work/s.7z" "$name")" "$base_s" ;;
    esac

    # Extract our archive with each tool.
    ours=$(measure "$work/eo/x" "$bin/extract-with-archiver" --to "$work/eo/x" "$archive")
    base=$(measure "$work/eb/x" bsdtar -xf "$archive" -C "$work/eb/x")
    base_s=${base%% *}
    row extract "$format" "Archiver" "$ours" "$base_s"
    row extract "$format" "bsdtar" "$base" "$base_s"
    case $format in
        zip) row extract "$format" "unzip" "$(measure "$work/eu/x" unzip -q "$archive" -d "$work/eu/x")" "$base_s"
             row extract "$format" "7zz" "$(measure "$work/es/x" 7zz x -snld -bd -o"$work/es/x" "$archive")" "$base_s" ;;
        7z) row extract "$format" "7zz" "$(measure "$work/es/x" 7zz x -snld -bd -o"$work/es/x" "$archive")" "$base_s" ;;
    esac
    rm -rf "$work"/e? "$work"/b* "$work"/s.*
done

corpus_bytes=$(du -sb "$source_dir" | cut -f1)
corpus_files=$(find "$source_dir" -type f | wc -l)
{
    echo "# Benchmark results"
    echo
    echo "Made by \`bench/compare.sh $which_corpus\` on $(date -u +%Y-%m-%d): $(nproc) cores,"
    echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(bsdtar --version)."
    echo "Corpus: $corpus_bytes bytes in $corpus_files files ($source_dir). Median of $runs runs after one warm-up;"
    echo "ratio = time ÷ bsdtar's time for the same format and level; peak RSS from /usr/bin/time -v."
    echo
    echo "Targets: time within 1.10× of bsdtar for the same format and level (below bsdtar's default for xz/zstd"
    echo "thanks to threads); peak RSS under 64 MiB for zip and tar.*; zip extraction at least as fast as unzip."
    echo
    echo "| operation | format | tool | median s | ratio | size MB | peak RSS MiB |"
    echo "|---|---|---|---|---|---|---|"
    printf '%s\n' "${rows[@]}"
} >"$results.new"
if [[ -f $results ]] && grep -q '^## Notes' "$results"; then
    sed -n '/^## Notes/,$p' "$results" | { echo; cat; } >>"$results.new"
fi
mv "$results.new" "$results"
echo "Wrote $results" >&2
