import ArchiverCore
import ArgumentParser
import JobProtocol

/// How a job tells its outcome: sentences for a person (results on stdout, problems on stderr), or one
/// JSON object on stdout for a script (with `--progress-json`, the last line of the event stream).
/// Errors and warnings always reach stderr, in the user's language.
package final class JobReport {
    let operation: String
    package let json: Bool
    let events: EventStream?
    private var warnings: [JobWarning] = []

    /// - Parameter events: `--progress-json`'s stream, which then gets the warnings and the result.
    package init(operation: String, json: Bool, events: EventStream? = nil) {
        self.operation = operation
        self.json = json || events != nil
        self.events = events
    }

    package func warn(_ warning: JobWarning) {
        warnings.append(warning)
        printWarning(warning.text)
        events?.warning(warning)
    }

    /// A failure before anything was made: stderr, and the result with the tool's empty list and the error.
    package func failed(_ error: ArchiverError, elapsed: Double) {
        printProblem(error)
        guard json else { return }
        let list = switch operation {
        case CompressOutcome.operation: "outputs"
        case ListOutcome.operation: "archives"
        default: "results"
        }
        emit(exitCode: error.code.exitStatus, elapsed: elapsed, [(list, .array([])), ("error", ErrorReport(error).json)])
    }

    /// Writes the one JSON object (the result event with `--progress-json`).
    package func emit(exitCode: Int32, elapsed: Double, _ fields: [(String, JSON)]) {
        let result = JobResult(
            operation: operation, exitCode: exitCode, durationSeconds: elapsed, fields: fields,
            warnings: warnings.map(WarningEvent.init))
        if let events { events.result(result) } else { print(result.json.rendered) }
    }
}

extension WarningEvent {
    /// A warning as scripts read it: its code and its English text.
    package init(_ warning: JobWarning) { self.init(code: warning.code, message: warning.text.english) }
}

/// An error for a person on stderr: the sentence, then the hint on its own line.
package func printProblem(_ error: ArchiverError) {
    printError(error.message.localized + (error.hint.map { "\n\($0.localized)" } ?? ""))
}

/// A warning for a person on stderr: `warning: …`.
package func printWarning(_ text: Text) {
    // TRANSLATORS: the start of a line on standard error, as in GNU tools; %@ is the warning.
    printError(tr("warning: %@", text).localized)
}

/// What a job made or found: `3 files, 1 folder, 2 symlinks` (folders and symlinks only when there are any).
package func countWords(files: Int, folders: Int, symlinks: Int) -> Text {
    var parts = [ntr("%ld file", "%ld files", files)]
    if folders > 0 { parts.append(ntr("%ld folder", "%ld folders", folders)) }
    if symlinks > 0 { parts.append(ntr("%ld symlink", "%ld symlinks", symlinks)) }
    return Text.sentences(parts, separator: ", ")
}
