import ArchiverTestSupport
import Foundation
import Testing

/// What the copy of a text PDF drops besides what the writer compacts: what no viewer shows, and streams
/// stored twice. Its text, as pdftotext reads it, stays identical.
@Suite struct PDFStructureTests {
    @Test func thumbnailsPrivateDataUnusedResourcesAndDuplicateFontsGo() throws {
        let scratch = try ScratchDirectory()
        let pdf = scratch.sub("joined.pdf")
        let made = try Tool.run(["/usr/bin/python3", "-c", PythonHelpers.prelude + Self.bloatedPDF, pdf, "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"])
        try #require(made.status == 0, "\(made.output)")
        let before = try Self.objects(pdf)
        try #require(before.fontFiles == 2 && before.thumbnails == 2 && before.privateData == 2 && before.images == 2, "\(before)")
        let text = try PDF.text(pdf)
        try #require(text.contains("Chapter one") && text.contains("Chapter two"), "\(text)")

        let run = try PDF.compress(["--no-notify", "joined.pdf"], in: scratch.path)
        #expect(run.status == 0, "\(run.stderr)")
        let copy = scratch.sub("joined (compressed).pdf")
        let after = try Self.objects(copy)
        // The two chapters' equal fonts are one; thumbnails, Illustrator's data and the undrawn image are gone.
        #expect(after.fontFiles == 1 && after.thumbnails == 0 && after.privateData == 0 && after.images == 0, "\(after)")
        #expect(try PDF.text(copy) == text)
        #expect(try PDF.checks(copy))
        #expect(try Tool.run(["/usr/bin/pdffonts", copy]).output.contains("DejaVuSans"))
        // One font of 760 kB where there were two, and none of the 600 kB of the rest.
        #expect(PDF.size(copy) < PDF.size(pdf) * 4 / 10, "\(PDF.size(copy)) of \(PDF.size(pdf))")
    }

    /// Counts in a PDF's objects (`qpdf --json`): embedded TrueType font files, page thumbnails, private
    /// application data (/PieceInfo) and image XObjects.
    static func objects(_ path: String) throws -> (fontFiles: Int, thumbnails: Int, privateData: Int, images: Int) {
        let json = try Tool.run(["/usr/bin/qpdf", "--json=2", "--json-key=qpdf", path], mergingErrors: false).output
        let root = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let objects = try #require((root["qpdf"] as? [Any])?.last as? [String: Any])
        var counts = (fontFiles: 0, thumbnails: 0, privateData: 0, images: 0)
        for (_, object) in objects {
            let value = object as? [String: Any]
            let dictionary = (value?["stream"] as? [String: Any])?["dict"] as? [String: Any] ?? value?["value"] as? [String: Any] ?? [:]
            if dictionary["/Length1"] != nil { counts.fontFiles += 1 }
            if dictionary["/Thumb"] != nil { counts.thumbnails += 1 }
            if dictionary["/PieceInfo"] != nil { counts.privateData += 1 }
            if dictionary["/Subtype"] as? String == "/Image" { counts.images += 1 }
        }
        return counts
    }

    /// python3 PATH FONT.ttf: two chapters joined as a tool joins PDFs, each page with its own copy of the
    /// whole font, a thumbnail, Illustrator's private data and an image in its resources it never draws.
    static let bloatedPDF = #"""
        import random, sys, zlib
        from handmade_pdf import handmade
        random.seed(3)
        font = open(sys.argv[2], 'rb').read()
        objects = []
        def add(body):
            objects.append(body)
            return len(objects)
        def stream(extra, data):
            return b'<< %s /Length %d >>\nstream\n' % (extra, len(data)) + data + b'\nendstream'
        noise = lambda n: bytes(random.getrandbits(8) for _ in range(n))
        catalog, pages = add(None), add(None)
        kids = []
        for title in (b'Chapter one', b'Chapter two'):
            fontfile = add(stream(b'/Length1 %d /Filter /FlateDecode' % len(font), zlib.compress(font, 9)))
            descriptor = add(b'<< /Type /FontDescriptor /FontName /DejaVuSans /Flags 32 /FontBBox [-1021 -463 1793 1232]'
                             b' /ItalicAngle 0 /Ascent 928 /Descent -236 /CapHeight 729 /StemV 80 /FontFile2 %d 0 R >>' % fontfile)
            widths = b' '.join(b'600' for _ in range(32, 127))
            f = add(b'<< /Type /Font /Subtype /TrueType /BaseFont /DejaVuSans /FirstChar 32 /LastChar 126'
                    b' /Widths [%s] /Encoding /WinAnsiEncoding /FontDescriptor %d 0 R >>' % (widths, descriptor))
            content = add(stream(b'', b'BT /F1 24 Tf 72 700 Td (%s) Tj 0 -30 Td (Some words of the chapter.) Tj ET' % title))
            thumb = add(stream(b'/Width 100 /Height 100 /ColorSpace /DeviceRGB /BitsPerComponent 8', noise(30000)))
            private = add(stream(b'', noise(200000)))
            unused = add(stream(b'/Type /XObject /Subtype /Image /Width 200 /Height 200 /ColorSpace /DeviceRGB'
                                b' /BitsPerComponent 8', noise(120000)))
            kids.append(add(b'<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Contents %d 0 R'
                            b' /Resources << /Font << /F1 %d 0 R >> /XObject << /Logo %d 0 R >> >> /Thumb %d 0 R'
                            b' /PieceInfo << /Illustrator << /LastModified (D:20240101) /Private << /AIPrivateData1 %d 0 R >> >> >> >>'
                            % (pages, content, f, unused, thumb, private)))
        objects[catalog - 1] = b'<< /Type /Catalog /Pages %d 0 R >>' % pages
        objects[pages - 1] = b'<< /Type /Pages /Kids [%s] /Count %d >>' % (b' '.join(b'%d 0 R' % k for k in kids), len(kids))
        handmade(sys.argv[1], objects, version=b'1.5')  # the catalog is object 1
        """#
}
