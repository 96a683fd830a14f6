import ArchiverCore
import ArgumentParser

/// `compress-with-archiver`'s choice of what to leave out of the archive: each flag turns its setting's
/// default on or off for one call; `--exclude` adds patterns.
struct LeaveOutOptions: ParsableArguments {
    // TRANSLATORS: PATTERN is the placeholder of the usage line; keep it, and /build and .gitignore.
    @Option(help: ArgumentHelp(tr("Leave out what matches PATTERN, in .gitignore syntax, relative to each folder given (/build is that folder's build); repeatable."), valueName: "PATTERN"))
    var exclude: [String] = []

    @Flag(inversion: .prefixedNo, help: ArgumentHelp(tr("Leave out version-control folders: .git, .hg, .svn, … (default: the exclude-vcs setting, off).")))
    var excludeVcs: Bool?

    @Flag(inversion: .prefixedNo, help: ArgumentHelp(tr("Leave out OS junk: .DS_Store, ._* beside a file, Thumbs.db, desktop.ini, .Trash-* (default: the exclude-junk setting, on).")))
    var excludeJunk: Bool?

    @Flag(inversion: .prefixedNo, help: ArgumentHelp(tr("Leave out build and cache folders (__pycache__, target beside a Cargo.toml, a venv, .gradle, …) and editor leftovers (*~, .*.swp) (default: the exclude-caches setting, off).")))
    var excludeCaches: Bool?

    @Flag(inversion: .prefixedNo, help: ArgumentHelp(tr("Leave out node_modules folders (default: the exclude-node-modules setting, off).")))
    var excludeNodeModules: Bool?

    @Flag(inversion: .prefixedNo, help: ArgumentHelp(tr("Leave out what git ignores, and .git, inside a git work tree: every .gitignore, .git/info/exclude and your core.excludesFile (default: the follow-gitignore setting, off).")))
    var gitignore: Bool?

    init() {}

    func validate() throws {
        for text in exclude where IgnorePattern(line: Array(text.utf8)) == nil {
            throw ValidationError(tr("--exclude “%@” is no pattern: it is empty, a comment or only “!” or “/”.", text).localized)
        }
    }

    /// The rules for this call: the settings, changed by the flags given.
    func choice(_ settings: ArchiverSettings) -> LeaveOutChoice {
        LeaveOutChoice.make(
            settings: settings, vcs: excludeVcs, junk: excludeJunk, caches: excludeCaches, nodeModules: excludeNodeModules,
            gitignore: gitignore,
            patterns: exclude.compactMap { IgnorePattern(line: Array($0.utf8)) })
    }
}

extension LeaveOutOptions {
    /// What the reports of several archives left out, per rule, for `--json`.
    static func figures(_ reports: [LeaveOutReport]) -> [String: LeaveOutFigures] {
        var figures: [String: LeaveOutFigures] = [:]
        for report in reports {
            for (rule, counted) in report.leftOut {
                figures[rule.rawValue, default: .init()].items += counted.items
                figures[rule.rawValue, default: .init()].bytes += counted.bytes
            }
        }
        return figures
    }
}
