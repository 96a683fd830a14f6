import ArchiverTestSupport
import Foundation
import Testing

/// The built executable on generated PDFs, its results read by qpdf and poppler.
@Suite(.serialized) struct CompressPDFTests {
    @Test func imagesShrinkAndEverythingElseStays() throws {
        let scratch = try ScratchDirectory()
        let input = try TestPDFs.copy(TestPDFs.sample, into: scratch, as: "report.pdf")
        let run = try PDF.compress(["--no-notify", "report.pdf"], in: scratch.path)
        #expect(run.status == 0, "\(run.stderr)")
        let output = scratch.sub("report (compressed).pdf")
        #expect(PDF.size(output) > 0)
        #expect(PDF.size(output) * 10 < PDF.size(input), "Medium should shrink these images tenfold")
        #expect(run.stdout.contains("report (compressed).pdf: ") && run.stdout.contains(" % smaller)"), "\(run.stdout)")
        #expect(try PDF.checks(output))
        let text = try PDF.text(input)
        #expect(text.contains("The harvest was early this year."))
        #expect(try PDF.text(output) == text)
        #expect(try PDF.links(output) == PDF.links(input))
        #expect(try PDF.links(input).count == 2)
        #expect(try PDF.outline(output) == PDF.outline(input))
        #expect(try PDF.outline(input).count == 6)
        // The input is never modified, and nothing temporary is left.
        #expect(PDF.names(in: scratch.path) == ["report (compressed).pdf", "report.pdf"])
    }

    @Test func resolutionComesFromWhereImagesAreDrawn() throws {
        let scratch = try ScratchDirectory()
        _ = try TestPDFs.copy(TestPDFs.sample, into: scratch, as: "report.pdf")
        let run = try PDF.compress(["--no-notify", "--quality", "medium", "report.pdf"], in: scratch.path)
        #expect(run.status == 0, "\(run.stderr)")
        let before = try PDF.images(scratch.sub("report.pdf"))
        let after = try PDF.images(scratch.sub("report (compressed).pdf"))
        try #require(before.count == 9 && after.count == 9, "\(after)")
        // A photo drawn 4 in wide at 600 dpi → 150 dpi.
        #expect(after[0].width == 600 && after[0].height == 400 && after[0].encoding == "jpeg")
        #expect(abs(after[0].xppi - 150) <= 2)
        // The PNG and its soft mask shrink together.
        #expect(after[1].type == "image" && after[1].width == 600 && after[1].height == 450)
        #expect(after[2].type == "smask" && after[2].width == 600 && after[2].height == 450)
        // The scan: grayscale stays grayscale.
        #expect(after[3].color == "gray" && after[3].encoding == "jpeg" && after[3].width == 1240)
        // Drawn 1 in wide on an A3 page: its placement decides (150 px), not the page's size.
        #expect(after[4].width == 150 && after[4].height == 150)
        // Already below the target: untouched, same object size and encoding.
        #expect(after[5].width == before[5].width && after[5].size == before[5].size && after[5].encoding == "jpeg")
        // One image on two pages: its largest placement (6 in → 900 px), and still one object.
        #expect(after[6].width == 900 && after[7].width == 900)
        #expect(after[6].object == after[7].object)
        // CMYK is not resampled (neither are JBIG2, CCITT, 1-bit, indexed or 16-bit images).
        #expect(after[8].color == "cmyk" && after[8].width == 600 && after[8].size == before[8].size)
    }

    @Test func qualityLadderOrdersSizes() throws {
        let scratch = try ScratchDirectory()
        _ = try TestPDFs.copy(TestPDFs.sample, into: scratch, as: "in.pdf")
        var sizes: [Int64] = []
        for quality in ["best", "low", "minimum"] {
            let run = try PDF.compress(
                ["--no-notify", "-q", quality, "-o", "\(quality).pdf", "in.pdf"], in: scratch.path)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(try PDF.checks(scratch.sub("\(quality).pdf")))
            sizes.append(PDF.size(scratch.sub("\(quality).pdf")))
        }
        #expect(sizes[0] > sizes[1] && sizes[1] > sizes[2], "\(sizes)")
        // Best is 300 dpi: the photo drawn at 600 dpi halves, the scan at 300 dpi is left alone.
        let best = try PDF.images(scratch.sub("best.pdf"))
        #expect(best[0].width == 1200)
        #expect(best[3].width == 2480)
    }

    @Test func settingGivesTheDefaultQualityAndTheFlagBeatsIt() throws {
        let scratch = try ScratchDirectory()
        _ = try TestPDFs.copy(TestPDFs.a85, into: scratch, as: "photo.pdf")
        let settings = ["GSETTINGS_BACKEND": "keyfile", "XDG_CONFIG_HOME": scratch.sub("config")]
        let set = try PDF.withIsolation(
            ["/usr/bin/gsettings", "set", "io.github.archiver", "pdf-quality", "'low'"], extraEnvironment: settings)
        try #require(set.status == 0, "gsettings set: \(set.output)")
        // The photo is 2400 px drawn 4 in wide: low (100 dpi) makes it 400 px, high (200 dpi) 800.
        let stored = try PDF.compress(
            ["--no-notify", "-o", "setting.pdf", "photo.pdf"], in: scratch.path, extraEnvironment: settings)
        #expect(stored.status == 0 && !stored.stderr.contains("warning"), "\(stored.stderr)")
        #expect(try PDF.images(scratch.sub("setting.pdf")).first?.width == 400)
        let flagged = try PDF.compress(
            ["--no-notify", "-q", "high", "-o", "flag.pdf", "photo.pdf"], in: scratch.path, extraEnvironment: settings)
        #expect(flagged.status == 0, "\(flagged.stderr)")
        #expect(try PDF.images(scratch.sub("flag.pdf")).first?.width == 800)
    }

    @Test func ascii85WrappedJPEGIsDecoded() throws {
        let scratch = try ScratchDirectory()
        _ = try TestPDFs.copy(TestPDFs.a85, into: scratch, as: "a85.pdf")
        let run = try PDF.compress(["--no-notify", "a85.pdf"], in: scratch.path)
        #expect(run.status == 0, "\(run.stderr)")
        let after = try PDF.images(scratch.sub("a85 (compressed).pdf"))
        #expect(after.first?.width == 600)
        #expect(try PDF.checks(scratch.sub("a85 (compressed).pdf")))
    }

    /// Compresses a copy of a hand-written fixture at Medium; its images and the copy's path.
    private func compressHandMade(_ fixture: String, as name: String, in scratch: ScratchDirectory) throws -> (
        images: [PDF.ImageRow], copy: String
    ) {
        _ = try TestPDFs.copy(fixture, into: scratch, as: name + ".pdf")
        #expect(try PDF.checks(scratch.sub(name + ".pdf")), "the hand-made fixture is sound")
        let run = try PDF.compress(["--no-notify", name + ".pdf"], in: scratch.path)
        #expect(run.status == 0, "\(run.stderr)")
        let copy = scratch.sub(name + " (compressed).pdf")
        return (try PDF.images(copy), copy)
    }

    @Test func annotationAppearancesCountAsPlacements() throws {
        let scratch = try ScratchDirectory()
        let (after, copy) = try compressHandMade(TestPDFs.stamp, as: "stamp", in: scratch)
        // Drawn 1 in wide on the page but 6 in wide by the stamp: 900 px at 150 dpi, not 150.
        #expect(after.first?.width == 900, "\(after)")
        #expect(try PDF.text(copy).contains("Approved with a stamp"))
    }

    @Test func nestedFormsMultiplyTheirMatrices() throws {
        let scratch = try ScratchDirectory()
        // 300 pt = 4.17 in at 150 dpi.
        let (after, _) = try compressHandMade(TestPDFs.nested, as: "nested", in: scratch)
        #expect(after.first?.width == 625 && after.first?.xppi == 150, "\(after)")
    }

    @Test func signedDocumentGetsAWarning() throws {
        let scratch = try ScratchDirectory()
        _ = try TestPDFs.copy(TestPDFs.signed, into: scratch, as: "contract.pdf")
        let run = try PDF.compress(["--no-notify", "contract.pdf"], in: scratch.path)
        #expect(run.status == 1, "done, with a warning: \(run.stderr)")
        #expect(run.stderr.contains("“contract.pdf” is digitally signed"), "\(run.stderr)")
        #expect(PDF.names(in: scratch.path) == ["contract (compressed).pdf", "contract.pdf"])
        let json = try PDF.compress(["--no-notify", "--json", "contract.pdf"], in: scratch.path)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["warningCodes"] as? [String] == ["pdf-signed"], "\(json.stdout)")
        let warnings = object["warnings"] as? [String] ?? []
        #expect(warnings.count == 1 && warnings[0].contains("is digitally signed"), "\(warnings)")
    }

    @Test func bilevelScanIsLeftAlone() throws {
        let scratch = try ScratchDirectory()
        _ = try TestPDFs.copy(TestPDFs.bilevel, into: scratch, as: "fax.pdf")
        let before = try PDF.images(scratch.sub("fax.pdf"))
        #expect(before.first?.encoding == "ccitt" && before.first?.xppi == 300, "the fixture: \(before)")
        let run = try PDF.compress(["--no-notify", "--json", "fax.pdf"], in: scratch.path)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains(#""imagesResampled":0"#), "\(run.stdout)")
        // Whatever the structural pass saved, the image is the same stream.
        let copy = PDF.names(in: scratch.path).contains("fax (compressed).pdf") ? "fax (compressed).pdf" : "fax.pdf"
        #expect(try PDF.images(scratch.sub(copy)) == before)
    }

    @Test func encryptedPDFKeepsItsEncryption() throws {
        let scratch = try ScratchDirectory()
        try TestPDFs.encrypt(TestPDFs.sample, password: "s3cret", into: scratch, as: "locked.pdf")
        // No password and no way to ask: exit 6, nothing made.
        let refused = try PDF.compress(["--no-notify", "locked.pdf"], in: scratch.path)
        #expect(refused.status == 6, "\(refused.stderr)")
        #expect(PDF.names(in: scratch.path) == ["locked.pdf"])
        let wrong = try PDF.compress(
            ["--no-notify", "--password-stdin", "locked.pdf"], in: scratch.path, input: "nope\n")
        #expect(wrong.status == 6 && wrong.stderr.contains("Wrong password"), "\(wrong.stderr)")

        let run = try PDF.compress(
            ["--no-notify", "--password-stdin", "locked.pdf"], in: scratch.path, input: "s3cret\n")
        #expect(run.status == 0, "\(run.stderr)")
        let output = scratch.sub("locked (compressed).pdf")
        let shown = try Tool.run(["/usr/bin/qpdf", "--show-encryption", "--password=s3cret", output]).output
        #expect(shown.contains("R = 6"), "\(shown)")
        #expect(try Tool.run(["/usr/bin/qpdf", "--check", output]).status != 0, "opens without its password")
        #expect(try PDF.checks(output, password: "s3cret"))
        #expect(try PDF.text(output, password: "s3cret") == PDF.text(TestPDFs.sample))
        #expect(PDF.size(output) * 10 < PDF.size(scratch.sub("locked.pdf")))
    }

    @Test func ownerPasswordOnlyOpensWithoutAskingAndStaysEncrypted() throws {
        let scratch = try ScratchDirectory()
        try TestPDFs.encrypt(TestPDFs.a85, password: "", restrictions: ["--print=none"], into: scratch, as: "restricted.pdf")
        let run = try PDF.compress(["--no-notify", "restricted.pdf"], in: scratch.path)
        #expect(run.status == 0, "\(run.stderr)")
        let shown = try Tool.run(["/usr/bin/qpdf", "--show-encryption", scratch.sub("restricted (compressed).pdf")])
            .output
        #expect(shown.contains("R = 6") && shown.contains("print low resolution: not allowed"), "\(shown)")
    }

    /// A whole-document RC4 encryption (V 4, /CFM /V2) stays RC4 (qpdf's writer alone makes it AES). Opened
    /// with the owner password, the copy is encrypted as the original was; with the user password, as
    /// revision 3 with the same key, so that both passwords still open it. Restrictions are kept either way.
    @Test func rc4EncryptionStaysRC4() throws {
        let scratch = try ScratchDirectory()
        let made = try Tool.run(
            ["/usr/bin/qpdf", "--allow-weak-crypto", "--encrypt", "reader", "owner", "128", "--force-V4", "--use-aes=n",
             "--print=low", "--", TestPDFs.a85, scratch.sub("rc4.pdf")])
        try #require(made.status == 0, "\(made.output)")
        func shown(_ name: String, _ password: String) throws -> String {
            try Tool.run(["/usr/bin/qpdf", "--show-encryption", "--password=" + password, scratch.sub(name)]).output
        }
        try #require(try shown("rc4.pdf", "owner").contains("stream encryption method: RC4"))
        for (password, revision) in [("owner", "R = 4"), ("reader", "R = 3")] {
            let run = try PDF.compress(
                ["--no-notify", "--password-stdin", "--output", password + ".pdf", "rc4.pdf"], in: scratch.path,
                input: password + "\n")
            #expect(run.status == 0, "\(run.stderr)")
            let asOwner = try shown(password + ".pdf", "owner"), asReader = try shown(password + ".pdf", "reader")
            #expect(asOwner.contains(revision) && !asOwner.contains("AES"), "\(asOwner)")
            #expect(asOwner.contains("Supplied password is owner password"), "\(asOwner)")
            #expect(asReader.contains("Supplied password is user password"), "\(asReader)")
            #expect(asReader.contains("print high resolution: not allowed") && asReader.contains("print low resolution: allowed"))
            #expect(revision == "R = 3" || asOwner.contains("string encryption method: RC4"), "\(asOwner)")
            #expect(try PDF.checks(scratch.sub(password + ".pdf"), password: "reader"))
        }
    }

    /// Acrobat's "encrypt only file attachments" (PDF 1.6's /EFF): the pages open without a password, the
    /// attachment needs it. qpdf would write the copy with everything encrypted (AES, where the original used
    /// RC4 for the attachment alone), so the copy is refused, and said so.
    @Test(arguments: ["", "s3cret"]) func attachmentsOnlyEncryptionIsNotWidened(password: String) throws {
        let scratch = try ScratchDirectory()
        let pdf = scratch.sub("with-attachment.pdf")
        // Written by hand (no Debian tool writes this scope): RC4-128 (V 4, R 4), /StmF and /StrF /Identity.
        let made = try Tool.run(["/usr/bin/python3", "-c", PythonHelpers.prelude + Self.attachmentsOnlyPDF, pdf, password])
        try #require(made.status == 0, "\(made.output)")
        let shown = try Tool.run(["/usr/bin/qpdf", "--show-encryption", "--password=" + password, pdf]).output
        try #require(shown.contains("stream encryption method: none") && shown.contains("file encryption method: RC4"), "\(shown)")
        let attached = try Tool.run(["/usr/bin/qpdf", "--password=" + password, "--show-attachment=notes.txt", pdf])
        try #require(attached.output == "The secret notes.\n", "\(attached.output)")
        let before = try Data(contentsOf: URL(fileURLWithPath: pdf))

        let run = try PDF.compress(["--no-notify", "--password-stdin", "with-attachment.pdf"], in: scratch.path, input: password + "\n")
        #expect(run.status == 4, "\(run.stderr)")
        #expect(run.stderr.contains("“with-attachment.pdf” encrypts only its attachments"), "\(run.stderr)")
        #expect(PDF.names(in: scratch.path) == ["with-attachment.pdf"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: pdf)) == before)
    }

    /// python3 PATH USER-PASSWORD: a one-page PDF whose attached notes.txt alone is encrypted.
    static let attachmentsOnlyPDF = #"""
        import hashlib, struct, sys
        from handmade_pdf import handmade
        PAD = bytes.fromhex('28BF4E5E4E758A4164004E56FFFA01082E2E00B6D0683E802F0CA9FE6453697A')
        def rc4(key, data):
            s, j = list(range(256)), 0
            for i in range(256):
                j = (j + s[i] + key[i % len(key)]) % 256
                s[i], s[j] = s[j], s[i]
            out, i, j = bytearray(), 0, 0
            for b in data:
                i = (i + 1) % 256
                j = (j + s[i]) % 256
                s[i], s[j] = s[j], s[i]
                out.append(b ^ s[(s[i] + s[j]) % 256])
            return bytes(out)
        # The standard security handler, revision 4 (ISO 32000-1, 7.6.3.3, algorithms 2, 3 and 5).
        ID, P, user, owner = b'0123456789abcdef', -4, sys.argv[2].encode(), b'owner'
        h = hashlib.md5((owner + PAD)[:32]).digest()
        for _ in range(50): h = hashlib.md5(h).digest()
        O = rc4(h, (user + PAD)[:32])
        for i in range(1, 20): O = rc4(bytes(b ^ i for b in h), O)
        key = hashlib.md5((user + PAD)[:32] + O + struct.pack('<i', P) + ID).digest()
        for _ in range(50): key = hashlib.md5(key).digest()
        U = rc4(key, hashlib.md5(PAD + ID).digest())
        for i in range(1, 20): U = rc4(bytes(b ^ i for b in key), U)
        U += bytes(16)
        secret = rc4(hashlib.md5(key + (7).to_bytes(3, 'little') + b'\0\0').digest(), b'The secret notes.\n')
        # Enough uncompressed text that a rewritten copy would be smaller.
        content = (b'BT /F1 12 Tf 72 700 Td ' + b' '.join(b'(Only the attachment is encrypted, line %d.) Tj 0 -14 Td' % i
                   for i in range(40)) + b' ET' + b' ' * 20000)
        objects = [
            b'<< /Type /Catalog /Pages 2 0 R /Names << /EmbeddedFiles << /Names [(notes.txt) 5 0 R] >> >> >>',
            b'<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
            b'<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 6 0 R >> >> >>',
            b'<< /Length %d >>\nstream\n' % len(content) + content + b'\nendstream',
            b'<< /Type /Filespec /F (notes.txt) /UF (notes.txt) /EF << /F 7 0 R >> >>',
            b'<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
            b'<< /Type /EmbeddedFile /Filter [/Crypt] /DecodeParms [<< /Type /CryptFilterDecodeParms /Name /StdCF >>]'
            b' /Length %d >>\nstream\n' % len(secret) + secret + b'\nendstream',
            b'<< /Filter /Standard /V 4 /R 4 /Length 128 /P %d /O <%s> /U <%s> /StmF /Identity /StrF /Identity /EFF /StdCF'
            b' /CF << /StdCF << /Type /CryptFilter /CFM /V2 /AuthEvent /EFOpen /Length 16 >> >> >>' % (P, O.hex().encode(), U.hex().encode()),
        ]
        handmade(sys.argv[1], objects, version=b'1.6', trailer=b'/Encrypt 8 0 R /ID [<%s> <%s>]' % (ID.hex().encode(), ID.hex().encode()))
        """#

    @Test func notAPDFIsRefused() throws {
        let scratch = try ScratchDirectory()
        try "just words\n".write(toFile: scratch.sub("notes.pdf"), atomically: true, encoding: .utf8)
        let run = try PDF.compress(["--no-notify", "notes.pdf"], in: scratch.path)
        #expect(run.status == 4)
        #expect(run.stderr.contains("“notes.pdf” is not a PDF."), "\(run.stderr)")
        #expect(PDF.names(in: scratch.path) == ["notes.pdf"])
        let missing = try PDF.compress(["--no-notify", "absent.pdf"], in: scratch.path)
        #expect(missing.status == 3, "\(missing.stderr)")
    }

    @Test func damagedPDFGetsAClearErrorAndLeavesNothing() throws {
        let scratch = try ScratchDirectory()
        let whole = try Data(contentsOf: URL(fileURLWithPath: TestPDFs.sample))
        try whole.prefix(200_000).write(to: URL(fileURLWithPath: scratch.sub("cut.pdf")))
        let run = try PDF.compress(["--no-notify", "cut.pdf"], in: scratch.path)
        #expect(run.status == 5, "\(run.stderr)")
        #expect(run.stderr.contains("“cut.pdf” is damaged"), "\(run.stderr)")
        #expect(PDF.names(in: scratch.path) == ["cut.pdf"])
    }

    /// Found by fuzz-pdf-images: qpdf's repair finds no /Root, and the exception it threw while the pages were
    /// listed ended the process (SIGABRT), leaving its hidden temporary.
    @Test func aPDFWithoutARootIsDamagedAndLeavesNothing() throws {
        let scratch = try ScratchDirectory()
        let pdf = "%PDF-1.4\n1 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\nxref\n0 2\n0000000000 65535 f \n"
            + "0000000009 00000 n \ntrailer\n<< /Size 2 /Root 7 0 R >>\nstartxref\n58\n%%EOF\n"
        try pdf.write(toFile: scratch.sub("rootless.pdf"), atomically: true, encoding: .ascii)
        let run = try PDF.compress(["--no-notify", "rootless.pdf"], in: scratch.path)
        #expect(run.status == 5, "\(run.stderr)")
        #expect(run.stderr.contains("“rootless.pdf” is damaged"), "\(run.stderr)")
        #expect(PDF.names(in: scratch.path) == ["rootless.pdf"])
    }

    @Test func repairablePDFIsRepairedWithAWarning() throws {
        let scratch = try ScratchDirectory()
        // A wrong startxref offset: qpdf rebuilds the cross-reference table by scanning.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: TestPDFs.a85))
        let tail = String(decoding: bytes.suffix(64), as: UTF8.self)
        let broken = tail.replacingOccurrences(
            of: #"startxref\s+\d+"#, with: "startxref\n12", options: .regularExpression)
        bytes = bytes.dropLast(64) + Data(broken.utf8)
        try bytes.write(to: URL(fileURLWithPath: scratch.sub("broken.pdf")))
        let run = try PDF.compress(["--no-notify", "broken.pdf"], in: scratch.path)
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("has errors that qpdf repaired"), "\(run.stderr)")
        #expect(try PDF.checks(scratch.sub("broken (compressed).pdf")))
        let json = try PDF.compress(["--no-notify", "--json", "broken.pdf"], in: scratch.path)
        #expect(json.status == 1, "\(json.stderr)")
        #expect(json.stdout.contains(#""warningCodes":["pdf-repaired"]"#), "\(json.stdout)")
    }

    @Test(arguments: ["low", "medium"])
    func damagedJPEGImagesStayAsTheyAre(_ quality: String) throws {
        let scratch = try ScratchDirectory()
        let original = try TestPDFs.copy(TestPDFs.damagedJPEG, into: scratch, as: "pictures.pdf")
        let run = try PDF.compress(["--no-notify", "--json", "--quality", quality, "pictures.pdf"], in: scratch.path)
        // It ends, with its result (a warning: the original's pictures fail qpdf's check, and so do the copy's).
        #expect(run.status == 1, "\(run.status): \(run.stderr)")
        #expect(run.stdout.contains(#""imagesResampled":1"#), "\(run.stdout)")
        let copy = scratch.sub("pictures (compressed).pdf")
        #expect(PDF.names(in: scratch.path) == ["pictures (compressed).pdf", "pictures.pdf"])
        let widths = try PDF.images(copy).map(\.width)
        #expect(widths == [2000, 1200, quality == "low" ? 200 : 300], "\(widths)")
        // Both damaged streams are in the copy byte for byte.
        let kept = try Tool.run([
            "/usr/bin/python3", "-c",
            """
            import re, sys
            a, b = open(sys.argv[1], 'rb').read(), open(sys.argv[2], 'rb').read()
            streams = re.findall(rb'/DCTDecode /Length \\d+ >>\\nstream\\n(.*?)\\nendstream', a, re.S)
            print(len(streams), sum(s in b for s in streams[:2]))
            """, original, copy,
        ])
        #expect(kept.output.trimmingCharacters(in: .whitespacesAndNewlines) == "3 2", "\(kept.output)")
        #expect(try PDF.text(copy).contains("Two damaged pictures"))
    }

    @Test func inlineImagesAreResampledToo() throws {
        let scratch = try ScratchDirectory()
        // pdfimages lists an inline image without an object number, which PDF.images leaves out.
        #expect(try PDF.images(TestPDFs.inline).isEmpty, "inline in the original")
        _ = try TestPDFs.copy(TestPDFs.inline, into: scratch, as: "inline.pdf")
        let run = try PDF.compress(["--no-notify", "inline.pdf"], in: scratch.path)
        #expect(run.status == 0, "\(run.stderr)")
        let copy = scratch.sub("inline (compressed).pdf")
        // Made an image object, resampled to 150 dpi where it is drawn: 4 in × 150 = 600 px.
        let images = try PDF.images(copy)
        #expect(images.count == 1 && images.first?.width == 600 && images.first?.object != 0, "\(images)")
        #expect(PDF.size(copy) * 10 < PDF.size(scratch.sub("inline.pdf")))
        #expect(try PDF.text(copy) == PDF.text(scratch.sub("inline.pdf")))
        #expect(try PDF.checks(copy))
    }

    @Test func notSmallerMeansAlreadyOptimal() throws {
        let scratch = try ScratchDirectory()
        _ = try TestPDFs.copy(TestPDFs.sample, into: scratch, as: "a.pdf")
        #expect(try PDF.compress(["--no-notify", "-o", "small.pdf", "a.pdf"], in: scratch.path).status == 0)
        try FileManager.default.removeItem(atPath: scratch.sub("a.pdf"))
        let again = try PDF.compress(["--no-notify", "--json", "small.pdf"], in: scratch.path)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains(#""alreadyOptimal":true"#), "\(again.stdout)")
        #expect(PDF.names(in: scratch.path) == ["small.pdf"])
        let words = try PDF.compress(["--no-notify", "small.pdf"], in: scratch.path)
        #expect(words.stdout.contains("already optimal"), "\(words.stdout)")
    }

    @Test(.enabled(if: TinyDisk.available, "needs root to mount a small tmpfs"))
    func fullDiskLeavesNothing() throws {
        let scratch = try ScratchDirectory()
        _ = try TestPDFs.copy(TestPDFs.sample, into: scratch, as: "in.pdf")
        let disk = try #require(TinyDisk(in: scratch))
        // 1.95 of the disk's 2 MB taken: the copy (about 190 kB) cannot fit.
        try Data(count: 1_950_000).write(to: URL(fileURLWithPath: disk.path + "/filler"))
        let run = try PDF.compress(["--no-notify", "-o", disk.path + "/out.pdf", "in.pdf"], in: scratch.path)
        #expect(run.status == 7, "\(run.stderr)")
        #expect(run.stderr.contains("is full"), "\(run.stderr)")
        #expect(PDF.names(in: disk.path) == ["filler"])
    }

    @Test(.enabled(if: TinyDisk.available, "needs root to mount a small tmpfs"))
    func readOnlyDestinationIsSaidSo() throws {
        let scratch = try ScratchDirectory()
        _ = try TestPDFs.copy(TestPDFs.sample, into: scratch, as: "in.pdf")
        let disk = try #require(TinyDisk(in: scratch))
        #expect(disk.makeReadOnly())
        let run = try PDF.compress(["--no-notify", "-o", disk.path + "/out.pdf", "in.pdf"], in: scratch.path)
        #expect(run.status == 7, "\(run.stderr)")
        #expect(run.stderr.contains("read-only"), "\(run.stderr)")
        #expect(PDF.names(in: disk.path).isEmpty)
    }

    @Test func namesNeverOverwrite() throws {
        let scratch = try ScratchDirectory()
        _ = try TestPDFs.copy(TestPDFs.a85, into: scratch, as: "doc.pdf")
        #expect(try PDF.compress(["--no-notify", "doc.pdf"], in: scratch.path).status == 0)
        #expect(try PDF.compress(["--no-notify", "doc.pdf"], in: scratch.path).status == 0)
        #expect(PDF.names(in: scratch.path) == ["doc (compressed) (2).pdf", "doc (compressed).pdf", "doc.pdf"])
        let taken = try PDF.compress(["--no-notify", "-o", "doc (compressed).pdf", "doc.pdf"], in: scratch.path)
        #expect(taken.status == 7, "\(taken.stderr)")
        let usage = try PDF.compress(
            ["--no-notify", "-o", "x.pdf", "doc.pdf", "doc (compressed).pdf"], in: scratch.path)
        #expect(usage.status == 2)
        #expect(PDF.names(in: scratch.path).count == 3)
    }

    @Test func severalPDFsAtOnceWithJSON() throws {
        let scratch = try ScratchDirectory()
        _ = try TestPDFs.copy(TestPDFs.sample, into: scratch, as: "one.pdf")
        _ = try TestPDFs.copy(TestPDFs.a85, into: scratch, as: "two.pdf")
        try "no".write(toFile: scratch.sub("three.pdf"), atomically: true, encoding: .utf8)
        let run = try PDF.compress(["--json", "one.pdf", "two.pdf", "three.pdf"], in: scratch.path)
        // One of three failed: done with warnings.
        #expect(run.status == 1, "\(run.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let results = try #require(object["results"] as? [[String: Any]])
        #expect(results.count == 3)
        #expect((results[0]["output"] as? String)?.hasSuffix("/one (compressed).pdf") == true)
        #expect((results[1]["output"] as? String)?.hasSuffix("/two (compressed).pdf") == true)
        #expect(((results[2]["error"] as? [String: Any])?["code"] as? Int) == 4)
        #expect(((results[2]["error"] as? [String: Any])?["kind"] as? String) == "notAnArchive")
        #expect(((object["error"] as? [String: Any])?["kind"] as? String) == "notAnArchive")
        #expect((object["warningCodes"] as? [String])?.isEmpty == true, "\(run.stdout)")
        #expect(
            PDF.names(in: scratch.path) == [
                "one (compressed).pdf", "one.pdf", "three.pdf", "two (compressed).pdf", "two.pdf",
            ])
    }

    @Test func flattenRefusesWhatItCannotKeepEncrypted() throws {
        let scratch = try ScratchDirectory()
        try TestPDFs.encrypt(TestPDFs.a85, password: "", into: scratch, as: "restricted.pdf")
        let run = try PDF.compress(["--no-notify", "--flatten", "restricted.pdf"], in: scratch.path)
        #expect(run.status == 4, "\(run.stderr)")
        #expect(run.stderr.contains("cannot keep the encryption"), "\(run.stderr)")
        #expect(PDF.names(in: scratch.path) == ["restricted.pdf"])
    }

    @Test func flattenRendersPagesAndSaysSo() throws {
        let scratch = try ScratchDirectory()
        _ = try TestPDFs.copy(TestPDFs.sample, into: scratch, as: "scan.pdf")
        let run = try PDF.compress(["--no-notify", "--flatten", "-q", "low", "scan.pdf"], in: scratch.path)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("can no longer be selected or searched"))
        let output = scratch.sub("scan (compressed).pdf")
        let json = try PDF.compress(["--no-notify", "--json", "--flatten", "-q", "low", "scan.pdf"], in: scratch.path)
        #expect(json.stdout.contains(#""warningCodes":["pdf-flattened"]"#), "\(json.stdout)")
        #expect(try PDF.checks(output))
        let images = try PDF.images(output)
        #expect(
            images.count == 7 && images.allSatisfy { $0.encoding == "jpeg" && abs($0.xppi - 100) <= 1 }, "\(images)")
        #expect(try PDF.text(output).trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
    }
}

/// Passwords through the prompt chain, and a job stopped from outside.
@Suite(.serialized) struct CompressPDFJobTests {
    @Test func passwordComesFromTheAskpassHelper() throws {
        let scratch = try ScratchDirectory()
        try TestPDFs.encrypt(TestPDFs.a85, password: "open sesame", into: scratch, as: "locked.pdf")
        // The helper answers wrong first, then right: the second prompt says so in its argument.
        let helper = scratch.sub("askpass")
        try Tool.installScript(
            """
            #!/bin/sh
            echo "$1" >> "\(scratch.sub("prompts"))"
            n=$(wc -l < "\(scratch.sub("prompts"))")
            if [ "$n" -eq 1 ]; then echo wrong; else echo 'open sesame'; fi
            """, at: helper)
        let run = try PDF.compress(
            ["--no-notify", "locked.pdf"], in: scratch.path, extraEnvironment: ["ARCHIVER_ASKPASS": helper])
        #expect(run.status == 0, "\(run.stderr)")
        let prompts = try String(contentsOfFile: scratch.sub("prompts"), encoding: .utf8)
        #expect(prompts.split(separator: "\n").count == 2 && prompts.contains("locked.pdf"), "\(prompts)")
        #expect(try PDF.checks(scratch.sub("locked (compressed).pdf"), password: "open sesame"))
    }

    @Test func budgetFarTooSmallIsRefusedAtOnce() throws {
        let scratch = try ScratchDirectory()
        _ = try TestPDFs.copy(TestPDFs.sample, into: scratch, as: "big.pdf")
        let run = try PDF.compress(["--no-notify", "--time-budget", "0.1", "big.pdf"], in: scratch.path)
        #expect(run.status == 9, "\(run.stderr)")
        #expect(run.stderr.contains("Not started"), "\(run.stderr)")
        #expect(PDF.names(in: scratch.path) == ["big.pdf"])
    }

    @Test func terminationLeavesNothingBehind() throws {
        let scratch = try ScratchDirectory()
        let names = ["a.pdf", "b.pdf", "c.pdf", "d.pdf"]
        for name in names { _ = try TestPDFs.copy(TestPDFs.sample, into: scratch, as: name) }
        let running = try PDF.start(["--no-notify", "-q", "best"] + names, in: scratch.path)
        let process = running.process
        // Until the first temporary output appears: the job is then writing.
        let deadline = Date().addingTimeInterval(20)
        while !PDF.names(in: scratch.path).contains(where: { $0.hasPrefix(".archiver-") }), Date() < deadline {
            usleep(10_000)
        }
        process.terminate()
        process.waitUntilExit()
        #expect(process.terminationStatus == 8)
        #expect(PDF.names(in: scratch.path) == names)
    }
}
