#!/usr/bin/env bash
# Text and vector PDFs as Debian ships them (manuals; pdfTeX, XeTeX/xdvipdfmx, cairo and Quartz output),
# from a pinned list of packages: compress-pdf-with-archiver at QUALITY against Ghostscript /ebook (also
# "never larger": the original wherever gs made it larger) and qpdf's lossless rewrite. Totals, and the PDFs
# whose pdftotext output is not identical to the original's. Replaces the "Text and vector PDFs" section of
# bench/RESULTS-pdf.md. CI never runs this: its tests use PDFs they generate.
#
# Usage: bench/pdf-text.sh
#   QUALITY=medium      Archiver's --quality
#   EVERY=N             measure every Nth PDF of the sorted corpus only (default 1: all), for a busy machine
#   ARCHIVER_BIN_DIR    use this compress-pdf-with-archiver instead of building release
# Needs: apt-get (downloads the packages below into bench/corpus/pdf-text/debs), ghostscript qpdf poppler-utils.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
quality=${QUALITY:-medium}
every=${EVERY:-1}
corpus=$root/bench/corpus/pdf-text
work=$root/bench/out/pdf-text
results=$root/bench/RESULTS-pdf.md
export LC_ALL=C.UTF-8 GSETTINGS_BACKEND=memory
# Debian 12 (bookworm) versions: the corpus is the same wherever it is made.
packages=(
    gnuplot-doc=5.4.4+dfsg1-2                     # pdfTeX manual, 1.3 MB
    debian-reference-en=2.100                     # XeTeX (xdvipdfmx), 1.3 MB
    texlive-latex-recommended-doc=2022.20230122-3 # package manuals: pdfTeX, LuaTeX, some with figures
    fonts-sil-charis=6.101-1                      # cairo (HTML printed to PDF), embedded whole fonts
    fonts-sil-andika=6.101-2
    libtasn1-doc=4.19.0-2+deb12u1                 # texinfo through pdfTeX
    shared-mime-info=2.2-1                        # LaTeX with hyperref
    libimage-exiftool-perl=12.57+dfsg-1           # a Word document through Mac OS X Quartz
)

# shellcheck source=bench/release-bin.sh
source "$root/bench/release-bin.sh"
archiver=$(release_bin "$root")/compress-pdf-with-archiver
for tool in gs qpdf pdftotext apt-get dpkg-deb; do
    command -v "$tool" >/dev/null || { echo "pdf-text.sh: $tool is missing" >&2; exit 1; }
done

if [[ ! -f $corpus/.complete ]]; then
    rm -rf "$corpus"; mkdir -p "$corpus/debs" "$corpus/tree"
    (cd "$corpus/debs" && apt-get download "${packages[@]}")
    for deb in "$corpus"/debs/*.deb; do
        name=$(basename "$deb" | cut -d_ -f1)
        dpkg-deb -x "$deb" "$corpus/tree/$name"
        find "$corpus/tree/$name" -type f \( -name '*.pdf' -o -name '*.pdf.gz' \) | sort | while read -r file; do
            base=$(basename "$file" .gz)
            if [[ $file == *.gz ]]; then gzip -dc "$file" >"$corpus/$name--$base"; else cp "$file" "$corpus/$name--$base"; fi
        done
    done
    rm -rf "$corpus/tree"
    touch "$corpus/.complete"
fi
mapfile -t pdfs < <(cd "$corpus" && find . -maxdepth 1 -name '*.pdf' | sed 's|^\./||' | sort | awk -v n="$every" 'NR % n == 1 || n == 1')
corpus_count=$(find "$corpus" -maxdepth 1 -name '*.pdf' | wc -l)
rm -rf "$work"; mkdir -p "$work"

# pdftotext's reading of a PDF, for comparing (empty when it cannot read it).
text_of() { pdftotext -q -enc UTF-8 "$1" - 2>/dev/null | sha256sum | cut -c1-16; }
size_of() { stat -c %s "$1"; }

declare -A total=([input]=0 [archiver]=0 [gs]=0 [gs_kept]=0 [qpdf]=0)
declare -A seconds=([archiver]=0 [gs]=0 [qpdf]=0)
declare -A lost=([archiver]=0 [gs]=0 [qpdf]=0)
lost_names=()
timed() { local start end; start=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; end=$(date +%s.%N); add "$end" "-$start"; }
add() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a + b }'; }
load=$(cut -d' ' -f1 /proc/loadavg)
for pdf in "${pdfs[@]}"; do
    input=$corpus/$pdf
    in_bytes=$(size_of "$input")
    before=$(text_of "$input")
    t=$(timed "$archiver" --no-notify --quality "$quality" -o "$work/a.pdf" "$input")
    [[ -f $work/a.pdf ]] || cp "$input" "$work/a.pdf"
    seconds[archiver]=$(add "${seconds[archiver]}" "$t")
    t=$(timed gs -q -dNOPAUSE -dBATCH -dSAFER -sDEVICE=pdfwrite -dPDFSETTINGS=/ebook -o "$work/g.pdf" "$input")
    [[ -s $work/g.pdf ]] || cp "$input" "$work/g.pdf"
    seconds[gs]=$(add "${seconds[gs]}" "$t")
    t=$(timed qpdf --object-streams=generate --recompress-flate --compression-level=9 "$input" "$work/q.pdf")
    [[ -s $work/q.pdf ]] || cp "$input" "$work/q.pdf"
    seconds[qpdf]=$(add "${seconds[qpdf]}" "$t")
    a=$(size_of "$work/a.pdf") g=$(size_of "$work/g.pdf") q=$(size_of "$work/q.pdf")
    total[input]=$((total[input] + in_bytes))
    total[archiver]=$((total[archiver] + a))
    total[gs]=$((total[gs] + g))
    total[gs_kept]=$((total[gs_kept] + (g < in_bytes ? g : in_bytes)))
    total[qpdf]=$((total[qpdf] + q))
    for method in archiver:a gs:g qpdf:q; do
        if [[ $(text_of "$work/${method#*:}.pdf") != "$before" ]]; then
            lost[${method%:*}]=$((lost[${method%:*}] + 1))
            [[ ${method%:*} == archiver ]] && lost_names+=("$pdf")
        fi
    done
    printf '%-60s %9d  archiver %9d  gs %9d  qpdf %9d\n' "$pdf" "$in_bytes" "$a" "$g" "$q" >&2
    rm -f "$work"/{a,g,q}.pdf
done

share() { awk -v a="$1" -v b="${total[input]}" 'BEGIN { printf "%.1f", 100 * a / b }'; }
mb() { awk -v a="$1" 'BEGIN { printf "%.2f", a / 1000000 }'; }
size_verdict="NOT met" text_verdict="NOT kept"
[[ ${total[archiver]} -le ${total[gs_kept]} ]] && size_verdict=met
[[ ${lost[archiver]} -eq 0 ]] && text_verdict=kept
section=$(cat <<EOF
## Text and vector PDFs (bench/pdf-text.sh)

Made on $(date -u +%Y-%m-%d), 2 cores, load average $load when the run started (a shared, busy machine:
the seconds say little; the sizes are what counts). ${#pdfs[@]} PDFs (every ${every}th of $corpus_count), $(mb "${total[input]}") MB, from the Debian 12 packages
${packages[*]}.
Archiver at --quality $quality ($(basename "$archiver") of this tree); gs $(gs --version) -dPDFSETTINGS=/ebook;
$(qpdf --version | head -1) --object-streams=generate --recompress-flate --compression-level=9.
"Text differs": PDFs whose pdftotext output is not identical to the original's.

| method | total MB | of the input | text differs | seconds |
|---|---|---|---|---|
| input | $(mb "${total[input]}") | 100 % | — | — |
| Archiver $quality | $(mb "${total[archiver]}") | $(share "${total[archiver]}") % | ${lost[archiver]} | ${seconds[archiver]} |
| gs /ebook | $(mb "${total[gs]}") | $(share "${total[gs]}") % | ${lost[gs]} | ${seconds[gs]} |
| gs /ebook, never larger | $(mb "${total[gs_kept]}") | $(share "${total[gs_kept]}") % | — | — |
| qpdf lossless | $(mb "${total[qpdf]}") | $(share "${total[qpdf]}") % | ${lost[qpdf]} | ${seconds[qpdf]} |

Archiver's copies whose text differs: ${lost_names[*]:-none}.
Target (issue 35): at $quality, Archiver's total at most gs's never-larger total, no text lost:
$size_verdict ($(mb "${total[archiver]}") MB against $(mb "${total[gs_kept]}") MB), text: $text_verdict.
EOF
)
# The section replaces its earlier self (it runs to the end of the file), or is added.
if [[ -f $results ]] && grep -q '^## Text and vector PDFs' "$results"; then
    sed -i '/^## Text and vector PDFs/,$d' "$results"
fi
printf '\n%s\n' "$section" >>"$results"
echo "$section"
