#!/usr/bin/env bash
# Changing a 1 GB zip in place (issue 29, item 6): the shared `mixed` corpus stored four times under different
# folder names, then one member replaced by 1 MB of new bytes, and 1,000 small files added.
#   replace: `cp` of the archive (the target: ≤ 1.2×), `cp` then `sync` of the copy (the durability of our
#            commit, which fsyncs before its rename), edit-with-archiver, our writable mount (copy the new
#            bytes over the file in the folder, then `open-with-archiver --unmount`, which returns once the
#            commit is done), fuse-zip and archivemount saving the same change through their mounts (both
#            write the archive when their daemon leaves; timed until it has left)
#   reflink: the same replace by edit-with-archiver on a btrfs and an xfs image (loop devices; needs root),
#            where unchanged members can share the old archive's extents (the target: ≤ 0.2 s)
#   add:     1,000 small files against `cp` plus zip of the new files alone (the target: ≤ 1.2×)
# Medians of RUNS; run on a quiet machine; figures go to bench/RESULTS.md.
#
# Usage: bench/edit.sh [RUNS]     (default 3)
#   ARCHIVER_BIN_DIR    use these executables instead of building release
#   Packages: zip, fuse-zip, archivemount, btrfs-progs, xfsprogs (rows whose tool is missing are skipped)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/release-bin.sh
source "$root/bench/release-bin.sh"
runs=${1:-3}
corpus=$root/bench/corpus
[[ -d $corpus/mixed ]] || bash "$root/../shared/bench/make-corpus.sh" "$corpus" mixed
bin=$(release_bin "$root")
work=$root/bench/out/edit
for place in "$work"/fs-*; do mountpoint -q "$place" 2>/dev/null && umount "$place"; done
rm -rf "$work" && mkdir -p "$work/tree" "$work/small" "$work/mnt"
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$work/runtime}
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
# The mount's first commit sends the old archive to the trash: keep that trash (and the layers) in here.
export XDG_DATA_HOME=$work/data XDG_CACHE_HOME=$work/cache
for copy in one two three four; do cp -r "$corpus/mixed" "$work/tree/$copy"; done
(cd "$work/tree" && zip -qr -0 "$work/base.zip" one two three four)
head -c 1048576 /dev/urandom > "$work/member.bin"
# The member to replace: the first file of about 1 MB in the first copy (sed, not head: pipefail).
member=$(cd "$work/tree" && find one -type f -size +500k -size -2M | sort | sed -n 1p)
for i in $(seq 1 1000); do printf 'small file %d\n' "$i" > "$work/small/f$i.txt"; done
mkdir -p "$work/replacement" && cp "$work/member.bin" "$work/replacement/$(basename "$member")"
seconds() { /usr/bin/time -f %e -o "$work/time" "$@" >/dev/null 2>&1; cat "$work/time"; }
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f×", a / b }'; }
fresh() { rm -f "$1"; sync; cp --reflink=never "$work/base.zip" "$1"; sync; }

copy_sync() { cp --reflink=never "$1" "$2" && sync "$2"; }
replace_cli() { "$bin/edit-with-archiver" --no-notify "$1" --add "$work/replacement/$(basename "$member")" --into "$(dirname "$member")" --replace; }
replace_ours_mount() {
    local folder
    folder=$("$bin/open-with-archiver" --mount "$1")
    cp "$work/member.bin" "$folder/$member"
    "$bin/open-with-archiver" --unmount "$folder"
}
# fuse-zip and archivemount write the archive as their daemon leaves: run it in the foreground, unmount, wait.
replace_other_mount() {
    local tool=$1 archive=$2 daemon
    "$tool" -f "$archive" "$work/mnt" & daemon=$!
    for _ in $(seq 1 200); do mountpoint -q "$work/mnt" && break; sleep 0.05; done
    cp "$work/member.bin" "$work/mnt/$member"
    fusermount3 -u "$work/mnt" 2>/dev/null || fusermount -u "$work/mnt"
    wait "$daemon"
}
timed() { local start end; start=$(date +%s.%N); "$@" >/dev/null 2>&1; end=$(date +%s.%N); awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }'; }
# Each way must leave a zip whose replaced member holds the new bytes; one that did not is said on stderr
# (archivemount 0.8.7 writes a zip back as a tar).
check() {
    python3 - "$1" "$member" "$work/member.bin" 2>/dev/null <<'PY' || echo "$2 did not leave a zip with the new member: $(file -b "$1")" >&2
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, open(sys.argv[3], 'rb') as f:
    assert z.testzip() is None and z.read(sys.argv[2]) == f.read()
PY
}

declare -A times
ways=(cp cp-sync cli mount)
command -v fuse-zip >/dev/null && ways+=(fuse-zip)
command -v archivemount >/dev/null && ways+=(archivemount)
for _ in $(seq 1 "$runs"); do
    for way in "${ways[@]}"; do
        x=$work/x-$way.zip
        rm -f "$x"; sync
        case $way in
            cp) t=$(timed cp --reflink=never "$work/base.zip" "$x") ;;
            cp-sync) t=$(timed copy_sync "$work/base.zip" "$x") ;;
            cli) fresh "$x"; t=$(timed replace_cli "$x"); check "$x" "$way" ;;
            mount) fresh "$x"; t=$(timed replace_ours_mount "$x"); check "$x" "$way" ;;
            *) fresh "$x"; t=$(timed replace_other_mount "$way" "$x"); check "$x" "$way" ;;
        esac
        times[$way]+="$t "
        rm -f "$x" "$x.orig"
    done
done
size=$(stat -c %s "$work/base.zip")
printf 'Replace one member of a %s-byte zip (%s files), median of %s:\n\n' "$size" "$(unzip -Z1 "$work/base.zip" | wc -l)" "$runs"
printf '| way | median s | ratio to cp | runs |\n|---|---|---|---|\n'
# shellcheck disable=SC2086
base=$(median ${times[cp]})
for way in "${ways[@]}"; do
    # shellcheck disable=SC2086
    m=$(median ${times[$way]})
    printf '| %s | %s | %s | %s|\n' "$way" "$m" "$(ratio "$m" "$base")" "${times[$way]}"
done

if [[ $(id -u) == 0 ]]; then
    for fs in btrfs xfs; do
        command -v "mkfs.$fs" >/dev/null || continue
        image=$work/$fs.img place=$work/fs-$fs
        if ! { truncate -s 5G "$image" && "mkfs.$fs" -q "$image" >/dev/null 2>&1 && mkdir -p "$place" && mount -o loop "$image" "$place"; }; then
            echo "no $fs image" >&2
            continue
        fi
        cp --reflink=never "$work/base.zip" "$place/base.zip"
        copies="" edits=""
        for _ in $(seq 1 "$runs"); do
            rm -f "$place/x.zip"; sync
            copies+="$(timed cp --reflink=never "$place/base.zip" "$place/x.zip") "
            sync
            edits+="$(timed replace_cli "$place/x.zip") "
            check "$place/x.zip" "$fs"
        done
        # Untimed: once the old archive is deleted nothing shares its extents any more, so keep it by a
        # second link for one more commit and count the new archive's shared extents.
        ln -f "$place/x.zip" "$place/old.zip"
        replace_cli "$place/x.zip" >/dev/null 2>&1
        shared=$(filefrag -v "$place/x.zip" 2>/dev/null | grep -c shared || true)
        rm -f "$place/old.zip"
        # shellcheck disable=SC2086
        printf '\nOn %s: cp %s s, edit-with-archiver %s s (runs: %s), extents shared with the old archive (kept by a link for one more commit): %s\n' \
            "$fs" "$(median $copies)" "$(median $edits)" "$edits" "$shared"
        umount "$place"; rm -f "$image"
    done
fi

printf '\nAdd 1,000 small files, median of %s:\n\n| way | median s | runs |\n|---|---|---|\n' "$runs"
adds="" baselines=""
for _ in $(seq 1 "$runs"); do
    x=$work/x-add.zip
    rm -f "$work/small.zip"; sync
    small=$(timed zip -qr "$work/small.zip" "$work/small")
    rm -f "$x"; sync
    copy=$(timed cp --reflink=never "$work/base.zip" "$x")
    baselines+="$(awk -v a="$copy" -v b="$small" 'BEGIN { printf "%.2f", a + b }') "
    sync
    adds+="$(timed "$bin/edit-with-archiver" --no-notify "$x" --add "$work/small" --into added) "
    [[ $(unzip -Z1 "$x" | grep -c '^added/small/f') == 1000 ]] || { echo "add: not 1000 files" >&2; exit 1; }
done
# shellcheck disable=SC2086
printf '| cp + zip of the new files | %s | %s|\n| edit-with-archiver --add | %s (%s) | %s|\n' "$(median $baselines)" "$baselines" \
    "$(median $adds)" "$(ratio "$(median $adds)" "$(median $baselines)")" "$adds"
