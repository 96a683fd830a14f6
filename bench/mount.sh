#!/usr/bin/env bash
# Open as Folder against the archive mounters, side by side in one run, as issue 18 (item 5) and
# ../shared/notes/browse-as-folder.md §6 set it out: writes bench/RESULTS-mount.md.
#
# How to run (as root, or a user who may mount FUSE; the anchors are installed only as root):
#   bash bench/mount.sh                         the full protocol: median of 5 on the ~1.2 GB corpus; about
#                                               2.5 h on 2 cores (most of it the anchors' capped reads), plus
#                                               ~12 min to build the corpus the first time
#   SCALE=small RUNS=1 bash bench/mount.sh      a quick try (a quarter of the tree, 32 MiB big file, ...):
#                                               ~13 min, plus ~3 min to build its corpus the first time
# Run it on a quiet machine: the figures are wall-clock times.
# Knobs:
#   RUNS=5              runs per measurement; the median is reported
#   LIMIT=60            seconds after which one measurement is stopped and reported as "> LIMIT"
#   SCALE=full|small    small: 1 copy of mixed instead of 4, z/big256 of 32 MiB, Z100k of 10k files, M1 of 100k
#   ARCHIVES="T1 ZB"    a subset of T1 T1x T1z ZB Z100k M1
#   TOOLS="ours ..."    a subset of ours archivemount ratarmount fuse-zip
#   ARCHIVER_BIN_DIR    use this open-with-archiver instead of a release build
#   INSTALL=0           do not apt-get archivemount and fuse-zip, nor pip-install ratarmount 1.3.0
#
# The corpus (built once from ../shared/bench/make-corpus.sh, kept in bench/corpus) and the archives (kept in
# bench/out-mount/archives/SCALE) are rebuilt only when missing; ratarmount lives in bench/out-mount/venv.
# The measuring is done by bench/mount.py (stdlib Python, run with /usr/bin/python3); see there for what
# each metric (G1–G7) times.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
scale=${SCALE:-full}
[[ $scale == full || $scale == small ]] || { echo "SCALE is full or small" >&2; exit 2; }
# Figures from bigger machines compare with those of the 2-core reference machine.
if (($(nproc) > 2)) && [[ -z ${MOUNT_BENCH_PINNED:-} ]] && command -v taskset >/dev/null; then
    MOUNT_BENCH_PINNED=1 exec taskset -c 0,1 bash "$0" "$@"
fi
command_line="$(for v in SCALE RUNS LIMIT ARCHIVES TOOLS INSTALL ARCHIVER_BIN_DIR; do
    if [[ -n ${!v:-} ]]; then printf '%s=%q ' "$v" "${!v}"; fi; done)bash bench/mount.sh"
work=$root/bench/out-mount
corpus=$root/bench/corpus
archives=$work/archives/$scale
mkdir -p "$work" "$corpus" "$archives"
started=$(date +%s)
log() { printf '[%s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

# --- Anchors -------------------------------------------------------------------------------------------
if [[ ${INSTALL:-1} == 1 ]]; then
    missing=()
    for p in fuse3 archivemount fuse-zip; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    if ((${#missing[@]})); then
        if [[ $(id -u) == 0 ]]; then
            log "apt-get install ${missing[*]}"
            DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >&2 \
                || log "apt-get failed: the missing anchors are reported as missing"
        else
            log "not root: ${missing[*]} not installed"
        fi
    fi
    venv=$work/venv
    if [[ ! -x $venv/bin/ratarmount ]] || [[ $("$venv/bin/ratarmount" --version 2>/dev/null | head -n 1) != "ratarmount 1.3.0" ]]; then
        log "ratarmount 1.3.0 into $venv"
        rm -rf "$venv"
        { /usr/bin/python3 -m venv "$venv" && "$venv/bin/pip" install -q ratarmount==1.3.0; } >&2 \
            || { log "the ratarmount venv failed: ratarmount is reported as missing"; rm -rf "$venv"; }
    fi
fi
export RATARMOUNT=$work/venv/bin/ratarmount

# --- Ours ------------------------------------------------------------------------------------------------
if [[ -n ${ARCHIVER_BIN_DIR:-} ]]; then
    bin=$(cd "$ARCHIVER_BIN_DIR" && pwd)
else
    log "swift build -c release --product open-with-archiver"
    (cd "$root" && swift build -c release --product open-with-archiver >&2)
    bin=$(cd "$root" && swift build -c release --show-bin-path)
fi
export OURS=$bin/open-with-archiver

# --- Corpus (§6) -----------------------------------------------------------------------------------------
# T1's tree: mixed copied 4 times under a/ b/ c/ d/ (small: a/ only), z/big256 (the first 256 MiB of
# big.bin; small: 32 MiB) and z/last.bin (8 MiB of big.bin from 1 GiB on), stored last.
make_corpus=$root/../shared/bench/make-corpus.sh
[[ -d $corpus/mixed ]] || { log "make-corpus.sh mixed"; bash "$make_corpus" "$corpus" mixed >&2; }
[[ -f $corpus/big.bin ]] || { log "make-corpus.sh big"; bash "$make_corpus" "$corpus" big >&2; }
if [[ $scale == small ]]; then copies=(a); big_mib=32; z100k_files=10000; m1_files=100000
else copies=(a b c d); big_mib=256; z100k_files=100000; m1_files=1000000; fi
tree=$corpus/t1-$scale
if [[ ! -f $tree/.complete ]]; then
    log "T1 tree in $tree"
    rm -rf "$tree" && mkdir -p "$tree/z"
    for c in "${copies[@]}"; do cp -a "$corpus/mixed" "$tree/$c"; done
    head -c $((big_mib << 20)) "$corpus/big.bin" >"$tree/z/big256"
    dd if="$corpus/big.bin" of="$tree/z/last.bin" bs=1M skip=1024 count=8 status=none
    touch -d @1700000000 "$tree/z/big256" "$tree/z/last.bin" "$tree/z"
    touch "$tree/.complete"
fi
export TREE=$tree

# build NAME COMMAND...: runs COMMAND (which writes "$out") unless the archive is there; atomic.
build() {
    local name=$1; shift
    [[ -f $archives/$name ]] && return 0
    log "building $name"
    out=$archives/$name.part
    "$@"
    mv "$out" "$archives/$name"
}
# One tar stream for T1 and its twins: the four copies, then z/ with big256 and last.bin last of all.
plain_tar=$archives/T1.tar.tmp
t1_tar() {
    [[ -f $plain_tar ]] && return 0
    tar -C "$tree" --sort=name --owner=0 --group=0 --numeric-owner -cf "$plain_tar.part" \
        "${copies[@]}" --no-recursion z z/big256 z/last.bin
    mv "$plain_tar.part" "$plain_tar"
}
t1_gz() { t1_tar && gzip -n <"$plain_tar" >"$out"; }           # as tar -czf: one member, level 6
t1_xz() { t1_tar && xz -T1 -6 <"$plain_tar" >"$out"; }         # one block
t1_zst() { t1_tar && zstd -q -T1 -3 <"$plain_tar" >"$out"; }   # one frame
zb_zip() { (cd "$tree" && bsdtar --format zip -cf "$out" "${copies[@]}" z/big256 z/last.bin); }
# Z100k: files of 1–4 KiB of words in 1,000 folders (small: 100), deflated; M1: a plain tar of empty files
# in 1,000 folders. Both written by Python's zipfile and tarfile with fixed names, dates and seeds.
z100k_zip() {
    /usr/bin/python3 - "$out" "$z100k_files" <<'PY'
import random, sys, zipfile
out, count = sys.argv[1], int(sys.argv[2])
folders = max(1, count // 100)
rng = random.Random(100000)
words = [''.join(rng.choice('abcdefghijklmnopqrstuvwxyz') for _ in range(rng.randint(2, 10))) for _ in range(3000)]
with zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED) as z:
    for i in range(count):
        size = rng.randint(1024, 4096)
        text = []
        length = 0
        while length < size:
            w = rng.choice(words)
            text.append(w)
            length += len(w) + 1
        info = zipfile.ZipInfo('d%04d/f%06d.txt' % (i % folders, i), date_time=(2024, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        info.external_attr = 0o100644 << 16
        z.writestr(info, ' '.join(text)[:size])
PY
}
m1_tar() {
    /usr/bin/python3 - "$out" "$m1_files" <<'PY'
import sys, tarfile
out, count = sys.argv[1], int(sys.argv[2])
folders = 1000 if count >= 1000000 else max(1, count // 1000)
with tarfile.open(out, 'w', format=tarfile.GNU_FORMAT) as t:
    for d in range(folders):
        info = tarfile.TarInfo('d%04d' % d)
        info.type, info.mode, info.mtime = tarfile.DIRTYPE, 0o755, 1700000000
        t.addfile(info)
    for i in range(count):
        info = tarfile.TarInfo('d%04d/f%07d' % (i % folders, i))
        info.mode, info.mtime = 0o644, 1700000000
        t.addfile(info)
PY
}
build T1.tar.gz t1_gz
build T1.tar.xz t1_xz
build T1.tar.zst t1_zst
build ZB.zip zb_zip
build Z100k.zip z100k_zip
build M1.tar m1_tar
rm -f "$plain_tar"
export ARCHIVE_DIR=$archives

# --- Measure ---------------------------------------------------------------------------------------------
export RUNS=${RUNS:-5} LIMIT=${LIMIT:-60} SCALE=$scale WORK=$work COMMAND_LINE=$command_line
export RESULTS=$root/bench/RESULTS-mount.md
/usr/bin/python3 "$root/bench/mount.py"
log "done in $(($(date +%s) - started)) s"
