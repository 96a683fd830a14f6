import ArchiveEngine
import ArchiverCore
import ArgumentParser
import JobKit
import JobProtocol

/// `--check`, `--portable` and `--fix`: "will it open for them?" before the archive is written; and what
/// becomes of symlinks.
struct PortabilityOptions: ParsableArguments {
    @Flag(help: ArgumentHelp(tr("Check whether the archive would open on Windows, macOS and a FAT drive, print what would not, and write nothing: exit 0 when all is well, 1 with the list.")))
    var check = false

    @Flag(help: ArgumentHelp(tr("Make the archive open everywhere: rename what Windows cannot create (CON.txt → CON_.txt, a:b → a_b, names differing only in capitals → “ (2)”) and leave out symlinks; the renames are listed.")))
    var portable = false

    // TRANSLATORS: CODE is the placeholder of the usage line; keep it and the codes, which are not translated.
    @Option(help: ArgumentHelp(tr("Make one of the fixes --portable makes, named by the code --check --json gives its problem: reserved-name, forbidden-character, trailing-dot-or-space, name-not-utf8, case-clash, symlink (left out); or zip-aes (ZipCrypto instead of AES: opened by Windows and macOS, but weak). Repeatable, or separated by commas."), valueName: "CODE"))
    var fix: [String] = []

    @Flag(inversion: .prefixedNo, help: ArgumentHelp(tr("Store each symbolic link as the file or folder it points to, rather than as a link; a link to nothing or into a loop is left out and said (default: off).")))
    var followSymlinks: Bool?  // optional so that the library adds no untranslated "(default: …)" of its own

    /// Off unless asked for.
    var follows: Bool { followSymlinks ?? false }

    init() {}

    func validate() throws {
        if check, portable { throw ValidationError(tr("Use either --check or --portable, not both.").localized) }
        for code in codes where PortabilityProblem.Kind(rawValue: code).map({ Portability.fixable.contains($0) }) != true {
            let known = Portability.fixable.map(\.rawValue).sorted().joined(separator: ", ")
            throw ValidationError(tr("--fix takes %1$@, not “%2$@”.", known, code).localized)
        }
        if follows, codes.contains(PortabilityProblem.Kind.symlink.rawValue) {
            throw ValidationError(tr("Use either --fix symlink (leave symbolic links out) or --follow-symlinks, not both.").localized)
        }
    }

    private var codes: [String] { fix.flatMap { $0.split(separator: ",") }.map { String($0.filter { $0 != " " }) } }

    /// The fixes chosen: `--portable`'s (symlinks followed rather than left out when asked) and `--fix`'s.
    private var fixes: Set<PortabilityProblem.Kind> {
        var fixes = Set(codes.compactMap(PortabilityProblem.Kind.init(rawValue:)))
        if portable { fixes.formUnion(Portability.portable) }
        if follows { fixes.remove(.symlink) }
        return fixes
    }

    func mode(encrypted: Bool) -> PortabilityMode {
        check ? .check(encrypted: encrypted, fixes: fixes) : fixes.isEmpty ? .off : .fix(fixes)
    }
}

extension CompressCommand {
    /// Says each problem `--check` found as a warning (stderr, `--json`'s warnings, exit status 1), or
    /// that there is none; or, after `--portable` or `--fix`, the renames made (and `--portable`'s problems left).
    static func sayPortability(_ made: [CompressResult], session: JobSession, checkOnly: Bool, portable: Bool) {
        for result in made {
            // --portable says what it could not fix; a fix chosen alone says only its renames.
            for problem in result.problems where checkOnly || portable {
                session.warn(JobWarning(problem.kind.rawValue, problem.message))
            }
            guard !session.json else { continue }
            for rename in result.renames {
                // TRANSLATORS: --portable renamed an entry of the archive: %1$@ its old path, %2$@ the new.
                print(tr("Renamed “%1$@” to “%2$@” in the archive.", rename.from.displayName, rename.to.displayName).localized)
            }
            if checkOnly, result.problems.isEmpty {
                // TRANSLATORS: %@ is the archive --check looked at; nothing was written.
                print(tr("“%@” would open on Windows, macOS and Linux; nothing was written.", result.output.lastComponent?.string ?? "").localized)
            }
        }
    }
}
