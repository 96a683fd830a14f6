#!/bin/bash
# Start-up cost of the translations: the median wall time of an executable that prints many translated
# strings (`--help`) with no language (no catalog is opened) and in German (setlocale to de_DE, catalog
# bound, opened and read). The difference is what binding and loading the catalog adds.
#
#   bench/startup-l10n.sh [BINDIR] [RUNS]      (default: the release build, 41 runs)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-$(swift build -c release --show-bin-path)}
RUNS=${2:-41}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
bash scripts/po.sh mo "$scratch/locale" >/dev/null
localedef -i de_DE -f UTF-8 "$scratch/de_DE.UTF-8" 2>/dev/null || true

# Median milliseconds of RUNS runs of "$@" (stdout and stderr discarded).
median_ms() {
    local times=() i start end
    for ((i = 0; i < RUNS; i++)); do
        start=$(date +%s%N); "$@" >/dev/null 2>&1 || true; end=$(date +%s%N)
        times+=($(((end - start) / 1000)))
    done
    printf '%s\n' "${times[@]}" | sort -n | awk -v n="$RUNS" 'NR == int((n + 1) / 2) { printf "%.2f", $1 / 1000 }'
}

for exe in compress-with-archiver extract-with-archiver compress-pdf-with-archiver compress-photos-with-archiver; do
    english=$(median_ms env -u LANG -u LANGUAGE -u LC_ALL "$BIN/$exe" --help)
    german=$(median_ms env -u LANG -u LANGUAGE LOCPATH="$scratch" LC_ALL=de_DE.UTF-8 ARCHIVER_LOCALEDIR="$scratch/locale" "$BIN/$exe" --help)
    printf '%-32s English %6s ms   German %6s ms   difference %6s ms\n' "$exe" "$english" "$german" \
        "$(awk -v a="$german" -v b="$english" 'BEGIN { printf "%.2f", a - b }')"
done
