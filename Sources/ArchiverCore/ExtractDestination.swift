import SystemPackage

/// Where an archive is extracted when the user does not say: beside it, unless it lies somewhere
/// temporary (a mail attachment, a browser cache) or read-only, then the Downloads folder. "Extract Here"
/// (`--here`) keeps it beside the archive in a temporary place too.
public struct ExtractDestination: Sendable {
    public var home: FilePath
    public var environment: [String: String]

    public init(home: FilePath, environment: [String: String]) {
        self.home = home
        self.environment = environment
    }

    /// The folders whose contents are temporary: the temporary folder programs are told to use (`$TMPDIR`,
    /// else `/tmp`, as `g_get_tmp_dir()` has it), `/var/tmp`, `/dev/shm`, `$XDG_RUNTIME_DIR` and the cache
    /// folder. With `$TMPDIR` set, `/tmp` is where nobody was told to put temporary files: a folder like any
    /// other (a project checked out there).
    public var temporaryFolders: [FilePath] {
        let tmp = environment["TMPDIR"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp"
        var folders = [FilePath(tmp), FilePath("/var/tmp"), FilePath("/dev/shm")]
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") { folders.append(FilePath(runtime)) }
        folders.append(baseFolders.cache)
        return folders.map { $0.lexicallyNormalized() }
    }

    /// Whether `folder` (an absolute, resolved path) is temporary. GVfs mounts under the runtime folder
    /// are network shares the user browses, not temporary files.
    public func isTemporary(_ folder: FilePath) -> Bool {
        let folder = folder.lexicallyNormalized()
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/"),
            folder.starts(with: FilePath(runtime).lexicallyNormalized().appending("gvfs"))
        {
            return false
        }
        return temporaryFolders.contains { folder.starts(with: $0) }
    }

    /// Whether an archive in `folder` (absolute, resolved) is extracted there, beside it, rather than into the
    /// extract location: when the folder can be written and is not temporary, or, with `here` (the menus'
    /// "Extract Here"), whenever it can be written.
    public func extractsBeside(in folder: FilePath, here: Bool, writable: Bool) -> Bool {
        writable && (here || !isTemporary(folder))
    }

    /// The configuration folder, `$XDG_CONFIG_HOME` or `~/.config`.
    public var configFolder: FilePath { baseFolders.config }

    private var baseFolders: BaseFolders { BaseFolders(home: home, environment: environment) }

    /// The Downloads folder from the contents of `user-dirs.dirs` (nil when there is none), else `~/Downloads`.
    public func downloadsFolder(userDirs: String?) -> FilePath {
        userDirs.flatMap { Self.parseUserDir("XDG_DOWNLOAD_DIR", in: $0, home: home) } ?? home.appending("Downloads")
    }

    /// Where archives from temporary or read-only places go: the `extract-location` setting (absolute,
    /// or `~/…`), else the Downloads folder.
    public func extractLocation(setting: String, userDirs: String?) -> FilePath {
        if setting.hasPrefix("/") { return FilePath(setting) }
        if setting == "~" { return home }
        if setting.hasPrefix("~/") { return home.appending(String(setting.dropFirst(2))) }
        return downloadsFolder(userDirs: userDirs)
    }

    /// Reads one `KEY="$HOME/dir"` line of xdg-user-dirs' file, as `xdg-user-dir` does.
    static func parseUserDir(_ key: String, in contents: String, home: FilePath) -> FilePath? {
        for line in contents.split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingPrefix(while: { $0 == " " || $0 == "\t" })
            guard trimmed.hasPrefix(key + "=") else { continue }
            var value = String(trimmed.dropFirst(key.count + 1))
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 {
                value = String(value.dropFirst().dropLast())
            }
            if value.hasPrefix("$HOME") {
                let rest = value.dropFirst("$HOME".count).drop(while: { $0 == "/" })
                return rest.isEmpty ? home : home.appending(String(rest))
            }
            return value.hasPrefix("/") ? FilePath(value) : nil
        }
        return nil
    }
}
