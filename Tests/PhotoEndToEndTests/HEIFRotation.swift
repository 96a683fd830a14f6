import ArchiverTestSupport
import Foundation

extension Photos {
    /// Gives the primary image of a HEIF file an `irot` property (rotation in the container), as phones
    /// write it and heif-enc 1.15 cannot: the box goes into ipco, its association into ipma, and every
    /// iloc offset moves with the mdat. `quarterTurns` anticlockwise, 1…3.
    static func addContainerRotation(_ path: String, quarterTurns: Int) throws {
        try python(script, [path, path, String(quarterTurns)])
    }

    private static let script = #"""
import struct, sys

src, dst, angle = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = open(src, 'rb').read()

def children(start, end):
    i = start
    while i < end:
        size, kind = struct.unpack('>I4s', data[i:i + 8])
        yield kind.decode(), i, size
        i += size

top = {k: (i, s) for k, i, s in children(0, len(data))}
meta_at, meta_size = top['meta']
assert top['mdat'][0] > meta_at, 'meta must come before mdat'
inner = {k: (i, s) for k, i, s in children(meta_at + 12, meta_at + meta_size)}
iprp_at, iprp_size = inner['iprp']
props = {k: (i, s) for k, i, s in children(iprp_at + 8, iprp_at + iprp_size)}
ipco_at, ipco_size = props['ipco']
ipma_at, ipma_size = props['ipma']
primary = struct.unpack('>H', data[inner['pitm'][0] + 12:inner['pitm'][0] + 14])[0]

irot = struct.pack('>I4sB', 9, b'irot', angle & 3)
index = sum(1 for _ in children(ipco_at + 8, ipco_at + ipco_size)) + 1
ipco = struct.pack('>I', ipco_size + len(irot)) + data[ipco_at + 4:ipco_at + ipco_size] + irot

# ipma: version/flags, entries of (item, [associations]); the primary item gets the new one.
version, flags = data[ipma_at + 8], int.from_bytes(data[ipma_at + 9:ipma_at + 12], 'big')
p = ipma_at + 12
count = struct.unpack('>I', data[p:p + 4])[0]; p += 4
body = struct.pack('>I', count)
for _ in range(count):
    width = 4 if version >= 1 else 2
    item = int.from_bytes(data[p:p + width], 'big'); p += width
    n = data[p]; p += 1
    size = 2 if flags & 1 else 1
    assoc = data[p:p + n * size]; p += n * size
    if item == primary:
        n += 1
        assoc += (0x8000 | index).to_bytes(2, 'big') if flags & 1 else bytes([0x80 | index])
    body += item.to_bytes(width, 'big') + bytes([n]) + assoc
ipma_body = data[ipma_at + 8:ipma_at + 12] + body
ipma = struct.pack('>I4s', 8 + len(ipma_body), b'ipma') + ipma_body
delta = len(ipco) + len(ipma) - ipco_size - ipma_size

# iloc: every extent offset moves by delta, as the mdat does.
iloc_at, iloc_size = inner['iloc']
iloc = bytearray(data[iloc_at:iloc_at + iloc_size])
v = iloc[8]
offset_size, length_size = iloc[12] >> 4, iloc[12] & 15
base_size, index_size = iloc[13] >> 4, (iloc[13] & 15) if v in (1, 2) else 0
q = 14
items = struct.unpack('>H', iloc[q:q + 2])[0] if v < 2 else struct.unpack('>I', iloc[q:q + 4])[0]
q += 2 if v < 2 else 4
for _ in range(items):
    q += 2 if v < 2 else 4
    method = 0
    if v in (1, 2):
        method = struct.unpack('>H', iloc[q:q + 2])[0] & 15; q += 2
    q += 2
    base = int.from_bytes(iloc[q:q + base_size], 'big') if base_size else 0
    if method == 0 and base_size and base:
        iloc[q:q + base_size] = (base + delta).to_bytes(base_size, 'big')
    q += base_size
    extents = struct.unpack('>H', iloc[q:q + 2])[0]; q += 2
    for _ in range(extents):
        q += index_size
        if method == 0 and not base and offset_size:
            offset = int.from_bytes(iloc[q:q + offset_size], 'big')
            iloc[q:q + offset_size] = (offset + delta).to_bytes(offset_size, 'big')
        q += offset_size + length_size

iprp = struct.pack('>I4s', iprp_size + delta, b'iprp') + b''.join(
    ipco if k == 'ipco' else ipma if k == 'ipma' else data[i:i + s] for k, i, s in children(iprp_at + 8, iprp_at + iprp_size))
meta_body = b''.join(
    iprp if k == 'iprp' else bytes(iloc) if k == 'iloc' else data[i:i + s] for k, i, s in children(meta_at + 12, meta_at + meta_size))
meta = struct.pack('>I4s', meta_size + delta, b'meta') + data[meta_at + 8:meta_at + 12] + meta_body
out = b''.join(meta if k == 'meta' else data[i:i + s] for k, i, s in children(0, len(data)))
open(dst, 'wb').write(out)
"""#
}
