import ArchiverCore
internal import CPDFShim
import Glibc
import Platform
import SystemPackage

/// What compressing one PDF came to.
public struct PDFCompressResult: Sendable {
    public var input: FilePath
    /// The smaller copy; nil when the result was not smaller and the original is kept ("already optimal").
    public var output: FilePath?
    public var inputBytes: Int64
    /// The size of the copy, or of what was made and thrown away when it was not smaller.
    public var outputBytes: Int64
    public var pages: Int
    /// Image XObjects drawn on the pages, those above the target resolution, and those replaced.
    public var imagesPlaced: Int
    public var imagesOversized: Int
    public var imagesReplaced: Int
    /// The input was encrypted, and so is the copy.
    public var encrypted: Bool
    /// qpdf had to repair the input's structure to read it.
    public var repaired: Bool
    /// The input holds digital signatures, which no longer verify in the copy.
    public var signed: Bool = false
    /// Pages were rendered to images (`--flatten`): text is no longer selectable.
    public var flattened: Bool
    /// Text-showing operators in the input's pages, and whether the copy shows as many (counted in the
    /// copy itself): its text is all there. True when no copy was made, the original being the answer.
    public var textOperators: Int = 0
    public var textKept: Bool = true

    public var alreadyOptimal: Bool { output == nil }
}

/// A PDF → a smaller copy beside it (or at `output`): images drawn above the quality's resolution are
/// resampled and re-encoded in place, the rest of the file is copied as it is and rewritten compactly.
/// The copy is written under a hidden temporary name and published only when it is complete and smaller.
public enum PDFCompressor {
    /// What the job needs besides the input.
    public struct Options: Sendable {
        public var quality: PDFQuality
        /// Write exactly this file (fails if it exists); nil puts `name (compressed).pdf` beside the input.
        public var output: FilePath?
        /// Render every page to a JPEG and rebuild the PDF from them (scans only: the text is lost).
        public var flatten: Bool

        public init(quality: PDFQuality, output: FilePath? = nil, flatten: Bool = false) {
            self.quality = quality
            self.output = output
            self.flatten = flatten
        }
    }

    /// Compresses `input`.
    /// - Parameters:
    ///   - control: cancellation and time budget, checked after every image.
    ///   - passwords: asked when the PDF is encrypted with a password that is not empty.
    ///   - progress: images done and the number of images to do.
    /// - Throws: `ArchiverError`; nothing is left behind under any name when it throws.
    public static func run(
        input: FilePath, options: Options, control: JobControl, passwords: PasswordAsker,
        progress: @escaping (Int64, Int64?) -> Void = { _, _ in }
    ) throws(ArchiverError) -> PDFCompressResult {
        let input = input.madeAbsolute
        PendingOutputs.beginJob()
        defer { PendingOutputs.endJob() }
        let inputBytes = try checkInput(input)
        if !options.flatten { try refuseAttachmentsOnlyEncryption(input) }
        let folder: FilePath
        let name: [UInt8]
        if let output = options.output?.madeAbsolute {
            folder = output.removingLastComponent()
            name = output.lastComponent?.bytes ?? []
            if output == input {
                throw ArchiverError(
                    .usage, tr("--output names the input itself; the input is never replaced."),
                    hint: tr("Choose another name."))
            }
            // Said before the work rather than after it; publishing checks again, atomically.
            if FileSystem.status(output) != nil {
                throw ArchiverError(
                    .destination, tr("“%@” already exists; nothing was overwritten.", output),
                    hint: tr("Choose another name, or move the existing file away."), path: output.string)
            }
        } else {
            folder = input.removingLastComponent()
            name = PDFNaming.compressedName(for: input.lastComponent?.bytes ?? [])
        }
        guard let info = FileSystem.resolve(folder).flatMap(FileSystem.status), FileSystem.isDirectory(info) else {
            throw ArchiverError(
                .destination, tr("The folder “%@” does not exist.", folder),
                hint: tr("Create it first, or choose another."), path: folder.string)
        }
        try control.check()
        FileSystem.removeStaleTemporaries(in: folder)
        // Written through its descriptor only: the temporary is ours from the start.
        let pending = try PendingFile(in: folder)
        defer { withExtendedLifetime(pending) {} }  // its descriptor and clean-up live until the job ends
        let (temporary, descriptor) = (pending.path, pending.descriptor)

        var result = PDFCompressResult(
            input: input, output: nil, inputBytes: inputBytes, outputBytes: 0, pages: 0, imagesPlaced: 0,
            imagesOversized: 0, imagesReplaced: 0, encrypted: false, repaired: false, flattened: options.flatten)
        var password: Secret?
        if options.flatten {
            try Flattener.run(
                input: input, into: temporary, descriptor: descriptor, quality: options.quality, control: control,
                progress: progress, result: &result)
        } else {
            password = try compressImages(
                input: input, into: temporary, descriptor: descriptor, quality: options.quality, control: control,
                passwords: passwords, progress: progress, result: &result)
            // Never a copy that opens worse than its original: checked before it takes its name. Object
            // streams are what some damaged files' copies trip over: once more without them, and with the fonts
            // left whole (the subset is the other thing the copy changes), else none.
            if pending.size < inputBytes,
                try worse(copy: temporary, input: input, password: password, control: control, result: &result) != nil
            {
                _ = try compressImages(
                    input: input, into: temporary, descriptor: descriptor, quality: options.quality, control: control,
                    passwords: passwords, known: password, plain: true, progress: progress, result: &result)
                if pending.size < inputBytes,
                    let reason = try worse(
                        copy: temporary, input: input, password: password, control: control, result: &result)
                {
                    throw ArchiverError(
                        .corrupt,
                        // TRANSLATORS: a PDF's name, then why (qpdf's message, or one of ours).
                        tr("A compressed copy of “%1$@” would not open as well as the original (%2$@); nothing was made.",
                           input.lastComponent?.string ?? input.string, reason),
                        hint: tr("Open it in a PDF viewer and print it to a new PDF, then compress that."),
                        path: input.string)
                }
            }
        }
        result.outputBytes = pending.size
        // Counted in the copy as written, not assumed: a copy that cannot be read back keeps no text.
        let copyText =
            result.outputBytes < inputBytes && options.flatten ? textOperators(of: temporary, password: password) : nil
        result.textKept = result.outputBytes >= inputBytes || !options.flatten || copyText == result.textOperators
        guard pending.withdraw() else { throw ArchiverError(.cancelled, tr("Cancelled.")) }
        // Never worse: a copy that is not smaller is thrown away (with `pending`) and the original is the answer.
        guard result.outputBytes < inputBytes else { return result }
        result.output = try pending.publish(as: name, exact: options.output != nil)
        return result
    }

    /// The input's size, once it is known to be a readable PDF.
    static func checkInput(_ input: FilePath) throws(ArchiverError) -> Int64 {
        let descriptor = input.withPlatformString { open($0, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else {
            let code = errno
            throw code == ENOENT
                ? ArchiverError(
                    .inputUnreadable, tr("“%@” does not exist.", input), hint: tr("Check the name and try again."),
                    path: input.string)
                : ArchiverError(
                    .inputUnreadable, readFailure(input, code), hint: tr("Check its permissions."), path: input.string)
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw ArchiverError(
                .inputUnreadable, tr("“%@” is not a file.", input), hint: tr("Choose a PDF file."), path: input.string)
        }
        var head = [UInt8](repeating: 0, count: 1024)
        let count = head.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count >= 0 else {
            throw ArchiverError(.inputUnreadable, readFailure(input, errno), path: input.string)
        }
        guard PDFNaming.looksLikePDF(Array(head.prefix(count))) else {
            throw ArchiverError(
                .notAnArchive, tr("“%@” is not a PDF.", input.lastComponent?.string ?? input.string),
                // TRANSLATORS: "Compress PDF" and "Compress" are the names of Archiver's file-manager actions.
                hint: tr("Compress PDF works on PDF documents only; use Compress for other files."), path: input.string)
        }
        return Int64(info.st_size)
    }

    private static func readFailure(_ input: FilePath, _ code: Int32) -> Text {
        // TRANSLATORS: a file, then the system's reason ("Permission denied").
        tr("Cannot read “%1$@”: %2$@.", input, TextValue.systemError(code))
    }

    /// The image pass through the C++ shim, asking for a password as long as the PDF needs one.
    /// - Returns: the password that opened it, if one did.
    private static func compressImages(
        input: FilePath, into temporary: FilePath, descriptor: Int32, quality: PDFQuality, control: JobControl,
        passwords: PasswordAsker, known: Secret? = nil, plain: Bool = false,
        progress: @escaping (Int64, Int64?) -> Void, result: inout PDFCompressResult
    ) throws(ArchiverError) -> Secret? {
        let callback = ProgressCallback(control: control, progress: progress)
        var outcome = pdfshim_result()
        let (status, password) = try opening(input, passwords: passwords, known: known) { passwordPointer in
            callback.withContext { context in
                input.withPlatformString { inputPath in
                    var options = pdfshim_options(
                        target_dpi: Int32(quality.dpi), jpeg_quality: Int32(quality.jpegQuality),
                        password: passwordPointer, progress: progressTrampoline, context: context,
                        plain_structure: plain ? 1 : 0, keep_fonts: plain ? 1 : 0)
                    return pdfshim_compress(inputPath, descriptor, &options, &outcome)
                }
            }
        }
        try check(status, outcome, input: input, temporary: temporary, callback: callback)
        result.pages = Int(outcome.pages)
        result.imagesPlaced = Int(outcome.images_placed)
        result.imagesOversized = Int(outcome.images_candidates)
        result.imagesReplaced = Int(outcome.images_replaced)
        result.encrypted = outcome.encrypted != 0
        result.repaired = outcome.repaired != 0
        result.signed = outcome.signed_document != 0
        result.textOperators = Int(outcome.text_operators)
        return password
    }

    /// A PDF that encrypts its attachments only opens without a password; qpdf would write its copy with the
    /// whole document encrypted. Refused before anything is made. (A flattened copy has no attachments.)
    static func refuseAttachmentsOnlyEncryption(_ input: FilePath) throws(ArchiverError) {
        guard input.withPlatformString(pdfshim_encrypts_attachments_only) != 0 else { return }
        let name = input.lastComponent?.string ?? input.string
        throw ArchiverError(
            .notAnArchive,
            tr("“%@” encrypts only its attachments, and its copy would encrypt the whole document; nothing was made.", name),
            hint: tr("Remove the attachments’ encryption (or encrypt the whole document) in the program that set it, then compress it again."),
            path: input.string)
    }

    /// Runs `body` with no password, then with each one `passwords` gives for as long as the PDF asks for
    /// one; the last status and the password that opened it.
    static func opening(
        _ input: FilePath, passwords: PasswordAsker, known: Secret? = nil,
        _ body: (UnsafePointer<CChar>?) -> pdfshim_status
    ) throws(ArchiverError) -> (pdfshim_status, Secret?) {
        var password = known
        var attempt = 0
        while true {
            let status = withOptionalCString(password, body)
            guard status == PDFSHIM_NEEDS_PASSWORD else { return (status, password) }
            attempt += 1
            let name = input.lastComponent?.string ?? input.string
            guard attempt <= passwords.attempts else {
                throw ArchiverError(
                    .password,
                    password == nil
                        ? tr("“%@” is protected by a password.", name)
                        : tr("Wrong password for “%@”; nothing was made.", name),
                    hint: tr("Give its password (it opens the document) at the prompt or with --password-stdin."),
                    path: input.string)
            }
            password = try passwords.ask(name, attempt)
        }
    }

    /// Why the copy opens worse than its original, or nil when it opens as well: qpdf's check finds no
    /// more wrong in it, it shows as many text operators, and pdftotext reads the same text from it. A
    /// copy that keeps its original's faults (and no more) is sound enough, with a warning (`repaired`).
    static func worse(
        copy: FilePath, input: FilePath, password: Secret?, control: JobControl, result: inout PDFCompressResult
    ) throws(ArchiverError) -> Text? {
        let copied = checked(copy, password: password)
        guard let copied else { return tr("qpdf cannot open the copy") }
        guard copied.text_operators == result.textOperators else { return tr("the copy shows less text") }
        if copied.problems > 0 {
            let original = checked(input, password: password)
            if let original, original.problems < copied.problems {
                return .verbatim(withUnsafeBytes(of: copied.message) {
                    String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
                })
            }
            result.repaired = true
        }
        // pdftotext cannot be given a password but on its command line, where anyone can read it.
        guard password == nil, let before = try extractedText(input, control: control) else { return nil }
        return try extractedText(copy, control: control) == before ? nil : tr("pdftotext reads other text in the copy")
    }

    /// `pdfshim_check` of a PDF, or nil when it cannot be opened.
    private static func checked(_ path: FilePath, password: Secret?) -> pdfshim_result? {
        var outcome = pdfshim_result()
        let status = path.withPlatformString { file in
            withOptionalCString(password) { pdfshim_check(file, $0, &outcome) }
        }
        return status == PDFSHIM_OK ? outcome : nil
    }

    /// A digest of what poppler's pdftotext reads in a PDF; nil when it cannot (or is not installed).
    private static func extractedText(_ path: FilePath, control: JobControl) throws(ArchiverError) -> Int? {
        guard let pdftotext = Programs.installed("pdftotext") else { return nil }
        var digest = Hasher()
        let arguments = ["-q", "-enc", "UTF-8"].map { Array($0.utf8) } + [path.bytes, Array("-".utf8)]
        let outcome = try ChildProcess.run(pdftotext, arguments, environment: [], input: .nothing, control: control) {
            digest.combine(bytes: $0)
        }
        return outcome.status == 0 ? digest.finalize() : nil
    }

    /// Counts the text-showing operators of a PDF (the copy, opened with the input's password).
    static func textOperators(of path: FilePath, password: Secret?) -> Int? {
        var counted = pdfshim_result()
        let status = path.withPlatformString { file in
            withOptionalCString(password) { pdfshim_count_text(file, $0, &counted) }
        }
        return status == PDFSHIM_OK ? Int(counted.text_operators) : nil
    }

    /// Turns a shim status into an error, if it is one.
    static func check(
        _ status: pdfshim_status, _ outcome: pdfshim_result, input: FilePath, temporary: FilePath,
        callback: ProgressCallback?
    ) throws(ArchiverError) {
        let name = input.lastComponent?.string ?? input.string
        let detail = withUnsafeBytes(of: outcome.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        switch status {
        case PDFSHIM_OK: return
        case PDFSHIM_CANCELLED:
            if let stop = callback?.stop { throw stop }
            throw ArchiverError(.cancelled, tr("Cancelled; nothing was left behind."))
        case PDFSHIM_DAMAGED:
            throw ArchiverError(
                // TRANSLATORS: a PDF's name, then qpdf's own message.
                .corrupt, tr("“%1$@” is damaged beyond what qpdf can repair (%2$@); nothing was made.", name, detail),
                hint: tr("Open it in a PDF viewer and print it to a new PDF, then compress that."), path: input.string)
        case PDFSHIM_WRITE_FAILED where outcome.error_number != 0:
            throw FileSystem.destinationError(outcome.error_number, temporary.removingLastComponent())
        case PDFSHIM_WRITE_FAILED:
            throw ArchiverError(
                .destination, tr("Could not write the compressed copy of “%1$@”: %2$@.", name, detail),
                path: temporary.removingLastComponent().string)
        default:
            throw ArchiverError(.corrupt, tr("Could not compress “%1$@”: %2$@.", name, detail), path: input.string)
        }
    }
}

/// Carries the job's progress closure and control through the shim's C callback.
final class ProgressCallback {
    let control: JobControl
    let progress: (Int64, Int64?) -> Void
    /// Why the job stopped, when the callback stopped it.
    var stop: ArchiverError?

    init(control: JobControl, progress: @escaping (Int64, Int64?) -> Void) {
        self.control = control
        self.progress = progress
    }

    func withContext<R>(_ body: (UnsafeMutableRawPointer) -> R) -> R {
        let context = Unmanaged.passRetained(self)
        defer { context.release() }
        return body(context.toOpaque())
    }

    /// Reports and answers whether to stop (1) or go on (0).
    func report(done: Int32, total: Int32) -> Int32 {
        progress(Int64(done), Int64(total))
        do {
            try control.check()
            return 0
        } catch {
            stop = error
            return 1
        }
    }
}

private let progressTrampoline: pdfshim_progress = { context, done, total in
    guard let context else { return 0 }
    return Unmanaged<ProgressCallback>.fromOpaque(context).takeUnretainedValue().report(done: done, total: total)
}

/// `body` with the secret as a C string, or with NULL.
func withOptionalCString<R>(_ secret: Secret?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let secret else { return body(nil) }
    return secret.withCString { body($0) }
}
