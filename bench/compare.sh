#!/usr/bin/env bash
# Times compress and extract with Archiver and with bsdtar (plus 7zz and unzip where they apply) on the
# shared benchmark corpus, same format and level, several runs each; writes bench/RESULTS.md.
#
# Usage: bench/compare.sh [mixed|big|many]
#   mixed: the shared corpus; big: one 2 GiB file; many: 100,000 small files in 100 folders
#   RUNS=5              runs per measurement (the median is reported; one warm-up run is not counted)
#   FORMATS="zip ..."   subset of: zip tar.gz tar.bz2 tar.xz tar.zst 7z
#   OPERATIONS="..."    subset of: compress extract (extract alone makes our archive once, untimed)
# Then a 10-file job: exec → exit with --no-notify, and exec → the notification daemon receiving the result
# (python3-dbusmock on a private session bus), median of 11.
#   CORPUS=DIR          time this folder instead of the shared corpus
#   ARCHIVER_BIN_DIR    use these executables instead of building release
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/release-bin.sh
source "$root/bench/release-bin.sh"
runs=${RUNS:-5}
formats=${FORMATS:-"zip tar.gz tar.bz2 tar.xz tar.zst 7z"}
operations=${OPERATIONS:-"compress extract"}
which_corpus=${1:-mixed}
work=$root/bench/out
results=$root/bench/RESULTS.md
threads=$(nproc)

if [[ -n ${CORPUS:-} ]]; then
    source_dir=$(cd "$CORPUS" && pwd)
else
    corpus_root=$root/bench/corpus
    if [[ $which_corpus == many ]]; then
        if [[ ! -d $corpus_root/many ]]; then
            /usr/bin/python3 "$root/bench/many-corpus.py" "$corpus_root/many"
        fi
        source_dir=$corpus_root/many
    elif [[ $which_corpus == big ]]; then
        [[ -f $corpus_root/big.bin ]] || bash "$root/../shared/bench/make-corpus.sh" "$corpus_root" big
        mkdir -p "$corpus_root/big-folder" && ln -f "$corpus_root/big.bin" "$corpus_root/big-folder/big.bin"
        source_dir=$corpus_root/big-folder
    else
        [[ -d $corpus_root/mixed ]] || bash "$root/../shared/bench/make-corpus.sh" "$corpus_root" mixed
        source_dir=$corpus_root/mixed
    fi
fi
bin=$(release_bin "$root")
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
        # The previous run's dirty pages written back now, not during this run (extraction is mostly kernel time).
        sync
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

# compress_rows FORMAT ARCHIVE: times creating ARCHIVE with ours, bsdtar at the same level (and threads where
# ours uses them) and 7-Zip.
compress_rows() {
    local format=$1 archive=$2 ours base base_s
    ours=$(measure "$archive" "$bin/compress-with-archiver" --format "$format" --level normal --output "$archive" "$source_dir")
    case $format in
        zip) base=$(measure "$work/b.zip" bsdtar --format zip -cf "$work/b.zip" -C "$parent" "$name") ;;
        tar.gz) base=$(measure "$work/b.tgz" bsdtar -czf "$work/b.tgz" -C "$parent" "$name") ;;
        tar.bz2) base=$(measure "$work/b.tbz2" bsdtar -cjf "$work/b.tbz2" -C "$parent" "$name") ;;
        tar.xz) base=$(measure "$work/b.txz" bsdtar -cJf "$work/b.txz" -C "$parent" "$name") ;;
        tar.zst) base=$(measure "$work/b.tzst" bsdtar --zstd -cf "$work/b.tzst" -C "$parent" "$name") ;;
        7z) base=$(measure "$work/b.7z" bsdtar --format 7zip --options 7zip:compression=lzma2,7zip:compression-level=5 \
                -cf "$work/b.7z" -C "$parent" "$name") ;;
    esac
    base_s=${base%% *}
    row compress "$format" "Archiver" "$ours" "$base_s"
    row compress "$format" "bsdtar (same level)" "$base" "$base_s"
    case $format in
        zip | tar.gz)
            # The issue-32 targets: one core against all, and pigz for tar.gz.
            row compress "$format" "Archiver, taskset -c 0" \
                "$(measure "$archive" taskset -c 0 "$bin/compress-with-archiver" --format "$format" --level normal --output "$archive" "$source_dir")" "$base_s" ;;
    esac
    case $format in
        tar.gz)
            row compress "$format" "tar -I 'pigz -6'" \
                "$(measure "$work/p.tgz" tar -I "pigz -6" -cf "$work/p.tgz" -C "$parent" "$name")" "$base_s" ;;
        tar.xz)
            row compress "$format" "bsdtar, $threads threads" \
                "$(measure "$work/bt.txz" bsdtar --options xz:threads="$threads" -cJf "$work/bt.txz" -C "$parent" "$name")" "$base_s" ;;
        tar.zst)
            row compress "$format" "bsdtar, $threads threads" \
                "$(measure "$work/bt.tzst" bsdtar --zstd --options zstd:threads="$threads" -cf "$work/bt.tzst" -C "$parent" "$name")" "$base_s" ;;
        zip) row compress "$format" "7zz -tzip -mx5 -mmt$threads" \
                "$(cd "$parent" && measure "$work/s.zip" 7zz a -tzip -mx5 -mmt"$threads" -snl -bd "$work/s.zip" "$name")" "$base_s" ;;
        7z) row compress "$format" "7zz -t7z -mx5 (threads)" \
                "$(cd "$parent" && measure "$work/s.7z" 7zz a -t7z -mx5 -snl -bd "$work/s.7z" "$name")" "$base_s" ;;
    esac
}

for format in $formats; do
    archive=$work/ours.$format
    if [[ " $operations " == *" compress "* ]]; then
        compress_rows "$format" "$archive"
    else
        "$bin/compress-with-archiver" --no-notify --format "$format" --level normal --output "$archive" "$source_dir" >/dev/null 2>&1 ||
            (($? == 1)) || { echo "failed to make $archive" >&2; exit 1; }
    fi
    [[ " $operations " == *" extract "* ]] || continue

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

# A 10-file job, from exec to exit (--no-notify) and from exec to the notification daemon receiving its
# result: the whole cost of a right-click on a few files.
startup_rows=()
startup() {
    local small=$work/small pids=() bus log=$work/notify.log
    mkdir -p "$small/in"
    for i in $(seq 10); do head -c 20000 /dev/urandom | base64 >"$small/in/file$i.txt"; done
    exec 5< <(exec dbus-daemon --config-file="$root/Tests/ArchiverTestSupport/session-bus.conf" --nofork --print-address 2>/dev/null)
    read -r bus <&5
    pids+=($!)
    DBUS_SESSION_BUS_ADDRESS=$bus /usr/bin/python3 -m dbusmock --template notification_daemon -l "$log" >/dev/null 2>&1 &
    pids+=($!)
    DBUS_SESSION_BUS_ADDRESS=$bus gdbus wait --session --timeout 10 org.freedesktop.Notifications
    local op exit_ms notify_ms
    for op in compress extract; do
        local to_exit=() to_notify=()
        for ((i = 0; i <= 10; i++)); do
            rm -rf "$small/in.zip" "$small/out"
            [[ $op == extract ]] && "$bin/compress-with-archiver" --no-notify --output "$small/in.zip" "$small/in" >/dev/null 2>&1
            local command=("$bin/$op-with-archiver")
            [[ $op == compress ]] && command+=(--output "$small/in.zip" "$small/in") || command+=(--to "$small/out" "$small/in.zip")
            local start end
            start=$(date +%s%N)
            "${command[0]}" --no-notify "${command[@]:1}" >/dev/null 2>&1
            end=$(date +%s%N)
            ((i > 0)) && to_exit+=($(((end - start) / 1000000)))
            rm -rf "$small/in.zip" "$small/out"
            [[ $op == extract ]] && "$bin/compress-with-archiver" --no-notify --output "$small/in.zip" "$small/in" >/dev/null 2>&1
            : >"$log"
            start=$(date +%s%N)
            DBUS_SESSION_BUS_ADDRESS=$bus "${command[@]}" >/dev/null 2>&1
            # dbusmock logs each call with its arrival time (seconds, three decimals).
            local arrived
            arrived=$(awk '/ Notify /{print $1; exit}' "$log")
            ((i > 0)) && [[ -n $arrived ]] && to_notify+=("$(awk -v a="$arrived" -v s="$start" 'BEGIN{printf "%d", a * 1000 - s / 1000000}')")
        done
        exit_ms=$(median "${to_exit[@]}")
        notify_ms=$(median "${to_notify[@]:-0}")
        startup_rows+=("| $op | $exit_ms | $notify_ms |")
        printf 'startup  %-8s exec→exit %s ms, exec→notification %s ms\n' "$op" "$exit_ms" "$notify_ms" >&2
    done
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
}
startup

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
    echo "Targets: extraction ≤ 1.05× bsdtar's time for every format; creation ≤ 1.0× bsdtar's (and ≤ 1.0× 7zz for"
    echo "7z); peak RSS ≤ 64 MiB for zip, tar.gz, tar.bz2, tar.zst creation at the normal level and for every extraction;"
    echo "a 10-file job under 150 ms from exec to exit and to the notification."
    echo
    echo "| operation | format | tool | median s | ratio | size MB | peak RSS MiB |"
    echo "|---|---|---|---|---|---|---|"
    printf '%s\n' "${rows[@]}"
    echo
    echo "A 10-file job (10 × 27 kB of text, zip), median of 10 runs after one warm-up:"
    echo
    echo "| job | exec → exit, --no-notify (ms) | exec → notification received (ms) |"
    echo "|---|---|---|"
    printf '%s\n' "${startup_rows[@]}"
} >"$results.new"
if [[ -f $results ]] && grep -q '^## Notes' "$results"; then
    sed -n '/^## Notes/,$p' "$results" | { echo; cat; } >>"$results.new"
fi
mv "$results.new" "$results"
echo "Wrote $results" >&2
