#!/usr/bin/env bash
# Remakes the extraction seeds in fuzz/corpus/fuzz-extract with real tools (python's zipfile and tarfile,
# bsdtar, 7zz): small archives of every format, honest ones and hostile ones. The committed seeds are its
# output; the rar seeds are libarchive's test files (see fuzz/corpus/README.md).
set -euo pipefail
out="$(cd "$(dirname "$0")" && pwd)/corpus/fuzz-extract"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out" "$work/t/d/e"
cd "$work/t"
printf 'hello\n' > d/a.txt
printf 'x' > d/e/b.bin
ln -s a.txt d/link
ln -s ../../../x d/e/out

bsdtar -cf "$out/plain.tar" --format ustar -b 1 d
bsdtar -czf "$out/pax.tar.gz" --format pax d
bsdtar -cJf "$out/ustar.tar.xz" --format ustar d
bsdtar -cf "$out/newc.cpio" --format newc d
bsdtar -cf "$out/odc.cpio" --format odc d
bsdtar -cf - --format iso9660 d | gzip -9 > "$out/iso9660.iso.gz"
7zz a -bd -bso0 -snl "$out/lzma2.7z" d
7zz a -bd -bso0 -snl -mx0 "$out/copy.7z" d
/usr/bin/python3 - "$out" <<'PY'
import io, sys, tarfile, zipfile, stat
out = sys.argv[1]

with zipfile.ZipFile(f"{out}/deflate.zip", "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("d/", b"")
    z.writestr("d/a.txt", b"hello\n")
    link = zipfile.ZipInfo("d/link"); link.external_attr = (stat.S_IFLNK | 0o777) << 16
    z.writestr(link, b"a.txt")
# A name in CP437 without the UTF-8 flag, as Windows writes them.
# (zipfile flags every non-ASCII name as UTF-8: write an ASCII stand-in of the same length, then swap.)
with zipfile.ZipFile(f"{out}/cp437.zip", "w", zipfile.ZIP_STORED) as z:
    z.writestr("cafX/rXsumX.txt", b"x")
with open(f"{out}/cp437.zip", "r+b") as f:
    data = f.read().replace(b"cafX/rXsumX.txt", "caf\u00e9/r\u00e9sum\u00e9.txt".encode("cp437"))
    f.seek(0); f.write(data)
# Hostile zip: climbing out and an absolute name.
with zipfile.ZipFile(f"{out}/escape.zip", "w") as z:
    z.writestr("../../x", b"up")
    z.writestr("/tmp/archiver-fuzz-escape/x", b"abs")
    z.writestr("ok.txt", b"ok")

def tar(name, members, fmt=tarfile.USTAR_FORMAT):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=fmt) as t:
        for info, data in members:
            t.addfile(info, io.BytesIO(data) if data is not None else None)
    # Without the padding to 10 KiB: the last block of content, then the two zero blocks that end a tar.
    content = len(buffer.getvalue().rstrip(b"\0"))
    with open(f"{out}/{name}", "wb") as f:
        f.write(buffer.getvalue()[: (content + 511) // 512 * 512 + 1024])

def member(name, kind=tarfile.REGTYPE, data=b"", link="", mode=0o644):
    info = tarfile.TarInfo(name); info.type = kind; info.linkname = link; info.mode = mode
    info.size = len(data) if kind == tarfile.REGTYPE else 0
    return info, (data if kind == tarfile.REGTYPE else None)

tar("hostile.tar", [
    member("../x", data=b"up"), member("/tmp/archiver-fuzz-escape/x", data=b"abs"),
    member("d/", tarfile.DIRTYPE, mode=0o755),
    member("d/up", tarfile.SYMTYPE, link="../../.."), member("d/up/x", data=b"through"),
    member("d/hard", tarfile.LNKTYPE, link="../../etc/passwd"),
    member("d/dev", tarfile.CHRTYPE), member("d/fifo", tarfile.FIFOTYPE),
    member("d/suid", data=b"#!/bin/sh\n", mode=0o4755), member("d/abs", tarfile.SYMTYPE, link="/etc"),
])
tar("one-file.tar", [member("note.txt", data=b"one file\n")], tarfile.PAX_FORMAT)
tar("latin1.tar", [member("caf\udce9.txt", data=b"x")], tarfile.GNU_FORMAT)
PY
cp /work/shared/fixtures/rar4_encrypted.rar /work/shared/fixtures/rar5_encrypted.rar "$out/" && chmod 644 "$out"/*.rar
ls -l "$out"
