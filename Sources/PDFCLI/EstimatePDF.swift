import Platform
import JobKit
import JobProtocol
import ArchiverCore
import ArgumentParser
import Glibc
import PDFEngine
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
                let outcome = PDFEstimateOutcome(elapsed: elapsed(), path: input.madeAbsolute.string, error: ErrorReport(error))
                report.emit(exitCode: error.code.exitStatus, elapsed: outcome.elapsed, outcome.fields)
            }
            throw ExitCode(error.code.exitStatus)
        }
        if job.json {
            let seconds = elapsed()
            report.emit(exitCode: ExitStatus.success, elapsed: seconds, Self.outcome(estimate, elapsed: seconds).fields)
        } else {
            print(Self.describe(estimate).localized)
        }
        throw ExitCode(ExitStatus.success)
    }

    /// The `--estimate --json` outcome after the shared head (`operation`, `exitCode`, `durationSeconds`).
    static func outcome(_ estimate: PDFEstimate, elapsed: Double) -> PDFEstimateOutcome {
        var outcome = PDFEstimateOutcome(elapsed: elapsed, path: estimate.input.string, error: nil)
        outcome.size = estimate.inputBytes
        outcome.pages = Int64(estimate.pages)
        outcome.encrypted = estimate.encrypted
        outcome.alreadyOptimal = estimate.alreadyOptimal
        outcome.imagesPlaced = Int64(estimate.imagesPlaced)
        outcome.imagesResampled = Int64(estimate.imagesResampled)
        outcome.levels = estimate.levels.map {
            .init(
                quality: $0.quality.rawValue, dpi: Int64($0.quality.dpi), jpegQuality: Int64($0.quality.jpegQuality),
                estimatedSize: $0.estimatedBytes, helps: $0.helps)
        }
        return outcome
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
