#!/usr/bin/env bash
# compress-pdf-with-archiver --estimate against the copies it really makes, on the shared PDF corpus
# (../shared/bench/make-pdfs.sh: album, scan, text, mixed): for every PDF and level, the estimate, the real
# result (the original's size where no copy is made, as the estimate says then), the error, and the
# estimate's time (the whole process's wall-clock and CPU seconds, median of RUNS). Prints a Markdown table,
# also left in bench/out-pdf-estimate/table.md.
#
# Usage: bench/pdf-estimate.sh
#   RUNS=5              runs of the estimate per PDF (the median time is reported)
#   ARCHIVER_BIN_DIR    use this compress-pdf-with-archiver instead of building release
# Needs: the corpus script's packages (python3-reportlab, python3-pil, img2pdf, poppler-utils).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=${RUNS:-5}
out=$root/bench/out-pdf-estimate
corpus=$out/pdfs
export LC_ALL=C.UTF-8 GSETTINGS_BACKEND=memory TIMEFORMAT='%R %U %S'

[[ -f $corpus/mixed.pdf ]] || bash "$root/../shared/bench/make-pdfs.sh" "$out"
if [[ -n ${ARCHIVER_BIN_DIR:-} ]]; then
    archiver=$ARCHIVER_BIN_DIR/compress-pdf-with-archiver
else
    (cd "$root" && swift build -c release --product compress-pdf-with-archiver >/dev/null)
    archiver=$root/.build/release/compress-pdf-with-archiver
fi
work=$out/copies
rm -rf "$work"; mkdir -p "$work"

median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
mb() { awk -v b="$1" 'BEGIN {printf "%.2f", b / 1e6}'; }

qualities=(best high medium low very-low minimum)
load=$(cut -d' ' -f1 /proc/loadavg)
table=$out/table.md
{
    echo "| PDF | level | estimate MB | real MB | error | estimate time (wall / CPU) |"
    echo "|---|---|---|---|---|---|"
} >"$table"
worst=0
for f in album scan text mixed; do
    in=$corpus/$f.pdf
    walls=() cpus=()
    for ((r = 0; r < runs; r++)); do
        # bash's `time` writes real, user and system seconds on stderr; the JSON goes to a file.
        measured=$({ time "$archiver" --estimate --json "$in" >"$out/$f-estimate.json" 2>/dev/null; } 2>&1)
        walls+=("$(awk '{print $1}' <<<"$measured")")
        cpus+=("$(awk '{print $2 + $3}' <<<"$measured")")
    done
    wall=$(printf '%s\n' "${walls[@]}" | median)
    cpu=$(printf '%s\n' "${cpus[@]}" | median)
    mapfile -t estimates < <(grep -o '"estimatedSize":[0-9]*' "$out/$f-estimate.json" | cut -d: -f2)
    for i in "${!qualities[@]}"; do
        q=${qualities[$i]}
        copy=$work/$f-$q.pdf
        "$archiver" --no-notify -q "$q" -o "$copy" "$in" >/dev/null 2>&1
        real=$([[ -f $copy ]] && stat -c %s "$copy" || stat -c %s "$in")
        est=${estimates[$i]}
        error=$(awk -v e="$est" -v r="$real" 'BEGIN {printf "%+.1f", (e - r) * 100 / r}')
        worst=$(awk -v w="$worst" -v e="$error" 'BEGIN {e += 0; e = e < 0 ? -e : e; print (e > w ? e : w)}')
        when=$([[ $i -eq 0 ]] && echo "$wall s / $cpu s" || echo "")
        echo "| $f | $q | $(mb "$est") | $(mb "$real") | $error % | $when |" >>"$table"
        printf '%-6s %-9s estimate %10d real %10d %6s %%\n' "$f" "$q" "$est" "$real" "$error" >&2
    done
done
{
    echo
    echo "Release build, median of $runs estimates per PDF; load average at the start: $load."
    echo "Largest error: $worst % (target: 25 %)."
} >>"$table"
cat "$table"
