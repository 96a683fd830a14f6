"""RAR archives written header by header, with an archive comment, for the tests of rar comments: no rar
writer exists here (RAR is non-free). Stored files and a comment, nothing more.

RAR5 follows rarlab's technote "RAR 5.0 archive format": a signature, then headers, each a CRC32 (of the
header from its size on), its size and type as vints, flags, then its fields; the comment is a service
header named "CMT" whose data is the UTF-8 text, right after the main header. RAR4 (RAR 2.9/3.x, the
technote of RAR 3.x): blocks with a 16-bit CRC, the comment in a "CMT" subblock (NEWSUB_HEAD) after the
main header, stored (method 0x30), or inside the main header as before RAR 2.9.

Imported by the tests' generator scripts (PythonHelpers.prelude puts this folder on sys.path)."""

import struct
import zlib


def vint(value):
    """RAR5's variable-length integer: 7 bits a byte, lowest first, the high bit set on all but the last."""
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _rar5_header(kind, fields, data=b''):
    """One RAR5 header: CRC32, size, type, flags (a data area when `data`), the data size, then `fields`."""
    flags = 0x0002 if data else 0
    body = vint(kind) + vint(flags) + (vint(len(data)) if data else b'') + fields
    sized = vint(len(body)) + body
    return struct.pack('<I', zlib.crc32(sized)) + sized + data


def _rar5_file(kind, name, data, mtime, method=0):
    """A file (kind 2) or service (kind 3) header with its data (stored, unless `method` claims otherwise):
    Unix attributes, mtime, CRC32."""
    fields = (vint(0x0002 | 0x0004)  # file flags: mtime and CRC32 present
              + vint(len(data))      # unpacked size
              + vint(0o100644 if kind == 2 else 0)
              + struct.pack('<II', mtime, zlib.crc32(data))
              + vint(method << 7)    # compression: version 0, method 0 (stored)
              + vint(1)              # host OS: Unix
              + vint(len(name)) + name)
    return _rar5_header(kind, fields, data)


def rar5(path, name, data, comment, mtime=1700000000, comment_method=0, more=()):
    """Writes a RAR5 archive holding the file `name` (str) with `data` (bytes), stored, and the archive
    comment `comment` (str, UTF-8; None for none), its header claiming `comment_method` (0: stored);
    `more` adds stored files after it, (name, data) pairs."""
    out = bytearray(b'Rar!\x1a\x07\x01\x00')
    out += _rar5_header(1, vint(0))  # main header: no archive flags
    if comment is not None:
        out += _rar5_file(3, b'CMT', comment.encode('utf-8'), mtime, comment_method)
    for file_name, file_data in [(name, data)] + list(more):
        out += _rar5_file(2, file_name.encode('utf-8'), file_data, mtime)
    out += _rar5_header(5, vint(0))  # end of archive, not a volume
    open(path, 'wb').write(out)


def _rar4_block(kind, flags, fields, data=b''):
    """One RAR4 block: CRC16 (the low half of the CRC32 of the header from its type on), type, flags, size."""
    if data:
        flags |= 0x8000  # LONG_BLOCK: the data's size follows in the header
    rest = struct.pack('<BHH', kind, flags, 7 + len(fields)) + fields
    return struct.pack('<H', zlib.crc32(rest) & 0xFFFF) + rest + data


def _dos_time(seconds):
    import time
    t = time.gmtime(seconds)
    return ((t.tm_year - 1980) << 25 | t.tm_mon << 21 | t.tm_mday << 16
            | t.tm_hour << 11 | t.tm_min << 5 | t.tm_sec // 2)


def _rar4_file(kind, name, data, mtime):
    """A file block (0x74) or subblock (0x7A) with its data stored (method 0x30), made on Unix."""
    attributes = 0o100644 if kind == 0x74 else 0
    fields = struct.pack('<IIBIIBBHI', len(data), len(data), 3, zlib.crc32(data), _dos_time(mtime),
                         29, 0x30, len(name), attributes) + name
    return _rar4_block(kind, 0, fields, data)


def _rar4_old_comment(text):
    """The main header of RAR before 2.9 with its comment inside (MHD_COMMENT): its CRC covers only its own
    fields, the comment block's its fields up to the comment's CRC (stored here, method 0x30)."""
    comment = struct.pack('<BHHHBBH', 0x75, 0, 13 + len(text), len(text), 15, 0x30, zlib.crc32(text) & 0xFFFF)
    main = struct.pack('<BHHHI', 0x73, 0x0002, 13 + 13 + len(text), 0, 0)
    return (struct.pack('<H', zlib.crc32(main) & 0xFFFF) + main
            + struct.pack('<H', zlib.crc32(comment) & 0xFFFF) + comment + text)


def rar4(path, name, data, comment, mtime=1700000000, old_style=False, more=()):
    """Writes a RAR4 archive holding the file `name` (str) with `data` (bytes), stored, and the archive
    comment `comment` (str; None for none) in a "CMT" subblock, or (`old_style`) inside the main header
    as RAR before 2.9 kept it; `more` adds stored files after it, (name, data) pairs."""
    out = bytearray(b'Rar!\x1a\x07\x00')
    if old_style:
        out += _rar4_old_comment(comment.encode('utf-8'))
    else:
        out += _rar4_block(0x73, 0, struct.pack('<HI', 0, 0))  # main header: reserved fields
    if comment is not None and not old_style:
        out += _rar4_file(0x7A, b'CMT', comment.encode('utf-8'), mtime)
    for file_name, file_data in [(name, data)] + list(more):
        out += _rar4_file(0x74, file_name.encode('utf-8'), file_data, mtime)
    out += _rar4_block(0x7B, 0x4000, b'')  # end of archive
    open(path, 'wb').write(out)
