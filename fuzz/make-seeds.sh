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

# fuzz-photo: byte 0 picks the copy's format (and --strip-location), then a small photo of each format the
# decoders read, with the metadata the rewriting touches (EXIF with GPS and a Latin-1 Make, XMP).
# fuzz-pdf-images: byte 0 picks the quality, then a PDF whose JPEG, soft-masked and inline images are drawn
# small enough to be resampled.
photos="$(dirname "$out")/fuzz-photo" pdfs="$(dirname "$out")/fuzz-pdf-images"
mkdir -p "$photos" "$pdfs" "$work/p"
/usr/bin/python3 - "$work/p" <<'PY'
import io, sys
from PIL import Image
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen import canvas
out = sys.argv[1]
picture = Image.merge('RGB', [Image.linear_gradient('L').resize((48, 32))] * 3)
picture.save(f'{out}/p.jpg', quality=60)
picture.save(f'{out}/p.png')
picture.save(f'{out}/p.tif')
picture.save(f'{out}/p.webp', quality=50)
picture.convert('P').save(f'{out}/p.gif')
c = canvas.Canvas(f'{out}/p.pdf', pagesize=(200, 200), invariant=1)
c.drawString(10, 180, 'Images below.')
c.drawImage(ImageReader(f'{out}/p.jpg'), 10, 10, width=20, height=14)
c.drawImage(ImageReader(picture.convert('RGBA')), 40, 10, width=20, height=14, mask='auto')
c.drawInlineImage(picture, 70, 10, width=20, height=14)
c.save()
PY
exiftool -q -overwrite_original -charset exif=latin '-IFD0:Make=Acme®' -GPS:GPSLatitude=46.9 -GPS:GPSLatitudeRef=N \
    -XMP-dc:Title=Seed "$work/p/p.jpg"
heif-enc -q 30 "$work/p/p.jpg" -o "$work/p/p.heic" >/dev/null
for f in jpg png tif webp gif heic; do { printf '\000'; cat "$work/p/p.$f"; } > "$photos/$f"; done
{ printf '\003'; cat "$work/p/p.jpg"; } > "$photos/jpg-to-webp-no-location"
{ printf '\002'; cat "$work/p/p.pdf"; } > "$pdfs/medium.pdf"
{ printf '\005'; cat "$work/p/p.pdf"; } > "$pdfs/minimum.pdf"
# A PDF drawing a small Type 1 font embedded whole, its stream not compressed (the font pass reads it): glyphs
# whose outlines are in Subrs, hint replacement through OtherSubrs 3, an accent made with seac, unused Subrs.
/usr/bin/python3 - "$pdfs/type1-font" <<'PY'
import sys
def crypt(plain, key):
    out = bytearray()
    for byte in plain:
        c = byte ^ (key >> 8)
        out.append(c)
        key = ((c + key) * 52845 + 22719) & 0xffff
    return bytes(out)
operators = {'hsbw': b'\x0d', 'rmoveto': b'\x15', 'rlineto': b'\x05', 'closepath': b'\x09', 'callsubr': b'\x0a',
             'return': b'\x0b', 'endchar': b'\x0e', 'hstem': b'\x01', 'callothersubr': b'\x0c\x10',
             'pop': b'\x0c\x11', 'seac': b'\x0c\x06', 'setcurrentpoint': b'\x0c\x21'}
def charstring(*items):
    code = bytearray(4)  # the lenIV bytes
    for item in items:
        if isinstance(item, str):
            code += operators[item]
        elif -107 <= item <= 107:
            code.append(item + 139)
        else:
            code += bytes([(item - 108 >> 8) + 247, item - 108 & 255])
    return crypt(bytes(code), 4330)
box = (0, 0, 'rmoveto', 100, 0, 'rlineto', 0, 100, 'rlineto', -100, 0, 'rlineto', 'closepath')
subrs = [(3, 0, 'callothersubr', 'pop', 'pop', 'setcurrentpoint', 'return'), (0, 1, 'callothersubr', 'return'),
         (0, 2, 'callothersubr', 'return'), ('return',), (3, 1, 3, 'callothersubr', 'pop', 'callsubr', 'return'),
         box + ('return',), (0, 10, 'hstem', 'return'), (30, 'callsubr', 'return')] + [('return',)] * 23 + [box + ('return',)]
glyphs = {'.notdef': (0, 50, 'hsbw', 'endchar'),
          'A': (0, 100, 'hsbw', 6, 1, 3, 'callothersubr', 'pop', 'callsubr', 5, 'callsubr', 'endchar'),
          'acute': (0, 100, 'hsbw', 7, 'callsubr', 'endchar'), 'B': (0, 100, 'hsbw') + box + ('endchar',),
          'Aacute': (0, 100, 'hsbw', 0, 0, 30, 65, 194, 'seac')}
private = b'dup /Private 8 dict dup begin\n/RD{string currentfile exch readstring pop}executeonly def\n' \
          b'/ND{noaccess def}executeonly def\n/NP{noaccess put}executeonly def\n/BlueValues [] def\n/password 5839 def\n'
private += b'/Subrs %d array\n' % len(subrs)
for i, s in enumerate(subrs):
    code = charstring(*s)
    private += b'dup %d %d RD ' % (i, len(code)) + code + b' NP\n'
private += b'ND\n2 index /CharStrings %d dict dup begin\n' % len(glyphs)
for name, g in glyphs.items():
    code = charstring(*g)
    private += b'/%s %d RD ' % (name.encode(), len(code)) + code + b' ND\n'
private += b'end\nend\nreadonly put\nnoaccess put\ndup /FontName get exch definefont pop\nmark currentfile closefile\n'
clear = (b'%!PS-AdobeFont-1.0: Seed 001\n11 dict begin\n/FontName /Seed def\n/FontType 1 def\n/PaintType 0 def\n'
         b'/FontMatrix [0.001 0 0 0.001 0 0] readonly def\n/FontBBox {0 0 100 200} readonly def\n'
         b'/Encoding StandardEncoding def\ncurrentdict end\ncurrentfile eexec\n')
encrypted = crypt(b'\0\0\0\0' + private, 55665)
trailer = (b'0' * 64 + b'\n') * 8 + b'cleartomark\n'
font = clear + encrypted + trailer
objects = [b'<< /Type /Catalog /Pages 2 0 R >>', b'<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
           b'<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
           None,
           b'<< /Type /Font /Subtype /Type1 /BaseFont /Seed /Encoding << /Differences [1 /Aacute] >> /FontDescriptor 6 0 R >>',
           b'<< /Type /FontDescriptor /FontName /Seed /Flags 32 /FontBBox [0 0 100 200] /ItalicAngle 0 /Ascent 200'
           b' /Descent 0 /CapHeight 100 /StemV 10 /FontFile 7 0 R >>',
           b'<< /Length1 %d /Length2 %d /Length3 %d /Length %d >>\nstream\n' % (len(clear), len(encrypted), len(trailer), len(font))
           + font + b'\nendstream']
content = b'BT /F1 40 Tf 10 100 Td (A\\001) Tj ET'
objects[3] = b'<< /Length %d >>\nstream\n' % len(content) + content + b'\nendstream'
pdf = bytearray(b'%PDF-1.4\n')
offsets = []
for number, body in enumerate(objects, 1):
    offsets.append(len(pdf))
    pdf += b'%d 0 obj\n' % number + body + b'\nendobj\n'
xref = len(pdf)
pdf += b'xref\n0 %d\n0000000000 65535 f \n' % (len(objects) + 1) + b''.join(b'%010d 00000 n \n' % o for o in offsets)
pdf += b'trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n' % (len(objects) + 1, xref)
open(sys.argv[1], 'wb').write(b'\x02' + bytes(pdf))  # byte 0: the quality (medium)
PY
ls -l "$photos" "$pdfs"
