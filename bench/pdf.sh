#!/usr/bin/env bash
# Compares compress-pdf-with-archiver with Ghostscript /ebook, qpdf --optimize-images and the rasterize
# approach (pdftoppm + img2pdf), all at "Medium" (150 dpi, JPEG 50), on the shared PDF corpus
# (../shared/bench/make-pdfs.sh: album, scan, text, mixed): output size, time (median of RUNS), and the
# words pdftotext still finds. Writes bench/RESULTS-pdf.md.
#
# Usage: bench/pdf.sh
#   RUNS=3              runs per measurement (the median time is reported)
#   QUALITY=medium      Archiver's --quality (the other methods stay at their Medium equivalents)
#   ARCHIVER_BIN_DIR    use this compress-pdf-with-archiver instead of building release
# Needs: ghostscript qpdf poppler-utils img2pdf (and the corpus script's python3-reportlab, python3-pil).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=${RUNS:-3}
quality=${QUALITY:-medium}
corpus=$root/bench/corpus/pdfs
work=$root/bench/out/pdf
results=$root/bench/RESULTS-pdf.md
export LC_ALL=C.UTF-8 GSETTINGS_BACKEND=memory

[[ -f $corpus/mixed.pdf ]] || bash "$root/../shared/bench/make-pdfs.sh" "$root/bench/corpus"
if [[ -n ${ARCHIVER_BIN_DIR:-} ]]; then
    archiver=$ARCHIVER_BIN_DIR/compress-pdf-with-archiver
else
    (cd "$root" && swift build -c release --product compress-pdf-with-archiver >/dev/null)
    archiver=$root/.build/release/compress-pdf-with-archiver
fi
for tool in gs qpdf pdftoppm pdftotext img2pdf; do
    command -v "$tool" >/dev/null || { echo "pdf.sh: $tool is missing" >&2; exit 1; }
done
rm -rf "$work"; mkdir -p "$work"

# One method on one file: IN OUT; each leaves OUT (Archiver leaves none when the result is not smaller:
# then the input is the answer, as the user sees it).
run_archiver() { "$archiver" --no-notify --quality "$quality" -o "$2" "$1" >/dev/null 2>&1; [[ -f $2 ]] || cp "$1" "$2"; }
run_gs() { gs -q -dNOPAUSE -dBATCH -dSAFER -sDEVICE=pdfwrite -dPDFSETTINGS=/ebook -o "$2" "$1"; }
run_qpdf() { qpdf --optimize-images --object-streams=generate --recompress-flate --compression-level=9 "$1" "$2" || [[ $? -eq 3 ]]; }
run_raster() {
    local d; d=$(mktemp -d)
    pdftoppm -r 150 -jpeg -jpegopt quality=50 "$1" "$d/p" && img2pdf "$d"/p-*.jpg -o "$2"
    rm -rf "$d"
}

now() { date +%s.%N; }
median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
words() { pdftotext "$1" - 2>/dev/null | wc -w; }
mb() { awk -v b="$1" 'BEGIN {printf "%.2f", b / 1e6}'; }

methods=(archiver gs qpdf raster)
declare -A label=(
    [archiver]="Archiver $quality (qpdf + libvips, placement DPI)"
    [gs]="gs -dPDFSETTINGS=/ebook"
    [qpdf]="qpdf --optimize-images"
    [raster]="rasterize 150 dpi q50 (pdftoppm + img2pdf)"
)
declare -A size time kept
load=$(cut -d' ' -f1 /proc/loadavg)
files=(album scan text mixed)
for f in "${files[@]}"; do
    in=$corpus/$f.pdf
    in_words=$(words "$in")
    for m in "${methods[@]}"; do
        out=$work/$f-$m.pdf
        times=()
        for ((r = 0; r < runs; r++)); do
            rm -f "$out"
            t0=$(now); "run_$m" "$in" "$out"; t1=$(now)
            times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}')")
        done
        size[$f,$m]=$(stat -c %s "$out")
        time[$f,$m]=$(printf '%s\n' "${times[@]}" | median)
        if ((in_words == 0)); then kept[$f,$m]="—"; else kept[$f,$m]="$(( $(words "$out") * 100 / in_words )) %"; fi
        printf '%-6s %-9s %9s bytes %6s s words %s\n' "$f" "$m" "${size[$f,$m]}" "${time[$f,$m]}" "${kept[$f,$m]}" >&2
    done
done

# Archiver's whole ladder, sizes only (one run each).
declare -A ladder
qualities=(best high medium low very-low minimum)
for q in "${qualities[@]}"; do
    for f in "${files[@]}"; do
        out=$work/$f-ladder-$q.pdf
        "$archiver" --no-notify --quality "$q" -o "$out" "$corpus/$f.pdf" >/dev/null 2>&1 || true
        [[ -f $out ]] && ladder[$f,$q]=$(mb "$(stat -c %s "$out")") || ladder[$f,$q]="kept"
    done
done

{
    echo "# PDF compression: Archiver against Ghostscript, qpdf and rasterizing"
    echo
    echo "Made by \`bench/pdf.sh\` on $(date -u +%Y-%m-%d), $(nproc) cores; corpus from \`../shared/bench/make-pdfs.sh\`."
    echo "Each cell: output MB (change against the input), median seconds of $runs runs, words pdftotext finds"
    echo "(against the input's; — where the input has none). gs $(gs --version), $(qpdf --version | head -1),"
    echo "pdftoppm $(pdftoppm -v 2>&1 | head -1 | awk '{print $3}'), img2pdf $(img2pdf --version 2>&1 | awk '{print $2}')."
    echo "Load average when the runs started: $load (the machine is shared; compare methods within a run)."
    echo
    printf '| method |'; for f in "${files[@]}"; do printf ' %s (%s MB) |' "$f" "$(mb "$(stat -c %s "$corpus/$f.pdf")")"; done; echo
    printf '|---|'; for f in "${files[@]}"; do printf -- '---|'; done; echo
    for m in "${methods[@]}"; do
        printf '| %s |' "${label[$m]}"
        for f in "${files[@]}"; do
            s=${size[$f,$m]}; i=$(stat -c %s "$corpus/$f.pdf")
            change=$(awk -v s="$s" -v i="$i" 'BEGIN {c = (s - i) * 100 / i; printf (c > 0 ? "+%.0f %%" : "%.0f %%"), c}')
            printf ' %s (%s) %s s, %s |' "$(mb "$s")" "$change" "${time[$f,$m]}" "${kept[$f,$m]}"
        done
        echo
    done
    echo
    echo "Archiver's quality ladder, output MB (\"kept\": not smaller, the original stays):"
    echo
    printf '| quality |'; for f in "${files[@]}"; do printf ' %s |' "$f"; done; echo
    printf '|---|'; for f in "${files[@]}"; do printf -- '---|'; done; echo
    for q in "${qualities[@]}"; do
        printf '| %s |' "$q"; for f in "${files[@]}"; do printf ' %s |' "${ladder[$f,$q]}"; done; echo
    done
    echo
    echo "Targets at Medium: size ≤ gs /ebook on album, scan and mixed; all words kept; text never larger; time ≤ 2× gs."
    for f in album scan mixed; do
        a=${size[$f,archiver]}; g=${size[$f,gs]}
        verdict=$([[ $a -le $g ]] && echo met || echo "NOT met")
        fast=$(awk -v a="${time[$f,archiver]}" -v g="${time[$f,gs]}" 'BEGIN {print (a <= 2 * g ? "met" : "NOT met")}')
        echo "- $f: $(mb "$a") MB against gs $(mb "$g") MB: $verdict; time ${time[$f,archiver]} s against ${time[$f,gs]} s: $fast."
    done
    larger=$([[ ${size[text,archiver]} -le $(stat -c %s "$corpus/text.pdf") ]] && echo "not larger" || echo "LARGER")
    echo "- text: $(mb "${size[text,archiver]}") MB from $(mb "$(stat -c %s "$corpus/text.pdf")") MB ($larger), words ${kept[text,archiver]}; time ${time[text,archiver]} s against ${time[text,gs]} s."
} >"$results.new"
# bench/pdf-text.sh's section (the Debian text and vector corpus) stays.
[[ -f $results ]] && sed -n '/^## Text and vector PDFs/,$p' "$results" | sed '1s/^/\n/' >>"$results.new"
mv "$results.new" "$results"
cat "$results"
