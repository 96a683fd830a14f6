import ArchiveEngine
import ArchiverCore
import ArgumentParser
import JobKit
import JobProtocol
import SystemPackage

/// `--convert`: each archive given is written again in `--format` beside it; the batch goes on past a failure.
extension CompressCommand {
    func convertArchives(
        _ archives: [FilePath], format: ArchiveFormat, level: CompressionLevel, settings: ArchiverSettings
    ) throws -> Never {
        let what = JobSubject(archives)
        let target: Result<Secret?, ArchiverError> = Result { () throws(ArchiverError) in
            try encrypt ? Self.password(for: what, format: format, fromStandardInput: passwordStdin) : nil
        }
        let session = JobSession(
            operation: CompressOutcome.operation, job: job, events: events, label: tr("Converting"),
            title: what.say({ tr("Converting “%@”", $0) }, { ntr("Converting %ld archive", "Converting %ld archives", $0) }),
            couldNot: what.say({ tr("Could not convert “%@”", $0) }, { ntr("Could not convert %ld archive", "Could not convert %ld archives", $0) }),
            settings: settings)
        let password = try target.get(or: session)
        // One line of standard input is one password: the source's, and the new archive's with --encrypt.
        let sources =
            if passwordStdin, let password { PasswordAsker(attempts: 1) { _, _ throws(ArchiverError) in password } }
            else { Passwords.asker(fromStandardInput: passwordStdin, nothingMade: tr("nothing was converted")) }
        let verifies = finishing.verifies(settings)
        var made: [CompressResult] = []
        var failures: [ArchiverError] = []
        for archive in archives {
            do throws(ArchiverError) {
                let result = try ArchiveConverter.run(
                    archive: archive, format: format, level: level, passwords: sources.notCounted(by: session.control),
                    password: password, comment: format == .zip ? finishing.comment.map { Array($0.utf8) } : nil, control: session.control,
                    progress: session.progressHandler,
                    beforePublishing: finishing.finishing(password: password, verifies: verifies, control: session.control))
                session.endProgress()
                for warning in result.warnings { session.warn(warning) }
                made.append(result)
                session.tally.succeeded += 1
            } catch {
                session.itemFailed(error)
                failures.append(error)
                if error.code == .cancelled || error.code == .budget { break }
            }
        }
        guard !made.isEmpty else { throw session.failed(failures[0]) }
        if !session.json { Self.describe(made) }
        var outcome = Self.outcome(made, failure: failures.first)
        outcome.verified = verifies
        throw session.finish(outcome: outcome) { Self.notify(session.desktop, made: made, failures: failures) }
    }
}
