import ArchiveEngine
import ArchiverCLI
import ArchiverCore
import ArgumentParser
import Glibc
import PDFEngine
import Platform
import SystemPackage

extension CompressPDFCommand {
    /// `--estimate`: the size of the copy at each level, for one PDF; nothing is written.
    func runEstimate() throws -> Never {
        var raw = RawArguments.current()
        let input = raw.path(for: files[0])
        let clock = ContinuousClock()
        let start = clock.now
        let elapsed = { (clock.now - start).inSeconds }
        let report = JobReport(operation: "estimate-pdf", json: job.json)
        let passwords = Passwords.asker(fromStandardInput: passwordStdin, nothingMade: tr("nothing was estimated"))
        let estimate: PDFEstimate
        do {
            estimate = try PDFEstimator.run(input: input, passwords: passwords)
        } catch {
            printProblem(error)
            if job.json {
                let seconds = elapsed()
                report.emit(
                    exitCode: error.code.exitStatus, elapsed: seconds,
                    [
                        ("elapsed", .double(Self.rounded(seconds))), ("path", .string(input.madeAbsolute.string)),
                        ("levels", .array([])), ("error", JobReport.json(error)),
                    ])
            }
            throw ExitCode(error.code.exitStatus)
        }
        if job.json {
            let seconds = elapsed()
            report.emit(exitCode: ExitStatus.success, elapsed: seconds, Self.json(estimate, elapsed: seconds))
        } else {
            print(Self.describe(estimate).localized)
        }
        throw ExitCode(ExitStatus.success)
    }

    static func rounded(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }

    /// The `--estimate --json` fields after the shared head (`operation`, `exitCode`, `durationSeconds`).
    static func json(_ estimate: PDFEstimate, elapsed: Double) -> [(String, JSON)] {
        let levels = estimate.levels.map { level in
            JSON.object([
                ("quality", .string(level.quality.rawValue)), ("dpi", .int(Int64(level.quality.dpi))),
                ("jpegQuality", .int(Int64(level.quality.jpegQuality))), ("estimatedSize", .int(level.estimatedBytes)),
                ("helps", .bool(level.helps)),
            ])
        }
        return [
            ("elapsed", .double(rounded(elapsed))), ("path", .string(estimate.input.string)),
            ("size", .int(estimate.inputBytes)), ("pages", .int(Int64(estimate.pages))),
            ("encrypted", .bool(estimate.encrypted)), ("alreadyOptimal", .bool(estimate.alreadyOptimal)),
            ("imagesPlaced", .int(Int64(estimate.imagesPlaced))),
            ("imagesResampled", .int(Int64(estimate.imagesResampled))), ("levels", .array(levels)),
            ("error", .null),
        ]
    }

    /// `report.pdf: 8 pages, 35.4 MB`, then one line per level, `Medium (150 dpi, JPEG 50)   about 1.4 MB (96 % smaller)`.
    static func describe(_ estimate: PDFEstimate) -> Text {
        let name = estimate.input.lastComponent?.string ?? estimate.input.string
        // TRANSLATORS: the first line of --estimate: a PDF's name, its pages and its size.
        var lines = [ntr("%2$@: %1$ld page, %3$@", "%2$@: %1$ld pages, %3$@", estimate.pages, name, .bytes(estimate.inputBytes))]
        let labels = estimate.levels.map { $0.quality.label.localized }
        let width = labels.map(\.count).max() ?? 0
        for (level, label) in zip(estimate.levels, labels) {
            let padded = label + String(repeating: " ", count: width - label.count)
            let size: Text =
                if level.estimatedBytes >= estimate.inputBytes {
                    // TRANSLATORS: --estimate, a level whose copy would not be smaller: the original (its size) is kept.
                    tr("%@, the original is kept", .bytes(estimate.inputBytes))
                } else if level.helps {
                    // TRANSLATORS: --estimate: the estimated size of the copy, and how much smaller (“96 % smaller”).
                    tr("about %1$@ (%2$@)", .bytes(level.estimatedBytes), PDFNaming.saving(before: estimate.inputBytes, after: level.estimatedBytes))
                } else {
                    // TRANSLATORS: --estimate: a copy barely smaller than the original, not worth its loss of quality.
                    tr("about %1$@ (%2$@, not worth it)", .bytes(level.estimatedBytes), PDFNaming.saving(before: estimate.inputBytes, after: level.estimatedBytes))
                }
            lines.append(.verbatim("  \(padded)   \(size.localized)"))
        }
        if estimate.alreadyOptimal {
            lines.append(tr("“%@” is already optimal: no level would make it meaningfully smaller.", name))
        }
        return Text.sentences(lines, separator: "\n")
    }
}
