import ArchiverTestSupport
import Foundation
import Testing

/// The PDFs the tests compress, made once per test run by Debian's ReportLab and PIL (python3-reportlab,
/// python3-pil): every case the image pass must get right, with text, a link and an outline around them.
///
/// sample.pdf (A4 pages unless said; images raw DCT or Flate):
///   1. text, a 2400×1600 RGB JPEG drawn 4 in wide (600 dpi), a link, outline entry "Photo"
///   2. text, a 2000×1500 RGBA PNG drawn 4 in wide (500 dpi): Flate with an SMask
///   3. a scanned page: a 2480×3508 grayscale JPEG filling the page (300 dpi), no text layer
///   4. an A3 page: a 3000×3000 JPEG drawn 1 in wide (3000 dpi), and a 300×200 JPEG drawn 4 in wide
///      (75 dpi, below every target but Minimum)
///   5. and 6. one 1800×1200 JPEG drawn 2 in wide, then 6 in wide (300 dpi at its largest placement)
///   7. a 600×450 CMYK JPEG drawn 1 in wide (600 dpi): a colour space the image pass leaves alone
///   outline: Photo, Graphic (child Mask), Scan, Small, Shared
/// a85.pdf: one page, a 2400×1600 JPEG stored as ASCII85 + DCT (ReportLab's default encoding).
/// stamp.pdf: one 1200×1200 JPEG drawn 1 in wide on the page and 6 in wide by a stamp annotation's appearance.
/// nested.pdf: that JPEG drawn through two nested forms (matrices multiplied: 4.17 in wide).
/// signed.pdf: that JPEG drawn 1 in wide in a document whose /AcroForm says it is signed.
/// damagedjpeg.pdf: a DCT stream that is no JPEG (2000×2000 drawn 6 in wide) and a JPEG cut short (drawn
///   2 in wide), which stay as they are, beside a sound 1200×1200 JPEG drawn 2 in wide.
/// inline.pdf: a 1200×900 JPEG as an inline image, drawn 4 in wide (300 dpi), under a line of text.
/// bilevel.pdf: a 300-dpi bilevel scan in CCITT G4, which the image pass leaves alone.
enum TestPDFs {
    static let folder: String = {
        let folder = packageRoot.appendingPathComponent(".build/test-scratch/pdf-fixtures-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let script = folder + "/make.py"
        try? (PythonHelpers.prelude + generator).write(toFile: script, atomically: true, encoding: .utf8)
        let result = try? Tool.run(["/usr/bin/python3", script, folder])
        if result?.status != 0 {
            Issue.record(
                """
                Could not make the test PDFs with /usr/bin/python3 (needs Debian's python3-reportlab and \
                python3-pil): \(result?.output ?? "python3 did not start")
                """)
        }
        return folder
    }()

    static var sample: String { folder + "/sample.pdf" }
    static var a85: String { folder + "/a85.pdf" }
    static var stamp: String { folder + "/stamp.pdf" }
    static var bilevel: String { folder + "/bilevel.pdf" }
    static var nested: String { folder + "/nested.pdf" }
    static var signed: String { folder + "/signed.pdf" }
    static var damagedJPEG: String { folder + "/damagedjpeg.pdf" }
    static var inline: String { folder + "/inline.pdf" }

    /// An AES-256 copy of a fixture in `scratch` under `name` (user password `password`, which may be empty;
    /// owner password "owner"), made by qpdf with `restrictions` (`--print=none`).
    static func encrypt(
        _ fixture: String, password: String, restrictions: [String] = [], into scratch: ScratchDirectory,
        as name: String
    ) throws {
        let made = try Tool.run(
            ["/usr/bin/qpdf", "--encrypt", password, "owner", "256"] + restrictions + ["--", fixture, scratch.sub(name)])
        try #require(made.status == 0, "qpdf --encrypt: \(made.output)")
    }

    /// Copies a fixture into `scratch` under `name`, returning its path.
    static func copy(_ fixture: String, into scratch: ScratchDirectory, as name: String) throws -> String {
        let target = scratch.sub(name)
        try FileManager.default.copyItem(atPath: fixture, toPath: target)
        return target
    }

    private static let generator = #"""
        import random, sys
        from PIL import Image, ImageDraw
        from reportlab import rl_config
        from reportlab.lib.pagesizes import A3, A4
        from reportlab.lib.units import inch
        from reportlab.pdfgen import canvas
        from handmade_pdf import handmade, stream

        out = sys.argv[1]
        random.seed(7)

        def photo(name, w, h, mode='RGB', quality=92):
            # Gradients under noise: a photograph's statistics, so JPEG sizes are realistic.
            noise = [Image.effect_noise((w, h), 60) for _ in range(3)]
            ramp = Image.linear_gradient('L').resize((w, h))
            bands = [Image.blend(n, ramp if i != 1 else ramp.rotate(90), 0.5) for i, n in enumerate(noise)]
            image = Image.merge('RGB', bands)
            if mode == 'L':
                image = image.convert('L')
            path = f'{out}/{name}'
            if name.endswith('.png'):
                alpha = Image.new('L', (w, h), 0)
                ImageDraw.Draw(alpha).ellipse((w // 8, h // 8, w * 7 // 8, h * 7 // 8), fill=255)
                image.putalpha(alpha)
                image.save(path)
            else:
                image.save(path, quality=quality)
            return path

        def scan(name, w, h):
            page = Image.effect_noise((w, h), 20).point(lambda v: 235 + v // 16)
            draw = ImageDraw.Draw(page)
            for row in range(40):
                y = 300 + row * 75
                for word in range(random.randint(6, 12)):
                    x = 250 + word * 170
                    draw.rectangle((x, y, x + random.randint(60, 150), y + 30), fill=random.randint(10, 60))
            path = f'{out}/{name}'
            page.save(path, quality=90)
            return path

        def text(c, top, lines):
            t = c.beginText(72, top)
            t.setFont('Helvetica', 11)
            for line in lines:
                t.textLine(line)
            c.drawText(t)

        rl_config.useA85 = 0
        c = canvas.Canvas(f'{out}/sample.pdf', pagesize=A4, invariant=1)
        c.setTitle('Archiver PDF test')
        big = photo('photo.jpg', 2400, 1600)
        text(c, 780, ['Quarterly report: photographs and graphics', 'The harvest was early this year.',
                      'Numbers 1234 5678 and punctuation, kept exactly.'])
        c.drawImage(big, 72, 400, width=4 * inch, height=4 * inch * 1600 / 2400)
        c.linkURL('https://example.org/archiver', (72, 760, 300, 790), relative=0)
        c.bookmarkPage('photo'); c.addOutlineEntry('Photo', 'photo', level=0)
        c.showPage()

        text(c, 780, ['A graphic with transparency follows.', 'Its soft mask must shrink with it.'])
        c.drawImage(photo('graphic.png', 2000, 1500), 72, 400, width=4 * inch, height=3 * inch, mask='auto')
        c.bookmarkPage('graphic'); c.addOutlineEntry('Graphic', 'graphic', level=0)
        c.addOutlineEntry('Mask', 'graphic', level=1)
        c.showPage()

        w, h = A4
        c.drawImage(scan('scan.jpg', 2480, 3508), 0, 0, width=w, height=h)
        c.bookmarkPage('scan'); c.addOutlineEntry('Scan', 'scan', level=0)
        c.showPage()

        c.setPageSize(A3)
        text(c, 1100, ['A large page with a tiny picture and a coarse one.'])
        c.drawImage(photo('tiny.jpg', 3000, 3000), 72, 900, width=1 * inch, height=1 * inch)
        c.drawImage(photo('coarse.jpg', 300, 200), 72, 300, width=4 * inch, height=4 * inch * 200 / 300)
        c.bookmarkPage('small'); c.addOutlineEntry('Small', 'small', level=0)
        c.showPage()

        c.setPageSize(A4)
        shared = photo('shared.jpg', 1800, 1200)
        text(c, 780, ['The same picture, small here.'])
        c.drawImage(shared, 72, 500, width=2 * inch, height=2 * inch * 1200 / 1800)
        c.bookmarkPage('shared'); c.addOutlineEntry('Shared', 'shared', level=0)
        c.showPage()
        text(c, 780, ['And large here.'])
        c.drawImage(shared, 72, 300, width=6 * inch, height=6 * inch * 1200 / 1800)
        c.linkURL('https://example.org/second', (72, 760, 300, 790), relative=0)
        c.showPage()

        text(c, 780, ['A CMYK picture, left as it is.'])
        cmyk = f'{out}/cmyk.jpg'
        Image.linear_gradient('L').resize((600, 450)).convert('CMYK').save(cmyk, quality=92)
        c.drawImage(cmyk, 72, 400, width=1 * inch, height=0.75 * inch)
        c.showPage()
        c.save()

        # stamp.pdf, written by hand: ReportLab makes no appearance streams with images.
        stamp = open(photo('stamp.jpg', 1200, 1200), 'rb').read()
        objects = [
            b'<< /Type /Catalog /Pages 2 0 R >>',
            b'<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
            b'<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Annots [6 0 R]'
            b' /Resources << /XObject << /Im1 5 0 R >> /Font << /F1 7 0 R >> >> >>',
            stream(b'', b'BT /F1 12 Tf 72 780 Td (Approved with a stamp) Tj ET q 72 0 0 72 72 600 cm /Im1 Do Q'),
            stream(b'/Type /XObject /Subtype /Image /Width 1200 /Height 1200 /ColorSpace /DeviceRGB'
                   b' /BitsPerComponent 8 /Filter /DCTDecode', stamp),
            b'<< /Type /Annot /Subtype /Stamp /Rect [72 100 504 532] /AP << /N 8 0 R >> >>',
            b'<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
            stream(b'/Type /XObject /Subtype /Form /BBox [0 0 100 100] /Resources << /XObject << /Im1 5 0 R >> >>',
                   b'q 100 0 0 100 0 0 cm /Im1 Do Q'),
        ]
        handmade(f'{out}/stamp.pdf', objects)

        # nested.pdf: the image inside a form inside a form; a scaling in a q … Q before must not leak.
        # 0.5 (page) × 3 (Fm1's /Matrix) × 200 (inside Fm1) = 300 pt = 4.17 in. Fm2 has no /Resources of its
        # own: it draws with the page's.
        handmade(f'{out}/nested.pdf', [
            b'<< /Type /Catalog /Pages 2 0 R >>',
            b'<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
            b'<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R'
            b' /Resources << /XObject << /Fm1 6 0 R /Im1 5 0 R >> >> >>',
            stream(b'', b'q 10 0 0 10 0 0 cm Q q 0.5 0 0 0.5 72 72 cm /Fm1 Do Q'),
            stream(b'/Type /XObject /Subtype /Image /Width 1200 /Height 1200 /ColorSpace /DeviceRGB'
                   b' /BitsPerComponent 8 /Filter /DCTDecode', stamp),
            stream(b'/Type /XObject /Subtype /Form /BBox [0 0 1000 1000] /Matrix [3 0 0 3 0 0]'
                   b' /Resources << /XObject << /Fm2 7 0 R >> >>', b'q 200 0 0 200 0 0 cm /Fm2 Do Q'),
            stream(b'/Type /XObject /Subtype /Form /BBox [0 0 1 1]', b'q /Im1 Do Q'),
        ])

        # signed.pdf: says it holds signatures (/SigFlags 3), as signed contracts do.
        handmade(f'{out}/signed.pdf', [
            b'<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [] /SigFlags 3 >> >>',
            b'<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
            b'<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R'
            b' /Resources << /XObject << /Im1 5 0 R >> >> >>',
            stream(b'', b'q 72 0 0 72 72 600 cm /Im1 Do Q'),
            stream(b'/Type /XObject /Subtype /Image /Width 1200 /Height 1200 /ColorSpace /DeviceRGB'
                   b' /BitsPerComponent 8 /Filter /DCTDecode', stamp),
        ])

        # damagedjpeg.pdf: two "JPEG" images drawn far above every target, one whose DCT stream is no JPEG at
        # all and one cut short, beside a sound one that shrinks (so that a copy is made).
        handmade(f'{out}/damagedjpeg.pdf', [
            b'<< /Type /Catalog /Pages 2 0 R >>',
            b'<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
            b'<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R'
            b' /Resources << /XObject << /Im1 5 0 R /Im2 6 0 R /Im3 7 0 R >> /Font << /F1 8 0 R >> >> >>',
            stream(b'', b'BT /F1 12 Tf 72 800 Td (Two damaged pictures) Tj ET q 432 0 0 432 72 300 cm /Im1 Do Q'
                   b' q 144 0 0 144 72 100 cm /Im2 Do Q q 144 0 0 144 300 100 cm /Im3 Do Q'),
            stream(b'/Type /XObject /Subtype /Image /Width 2000 /Height 2000 /ColorSpace /DeviceRGB'
                   b' /BitsPerComponent 8 /Filter /DCTDecode', bytes(random.getrandbits(8) for _ in range(30000))),
            stream(b'/Type /XObject /Subtype /Image /Width 1200 /Height 1200 /ColorSpace /DeviceRGB'
                   b' /BitsPerComponent 8 /Filter /DCTDecode', stamp[:len(stamp) * 2 // 5]),
            stream(b'/Type /XObject /Subtype /Image /Width 1200 /Height 1200 /ColorSpace /DeviceRGB'
                   b' /BitsPerComponent 8 /Filter /DCTDecode', stamp),
            b'<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
        ])

        # bilevel.pdf: a 300-dpi CCITT G4 scan filling an A4 page, PIL's TIFF strip taken as the stream.
        import io
        from PIL import TiffImagePlugin
        sheet = Image.open(scan('bilevel.jpg', 2480, 3508)).point(lambda v: 255 if v > 128 else 0).convert('1')
        tiff = io.BytesIO()
        TiffImagePlugin.STRIP_SIZE = 1 << 30  # one strip, so that it is the whole G4 stream
        sheet.save(tiff, 'TIFF', compression='group4')
        parsed = Image.open(io.BytesIO(tiff.getvalue()))
        start, length = parsed.tag_v2[273][0], parsed.tag_v2[279][0]
        assert len(parsed.tag_v2[273]) == 1
        g4 = tiff.getvalue()[start:start + length]
        handmade(f'{out}/bilevel.pdf', [
            b'<< /Type /Catalog /Pages 2 0 R >>',
            b'<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
            b'<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595.28 841.89] /Contents 4 0 R'
            b' /Resources << /XObject << /Im1 5 0 R >> >> >>',
            stream(b'', b'q 595.28 0 0 841.89 0 0 cm /Im1 Do Q'),
            stream(b'/Type /XObject /Subtype /Image /Width 2480 /Height 3508 /ColorSpace /DeviceGray'
                   b' /BitsPerComponent 1 /Filter /CCITTFaxDecode'
                   b' /DecodeParms << /K -1 /Columns 2480 /Rows 3508 /BlackIs1 true >>', g4),
        ])

        rl_config.useA85 = 1
        c = canvas.Canvas(f'{out}/a85.pdf', pagesize=A4, invariant=1)
        text(c, 780, ['ASCII85 around a JPEG.'])
        c.drawImage(big, 72, 400, width=4 * inch, height=4 * inch * 1600 / 2400)
        c.showPage()
        c.save()

        # inline.pdf: the picture as an inline image (BI … ID … EI in the content stream, ASCII85: ReportLab
        # cannot write it raw), 1200×900 drawn 4 in wide.
        c = canvas.Canvas(f'{out}/inline.pdf', pagesize=A4, invariant=1)
        text(c, 780, ['Inline pictures below.'])
        c.drawInlineImage(photo('inline.jpg', 1200, 900), 72, 300, width=4 * inch, height=3 * inch)
        c.showPage()
        c.save()
        """#
}
