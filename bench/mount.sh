#!/usr/bin/env bash
# Open as Folder against extracting with bsdtar and against the archive mounters Debian packages
# (archivemount, fuse-zip for zip; fuse-archive and ratarmount are not in Debian 12). For each archive:
#   ready     exec to the first successful listing of the mount point (bsdtar: the whole extraction)
#   last      then reading the archive's last file
#   all       then reading every file (a fresh mount)
# Median of RUNS, the archive dropped from the page cache before each run (posix_fadvise DONTNEED).
#
# Usage: bench/mount.sh            (as root, or a user who may mount FUSE)
#   RUNS=3  CORPUS=DIR  ARCHIVER_BIN_DIR=DIR (else a release build)  INSTALL=0 (do not apt-get the anchors)
#   LIMIT=120  seconds a full read may take before it is stopped and reported as "> LIMIT"
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=${RUNS:-3}
limit=${LIMIT:-120}
work=$root/bench/out-mount
results=$root/bench/RESULTS-mount.md

if [[ ${INSTALL:-1} == 1 ]]; then
    for p in archivemount fuse-zip; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' \
            || { [[ $(id -u) == 0 ]] && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$p" >/dev/null; } || true
    done
fi
if [[ -n ${ARCHIVER_BIN_DIR:-} ]]; then
    bin=$ARCHIVER_BIN_DIR
else
    (cd "$root" && swift build -c release --product open-with-archiver >&2)
    bin=$(cd "$root" && swift build -c release --show-bin-path)
fi
rm -rf "$work" && mkdir -p "$work/run"
export XDG_RUNTIME_DIR=$work/run
if [[ -n ${CORPUS:-} ]]; then
    tree=$(cd "$CORPUS" && pwd)
else
    tree=$root/bench/corpus/mixed
    [[ -d $tree ]] || bash "$root/../shared/bench/make-corpus.sh" "$root/bench/corpus" mixed
fi
(cd "$tree" && bsdtar -czf "$work/c.tar.gz" . && bsdtar -cf - . | xz -T1 -6 > "$work/c.tar.xz" && bsdtar --format zip -cf "$work/c.zip" .)
last=$(bsdtar -tf "$work/c.tar.gz" | grep -v '/$' | tail -1)

drop() { /usr/bin/python3 -c 'import os,sys; fd=os.open(sys.argv[1],os.O_RDONLY); os.posix_fadvise(fd,0,0,os.POSIX_FADV_DONTNEED)' "$1"; }
now() { date +%s.%N; }
median() { sort -g | awk '/^>/ {over = $0} {a[NR] = $1} END {if (over != "") print over; else if (NR) print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2)}'; }
wait_listing() { for _ in $(seq 1 3000); do ls "$1" >/dev/null 2>&1 && [[ -n $(ls -A "$1" 2>/dev/null) ]] && return 0; sleep 0.01; done; return 1; }

# mount_with TOOL ARCHIVE DIR: starts the tool; returns once the folder lists.
mount_with() {
    case $1 in
        archiver) "$bin/open-with-archiver" --mount --idle-timeout 0 "$2" "$3" >/dev/null ;;
        archivemount) archivemount -o readonly "$2" "$3" ;;
        fuse-zip) fuse-zip -r "$2" "$3" ;;
    esac
    wait_listing "$3"
}
unmount_dir() { fusermount3 -u "$1" 2>/dev/null || fusermount -u "$1" 2>/dev/null || umount "$1"; sleep 0.2; rmdir "$1" 2>/dev/null || true; }

measure() {  # measure TOOL ARCHIVE → "ready last all" medians
    local tool=$1 archive=$2 r l a t0 dir=$work/m-$1
    local -a ready=() lastr=() allr=()
    for _ in $(seq 1 "$runs"); do
        drop "$archive"
        if [[ $tool == bsdtar ]]; then
            rm -rf "$work/x" && mkdir "$work/x"
            t0=$(now); bsdtar -xf "$archive" -C "$work/x"; r=$(echo "$(now) - $t0" | bc)
            t0=$(now); cat "$work/x/$last" >/dev/null; l=$(echo "$(now) - $t0" | bc)
            a=$r
        else
            mkdir -p "$dir"
            t0=$(now); mount_with "$tool" "$archive" "$dir"; r=$(echo "$(now) - $t0" | bc)
            t0=$(now); cat "$dir/$last" >/dev/null; l=$(echo "$(now) - $t0" | bc)
            unmount_dir "$dir"; mkdir -p "$dir"; drop "$archive"
            t0=$(now); mount_with "$tool" "$archive" "$dir"
            if (cd "$dir" && timeout "$limit" sh -c 'find . -type f -print0 | xargs -0 cat >/dev/null'); then
                a=$(echo "$(now) - $t0" | bc)
            else
                a=">$limit"
            fi
            unmount_dir "$dir"
        fi
        ready+=("$r"); lastr+=("$l"); allr+=("$a")
    done
    printf '%s %s %s' "$(printf '%s\n' "${ready[@]}" | median)" "$(printf '%s\n' "${lastr[@]}" | median)" "$(printf '%s\n' "${allr[@]}" | median)"
}

{
    echo "# Open as Folder: timings"
    echo
    echo "Corpus: $(basename "$tree") ($(du -sh "$tree" | cut -f1), $(find "$tree" -type f | wc -l) files); last file \`$last\`."
    echo "$(nproc) cores, median of $runs, archive dropped from the page cache before each run. Seconds."
    echo "bsdtar: \"ready\" and \"all\" are the whole extraction to disk; \"last\" reads the extracted file."
    echo
    echo "| archive | tool | ready (first listing) | last file after ready | every file, fresh mount |"
    echo "|---|---|---|---|---|"
    for archive in c.tar.gz c.tar.xz c.zip; do
        tools="bsdtar archiver"
        command -v archivemount >/dev/null && tools+=" archivemount"
        [[ $archive == c.zip ]] && command -v fuse-zip >/dev/null && tools+=" fuse-zip"
        for tool in $tools; do
            read -r r l a <<< "$(measure "$tool" "$work/$archive")"
            echo "| $archive | $tool | $r | $l | $a |"
        done
    done
} | tee "$results"
