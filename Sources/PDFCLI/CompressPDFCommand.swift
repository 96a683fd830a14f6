import Platform
import JobKit
import JobProtocol
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
        abstract: tr("Make smaller copies of PDFs: images resampled, text, links and outline kept.").localized,
        discussion: Self.discussion,
        version: archiverVersion(library: "qpdf, libvips"))

    @Option(
        name: [.short, .long],
        // TRANSLATORS: the values of --quality, which stay as they are; %@ is the name of a setting (pdf-quality).
        help: ArgumentHelp(tr("best, high, medium, low, very-low or minimum (default: the %@ setting, medium).", Setting.pdfQuality.name).localized))
    var quality: PDFQuality?

    @Option(name: [.short, .long], help: ArgumentHelp(tr("Write exactly this file (one input only); fails if it exists.").localized))
    var output: String?

    @Flag(
        help: ArgumentHelp(
            tr("Scanned documents only: render every page to a picture and rebuild the PDF from them. Text can no longer be selected or searched, and links and the outline are lost.").localized))
    var flatten = false

    @Flag(help: ArgumentHelp(tr("Read the password of encrypted PDFs from one line of standard input, for scripts.").localized))
    var passwordStdin = false

    @Flag(
        help: ArgumentHelp(
            tr("Estimate the size of the copy at each quality level, from a trial on a sample of its images, and write nothing (one PDF).").localized))
    var estimate = false

    @OptionGroup var job: JobOptions

    @OptionGroup var events: EventOptions

    @Argument(help: ArgumentHelp(tr("PDF files to compress.").localized))
    var files: [String] = []

    public init() {}

    /// The `--help` discussion; the names of copies are made by rule and stay as they are in every language.
    static var discussion: String {
        // TRANSLATORS: %1$@ … %3$@ are file names Archiver makes (“report (compressed).pdf”): keep them as they are.
        let copies = tr("%1$@ becomes %2$@ beside it (%3$@ if taken). Images drawn above the quality's resolution are resampled and re-encoded as JPEG; fonts embedded whole are cut down to the glyphs drawn; text, drawings, links, forms and the outline are copied as they are; page thumbnails, other programs' private data, unused resources and objects stored twice are dropped, and the file is rewritten compactly. A copy that would not be smaller is not made: the original is already optimal. Encrypted PDFs stay encrypted.", "report.pdf", "report (compressed).pdf", "report (compressed) (2).pdf")
        let ladder = PDFQuality.allCases.map { "\($0.rawValue) \($0.dpi) dpi/\($0.jpegQuality)" }.joined(separator: ", ")
        // TRANSLATORS: %@ lists the values of --quality: “best 300 dpi/90, high 200 dpi/70, …”.
        let qualities = tr("Qualities (image resolution as drawn, JPEG quality): %@.", ladder)
        return helpDiscussion(Text.sentences([copies, qualities], separator: "\n"))
    }

    public func validate() throws {
        if job.forgets { return }
        if files.isEmpty { throw ValidationError(tr("Name at least one PDF to compress.").localized) }
        if estimate, files.count != 1 || output != nil || flatten || events.progressJson {
            throw ValidationError(
                tr("--estimate takes one PDF, and neither --output, --flatten nor --progress-json: it writes nothing.").localized)
        }
        if output != nil, files.count > 1 {
            throw ValidationError(
                tr("--output names one file, so it takes one PDF; without it each copy goes beside its PDF.").localized)
        }
    }

    public func run() throws {
        if job.forgets { try forgetHistory(job) }
        if estimate { try runEstimate() }
        var raw = RawArguments.current()
        let inputs = files.map { raw.path(for: $0) }
        let outputPath = output.map { raw.path(for: $0) }
        let session = startSession(inputs)
        let quality = quality ?? session.settings.pdfQuality
        if let refusal = BudgetEstimate.checkPDF(bytes: FileSystem.size(of: inputs), budget: session.control.budget) {
            throw session.failed(refusal)
        }
        if flatten {
            session.warn(
                JobWarning(
                    "pdf-flattened",
                    tr("--flatten turns every page into a picture: its text can no longer be selected or searched, and links and the outline are lost.")),
                counts: false)
        }
        // The stream counts one PDF's images as they are done; several PDFs, in thousandths of each.
        let batch = Batch(count: inputs.count) { done, total in
            session.progress(done: done, total: total, toStream: inputs.count > 1)
        }
        if inputs.count == 1, let stream = session.stream { batch.item = { stream.progress(done: $0, total: $1) } }
        let passwords = Self.serialized(Passwords.asker(fromStandardInput: passwordStdin, nothingMade: tr("nothing was made")))
        let options = PDFCompressor.Options(quality: quality, output: outputPath, flatten: flatten)
        let results = Self.compressAll(inputs, options: options, control: session.control, passwords: passwords, batch: batch)
        session.endProgress()
        let (made, failures, items) = Self.collect(zip(inputs, results), session: session)
        Self.notify(session.desktop, failed: session.couldNot, made: made, failures: failures, flattened: flatten)
        throw session.finish(
            outcome: PDFOutcome(results: items, error: failures.first.map(ErrorReport.init)),
            statistics: (.pdfCompressed, made.filter { $0.output != nil }.map { ($0.inputBytes, $0.outputBytes) }))
    }

    private func startSession(_ inputs: [FilePath]) -> JobSession {
        // The one input's name, or nil for several: each sentence about them has both forms.
        let single = inputs.count == 1 ? inputs[0].lastComponent?.string ?? inputs[0].string : nil
        return JobSession(
            operation: PDFOutcome.operation, job: job, events: events,
            // TRANSLATORS: the label before the progress bar on the terminal.
            label: flatten ? tr("Flattening") : tr("Compressing"),
            title: flatten
                ? single.map { tr("Flattening “%@”", $0) } ?? ntr("Flattening %ld PDF", "Flattening %ld PDFs", inputs.count)
                : single.map { tr("Compressing “%@”", $0) } ?? ntr("Compressing %ld PDF", "Compressing %ld PDFs", inputs.count),
            couldNot: single.map { tr("Could not compress “%@”", $0) }
                ?? ntr("Could not compress %ld PDF", "Could not compress %ld PDFs", inputs.count))
    }

    /// Each PDF's outcome in the job: counted, its warnings and sentence said, and its item of the result.
    private static func collect(
        _ outcomes: Zip2Sequence<[FilePath], [Result<PDFCompressResult, ArchiverError>]>, session: JobSession
    ) -> (made: [PDFCompressResult], failures: [ArchiverError], items: [PDFOutcome.Item]) {
        var made: [PDFCompressResult] = []
        var failures: [ArchiverError] = []
        var items: [PDFOutcome.Item] = []
        for (input, outcome) in outcomes {
            switch outcome {
            case .success(let result):
                made.append(result)
                session.tally.succeeded += 1
                items.append(Self.item(result))
                for warning in Self.warnings(result) { session.warn(warning) }
                if !session.json { print(Self.describe(result).localized) }
            case .failure(let error):
                failures.append(error)
                session.itemFailed(error)
                var item = PDFOutcome.Item(input: input.madeAbsolute.string)
                item.error = ErrorReport(error)
                items.append(item)
            }
        }
        return (made, failures, items)
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
    static func warnings(_ result: PDFCompressResult) -> [JobWarning] {
        let name = result.input.lastComponent?.string ?? result.input.string
        var warnings: [JobWarning] = []
        if result.repaired {
            warnings.append(JobWarning("pdf-repaired", tr("“%@” has errors that qpdf repaired; check the copy.", name)))
        }
        // Never expected (only images are touched), so worth saying if it ever happens; --flatten says it anyway.
        if !result.textKept, !result.flattened {
            warnings.append(JobWarning(
                "pdf-text-lost", tr("The copy of “%@” does not show all the text the original does; keep the original.", name)))
        }
        if result.signed, result.output != nil {
            warnings.append(JobWarning(
                "pdf-signed",
                tr("“%@” is digitally signed: the signatures do not verify in the compressed copy (the original keeps them).", name)))
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
    static func describe(_ result: PDFCompressResult) -> Text {
        let name = result.input.lastComponent?.string ?? result.input.string
        guard let output = result.output else {
            // TRANSLATORS: %2$@ is the size the compressed copy would have had.
            return tr("“%1$@” is already optimal: a compressed copy would not be smaller (%2$@); the original is kept.", name, .bytes(result.outputBytes))
        }
        let images =
            result.flattened
            ? ntr("%ld page rendered as pictures", "%ld pages rendered as pictures", result.pages)
            // TRANSLATORS: %2$ld images of the %1$ld drawn on the pages were made smaller. English says “1 of 1 images”.
            : ntr("%2$ld of %1$ld images resampled", "%2$ld of %1$ld images resampled", result.imagesPlaced, result.imagesReplaced)
        let saving = PDFNaming.saving(before: result.inputBytes, after: result.outputBytes)
        // TRANSLATORS: the copy made, its size before → after, how much smaller (“98 % smaller”), and what was done to its images.
        return tr("Created %1$@: %2$@ → %3$@ (%4$@); %5$@.", output, .bytes(result.inputBytes), .bytes(result.outputBytes), saving, images)
    }

    static func item(_ result: PDFCompressResult) -> PDFOutcome.Item {
        var item = PDFOutcome.Item(input: result.input.string)
        item.output = result.output?.string
        item.inputBytes = result.inputBytes
        item.outputBytes = result.outputBytes
        item.alreadyOptimal = result.alreadyOptimal
        item.pages = Int64(result.pages)
        item.imagesPlaced = Int64(result.imagesPlaced)
        item.imagesResampled = Int64(result.imagesReplaced)
        item.encrypted = result.encrypted
        item.repaired = result.repaired
        item.flattened = result.flattened
        item.signed = result.signed
        item.textKept = result.textKept
        return item
    }

    /// One result notification for the batch: before → after with Open folder, or the failure.
    static func notify(
        _ desktop: DesktopFeedback, failed: Text, made: [PDFCompressResult], failures: [ArchiverError], flattened: Bool
    ) {
        if made.isEmpty, let failure = failures.first {
            desktop.failed(summary: failed.localized, failure)
            return
        }
        var lines = made.map { result in
            let name = result.input.lastComponent?.string ?? result.input.string
            guard result.output != nil else { return tr("%@: already optimal, kept as it is", name) }
            let summary = PDFNaming.summary(name: name, before: result.inputBytes, after: result.outputBytes)
            // TRANSLATORS: %@ is “report.pdf: 31.8 MB → 612 kB (98 % smaller)”.
            return result.signed ? tr("%@; its signatures do not verify in the copy", summary) : summary
        }
        if let failure = failures.first {
            // TRANSLATORS: how many PDFs failed, then why the first one did.
            lines.append(ntr("%1$ld failed: %2$@", "%1$ld failed: %2$@", failures.count, failure.message))
        }
        let item = made.first { $0.output != nil }.flatMap(\.output) ?? made.first?.input
        // TRANSLATORS: a line of its own under the result: the folder the copies are in.
        if let item { lines.append(tr("in %@", item.removingLastComponent())) }
        let summary =
            if made.count == 1, failures.isEmpty, let only = made.first {
                if let output = only.output?.lastComponent?.string {
                    flattened ? tr("Flattened %@", output) : tr("Compressed %@", output)
                } else {
                    tr("“%@” is already optimal", only.input.lastComponent?.string ?? "")
                }
            } else {
                flattened
                    ? ntr("Flattened %ld PDF", "Flattened %ld PDFs", made.count)
                    : ntr("Compressed %ld PDF", "Compressed %ld PDFs", made.count)
            }
        let attachable = made.count == 1 ? made.first?.output : nil
        desktop.succeeded(
            summary: summary.localized, body: Text.sentences(lines, separator: "\n").localized, item: item,
            attachable: attachable, recent: (mimeType: "application/pdf", exec: "xdg-open %u"),
            originalSize: made.count == 1 ? made.first?.inputBytes : nil)
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

    /// Also told each PDF's own progress (images done of the images to do), when set.
    var item: ((Int64, Int64?) -> Void)?

    func update(_ index: Int, done: Int64, total: Int64?) {
        item?(done, total)
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
