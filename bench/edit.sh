#!/usr/bin/env bash
# Changing a 1 GB zip in place (issue 29): the shared `mixed` corpus stored four times under different folder
# names, then one 1 MB member replaced, and 1,000 small files added, each commit timed against `cp` of the
# archive (and, for the addition, `cp` plus compressing the new files alone with zip). Run on a quiet machine;
# figures go to bench/RESULTS.md.
#
# Usage: bench/edit.sh [RUNS]     (default 3)
#   ARCHIVER_BIN_DIR    use these executables instead of building release
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/release-bin.sh
source "$root/bench/release-bin.sh"
runs=${1:-3}
corpus=$root/bench/corpus
[[ -d $corpus/mixed ]] || bash "$root/../shared/bench/make-corpus.sh" "$corpus" mixed
bin=$(release_bin "$root")
work=$root/bench/out/edit
rm -rf "$work" && mkdir -p "$work/tree" "$work/small"
for copy in one two three four; do cp -r "$corpus/mixed" "$work/tree/$copy"; done
(cd "$work/tree" && zip -qr -0 "$work/base.zip" one two three four)
head -c 1048576 /dev/urandom > "$work/member.bin"
# The member to replace: the first file of the first copy.
member=$(cd "$work/tree" && find one -type f | sort | head -1)
for i in $(seq 1 1000); do printf 'small file %d\n' "$i" > "$work/small/f$i.txt"; done

seconds() { /usr/bin/time -f %e -o "$work/time" "$@" >/dev/null 2>&1; cat "$work/time"; }

printf '| run | cp of the archive | replace one 1 MB member | cp + zip of 1,000 small files | add 1,000 small files |\n'
printf '|---|---|---|---|---|\n'
for run in $(seq 1 "$runs"); do
    rm -f "$work/x.zip"; sync
    copy=$(seconds cp "$work/base.zip" "$work/x.zip")
    mkdir -p "$work/replacement" && cp "$work/member.bin" "$work/replacement/$(basename "$member")"
    sync
    replace=$(seconds "$bin/edit-with-archiver" --no-notify "$work/x.zip" --add "$work/replacement/$(basename "$member")" \
        --into "$(dirname "$member")" --replace)
    rm -f "$work/small.zip"; sync
    small=$(seconds zip -qr "$work/small.zip" "$work/small")
    sync
    add=$(seconds "$bin/edit-with-archiver" --no-notify "$work/x.zip" --add "$work/small" --into added)
    printf '| %d | %s s | %s s | %s s | %s s |\n' "$run" "$copy" "$replace" "$(awk -v a="$copy" -v b="$small" 'BEGIN { print a + b }')" "$add"
done
