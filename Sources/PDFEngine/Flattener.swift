import ArchiverCore
internal import CPDFShim
import Glibc
import Platform
import SystemPackage

/// `--flatten`: every page rendered to a JPEG at the quality's resolution by poppler's `pdftoppm`, and a
/// new PDF made of those pictures. For scans only: text, links, outline and forms do not survive.
enum Flattener {
    static func run(
        input: FilePath, into temporary: FilePath, descriptor: Int32, quality: PDFQuality, control: JobControl,
        progress: (Int64, Int64?) -> Void, result: inout PDFCompressResult
    ) throws(ArchiverError) {
        guard let pdftoppm = Programs.find("pdftoppm") else {
            throw ArchiverError(
                .notAnArchive, tr("--flatten needs pdftoppm, which is not installed."),
                hint: tr("Install it (Debian: sudo apt install poppler-utils)."))
        }
        // Rendered pages cannot carry the input's encryption: say so rather than make an open copy.
        var inspected = pdfshim_result()
        // Its text is counted too: rendered pages keep none of it.
        let opened = input.withPlatformString { pdfshim_count_text($0, nil, &inspected) }
        let name = input.lastComponent?.string ?? input.string
        if opened == PDFSHIM_NEEDS_PASSWORD || inspected.encrypted != 0 {
            throw ArchiverError(
                .notAnArchive, tr("--flatten cannot keep the encryption of “%@”; nothing was made.", name),
                hint: tr("Compress it without --flatten, which keeps its encryption."), path: input.string)
        }
        try PDFCompressor.check(opened, inspected, input: input, temporary: temporary, callback: nil)
        let folder = temporary.removingLastComponent()
        let pages = try FileSystem.makeStaging(in: folder)
        defer { PendingOutputs.discard(pages) }

        progress(0, 2)
        let arguments =
            ["-r", "\(quality.dpi)", "-jpeg", "-jpegopt", "quality=\(quality.jpegQuality)"].map { Array($0.utf8) }
            + [input.bytes, pages.appending("p").bytes]
        let outcome = try ChildProcess.run(pdftoppm, arguments, environment: [], input: .nothing, control: control) {
            _ in
        }
        guard outcome.status == 0 else {
            let said = String(decoding: outcome.errorOutput, as: UTF8.self).split(separator: "\n").first
            let reason = said.map { Text.verbatim(String($0)) } ?? tr("exit status %ld", outcome.status)
            throw ArchiverError(
                // TRANSLATORS: a PDF's name, then pdftoppm's own message (or "exit status 1").
                .corrupt, tr("pdftoppm could not render “%1$@”: %2$@.", name, reason), path: input.string)
        }
        progress(1, 2)
        try control.check()
        // pdftoppm pads page numbers to the same width, so the names sort in page order.
        let jpegs = try FileSystem.entries(of: pages).map { pages.appending(bytes: $0).string }.sorted()
        guard !jpegs.isEmpty else {
            throw ArchiverError(.corrupt, tr("pdftoppm found no pages to render in “%@”.", name), path: input.string)
        }
        var rebuilt = pdfshim_result()
        let status = withCStrings(jpegs) { list in
            pdfshim_pages_from_jpegs(list, Int32(jpegs.count), Int32(quality.dpi), descriptor, &rebuilt)
        }
        try PDFCompressor.check(status, rebuilt, input: input, temporary: temporary, callback: nil)
        result.pages = jpegs.count
        result.textOperators = Int(inspected.text_operators)
        progress(2, 2)
    }
}

/// `body` with the strings as a NULL-terminated array of C strings.
private func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let copies = strings.map { strdup($0) }
    defer { for copy in copies { free(copy) } }
    let pointers = copies.map { UnsafePointer($0) } + [nil]
    return pointers.withUnsafeBufferPointer { buffer in
        // Never empty: the terminating NULL is always there.
        guard let base = buffer.baseAddress else { preconditionFailure("empty C string array") }
        return body(base)
    }
}
