"""PDFs written object by object, for the cases ReportLab cannot make (PDFEngineTests, PDFEndToEndTests).

Imported by the tests' generator scripts (PythonHelpers.prelude puts this folder on sys.path)."""


def stream(head, data):
    """A stream object: `head`'s dictionary entries, its length, then `data` as it is."""
    return b'<< ' + head + b' /Length %d >>\nstream\n' % len(data) + data + b'\nendstream'


def handmade(path, objects, version=b'1.4', trailer=b''):
    """Writes `objects` (numbered from 1; the first is the catalog) with their cross-reference table;
    `trailer`'s entries go into the trailer besides /Size and /Root (an /Encrypt and its /ID)."""
    pdf = bytearray(b'%PDF-' + version + b'\n')
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(pdf))
        pdf += b'%d 0 obj\n' % number + body + b'\nendobj\n'
    xref = len(pdf)
    pdf += b'xref\n0 %d\n0000000000 65535 f \n' % (len(objects) + 1)
    pdf += b''.join(b'%010d 00000 n \n' % o for o in offsets)
    pdf += b'trailer\n<< /Size %d /Root 1 0 R %s>>\nstartxref\n%d\n%%%%EOF\n' % (len(objects) + 1, trailer + b' ' if trailer else b'', xref)
    open(path, 'wb').write(pdf)
