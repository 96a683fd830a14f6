import JobKit
import JobProtocol
import ArchiverCore
import PhotoEngine
import SystemPackage

/// The outcome for a person (a summary on stdout, each failure on stderr) or one JSON object for a script.
final class PhotoReport {
    private let json: Bool
    private let base: JobReport

    init(_ base: JobReport) {
        self.json = base.json
        self.base = base
    }

    func warn(_ warning: JobWarning) { base.warn(warning) }

    var isJSON: Bool { json }

    func emit(exitCode: Int32, elapsed: Double, _ fields: [(String, JSON)]) { base.emit(exitCode: exitCode, elapsed: elapsed, fields) }

    func failed(_ error: ArchiverError, elapsed: Double) {
        printProblem(error)
        guard json else { return }
        let outcome = PhotoOutcome(outputs: [], photos: nil, failures: [], error: ErrorReport(error))
        base.emit(exitCode: error.code.exitStatus, elapsed: elapsed, outcome.fields)
    }

    /// The batch's result; `error` says why it stopped early (cancelled, out of time), if it did.
    func finished(
        _ result: PhotoBatchResult, plan: PhotoPlan, failures: [ArchiverError], exitCode: Int32, error: ArchiverError?,
        elapsed: Double
    ) {
        for failure in failures { printProblem(failure) }
        if let error { printProblem(error) }
        let photos = result.photos
        let kept = photos.count { $0.outcome == .kept }
        if json {
            var outcome = PhotoOutcome(
                outputs: result.items.map(PhotoEvents.copy), photos: Int64(photos.count),
                failures: failures.map { PhotoOutcome.Failure(path: $0.file ?? $0.path.map { FilePath($0) }, error: ErrorReport($0)) }, error: error.map(ErrorReport.init))
            outcome.kept = Int64(kept)
            outcome.inputBytes = result.inputBytes
            outcome.outputBytes = result.outputBytes
            outcome.resumed = Int64(result.resumed)
            base.emit(exitCode: exitCode, elapsed: elapsed, outcome.fields)
            return
        }
        guard !photos.isEmpty else { return }
        let line = PhotoSummary.line(photos: photos.count, inputBytes: result.inputBytes, outputBytes: result.outputBytes)
        if !plan.createdFolders.isEmpty {
            // TRANSLATORS: a folder's path in quotes, one of a list.
            let folders = Text.sentences(plan.createdFolders.map { tr("“%@”", $0) }, separator: ", ")
            // TRANSLATORS: the batch's summary (“48 photos, 212 MB → 31 MB (85 % smaller)”), then the folders made.
            print(tr("%1$@ in %2$@.", line, folders).localized)
        } else if photos.count == 1 {
            // TRANSLATORS: the summary (“1 photo, 3.1 MB → 420 kB (86 % smaller)”), then the copy made.
            print(tr("%1$@: “%2$@”.", line, photos[0].output).localized)
        } else {
            // TRANSLATORS: a phrase made a sentence: “48 photos, 212 MB → 31 MB (85 % smaller)”, “3 already small, kept as they were”.
            print(tr("%@.", line).localized)
        }
        if kept > 0 { print(tr("%@.", Self.kept(kept)).localized) }
        if !failures.isEmpty {
            print(ntr("%ld could not be compressed (named above).", "%ld could not be compressed (named above).", failures.count).localized)
        }
    }

    /// `3 already small, kept as they were`: photos whose copy would not have been smaller.
    static func kept(_ count: Int) -> Text {
        ntr("%ld already small, kept as it was", "%ld already small, kept as they were", count)
    }
}
