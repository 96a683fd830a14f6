import ArchiverTestSupport
import Foundation
import Testing

/// Type 1 fonts (/FontFile), whole or a subset already, keep only the glyphs drawn and the Subrs those call:
/// their bytes are encrypted, so that what is not kept is what is saved. Pages look the same, pixel for pixel,
/// to poppler (FreeType) and to Ghostscript (its own Type 1 interpreter), and read the same.
@Suite struct Type1FontTests {
    /// Three fonts of URW's Type 1 set: Sans embedded whole (WinAnsi), its /Length2 taking in the "0000…cleartomark"
    /// trailer (/Length3 0, as some producers write); Roman made as TeX's fonts are (every
    /// outline in a Subrs entry of its own, so the Subrs are nearly all of it), already tagged as a subset,
    /// with a seac accent (Å: A and ring, which the page never draws themselves); Mono drawing a code whose
    /// glyph it lacks (a viewer may look for another), so it stays whole.
    @Test func type1FontsKeepTheGlyphsDrawnAndTheSubrsTheyCall() throws {
        let scratch = try ScratchDirectory()
        let pdf = scratch.sub("type1.pdf")
        let fonts = "/usr/share/fonts/X11/Type1/"
        let made = try Tool.run(
            ["/usr/bin/python3", "-c", PythonHelpers.prelude + Self.type1PDF, pdf]
                + ["NimbusSans-Regular.pfb", "NimbusRoman-Regular.pfb", "NimbusMonoPS-Regular.pfb"].map { fonts + $0 })
        try #require(made.status == 0, "\(made.output)")
        let text = try PDF.text(pdf)
        try #require(text.contains("caf\u{E9}") && text.contains("\u{C5} and Quiz"), "\(text)")
        let before = try Self.programs(pdf)
        try #require(before.count == 3, "\(before)")

        let run = try PDF.compress(["--no-notify", "type1.pdf"], in: scratch.path)
        #expect(run.status == 0, "\(run.stderr)")
        let copy = scratch.sub("type1 (compressed).pdf")
        #expect(try PDF.checks(copy))
        #expect(try PDF.text(copy) == text)
        let after = try Self.programs(copy)
        // Sans gets a subset tag, Roman a new one for its own (another subset than QWERTY's); a few glyphs of 855
        // (and of Roman's 860 Subrs) are left.
        let sans = after.first { $0.key.wholeMatch(of: /[A-Z]{6}\+NimbusSans-Regular/) != nil }
        #expect(try #require(sans, "\(after)").value * 10 < before["NimbusSans-Regular"] ?? 0, "\(after)")
        let roman = after.first { $0.key.wholeMatch(of: /[A-Z]{6}\+NimbusRoman-Regular/) != nil && !$0.key.hasPrefix("QWERTY+") }
        #expect(try #require(roman, "\(after)").value * 10 < before["QWERTY+NimbusRoman-Regular"] ?? 0)
        // Each program still ends in cleartomark, in the clear: Sans's trailer is not encrypted with its glyphs.
        #expect(try Self.cleartomarks(copy, in: scratch) == 3)
        #expect(try Self.cleartomarks(pdf, in: scratch) == 3)
        #expect(after["NimbusMonoPS-Regular"] == before["NimbusMonoPS-Regular"], "\(after)")
        #expect(PDF.size(copy) * 2 < PDF.size(pdf), "\(PDF.size(copy)) of \(PDF.size(pdf))")
        for page in 1...2 {
            #expect(try PDFStructureTests.rendered(pdf, page: page, in: scratch) == PDFStructureTests.rendered(copy, page: page, in: scratch), "page \(page)")
            #expect(try Self.ghostscript(pdf, page: page, in: scratch) == Self.ghostscript(copy, page: page, in: scratch), "page \(page)")
        }
    }

    /// How many times "cleartomark" is in the file, its streams uncompressed.
    static func cleartomarks(_ path: String, in scratch: ScratchDirectory) throws -> Int {
        let output = scratch.sub("uncompressed.pdf")
        let run = try Tool.run(["/usr/bin/qpdf", "--stream-data=uncompress", "--object-streams=disable", path, output])
        try #require(run.status == 0, "\(run.output)")
        let data = try Data(contentsOf: URL(fileURLWithPath: output))
        return data.ranges(of: Data("cleartomark".utf8)).count
    }

    /// Ghostscript's rendering of one page at 50 dpi, as PPM bytes.
    static func ghostscript(_ path: String, page: Int, in scratch: ScratchDirectory) throws -> Data {
        let output = scratch.sub("gs.ppm")
        let run = try Tool.run(
            ["/usr/bin/gs", "-q", "-dNOPAUSE", "-dBATCH", "-dSAFER", "-sDEVICE=ppmraw", "-r50", "-dFirstPage=\(page)",
             "-dLastPage=\(page)", "-o", output, path])
        try #require(run.status == 0, "\(run.output)")
        return try Data(contentsOf: URL(fileURLWithPath: output))
    }

    /// The /Length2 (encrypted part) of each embedded Type 1 program, by its descriptor's /FontName.
    static func programs(_ path: String) throws -> [String: Int] {
        let json = try Tool.run(["/usr/bin/qpdf", "--json=2", "--json-key=qpdf", path], mergingErrors: false).output
        let root = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let objects = try #require((root["qpdf"] as? [Any])?.last as? [String: Any])
        var lengths: [String: Int] = [:]
        for case let object as [String: Any] in objects.values {
            guard let descriptor = object["value"] as? [String: Any], let name = descriptor["/FontName"] as? String,
                let file = descriptor["/FontFile"] as? String,
                let stream = (objects["obj:" + file] as? [String: Any])?["stream"] as? [String: Any],
                let length = (stream["dict"] as? [String: Any])?["/Length2"] as? Int
            else { continue }
            lengths[String(name.dropFirst())] = length
        }
        return lengths
    }

    /// python3 PATH SANS.pfb ROMAN.pfb MONO.pfb: two pages in the three fonts (see the test).
    static let type1PDF = #"""
        import re, sys, zlib
        from handmade_pdf import handmade, stream
        from reportlab.pdfbase._fontdata import encodings

        def pfb(path):
            data, parts, at = open(path, 'rb').read(), [], 0
            while at + 6 <= len(data) and data[at] == 0x80 and data[at + 1] in (1, 2):
                size = int.from_bytes(data[at + 2:at + 6], 'little')
                parts.append((data[at + 1], data[at + 6:at + 6 + size]))
                at += 6 + size
            binary = b''.join(d for t, d in parts if t == 2)
            return parts[0][1], binary, parts[-1][1] if parts[-1][0] == 1 and len(parts) > 2 else b''

        def crypt(data, key, decrypting):
            out = bytearray()
            for byte in data:
                c = byte ^ (key >> 8)
                out.append(c)
                key = (((byte if decrypting else c) + key) * 52845 + 22719) & 0xffff
            return bytes(out)

        def number(v):
            if -107 <= v <= 107: return bytes([v + 139])
            if 108 <= v <= 1131: return bytes([(v - 108 >> 8) + 247, v - 108 & 255])
            if -1131 <= v <= -108: return bytes([(-v - 108 >> 8) + 251, -v - 108 & 255])
            return b'\xff' + (v & 0xffffffff).to_bytes(4, 'big')

        entry = re.compile(rb'\s*(?:dup (\d+)|/(\S+)) (\d+) (RD|-\|) ')
        def entries(text, at):
            """The Subrs or CharStrings entries from `at`: [(index or name, decrypted charstring)], and where they end."""
            found = []
            while (m := entry.match(text, at)):
                start = m.end()
                data = crypt(text[start:start + int(m.group(3))], 4330, True)[4:]
                found.append((int(m.group(1)) if m.group(1) else m.group(2).decode(), data))
                at = re.compile(rb' ?(NP|\||ND|\|-|noaccess put|noaccess def)\n?').match(text, start + int(m.group(3))).end()
            return found, at

        def font(path, subrs_for_glyphs=False):
            """A .pfb as a /FontFile stream's body and /Length1-3, and each glyph's width. With subrs_for_glyphs, as
            TeX's fonts are made: every glyph's outline in a Subrs entry of its own, the glyph only calling it; and
            Aring a seac accent (A and ring)."""
            clear, binary, trailer = pfb(path)
            plain = crypt(binary, 55665, True)
            lead, text = plain[:4], plain[4:]
            s = text.index(b'/Subrs')
            m = re.compile(rb'/Subrs (\d+) array\n?').match(text, s)
            subrs, subrs_end = entries(text, m.end())
            c = text.index(b'/CharStrings', subrs_end)
            m2 = re.compile(rb'/CharStrings \d+ dict dup begin\n?').match(text, c)
            glyphs, glyphs_end = entries(text, m2.end())
            widths, rebuilt = {}, []
            for name, code in glyphs:
                values, at = [], 0
                while code[at] >= 32:
                    v = code[at]
                    if v <= 246: values.append(v - 139); at += 1
                    elif v <= 250: values.append((v - 247) * 256 + code[at + 1] + 108); at += 2
                    elif v <= 254: values.append(-(v - 251) * 256 - code[at + 1] - 108); at += 2
                    else: values.append(int.from_bytes(code[at + 1:at + 5], 'big', signed=True)); at += 5
                widths[name] = values[1]
                if subrs_for_glyphs and code[at] == 13 and code[-1] == 14:
                    subrs.append((len(subrs), code[at + 1:-1] + b'\x0b'))
                    code = code[:at + 1] + number(len(subrs) - 1) + b'\x0a\x0e'
                if subrs_for_glyphs and name == 'Aring':
                    code = number(0) + number(widths['A']) + b'\x0d' + number(0) + number(160) + number(190) + number(65) + number(202) + b'\x0c\x06'
                rebuilt.append((name, code))
            body = text[:s] + b'/Subrs %d array\n' % len(subrs)
            body += b''.join(b'dup %d %d RD ' % (i, len(d) + 4) + crypt(b'\0\0\0\0' + d, 4330, False) + b' NP\n' for i, d in subrs)
            body += text[subrs_end:c] + b'/CharStrings %d dict dup begin\n' % len(rebuilt)
            body += b''.join(b'/%s %d RD ' % (n.encode(), len(d) + 4) + crypt(b'\0\0\0\0' + d, 4330, False) + b' ND\n' for n, d in rebuilt)
            body += text[glyphs_end:]
            encrypted = crypt(lead + body, 55665, False)
            return clear + encrypted + trailer, (len(clear), len(encrypted), len(trailer)), widths

        objects = []
        def add(body):
            objects.append(body)
            return len(objects)
        def simple(base, path, encoding, names, subrs_for_glyphs=False, folded=False):
            data, lengths, widths = font(path, subrs_for_glyphs)
            if folded: lengths = (lengths[0], lengths[1] + lengths[2], 0)
            file = add(stream(b'/Length1 %d /Length2 %d /Length3 %d /Filter /FlateDecode' % lengths, zlib.compress(data, 9)))
            descriptor = add(b'<< /Type /FontDescriptor /FontName /%s /Flags 32 /FontBBox [-200 -300 1200 1000] /ItalicAngle 0'
                             b' /Ascent 900 /Descent -250 /CapHeight 700 /StemV 80 /FontFile %d 0 R >>' % (base, file))
            w = b' '.join(b'%d' % widths.get(names[code] or '', 0) for code in range(1, 256))
            return add(b'<< /Type /Font /Subtype /Type1 /BaseFont /%s /FirstChar 1 /LastChar 255 /Widths [%s] /Encoding %s'
                       b' /FontDescriptor %d 0 R >>' % (base, w, encoding, descriptor))
        standard = encodings['StandardEncoding']
        catalog, pages = add(None), add(None)
        sans = simple(b'NimbusSans-Regular', sys.argv[2], b'/WinAnsiEncoding', encodings['WinAnsiEncoding'], folded=True)
        roman = simple(b'QWERTY+NimbusRoman-Regular', sys.argv[3], b'<< /Differences [1 /Aring] >>',
                       [None, 'Aring'] + list(standard[2:]), subrs_for_glyphs=True)
        mono = simple(b'NimbusMonoPS-Regular', sys.argv[4], b'<< /Differences [2 /notinthefont] >>',
                      [None, None, 'notinthefont'] + list(standard[3:]))
        fonts = b'/Font << /F1 %d 0 R /F2 %d 0 R /F3 %d 0 R >>' % (sans, roman, mono)
        first = add(stream(b'', b'BT /F1 20 Tf 72 720 Td (Type 1 fonts embedded whole, caf\xe9.) Tj 0 -40 Td /F2 18 Tf'
                           b' (Outlines in Subrs: \x01 and Quiz.) Tj 0 -40 Td /F3 14 Tf (Mono with \x02 drawn.) Tj ET'))
        second = add(stream(b'', b'BT /F2 30 Tf 72 700 Td (Page two, Roman again: xyz.) Tj ET'))
        kids = [add(b'<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Contents %d 0 R /Resources << %s >> >>'
                    % (pages, content, fonts)) for content in (first, second)]
        objects[catalog - 1] = b'<< /Type /Catalog /Pages %d 0 R >>' % pages
        objects[pages - 1] = b'<< /Type /Pages /Kids [%s] /Count %d >>' % (b' '.join(b'%d 0 R' % k for k in kids), len(kids))
        handmade(sys.argv[1], objects, version=b'1.5')
        """#
}
