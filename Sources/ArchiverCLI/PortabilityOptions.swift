import ArchiveEngine
import ArchiverCore
import ArgumentParser
import JobKit
import JobProtocol

/// `--check` and `--portable`: "will it open for them?" before the archive is written.
struct PortabilityOptions: ParsableArguments {
    @Flag(help: ArgumentHelp(tr("Check whether the archive would open on Windows, macOS and a FAT drive, print what would not, and write nothing: exit 0 when all is well, 1 with the list.")))
    var check = false

    @Flag(help: ArgumentHelp(tr("Make the archive open everywhere: rename what Windows cannot create (CON.txt → CON_.txt, a:b → a_b, names differing only in capitals → “ (2)”) and leave out symlinks; the renames are listed.")))
    var portable = false

    init() {}

    func validate() throws {
        if check, portable { throw ValidationError(tr("Use either --check or --portable, not both.").localized) }
    }

    func mode(encrypted: Bool) -> PortabilityMode {
        check ? .check(encrypted: encrypted) : portable ? .fix : .off
    }
}

extension CompressCommand {
    /// Says each problem `--check` found as a warning (stderr, `--json`'s warnings, exit status 1), or
    /// that there is none; or, after `--portable`, the renames made and the problems left.
    static func sayPortability(_ made: [CompressResult], session: JobSession, checkOnly: Bool) {
        for result in made {
            for problem in result.problems where checkOnly || !problem.isFixable {
                session.warn(JobWarning(problem.kind.rawValue, problem.message))
            }
            guard !session.json else { continue }
            for rename in result.renames {
                // TRANSLATORS: --portable renamed an entry of the archive: %1$@ its old path, %2$@ the new.
                print(tr("Renamed “%1$@” to “%2$@” in the archive.", rename.from.displayName, rename.to.displayName).localized)
            }
            if checkOnly, result.problems.isEmpty, !result.warnings.contains(where: { $0.code == "special-file-skipped" }) {
                // TRANSLATORS: %@ is the archive --check looked at; nothing was written.
                print(tr("“%@” would open on Windows, macOS and Linux; nothing was written.", result.output.lastComponent?.string ?? "").localized)
            }
        }
    }
}
