import ArchiverCore
import Glibc
import SystemPackage

/// The git work tree a selection is in, and the ignore rules git applies to it: `.gitignore` files of the
/// folders above the selection, `info/exclude`, and the user's `core.excludesFile`. With git installed it
/// also knows the tracked files, which git never ignores.
package struct GitWorkTree {
    /// The folder holding `.git`.
    package let root: FilePath
    /// `info/exclude`, then `core.excludesFile`: the least important lists, below every `.gitignore`.
    package let repositoryLists: [IgnoreList]
    /// Tracked files' paths from `root`, and every folder holding one; nil without git.
    package let tracked: Set<[UInt8]>?
    /// Said in the result: without git, `core.excludesFile` could not be asked for.
    package let note: JobWarning?

    /// The work tree holding `path` (itself a folder, or the folder of a file), or nil outside of one.
    package static func containing(_ path: FilePath, isDirectory: Bool, environment: ProcessEnvironment) -> GitWorkTree? {
        var folder = isDirectory ? path : path.removingLastComponent()
        while true {
            let dotGit = folder.appending(".git")
            if let info = FileSystem.status(dotGit), FileSystem.isDirectory(info) || FileSystem.isRegular(info) {
                return GitWorkTree(root: folder, dotGit: dotGit, isDirectory: FileSystem.isDirectory(info), environment: environment)
            }
            guard !folder.components.isEmpty else { return nil }
            folder = folder.removingLastComponent()
        }
    }

    private init(root: FilePath, dotGit: FilePath, isDirectory: Bool, environment: ProcessEnvironment) {
        self.root = root
        let git = Programs.installed("git")
        var lists: [IgnoreList] = []
        // A linked work tree or submodule has a `.git` file naming its git folder; `commondir` leads from a
        // linked work tree's folder to the repository's, where `info/exclude` is.
        var gitFolder = dotGit
        if !isDirectory, let text = FileSystem.wholeFile(dotGit, limit: 4096), text.starts(with: Array("gitdir: ".utf8)) {
            let named = FilePath(String(decoding: text.dropFirst(8).prefix { $0 != 10 && $0 != 13 }, as: UTF8.self))
            gitFolder = named.isAbsolute ? named : root.pushing(named).lexicallyNormalized()
        }
        if let common = FileSystem.wholeFile(gitFolder.appending("commondir"), limit: 4096) {
            let named = FilePath(String(decoding: common.prefix { $0 != 10 && $0 != 13 }, as: UTF8.self))
            gitFolder = named.isAbsolute ? named : gitFolder.pushing(named).lexicallyNormalized()
        }
        if let text = FileSystem.wholeFile(gitFolder.appending("info/exclude"), limit: 1 << 20) {
            lists.append(IgnoreList(base: [], patterns: IgnorePattern.lines(of: text)))
        }
        let defaultExcludes = BaseFolders(home: environment.home, environment: environment.variables).config
            .appending("git/ignore")
        var excludesFile = defaultExcludes
        var note: JobWarning?
        if let git {
            if let configured = Self.output(git, root: root, ["config", "--path", "--get", "core.excludesFile"]), !configured.isEmpty {
                let path = FilePath(String(decoding: configured.prefix { $0 != 10 }, as: UTF8.self))
                excludesFile = path.isAbsolute ? path : root.pushing(path)
            }
            tracked = Self.output(git, root: root, ["ls-files", "-z", "--cached"]).map(Self.trackedSet)
        } else {
            tracked = nil
            note = JobWarning(
                "git-not-installed",
                // TRANSLATORS: %@ is the user's global git ignore file (~/.config/git/ignore).
                tr("git is not installed, so only “%@” was read of your own ignore rules, not a core.excludesFile set in git’s configuration.", defaultExcludes))
        }
        if let text = FileSystem.wholeFile(excludesFile, limit: 1 << 20) {
            lists.append(IgnoreList(base: [], patterns: IgnorePattern.lines(of: text)))
        }
        repositoryLists = lists
        self.note = note
    }

    /// The path of `item` from the root, without a leading `/`; nil when it is not inside.
    package func relative(_ item: FilePath) -> [UInt8]? {
        let rootBytes = root.bytes
        let bytes = item.bytes
        if bytes == rootBytes { return [] }
        let prefix = rootBytes.last == UInt8(ascii: "/") ? rootBytes : rootBytes + [UInt8(ascii: "/")]
        guard bytes.starts(with: prefix) else { return nil }
        return Array(bytes.dropFirst(prefix.count))
    }

    /// The `.gitignore` of a folder inside the tree as a list, or nil when it has none.
    package func list(of folder: FilePath, relative: [UInt8]) -> IgnoreList? {
        guard let text = FileSystem.wholeFile(folder.appending(".gitignore"), limit: 1 << 20) else { return nil }
        return IgnoreList(base: relative, patterns: IgnorePattern.lines(of: text))
    }

    /// What `git -C root ARGS` writes; nil when it fails.
    private static func output(_ git: FilePath, root: FilePath, _ arguments: [String]) -> [UInt8]? {
        var bytes: [UInt8] = []
        let outcome = try? ChildProcess.run(
            git, [Array("-C".utf8), root.bytes] + arguments.map { Array($0.utf8) }, environment: [], input: .nothing,
            control: nil, forJob: false
        ) { bytes += $0 }
        guard let outcome, outcome.status == 0 else { return nil }
        return bytes
    }

    /// Every tracked path and every folder above one: a folder git ignores still shows its tracked files.
    private static func trackedSet(_ listing: [UInt8]) -> Set<[UInt8]> {
        var set: Set<[UInt8]> = []
        for path in listing.split(separator: 0) {
            set.insert(Array(path))
            var end = path.endIndex
            while let slash = path[path.startIndex..<end].lastIndex(of: UInt8(ascii: "/")) {
                guard set.insert(Array(path[path.startIndex..<slash])).inserted else { break }
                end = slash
            }
        }
        return set
    }
}
