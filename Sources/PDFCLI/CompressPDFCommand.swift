import ArchiveEngine
import ArchiverCLI
import ArchiverCore
import ArgumentParser
import Dispatch
import Glibc
import PDFEngine
import Synchronization
import SystemPackage

extension PDFQuality: ExpressibleByArgument {}

/// `compress-pdf-with-archiver`: PDFs → smaller copies beside them, text kept searchable.
public struct CompressPDFCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "compress-pdf-with-archiver",
        abstract: "Make smaller copies of PDFs: images resampled, text, links and outline kept.",
        discussion: """
            report.pdf becomes report (compressed).pdf beside it (report (compressed) (2).pdf if taken). Images \
            drawn above the quality's resolution are resampled and re-encoded as JPEG; text, fonts, drawings, \
            links, forms and the outline are copied as they are, and the file is rewritten compactly. A copy that \
            would not be smaller is not made: the original is already optimal. Encrypted PDFs stay encrypted.
            Qualities (image resolution as drawn, JPEG quality): \(PDFQuality.allCases.map { "\($0.rawValue) \($0.dpi) dpi/\($0.jpegQuality)" }.joined(separator: ", ")).
            \(exitCodesHelp)
            """,
        version: archiverVersion)

    @Option(
        name: [.short, .long],
        help: "best, high, medium, low, very-low or minimum (default: the pdf-quality setting, medium).")
    var quality: PDFQuality?

    @Option(name: [.short, .long], help: "Write exactly this file (one input only); fails if it exists.")
    var output: String?

    @Flag(
        help:
            "Scanned documents only: render every page to a picture and rebuild the PDF from them. Text can no longer be selected or searched, and links and the outline are lost."
    )
    var flatten = false

    @Flag(help: "Read the password of encrypted PDFs from one line of standard input, for scripts.")
    var passwordStdin = false

    @OptionGroup var job: JobOptions

    @Argument(help: "PDF files to compress.")
    var files: [String] = []

    public init() {}

    public func validate() throws {
        if job.forgetRecent { return }
        if files.isEmpty { throw ValidationError("Name at least one PDF to compress.") }
        if output != nil, files.count > 1 {
            throw ValidationError(
                "--output names one file, so it takes one PDF; without it each copy goes beside its PDF.")
        }
    }

    public func run() throws {
        if job.forgetRecent { try forgetRecent() }
        let settings = UserSettings.current
        let quality = quality ?? settings.pdfQuality
        var raw = RawArguments.current()
        let inputs = files.map { raw.path(for: $0) }
        let outputPath = output.map { raw.path(for: $0) }
        let first = inputs[0].lastComponent?.string ?? inputs[0].string
        let what = inputs.count == 1 ? "“\(first)”" : "\(inputs.count) PDFs"

        let control = JobControl(budget: settings.budget(flag: job.timeBudget))
        CommandRunner.installSignalHandlers(control)
        let progress = TerminalProgress(label: flatten ? "Flattening" : "Compressing")
        let report = JobReport(operation: "compress-pdf", json: job.json)
        let desktop = DesktopFeedback(
            title: "\(flatten ? "Flattening" : "Compressing") \(what)", notify: job.notifications, settings: settings,
            control: control)
        CommandRunner.onAbandon = {
            report.failed($0, elapsed: progress.elapsed)
            desktop.failed(summary: "Could not compress \(what)", $0)
        }
        let bytes = inputs.reduce(Int64(0)) { total, input in
            var info = stat()
            return total + (input.withPlatformString { stat($0, &info) } == 0 ? Int64(info.st_size) : 0)
        }
        if let refusal = BudgetEstimate.checkPDF(bytes: bytes, budget: control.budget) {
            report.failed(refusal, elapsed: 0)
            desktop.failed(summary: "Could not compress \(what)", refusal)
            throw ExitCode(refusal.code.exitStatus)
        }
        if flatten {
            report.warn(
                "--flatten turns every page into a picture: its text can no longer be selected or searched, and links and the outline are lost."
            )
        }

        let batch = Batch(count: inputs.count) { done, total in
            progress.update(done: done, total: total)
            desktop.update(done: done, total: total)
        }
        let passwords = Self.serialized(
            Passwords.asker(fromStandardInput: passwordStdin, nothingMade: "nothing was made"))
        let options = PDFCompressor.Options(quality: quality, output: outputPath, flatten: flatten)
        let results = Self.compressAll(inputs, options: options, control: control, passwords: passwords, batch: batch)
        progress.finish()

        var made: [PDFCompressResult] = []
        var failures: [ArchiverError] = []
        var entries: [JSON] = []
        for (input, outcome) in zip(inputs, results) {
            switch outcome {
            case .success(let result):
                made.append(result)
                entries.append(Self.json(input: input, result: result, error: nil))
                for warning in Self.warnings(result) { report.warn(warning) }
                if !job.json { print(Self.describe(result)) }
            case .failure(let error):
                failures.append(error)
                entries.append(Self.json(input: input, result: nil, error: error))
                printProblem(error)
            }
        }
        Self.notify(desktop, what: what, made: made, failures: failures, flattened: flatten)
        let status: Int32 =
            if let stop = failures.first(where: { $0.code == .cancelled || $0.code == .budget }) {
                stop.code.exitStatus
            } else if made.isEmpty, let failure = failures.first {
                failure.code.exitStatus
            } else if !failures.isEmpty || made.contains(where: { !Self.warnings($0).isEmpty }) {
                ExitStatus.warnings
            } else {
                ExitStatus.success
            }
        if job.json {
            report.emit(
                exitCode: status, elapsed: progress.elapsed,
                [
                    ("results", .array(entries)), ("error", failures.first.map(JobReport.json) ?? .null),
                ])
        }
        desktop.waitForAction()
        throw ExitCode(status)
    }
}

extension CompressPDFCommand {
    /// Compresses `inputs`, one worker per core (each PDF's image pass uses the cores again between its
    /// images); the outcomes in the order of `inputs`.
    static func compressAll(
        _ inputs: [FilePath], options: PDFCompressor.Options, control: JobControl, passwords: PasswordAsker,
        batch: Batch
    ) -> [Result<PDFCompressResult, ArchiverError>] {
        let workers = max(1, min(inputs.count, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))))
        let next = Atomic<Int>(0)
        let outcomes = Mutex<[Int: Result<PDFCompressResult, ArchiverError>]>([:])
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while true {
                let index = next.add(1, ordering: .relaxed).oldValue
                guard index < inputs.count else { return }
                let outcome: Result<PDFCompressResult, ArchiverError>
                do throws(ArchiverError) {
                    outcome = .success(
                        try PDFCompressor.run(
                            input: inputs[index], options: options, control: control, passwords: passwords
                        ) { batch.update(index, done: $0, total: $1) })
                } catch {
                    outcome = .failure(error)
                }
                batch.finish(index)
                outcomes.withLock { $0[index] = outcome }
            }
        }
        return outcomes.withLock { table in inputs.indices.compactMap { table[$0] } }
    }

    /// What a person should know about a copy that was made: repairs, signatures it voids.
    static func warnings(_ result: PDFCompressResult) -> [String] {
        let name = result.input.lastComponent?.string ?? result.input.string
        var warnings: [String] = []
        if result.repaired { warnings.append("“\(name)” has errors that qpdf repaired; check the copy.") }
        if result.signed, result.output != nil {
            warnings.append(
                "“\(name)” is digitally signed: the signatures do not verify in the compressed copy (the original keeps them)."
            )
        }
        return warnings
    }

    /// One password question at a time, whichever worker asks: two dialogs at once would confuse anyone.
    static func serialized(_ asker: PasswordAsker) -> PasswordAsker {
        let lock = Mutex<Void>(())
        return PasswordAsker(attempts: asker.attempts) { name, attempt throws(ArchiverError) in
            try lock.withLock { _ throws(ArchiverError) in try asker.ask(name, attempt) }
        }
    }

    /// `Created /docs/report (compressed).pdf: 31.8 MB → 612 kB (98 % smaller); 4 of 6 images resampled.`
    static func describe(_ result: PDFCompressResult) -> String {
        let name = result.input.lastComponent?.string ?? result.input.string
        guard let output = result.output else {
            return
                "“\(name)” is already optimal: a compressed copy would not be smaller (\(HumanFormat.bytes(result.outputBytes))); the original is kept."
        }
        let images =
            result.flattened
            ? "\(result.pages) pages rendered as pictures"
            : "\(result.imagesReplaced) of \(result.imagesPlaced) images resampled"
        let sizes = "\(HumanFormat.bytes(result.inputBytes)) → \(HumanFormat.bytes(result.outputBytes))"
        return
            "Created \(output): \(sizes) (\(PDFNaming.saving(before: result.inputBytes, after: result.outputBytes))); \(images)."
    }

    static func json(input: FilePath, result: PDFCompressResult?, error: ArchiverError?) -> JSON {
        guard let result else {
            return .object([
                ("input", .string(input.madeAbsolute.string)), ("output", .null),
                ("error", error.map(JobReport.json) ?? .null),
            ])
        }
        return .object([
            ("input", .string(result.input.string)), ("output", result.output.map { .string($0.string) } ?? .null),
            ("inputBytes", .int(result.inputBytes)), ("outputBytes", .int(result.outputBytes)),
            ("alreadyOptimal", .bool(result.alreadyOptimal)), ("pages", .int(result.pages)),
            ("imagesPlaced", .int(result.imagesPlaced)), ("imagesResampled", .int(result.imagesReplaced)),
            ("encrypted", .bool(result.encrypted)), ("repaired", .bool(result.repaired)),
            ("flattened", .bool(result.flattened)), ("signed", .bool(result.signed)), ("error", .null),
        ])
    }

    /// One result notification for the batch: before → after with Open folder, or the failure.
    static func notify(
        _ desktop: DesktopFeedback, what: String, made: [PDFCompressResult], failures: [ArchiverError], flattened: Bool
    ) {
        if made.isEmpty, let failure = failures.first {
            desktop.failed(summary: "Could not compress \(what)", failure)
            return
        }
        let verb = flattened ? "Flattened" : "Compressed"
        var lines = made.map { result in
            let name = result.input.lastComponent?.string ?? result.input.string
            return result.output == nil
                ? "\(name): already optimal, kept as it is"
                : PDFNaming.summary(name: name, before: result.inputBytes, after: result.outputBytes)
                    + (result.signed ? "; its signatures do not verify in the copy" : "")
        }
        if let failure = failures.first {
            lines.append("\(failures.count) failed: \(failure.message)")
        }
        let item = made.first { $0.output != nil }.flatMap(\.output) ?? made.first?.input
        if let item { lines.append("in \(item.removingLastComponent())") }
        let summary =
            if made.count == 1, failures.isEmpty, let only = made.first {
                only.output == nil
                    ? "“\(only.input.lastComponent?.string ?? "")” is already optimal"
                    : "\(verb) \(only.output?.lastComponent?.string ?? "")"
            } else {
                "\(verb) \(made.count) PDFs"
            }
        let attachable = made.count == 1 ? made.first?.output : nil
        desktop.succeeded(
            summary: summary, body: lines.joined(separator: "\n"), item: item, attachable: attachable,
            recent: (mimeType: "application/pdf", exec: "xdg-open %u"))
    }
}

/// The progress of several PDFs compressed at once, as one figure: each PDF is an equal share.
final class Batch: @unchecked Sendable {
    private let fractions: Mutex<[Double]>
    private let report: (Int64, Int64?) -> Void
    private let lock = Mutex<Void>(())
    private static let share: Int64 = 1000

    init(count: Int, report: @escaping (Int64, Int64?) -> Void) {
        fractions = Mutex(Array(repeating: 0, count: count))
        self.report = report
    }

    func update(_ index: Int, done: Int64, total: Int64?) {
        let fraction = total.map { $0 > 0 ? Double(done) / Double($0) : 0 } ?? 0
        publish { $0[index] = min(1, fraction) }
    }

    func finish(_ index: Int) { publish { $0[index] = 1 } }

    private func publish(_ change: (inout [Double]) -> Void) {
        let (sum, count) = fractions.withLock { list in
            change(&list)
            return (list.reduce(0, +), list.count)
        }
        // The terminal line and the notification are drawn by one thread at a time.
        lock.withLock { _ in report(Int64(sum * Double(Self.share)), Int64(count) * Self.share) }
    }
}
