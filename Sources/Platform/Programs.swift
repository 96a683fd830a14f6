import Glibc
import SystemPackage

/// Other programs we run (7-Zip, dialogs, askpass helpers), found on a `PATH`.
public enum Programs {
    /// The first executable regular file called `name` in `path`'s folders (the process's `PATH` when
    /// nil). Relative folders are skipped: a program is never picked up from wherever we happen to be.
    public static func find(_ name: String, path: String? = nil) -> FilePath? {
        let path = path ?? getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") where folder.hasPrefix("/") {
            let candidate = FilePath(String(folder)).appending(name)
            var info = stat()
            let usable = candidate.withPlatformString { stat($0, &info) == 0 && access($0, X_OK) == 0 }
            if usable, info.st_mode & S_IFMT == S_IFREG { return candidate }
        }
        return nil
    }

    /// `name` on the process's `PATH`, then in /usr/bin, where the distribution installs it: a session can
    /// start us with a `PATH` that lacks it.
    public static func installed(_ name: String) -> FilePath? {
        let path = getenv("PATH").map { String(cString: $0) } ?? ""
        return find(name, path: path + ":/usr/bin")
    }
}
