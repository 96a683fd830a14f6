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
        // One font where there were two (and subset: it was embedded whole), and none of the 600 kB of the rest.
        #expect(PDF.size(copy) < PDF.size(pdf) * 4 / 10, "\(PDF.size(copy)) of \(PDF.size(pdf))")
    }

    /// Fonts embedded whole are cut down to the glyphs drawn, wherever they are drawn (a page, a form, an
    /// annotation's appearance), glyph ids kept: the pages look the same at 50 dpi, pixel for pixel, and read
    /// the same. A font a form's fields may type with (/AcroForm /DR) could need any glyph: it stays whole.
    @Test func fontsEmbeddedWholeAreSubset() throws {
        let scratch = try ScratchDirectory()
        let pdf = scratch.sub("fonts.pdf")
        let fonts = "/usr/share/fonts/truetype/dejavu/"
        let made = try Tool.run(
            ["/usr/bin/python3", "-c", PythonHelpers.prelude + Self.wholeFontsPDF, pdf]
                + ["DejaVuSans.ttf", "DejaVuSerif.ttf", "DejaVuSansMono.ttf"].map { fonts + $0 })
        try #require(made.status == 0, "\(made.output)")
        let text = try PDF.text(pdf)
        try #require(text.contains("Whole fonts, café") && text.contains("Ωmega in a form") && text.contains("A stamp"), "\(text)")

        let run = try PDF.compress(["--no-notify", "fonts.pdf"], in: scratch.path)
        #expect(run.status == 0, "\(run.stderr)")
        let copy = scratch.sub("fonts (compressed).pdf")
        #expect(try PDF.checks(copy))
        #expect(try PDF.text(copy) == text)
        let listed = try Tool.run(["/usr/bin/pdffonts", copy], mergingErrors: false).output
        let names = listed.split(separator: "\n").dropFirst(2).compactMap { $0.split(separator: " ").first.map(String.init) }
        let tagged = /^[A-Z]{6}\+/
        #expect(names.filter { $0.contains(tagged) }.map { $0.dropFirst(7) }.sorted() == ["DejaVuSans", "DejaVuSerif"], "\(listed)")
        #expect(names.contains("DejaVuSansMono"), "\(listed)")
        // Two fonts of 760 and 380 kB come down to tens of kB (their tables still span every glyph id); the
        // form's font (340 kB) stays whole.
        let lengths = try Self.fontLengths(copy)
        #expect(lengths.filter { $0 < 100_000 }.count == 2 && lengths.contains(343_140), "\(lengths)")
        for page in 1...2 {
            #expect(try Self.rendered(pdf, page: page, in: scratch) == Self.rendered(copy, page: page, in: scratch), "page \(page)")
        }
    }

    /// A form no page draws (but kept: the catalog refers to it) shows text in whatever font its drawer would
    /// have set: its glyphs cannot be accounted for, so no font is subset.
    @Test func textInAnUnknownFontLeavesEveryFontWhole() throws {
        let scratch = try ScratchDirectory()
        let pdf = scratch.sub("orphan.pdf")
        let fonts = "/usr/share/fonts/truetype/dejavu/"
        let made = try Tool.run(
            ["/usr/bin/python3", "-c", PythonHelpers.prelude + Self.wholeFontsPDF, pdf]
                + ["DejaVuSans.ttf", "DejaVuSerif.ttf", "DejaVuSansMono.ttf"].map { fonts + $0 } + ["orphan"])
        try #require(made.status == 0, "\(made.output)")
        _ = try PDF.compress(["--no-notify", "--output", "copy.pdf", "orphan.pdf"], in: scratch.path)
        let copy = PDF.names(in: scratch.path).contains("copy.pdf") ? scratch.sub("copy.pdf") : pdf
        #expect(try Self.fontLengths(copy) == [343_140, 380_660, 759_720])
        #expect(try PDF.text(copy) == PDF.text(pdf))
    }

    /// `pdftoppm -r 50` of one page, as PPM bytes.
    static func rendered(_ path: String, page: Int, in scratch: ScratchDirectory) throws -> Data {
        let prefix = scratch.sub("page")
        let run = try Tool.run(["/usr/bin/pdftoppm", "-r", "50", "-f", "\(page)", "-l", "\(page)", "-singlefile", path, prefix])
        try #require(run.status == 0, "\(run.output)")
        return try Data(contentsOf: URL(fileURLWithPath: prefix + ".ppm"))
    }

    /// The /Length1 (decoded size) of every embedded TrueType font file.
    static func fontLengths(_ path: String) throws -> [Int] {
        let json = try Tool.run(["/usr/bin/qpdf", "--json=2", "--json-key=qpdf", path], mergingErrors: false).output
        let root = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let objects = try #require((root["qpdf"] as? [Any])?.last as? [String: Any])
        return objects.values.compactMap { object in
            (((object as? [String: Any])?["stream"] as? [String: Any])?["dict"] as? [String: Any])?["/Length1"] as? Int
        }.sorted()
    }

    /// python3 PATH SANS.ttf SERIF.ttf MONO.ttf [orphan]: two pages drawing whole embedded fonts: Sans as a
    /// simple TrueType font (WinAnsi) on the page and in a form, Serif as a Type 0 font (Identity-H, CIDs =
    /// glyph ids, with a ToUnicode map) on the page and in a stamp's appearance, Mono through a form's default
    /// resources. With "orphan", a form no page draws (the catalog refers to it) shows text without choosing a font.
    static let wholeFontsPDF = #"""
        import sys, zlib
        from handmade_pdf import handmade, stream
        from reportlab.pdfbase.ttfonts import TTFontFile
        sans, serif, mono = (open(p, 'rb').read() for p in sys.argv[2:5])
        glyphs = TTFontFile(sys.argv[3]).charToGlyph
        objects = []
        def add(body):
            objects.append(body)
            return len(objects)
        def fontfile(data):
            return add(stream(b'/Length1 %d /Filter /FlateDecode' % len(data), zlib.compress(data, 9)))
        def descriptor(name, file):
            return add(b'<< /Type /FontDescriptor /FontName /%s /Flags 32 /FontBBox [-1021 -463 1793 1232] /ItalicAngle 0'
                       b' /Ascent 928 /Descent -236 /CapHeight 729 /StemV 80 /FontFile2 %d 0 R >>' % (name, file))
        def simple(name, data):
            widths = b' '.join(b'600' for _ in range(32, 256))
            return add(b'<< /Type /Font /Subtype /TrueType /BaseFont /%s /FirstChar 32 /LastChar 255 /Widths [%s]'
                       b' /Encoding /WinAnsiEncoding /FontDescriptor %d 0 R >>' % (name, widths, descriptor(name, fontfile(data))))
        def cids(text):
            return b'<' + b''.join(b'%04X' % glyphs[ord(c)] for c in text) + b'>'
        catalog, pages = add(None), add(None)
        f1 = simple(b'DejaVuSans', sans)
        fm = simple(b'DejaVuSansMono', mono)
        used = 'Whole fonts in a Type 0 font: Ωmega in a form, A stamp'
        tounicode = add(stream(b'', b'/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /U def'
                               b' 1 begincodespacerange <0000> <FFFF> endcodespacerange %d beginbfchar ' % len(set(used))
                               + b' '.join(b'<%04X> <%04X>' % (glyphs[ord(c)], ord(c)) for c in sorted(set(used)))
                               + b' endbfchar endcmap CMapName currentdict /CMap defineresource pop end end'))
        cidfont = add(b'<< /Type /Font /Subtype /CIDFontType2 /BaseFont /DejaVuSerif /CIDToGIDMap /Identity /DW 600'
                      b' /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /FontDescriptor %d 0 R >>'
                      % descriptor(b'DejaVuSerif', fontfile(serif)))
        f2 = add(b'<< /Type /Font /Subtype /Type0 /BaseFont /DejaVuSerif /Encoding /Identity-H /DescendantFonts [%d 0 R]'
                 b' /ToUnicode %d 0 R >>' % (cidfont, tounicode))
        fonts = b'/Font << /F1 %d 0 R /F2 %d 0 R /FM %d 0 R >>' % (f1, f2, fm)
        form = add(stream(b'/Type /XObject /Subtype /Form /BBox [0 0 400 100] /Resources << %s >>' % fonts,
                          b'BT /F2 14 Tf 10 60 Td %s Tj /F1 12 Tf 0 -20 Td (and Sans inside the form) Tj'
                          b' /FM 12 Tf 0 -20 Td (Mono drawn too) Tj ET' % cids('Ωmega in a form')))
        stamp = add(stream(b'/Type /XObject /Subtype /Form /BBox [0 0 200 40] /Resources << %s >>' % fonts,
                           b'BT /F2 18 Tf 5 12 Td %s Tj ET' % cids('A stamp')))
        annotation = add(b'<< /Type /Annot /Subtype /Stamp /Rect [300 600 500 640] /AP << /N %d 0 R >> >>' % stamp)
        first = add(stream(b'', b'BT /F1 20 Tf 72 720 Td (Whole fonts, caf\xe9.) Tj 0 -30 Td /F2 16 Tf %s Tj ET'
                           b' q 1 0 0 1 72 500 cm /Fx Do Q' % cids('Whole fonts in a Type 0 font:')))
        second = add(stream(b'', b'BT /F1 30 Tf 72 700 Td (Page two, the same Sans.) Tj ET'))
        orphan = sys.argv[5:] == ['orphan'] and add(stream(b'/Type /XObject /Subtype /Form /BBox [0 0 100 100]'
                                                          b' /Resources << %s >>' % fonts, b'BT (Which font?) Tj ET'))
        resources = b'<< %s /XObject << /Fx %d 0 R >> >>' % (fonts, form)
        kids = [add(b'<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Contents %d 0 R /Resources %s%s >>'
                    % (pages, content, resources, b' /Annots [%d 0 R]' % annotation if content == first else b''))
                for content in (first, second)]
        objects[catalog - 1] = (b'<< /Type /Catalog /Pages %d 0 R /AcroForm << /Fields [] /DR << /Font << /FM %d 0 R >> >> >>'
                                % (pages, fm) + (b' /Extra %d 0 R' % orphan if orphan else b'') + b' >>')
        objects[pages - 1] = b'<< /Type /Pages /Kids [%s] /Count %d >>' % (b' '.join(b'%d 0 R' % k for k in kids), len(kids))
        handmade(sys.argv[1], objects, version=b'1.5')
        """#

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
