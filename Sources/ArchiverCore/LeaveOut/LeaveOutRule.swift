/// Why an item is left out of an archive: each rule can be switched on and off on its own, and the scan
/// counts what each would leave out (the Compress… window's switches, `--json`'s `leftOut`).
public enum LeaveOutRule: String, CaseIterable, Sendable, Hashable, Comparable {
    /// Version-control folders: `.git`, `.hg`, `.svn`, … (setting `exclude-vcs`).
    case vcs
    /// `node_modules` (setting `exclude-node-modules`).
    case nodeModules = "node_modules"
    /// Build and cache folders: `__pycache__`, `target` beside a `Cargo.toml`, … (setting `exclude-caches`).
    case caches
    /// Editor leftovers: `*~`, `.*.swp` (setting `exclude-caches`).
    case editor
    /// OS junk, the list Extract's `skip-junk` uses and more (setting `exclude-junk`).
    case junk
    /// The work tree's `.gitignore` files, `info/exclude` and `core.excludesFile` (setting `follow-gitignore`).
    case gitignore
    /// `.archiverignore` files in the selection, read like `.gitignore`.
    case archiverignore
    /// `--exclude PATTERN`.
    case pattern = "exclude"

    /// The order in which a left-out item is put down to one rule when several match.
    public static func < (a: Self, b: Self) -> Bool {
        (allCases.firstIndex(of: a) ?? 0) < (allCases.firstIndex(of: b) ?? 0)
    }
}

/// What a folder's neighbourhood says about one of its entries: the built-in rules look at siblings
/// (`target` beside a `Cargo.toml`, `._x` beside `x`) and at a folder's contents (`pyvenv.cfg` in a venv).
public struct LeaveOutContext {
    /// Whether the folder holding the entry also holds this name.
    public var hasSibling: ([UInt8]) -> Bool
    /// Whether the entry (a folder) holds this name; asked only of a few candidates.
    public var hasChild: ([UInt8]) -> Bool
    /// Whether the work tree's git rules leave the entry out (`dist` is a cache only then).
    public var isGitIgnored: () -> Bool

    public init(
        hasSibling: @escaping ([UInt8]) -> Bool, hasChild: @escaping ([UInt8]) -> Bool,
        isGitIgnored: @escaping () -> Bool
    ) {
        self.hasSibling = hasSibling
        self.hasChild = hasChild
        self.isGitIgnored = isGitIgnored
    }
}

/// The built-in rules: decided by an entry's name, kind and neighbours, never by its contents.
public enum BuiltInRules {
    private static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// Folders (or, for `.git`, a gitlink file) of version control. `CVS` only with its `Root` file: a
    /// person may well have a folder of that name.
    static let vcsNames: Set<[UInt8]> = Set([".git", ".hg", ".svn", ".bzr", "_darcs", ".jj", ".pijul"].map(bytes))

    /// Cache and build folders that are never a person's own work whatever holds them.
    static let cacheFolders: Set<[UInt8]> = Set(
        ["__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".tox", ".build", ".gradle", ".next"].map(bytes))

    /// Names that are none of the rules' own, whatever their neighbours: neither hidden nor `_…` nor `…~`.
    static let plainCandidates: Set<[UInt8]> = Set(
        ["CVS", "Thumbs.db", "ehthumbs.db", "desktop.ini", "node_modules", "target", "venv", "dist"].map(bytes))

    /// Whether `match` may find a rule for `name`: false for most names, which a scan then skips cheaply.
    public static func mayMatch(_ name: [UInt8]) -> Bool {
        name.first == UInt8(ascii: ".") || name.first == UInt8(ascii: "_") || name.last == UInt8(ascii: "~")
            || plainCandidates.contains(name)
    }

    /// The rule among `vcs`, `nodeModules`, `caches`, `editor` and `junk` that matches an entry, if any.
    /// - Parameters:
    ///   - name: the entry's name.
    ///   - isDirectory: whether it is a folder (not a symlink to one).
    public static func match(_ name: [UInt8], isDirectory: Bool, context: LeaveOutContext) -> LeaveOutRule? {
        if vcsNames.contains(name), isDirectory || name == bytes(".git") { return .vcs }
        if isDirectory, name == bytes("CVS"), context.hasChild(bytes("Root")) { return .vcs }
        if Junk.isJunk(name, isDirectory: isDirectory, hasSibling: context.hasSibling) { return .junk }
        if isDirectory {
            if name == bytes("node_modules") { return .nodeModules }
            if cacheFolders.contains(name) { return .caches }
            if name == bytes("target"), context.hasSibling(bytes("Cargo.toml")) { return .caches }
            if name == bytes(".venv") || name == bytes("venv"), context.hasChild(bytes("pyvenv.cfg")) { return .caches }
            if name == bytes("dist"), context.isGitIgnored() { return .caches }
            return nil
        }
        if isEditorLeftover(name) { return .editor }
        return nil
    }

    /// `name~` (Emacs, gedit, Kate backups) and `.name.swp`/`.swo` (Vim's swap files).
    static func isEditorLeftover(_ name: [UInt8]) -> Bool {
        if name.count > 1, name.last == UInt8(ascii: "~") { return true }
        guard name.count > 5, name.first == UInt8(ascii: ".") else { return false }
        return name.suffix(4) == bytes(".swp")[...] || name.suffix(4) == bytes(".swo")[...]
    }
}

/// Operating systems' clutter: what nobody means to send or to receive. One list for both directions:
/// Extract's `skip-junk` leaves out its macOS part (`EntryPath.isMacJunk`), Compress all of it.
public enum Junk {
    private static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// macOS's resource-fork folder in zips it makes.
    static let macFolder = bytes("__MACOSX")
    /// Finder's folder settings.
    static let finderSettings = bytes(".DS_Store")
    /// AppleDouble: `._name` holds the extended attributes of `name`.
    static let appleDoublePrefix = bytes("._")
    /// Windows Explorer's thumbnail cache and folder settings.
    static let windowsFiles: Set<[UInt8]> = Set(["Thumbs.db", "ehthumbs.db", "desktop.ini"].map(bytes))
    /// The freedesktop trash a removable drive gets at its top: `.Trash-1000`.
    static let trashPrefix = bytes(".Trash-")

    /// Whether a name is macOS clutter: `__MACOSX`, `.DS_Store`, or an AppleDouble `._name`.
    public static func isMacJunk(_ name: [UInt8]) -> Bool {
        name == macFolder || name == finderSettings || isAppleDouble(name)
    }

    static func isAppleDouble(_ name: [UInt8]) -> Bool { name.count > 2 && name.starts(with: appleDoublePrefix) }

    /// Whether an entry on disk is junk. An AppleDouble file counts only beside the file it describes: a
    /// lone `._notes` may be a person's own.
    public static func isJunk(_ name: [UInt8], isDirectory: Bool, hasSibling: ([UInt8]) -> Bool) -> Bool {
        if isDirectory { return name == macFolder || (name.count > trashPrefix.count && name.starts(with: trashPrefix)) }
        if name == finderSettings || windowsFiles.contains(name) { return true }
        return isAppleDouble(name) && hasSibling(Array(name.dropFirst(2)))
    }
}
