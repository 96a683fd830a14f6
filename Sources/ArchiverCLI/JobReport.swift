import ArchiveEngine
import ArchiverCore
import ArgumentParser
import SystemPackage

/// How a job tells its outcome: sentences for a person (results on stdout, problems on stderr), or one
/// JSON object on stdout for a script (with `--progress-json`, the last line of the event stream).
/// Errors and warnings always reach stderr, in the user's language.
package final class JobReport {
    let operation: String
    let json: Bool
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

    /// `warnings` (English) and `warningCodes`, the same warnings in the same order, for a JSON object.
    package static func json(_ warnings: [JobWarning]) -> [(String, JSON)] {
        [("warnings", .array(warnings.map { .string($0.text.english) })), ("warningCodes", .array(warnings.map { .string($0.code) }))]
    }

    /// The archives made (several with `--each`), and the items of an `--each` batch that failed.
    func succeeded(compress results: [CompressResult], failures: [ArchiverError] = [], elapsed: Double) {
        if json {
            let outputs = results.map {
                JSON.object([
                    ("path", .string($0.output.string)), ("size", .int($0.size)),
                    ("parts", .array($0.parts.map { .string($0.string) })),
                ])
            }
            emit(exitCode: warnings.isEmpty && failures.isEmpty ? 0 : 1, elapsed: elapsed, [
                ("outputs", .array(outputs)),
                ("inputBytes", .int(results.reduce(0) { $0 + $1.inputBytes })),
                ("files", .int(Int64(results.reduce(0) { $0 + $1.files }))),
                ("folders", .int(Int64(results.reduce(0) { $0 + $1.folders }))),
                ("symlinks", .int(Int64(results.reduce(0) { $0 + $1.symlinks }))),
                ("error", failures.first.map(Self.json) ?? .null),
            ])
            return
        }
        for result in results {
            let made = result.parts.count > 1 ? Self.outputName(result, in: result.output.removingLastComponent()) : .verbatim("\(result.output)")
            let counts = countWords(files: result.files, folders: result.folders, symlinks: result.symlinks)
            let line =
                if let saving = Self.saving(result) {
                    // TRANSLATORS: %1$@ the archive, %2$@ its size, %3$ld how much smaller than its input, %4$@ “3 files, 1 folder”.
                    tr("Created %1$@: %2$@, %3$ld %% smaller (%4$@).", made, .bytes(result.size), saving, counts)
                } else {
                    tr("Created %1$@: %2$@ (%3$@).", made, .bytes(result.size), counts)
                }
            print(line.localized)
        }
    }

    /// The archive's file name, or a split one's first and last parts: `x.zip.001 … x.zip.003 (3 parts)`.
    /// - Parameter folder: written before the first part, for a line that names the whole path.
    static func outputName(_ result: CompressResult, in folder: FilePath? = nil) -> Text {
        let name = result.output.lastComponent?.string ?? result.output.string
        guard result.parts.count > 1, let last = result.parts.last?.lastComponent?.string else { return .verbatim(name) }
        let first = folder.map { "\($0)/\(name)" } ?? name
        // TRANSLATORS: the first and the last part of a split archive, and how many parts there are.
        return ntr("%2$@ … %3$@ (%1$ld part)", "%2$@ … %3$@ (%1$ld parts)", result.parts.count, first, last)
    }

    /// How many percent smaller than its input the archive is; nil when it is not smaller.
    static func saving(_ result: CompressResult) -> Int? {
        guard result.inputBytes > 0 else { return nil }
        let saving = 100 - Int((Double(result.size) * 100 / Double(result.inputBytes)).rounded())
        return saving > 0 ? saving : nil
    }

    package func failed(_ error: ArchiverError, elapsed: Double) {
        printProblem(error)
        guard json else { return }
        let list = switch operation {
        case "compress": "outputs"
        case "list": "archives"
        default: "results"
        }
        let fields: [(String, JSON)] = [(list, .array([])), ("error", Self.json(error))]
        emit(exitCode: error.code.exitStatus, elapsed: elapsed, fields)
    }

    /// Writes the one JSON object (the result event with `--progress-json`).
    package func emit(exitCode: Int32, elapsed: Double, _ fields: [(String, JSON)]) {
        let head: [(String, JSON)] = [
            ("operation", .string(operation)), ("exitCode", .int(Int64(exitCode))),
            ("durationSeconds", .double((elapsed * 1000).rounded() / 1000)),
        ]
        if let events {
            events.result(head + fields + Self.json(warnings))
        } else {
            print(JSON.object(head + fields + Self.json(warnings)).rendered)
        }
    }

    package static func json(_ error: ArchiverError) -> JSON {
        .object([
            ("code", .int(Int64(error.code.exitStatus))), ("kind", .string(error.code.name)), ("message", .string(error.message.english)),
            ("hint", error.hint.map { .string($0.english) } ?? .null),
        ])
    }
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
func countWords(files: Int, folders: Int, symlinks: Int) -> Text {
    var parts = [ntr("%ld file", "%ld files", files)]
    if folders > 0 { parts.append(ntr("%ld folder", "%ld folders", folders)) }
    if symlinks > 0 { parts.append(ntr("%ld symlink", "%ld symlinks", symlinks)) }
    return Text.sentences(parts, separator: ", ")
}

