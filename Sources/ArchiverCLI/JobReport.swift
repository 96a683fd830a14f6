import ArchiveEngine
import ArchiverCore
import ArgumentParser

/// How a job tells its outcome: sentences for a person (results on stdout, problems on stderr), or one
/// JSON object on stdout for a script. Errors and warnings always reach stderr.
package final class JobReport {
    let operation: String
    let json: Bool
    private var warnings: [JobWarning] = []

    package init(operation: String, json: Bool) {
        self.operation = operation
        self.json = json
    }

    package func warn(_ warning: JobWarning) {
        warnings.append(warning)
        printError("warning: \(warning.text.localized)")
    }

    // Glue until every caller passes a JobWarning with its own code.
    package func warn(_ text: String) {
        warn(JobWarning("warning", .verbatim(text)))
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
            let made = result.parts.count > 1 ? "\(result.output.removingLastComponent())/\(Self.outputName(result))" : "\(result.output)"
            let line = "Created \(made): \(HumanFormat.bytes(result.size))\(Self.saving(result))"
            print(line + " (\(countWords(files: result.files, folders: result.folders, symlinks: result.symlinks))).")
        }
    }

    /// The archive's file name, or a split one's first and last parts: `x.zip.001 … x.zip.003 (3 parts)`.
    static func outputName(_ result: CompressResult) -> String {
        let name = result.output.lastComponent?.string ?? result.output.string
        guard result.parts.count > 1, let last = result.parts.last?.lastComponent?.string else { return name }
        return "\(name) … \(last) (\(result.parts.count) parts)"
    }

    /// `, 41 % smaller`, or nothing when the archive is not smaller than its input.
    static func saving(_ result: CompressResult) -> String {
        guard result.inputBytes > 0 else { return "" }
        let saving = 100 - Int((Double(result.size) * 100 / Double(result.inputBytes)).rounded())
        return saving > 0 ? ", \(saving) % smaller" : ""
    }

    package func failed(_ error: ArchiverError, elapsed: Double) {
        printProblem(error)
        guard json else { return }
        let fields: [(String, JSON)] =
            operation == "compress"
            ? [("outputs", .array([])), ("error", Self.json(error))]
            : [("results", .array([])), ("error", Self.json(error))]
        emit(exitCode: error.code.exitStatus, elapsed: elapsed, fields)
    }

    /// Writes the one JSON object.
    package func emit(exitCode: Int32, elapsed: Double, _ fields: [(String, JSON)]) {
        let head: [(String, JSON)] = [
            ("operation", .string(operation)), ("exitCode", .int(Int64(exitCode))),
            ("durationSeconds", .double((elapsed * 1000).rounded() / 1000)),
        ]
        let notes: [(String, JSON)] = [
            ("warnings", .array(warnings.map { .string($0.text.english) })),
            ("warningCodes", .array(warnings.map { .string($0.code) })),
        ]
        print(JSON.object(head + fields + notes).rendered)
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

func countWords(files: Int, folders: Int, symlinks: Int) -> String {
    var parts = ["\(files) file\(files == 1 ? "" : "s")"]
    if folders > 0 { parts.append("\(folders) folder\(folders == 1 ? "" : "s")") }
    if symlinks > 0 { parts.append("\(symlinks) symlink\(symlinks == 1 ? "" : "s")") }
    return parts.joined(separator: ", ")
}
