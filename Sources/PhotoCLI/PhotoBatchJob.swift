import ArchiverCore
import ArgumentParser
import Desktop
import JobKit
import JobProtocol
import PhotoEngine
import SystemPackage

/// One batch of `compress-photos-with-archiver` on its job session: the journal that makes it resumable, the
/// plan of copies, the batch, and its outcome.
final class PhotoBatchJob {
    private let session: JobSession
    private let inputs: [FilePath]
    private let destination: PhotoDestination
    private let options: PhotoOptions
    private let workers: Int?
    private let report: PhotoReport
    private let events: PhotoEvents?
    private var journal: PhotoJournal?
    private var done: [FilePath: PhotoJournal.Entry] = [:]
    private var planned: PhotoPlan?

    init(session: JobSession, inputs: [FilePath], destination: PhotoDestination, options: PhotoOptions, workers: Int?) {
        self.session = session
        self.inputs = inputs
        self.destination = destination
        self.options = options
        self.workers = workers
        report = PhotoReport(session.report)
        events = session.stream.map(PhotoEvents.init)
        let stream = session.stream
        PauseSignals.install(session.control) { stream?.event(ResumedEvent()) }
        session.onAbandon { [unowned self] in failed($0) }
    }

    /// The job failed as a whole: stderr, the JSON result and the notification.
    private func failed(_ error: ArchiverError) {
        session.endProgress()
        report.failed(error, elapsed: session.elapsed)
        session.desktop.failed(summary: session.couldNot.localized, error)
    }

    /// Opens the journal (a previous run's, with `resume`) and claims the copies' folders.
    func plan(resume: Bool, single: String?) throws {
        let journalPath = PhotoJournal.location(
            inputs: inputs, destination: destination, options: options, stateHome: BaseFolders.current.state)
        var previous = PhotoJournal.load(journalPath)
        if previous != nil, !resume {
            session.warn(
                JobWarning("resumable", tr("An interrupted run of this batch was found; run the same command with --resume to finish it instead of starting again.")),
                counts: false)
            previous = nil
        }
        // Only copies still there as recorded count as done; the others are made again.
        done = (previous?.entries ?? [:]).filter { PhotoJournal.isIntact($0.value) }
        // Open before the plan claims its folders, each recorded as it is claimed: a kill right after
        // still lets the resumed run find them. Beside the inputs, no folder is created for it.
        let journal = try? PhotoJournal(path: journalPath, fresh: previous == nil, createFolder: destination != .beside)
        self.journal = journal
        let resuming = previous != nil
        let refuse = { [unowned self] (error: ArchiverError, plan: PhotoPlan?) -> ExitCode in
            plan?.removeEmptyFolders()
            if !resuming { journal?.remove() }
            failed(error)
            return ExitCode(error.code.exitStatus)
        }
        let plan: PhotoPlan
        do throws(ArchiverError) {
            try Self.checkWritable(options.format)
            plan = try PhotoPlan.make(
                inputs: inputs, destination: destination, format: options.format, reusing: previous?.roots ?? [:],
                claimed: { journal?.recordRoot(input: $0, root: $1) })
        } catch {
            throw refuse(error, PhotoPlan?.none)
        }
        guard plan.photoCount > 0 else {
            for problem in plan.problems.dropFirst() { printProblem(problem) }
            throw refuse(plan.problems.first ?? Self.noPhotos(single: single, count: inputs.count), plan)
        }
        let workers = workers ?? PhotoBatch.defaultWorkers
        if let refusal = PhotoBudget.check(plan, format: options.format, workers: workers, budget: session.control.budget) {
            throw refuse(refusal, plan)
        }
        planned = plan
    }

    private static func noPhotos(single: String?, count: Int) -> ArchiverError {
        ArchiverError(
            .notAnArchive, single.map { tr("No photos in “%@”.", $0) } ?? ntr("No photos in %ld item.", "No photos in %ld items.", count),
            hint: PhotoNaming.formatsHint)
    }

    /// Makes the copies.
    func run() throws -> PhotoBatchResult {
        guard let plan = planned else { preconditionFailure("plan() first") }
        let journal = journal
        // A stop that cannot wait for the photos in progress (HEIC encoding takes seconds) still keeps
        // the finished ones: only the registered temporaries go, and mirror folders left empty.
        session.onAbandon { [unowned self] error in
            if error.code == .cancelled, !PauseSignals.sessionEnded { journal?.remove() }
            plan.removeEmptyFolders()
            var error = error
            error.message = error.code == .cancelled
                ? tr("Cancelled; the photos already finished are kept, the ones in progress were removed.")
                : tr("Stopped by the time budget; the photos already finished are kept, the ones in progress were removed.")
            failed(error)
        }
        if plan.photoCount > 1 { session.desktop.title = ntr("Compressing %ld photo", "Compressing %ld photos", plan.photoCount).localized }
        var batchEvents = PhotoBatchEvents()
        if let events {
            batchEvents.finished = { events.finished($0, $1) }
            batchEvents.paused = { events.stream.event(PausedEvent()) }
        }
        let session = session
        do throws(ArchiverError) {
            return try PhotoBatch.run(
                plan, options: options, control: session.control, workers: workers, journal: journal, done: done,
                events: batchEvents, trash: PhotoCommand.moveToTrash,
                progress: { [events] progress in
                    session.progress(
                        done: progress.bytesDone, total: progress.bytesTotal, detail: Self.lines(progress), toStream: false)
                    events?.progress(progress)
                })
        } catch {
            failed(error)
            throw ExitCode(error.code.exitStatus)
        }
    }

    /// The outcome: the journal kept or dropped, the result, the notification, the statistics.
    func finish(_ result: PhotoBatchResult, single: String?) -> ExitCode {
        guard let plan = planned else { preconditionFailure("plan() first") }
        session.endProgress()
        let failures = plan.problems + result.failures
        // Done, or cancelled: the journal goes. Kept when the time budget stopped the batch, the session
        // ended (SIGHUP: a logout) or the disk filled up, so that it can be finished later.
        if result.stopped.map({ $0.code == .cancelled && !PauseSignals.sessionEnded })
            ?? !result.failures.contains(where: { $0.code == .destination })
        {
            journal?.remove()
        }
        // Photos finished by an earlier run count only when nothing failed in this one, as they always did.
        session.tally = JobTally(
            succeeded: result.photos.count + (failures.isEmpty ? result.resumed : 0), failures: failures.map(\.code))
        var error: ArchiverError?
        if let stopped = result.stopped {
            session.tally.record(stopped)
            error = Self.stopped(stopped, done: result.photos.count, total: plan.photoCount)
        }
        let status = session.tally.exitStatus
        report.finished(result, plan: plan, failures: failures, exitCode: status, error: error, elapsed: session.elapsed)
        if let error {
            let summary = single.map { tr("Stopped compressing “%@”", $0) }
                ?? ntr("Stopped compressing %ld item", "Stopped compressing %ld items", inputs.count)
            session.desktop.failed(summary: summary.localized, error)
        } else if result.photos.isEmpty, let first = failures.first, !JobExit.succeeded(status) {
            // Every photo failed: each is named (stderr, JSON), and the notification says the first.
            session.desktop.failed(summary: session.couldNot.localized, first)
            return ExitCode(status)
        } else {
            Self.notify(session.desktop, result: result, plan: plan, failures: failures)
        }
        return session.finish(
            outcome: nil, status: status,
            statistics: (.photoCompressed, result.photos.map { (before: $0.inputBytes, after: $0.outputBytes) }))
    }

    /// Why the batch stopped early, and what it kept.
    private static func stopped(_ stopped: ArchiverError, done: Int, total: Int) -> ArchiverError {
        var error = stopped
        let after = stopped.code == .cancelled
            // TRANSLATORS: %2$ld photos of %1$ld were finished when the job stopped. English says “0 of 1 photos”.
            ? ntr("Cancelled after %2$ld of %1$ld photos; the one in progress was removed.", "Cancelled after %2$ld of %1$ld photos; the one in progress was removed.", total, done)
            // TRANSLATORS: %2$ld photos of %1$ld were finished when the time budget ran out.
            : ntr("Stopped by the time budget after %2$ld of %1$ld photos; the one in progress was removed.", "Stopped by the time budget after %2$ld of %1$ld photos; the one in progress was removed.", total, done)
        error.message = done == 0 ? after : [after, ntr("The %ld photo finished is kept.", "The %ld photos finished are kept.", done)]
        return error
    }

    /// Refuses a format this libvips/libheif cannot write, before anything is made.
    private static func checkWritable(_ format: PhotoFormat) throws(ArchiverError) {
        guard format != .jpeg else { return try PhotoCodec.start() }
        guard try PhotoCodec.writableFormats().contains(format) else {
            throw ArchiverError(
                // TRANSLATORS: %@ is a format name: WEBP, AVIF, HEIC.
                .notAnArchive, tr("This system's libvips cannot write %@ files.", format.rawValue.uppercased()),
                hint: format == .heic || format == .avif
                    ? tr("Install libheif1 with its encoders (libx265, libaom), or use --format jpeg.") : tr("Use --format jpeg."))
        }
    }

    private static func notify(_ desktop: DesktopFeedback, result: PhotoBatchResult, plan: PhotoPlan, failures: [ArchiverError]) {
        let photos = result.photos
        var lines = [PhotoSummary.line(photos: photos.count, inputBytes: result.inputBytes, outputBytes: result.outputBytes)]
        if let root = plan.roots.first {
            let folder = plan.createdFolders.isEmpty ? root.removingLastComponent() : root
            // TRANSLATORS: a line of its own under the result: the folder the copies are in.
            lines.append(tr("in %@", folder))
        }
        let kept = photos.count { $0.outcome == .kept }
        if kept > 0 { lines.append(PhotoReport.kept(kept)) }
        if !failures.isEmpty {
            let names = failures.prefix(3).map { failure in
                failure.path.map { Text.verbatim(FilePath($0).lastComponent?.string ?? $0) } ?? failure.message
            }
            let list = Text.sentences(names + (failures.count > 3 ? [.verbatim("…")] : []), separator: ", ")
            // TRANSLATORS: %2$@ names up to three photos: “a.jpg, b.jpg, c.jpg, …”.
            lines.append(ntr("%1$ld could not be compressed: %2$@", "%1$ld could not be compressed: %2$@", failures.count, list))
        }
        let single = photos.count == 1 && plan.createdFolders.isEmpty ? photos.first?.output : nil
        let item = plan.createdFolders.first ?? photos.first?.output
        let name = photos.count == 1 ? photos[0].source.lastComponent?.string : nil
        desktop.succeeded(
            summary: (name.map { tr("Compressed %@", $0) } ?? ntr("Compressed %ld photo", "Compressed %ld photos", photos.count)).localized,
            body: Text.sentences(lines, separator: "\n").localized, item: item, attachable: single,
            recent: plan.createdFolders.isEmpty ? item.map { (mimeType: RecentFiles.guessedType(of: $0), exec: "xdg-open %u") } : nil,
            originalSize: single != nil ? photos.first?.inputBytes : nil)
    }

    /// The progress line: `12 of 48 photos  IMG_1234.jpg  35 MB saved` on the terminal, and in two lines in the
    /// notification.
    private static func lines(_ progress: PhotoProgress) -> (terminal: String, desktop: String) {
        // TRANSLATORS: the photo being worked on (%2$ld) of all (%1$ld), in a progress line. English says “1 of 1 photos”.
        let counts = ntr("%2$ld of %1$ld photos", "%2$ld of %1$ld photos", progress.total, min(progress.finished + 1, progress.total))
        let saved = progress.saved > 0 ? tr("%@ saved", .bytes(progress.saved)) : nil
        let name = Text.verbatim(progress.current.displayName)
        let terminalLine = Text.sentences([counts, name] + (saved.map { [$0] } ?? []), separator: "  ")
        let desktopLine = Text.sentences([Text.sentences([counts] + (saved.map { [$0] } ?? []), separator: "  "), name], separator: "\n")
        return (terminalLine.localized, desktopLine.localized)
    }
}
