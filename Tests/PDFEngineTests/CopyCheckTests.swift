import ArchiverCore
import ArchiverTestSupport
import Foundation
@testable import PDFEngine
import SystemPackage
import Testing

/// The gate a copy passes before it takes its name: it must open no worse than its original (qpdf's check,
/// its text operators, what pdftotext reads). Hand-made one-page PDFs, each a "copy" gone wrong one way.
@Suite struct CopyCheckTests {
    private static let generator = #"""
        import sys, zlib
        from handmade_pdf import handmade, stream
        out = sys.argv[1]
        def page(path, text, extra=b'', more=()):
            handmade(path, [
                b'<< /Type /Catalog /Pages 2 0 R >>',
                b'<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
                b'<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R'
                b' /Resources << /Font << /F1 5 0 R >> >>' + extra + b' >>',
                stream(b'/Filter /FlateDecode', zlib.compress(text)),
                b'<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
            ] + list(more))
        words = b'BT /F1 12 Tf 72 780 Td (The harvest was early) Tj 0 -20 Td (Numbers 1234 5678) Tj ET'
        page(f'{out}/original.pdf', words)
        page(f'{out}/less.pdf', words.replace(b' 0 -20 Td (Numbers 1234 5678) Tj', b''))
        page(f'{out}/other.pdf', words.replace(b'1234', b'4321'))
        # A stream whose Flate data does not inflate, where nothing draws it.
        page(f'{out}/undecodable.pdf', words, b' /PieceInfo 6 0 R',
                 [stream(b'/Filter /FlateDecode', b'x\x9c' + bytes(range(200)))])
        """#

    private func made() throws -> ScratchDirectory {
        let scratch = try ScratchDirectory()
        try (PythonHelpers.prelude + Self.generator).write(toFile: scratch.sub("make.py"), atomically: true, encoding: .utf8)
        let run = try Tool.run(["/usr/bin/python3", scratch.sub("make.py"), scratch.path])
        try #require(run.status == 0, "\(run.output)")
        return scratch
    }

    /// `PDFCompressor.worse` of `copy` against `original`, the original showing two text operators.
    private func verdict(_ copy: String, _ original: String, in scratch: ScratchDirectory) throws -> (
        reason: String?, repaired: Bool
    ) {
        var result = PDFCompressResult(
            input: FilePath(scratch.sub(original)), output: nil, inputBytes: 0, outputBytes: 0, pages: 1,
            imagesPlaced: 0, imagesOversized: 0, imagesReplaced: 0, encrypted: false, repaired: false,
            flattened: false)
        result.textOperators = 2
        let reason = try PDFCompressor.worse(
            copy: FilePath(scratch.sub(copy)), input: FilePath(scratch.sub(original)), password: nil,
            control: JobControl(), result: &result)
        return (reason?.english, result.repaired)
    }

    @Test func aSoundCopyPasses() throws {
        let scratch = try made()
        let same = try verdict("original.pdf", "original.pdf", in: scratch)
        #expect(same.reason == nil && !same.repaired)
    }

    @Test func aCopyWithLessOrOtherTextIsRefused() throws {
        let scratch = try made()
        #expect(try verdict("less.pdf", "original.pdf", in: scratch).reason == "the copy shows less text")
        #expect(try verdict("other.pdf", "original.pdf", in: scratch).reason == "pdftotext reads other text in the copy")
    }

    @Test func aCopyWithMoreFaultsIsRefusedAndOneWithTheOriginalsIsWarnedOf() throws {
        let scratch = try made()
        let worse = try verdict("undecodable.pdf", "original.pdf", in: scratch)
        #expect(worse.reason?.contains("error decoding stream data") == true, "\(String(describing: worse.reason))")
        // The original's own fault, kept: a copy, with a warning (exit 1), never a silent success.
        let kept = try verdict("undecodable.pdf", "undecodable.pdf", in: scratch)
        #expect(kept.reason == nil && kept.repaired)
        // A copy sounder than its original is fine, and says nothing.
        let mended = try verdict("original.pdf", "undecodable.pdf", in: scratch)
        #expect(mended.reason == nil && !mended.repaired)
    }
}
