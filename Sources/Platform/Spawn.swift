import ArchiverCore
import Glibc
import SystemPackage

/// Programs the desktop side runs (dialogs, a file manager, askpass helpers): argv only (never a shell), so
/// any bytes in a path pass intact, found on the `PATH` when argv[0] names no folder. Started by
/// `ChildProcess`, with standard input from /dev/null and no descriptor of ours but the three standard
/// ones; unlike the job's own children (7-Zip, unrar), a stop neither waits for them nor kills them.
public enum Spawn {
    /// Runs `argv` and waits. Returns its standard output when it exits with 0, nil otherwise.
    public static func run(_ argv: [[UInt8]]) -> [UInt8]? {
        guard let executable = locate(argv, path: nil) else { return nil }
        var output: [UInt8] = []
        let outcome = try? ChildProcess.run(
            executable, Array(argv.dropFirst()), environment: [], input: .nothing, control: nil, forJob: false
        ) { output += $0 }
        return outcome?.status == 0 ? output : nil
    }

    /// Starts `argv` and does not wait for it (a file manager or mail program outlives us).
    @discardableResult
    public static func detached(_ argv: [[UInt8]]) -> Bool {
        guard let executable = locate(argv, path: nil) else { return false }
        return ChildProcess.startDetached(executable, Array(argv.dropFirst()))
    }

    /// Runs `argv` with exactly `environment` (and found on its `PATH`) and reads the first line of its
    /// output straight into a `Secret`; the rest is read and dropped, so a chatty child is not killed by
    /// SIGPIPE. Standard input is /dev/null: the child must not eat input meant for us.
    /// - Returns: the line (nil when it printed nothing) and whether it exited with 0; nil when it could
    ///   not be started.
    package static func firstLine(of argv: [[UInt8]], environment: [String: String]) -> (line: Secret?, succeeded: Bool)? {
        guard let executable = locate(argv, path: environment["PATH"]) else { return nil }
        let entries = environment.map { Array("\($0.key)=\($0.value)".utf8) }
        return ChildProcess.firstLine(of: executable, Array(argv.dropFirst()), environment: entries)
    }

    /// argv[0] as it is when it names a folder, else the program of that name on `path` (the process's
    /// `PATH` when nil).
    private static func locate(_ argv: [[UInt8]], path: String?) -> FilePath? {
        guard let name = argv.first, !name.isEmpty else { return nil }
        if name.contains(UInt8(ascii: "/")) { return FilePath(bytes: name) }
        return Programs.find(String(decoding: name, as: UTF8.self), path: path)
    }
}
