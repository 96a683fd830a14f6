import Glibc
import SystemPackage

/// The home folder and the XDG base folders (configuration, cache, state), by one rule for every
/// executable: the windows and the tools must agree on where a file lives (a photo batch's journal, the
/// index cache). Each `$XDG_…_HOME` counts only when it is absolute; an empty or relative value is ignored,
/// as the XDG Base Directory spec says, and the folder's default under the home folder is used.
public struct BaseFolders: Equatable, Sendable {
    /// `$HOME` when it is absolute, else the account's home folder, else `/`.
    public var home: FilePath
    /// `$XDG_CONFIG_HOME`, else `~/.config`.
    public var config: FilePath
    /// `$XDG_CACHE_HOME`, else `~/.cache`.
    public var cache: FilePath
    /// `$XDG_STATE_HOME`, else `~/.local/state`.
    public var state: FilePath

    /// The folders for `environment`, below `home` where a variable is missing or ignored.
    /// - Parameters:
    ///   - home: the home folder, already decided (`ExtractDestination` is given one).
    ///   - environment: the process's variables, or a test's.
    public init(home: FilePath, environment: [String: String]) {
        func absolute(_ name: String) -> FilePath? {
            environment[name].flatMap { $0.hasPrefix("/") ? FilePath($0) : nil }
        }
        self.home = home
        config = absolute("XDG_CONFIG_HOME") ?? home.appending(".config")
        cache = absolute("XDG_CACHE_HOME") ?? home.appending(".cache")
        state = absolute("XDG_STATE_HOME") ?? home.appending(".local/state")
    }

    /// The folders for `environment`, whose `HOME` decides the home folder.
    /// - Parameters:
    ///   - environment: the process's variables, or a test's.
    ///   - accountHome: the account's home folder (the password database's), asked only when `HOME` is
    ///     missing, empty or relative.
    public init(environment: [String: String], accountHome: () -> FilePath? = { nil }) {
        let home = environment["HOME"].flatMap { $0.hasPrefix("/") ? FilePath($0) : nil } ?? accountHome() ?? "/"
        self.init(home: home, environment: environment)
    }

    /// The names `init(environment:)` reads.
    private static let variables = ["HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"]

    /// This process's folders: its environment, with the password database's home folder when `HOME` is
    /// unusable (a service started without one).
    public static var current: BaseFolders {
        var environment: [String: String] = [:]
        for name in variables {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        return BaseFolders(environment: environment, accountHome: accountHome)
    }

    /// The account's home folder in the password database; nil when it has none, or not an absolute one.
    public static func accountHome() -> FilePath? {
        guard let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir else { return nil }
        let home = String(cString: directory)
        return home.hasPrefix("/") ? FilePath(home) : nil
    }
}
