import ArchiveEngine
import ArchiverCore
import ArgumentParser
import JobKit
import JobProtocol
import SystemPackage

/// `--test`: every archive read through to its end, nothing written. Each damaged archive counts as a failed
/// item of the batch (exit 5 when all are, 1 when some are).
extension ExtractCommand {
    func testArchives(_ archives: [FilePath]) -> ExitCode {
        let what = JobSubject(archives)
        let couldNot = what.say({ tr("Could not test “%@”", $0) }, { ntr("Could not test %ld archive", "Could not test %ld archives", $0) })
        let session = JobSession(
            operation: TestOutcome.operation, job: job, events: events, label: tr("Testing"),
            title: what.say({ tr("Testing “%@”", $0) }, { ntr("Testing %ld archive", "Testing %ld archives", $0) }),
            couldNot: couldNot, watchesProgress: true)
        let passwords = Passwords.asker(fromStandardInput: passwordStdin, nothingMade: tr("nothing was tested")).notCounted(by: session.control)
        var results: [TestOutcome.Archive] = []
        var intact = 0
        var failures: [ArchiverError] = []
        for archive in archives {
            var outcome = TestOutcome.Archive(archive: archive.string)
            do throws(ArchiverError) {
                let result = try ArchiveTester.run(
                    archive: archive, passwords: passwords, names: encoding.flatMap(NameDecoder.init), control: session.control,
                    progress: session.progressHandler)
                session.endProgress()
                outcome.format = result.format
                outcome.checked = Int64(result.checked)
                outcome.damaged = result.damaged
                if let error = Self.damage(archive, result) {
                    session.itemFailed(error)
                    failures.append(error)
                    outcome.error = ErrorReport(error)
                } else {
                    session.tally.succeeded += 1
                    intact += 1
                    if !session.json { print(Self.intact(archive, result).localized) }
                }
            } catch {
                session.itemFailed(error)
                failures.append(error)
                outcome.error = ErrorReport(error)
                results.append(outcome)
                if error.code == .cancelled || error.code == .budget { break }
                continue
            }
            results.append(outcome)
        }
        if let failure = failures.first {
            session.desktop.failed(summary: couldNot.localized, failure)
        } else {
            session.desktop.succeeded(
                summary: what.say({ tr("“%@” is intact", $0) }, { ntr("%ld archive is intact", "All %ld archives are intact", $0) }).localized,
                body: "", item: nil)
        }
        return session.finish(outcome: TestOutcome(results: results))
    }

    /// “x.zip”: all 1,204 files are intact.
    static func intact(_ archive: FilePath, _ result: TestResult) -> Text {
        let name = archive.lastComponent?.string ?? archive.string
        // TRANSLATORS: %1$ld is how many files were read and checked, %2$@ the archive.
        return ntr("“%2$@”: its %1$ld file is intact.", "“%2$@”: all %1$ld files are intact.", result.checked, name)
    }

    /// The error for a damaged archive, naming its first damaged entry; nil when it is intact.
    static func damage(_ archive: FilePath, _ result: TestResult) -> ArchiverError? {
        guard let first = result.damaged.first else { return nil }
        let name = archive.lastComponent?.string ?? archive.string
        let message =
            first.path == name
            // TRANSLATORS: %1$ld files were checked; %2$@ is the archive, %3$@ what is wrong (“a checksum does not match”).
            ? ntr("“%2$@” is damaged: %3$@ (%1$ld file checked).", "“%2$@” is damaged: %3$@ (%1$ld files checked).", result.checked, name, first.reason)
            // TRANSLATORS: %1$ld files were checked; %2$@ is the archive, %3$@ its first damaged entry, %4$@ what is wrong (“a checksum does not match”).
            : ntr("“%2$@” is damaged at “%3$@”: %4$@ (%1$ld file checked).", "“%2$@” is damaged at “%3$@”: %4$@ (%1$ld files checked).", result.checked, name, first.path, first.reason)
        let hint =
            result.damaged.count > 1
            // TRANSLATORS: %ld more entries are damaged besides the one named.
            ? ntr("%ld more entry is damaged too; --json lists them all. Get the archive again or restore it from a backup.", "%ld more entries are damaged too; --json lists them all. Get the archive again or restore it from a backup.", result.damaged.count - 1)
            : tr("Get the archive again or restore it from a backup.")
        return ArchiverError(.corrupt, message, hint: hint, path: archive.string)
    }
}
