internal import CGLib
import ArchiverCore
import Glibc

/// Child processes through GLib, argv only (never a shell), so any bytes in a path pass intact.
public enum Spawn {
    /// Runs `argv` and waits. Returns its standard output when it exits with 0, nil otherwise.
    public static func run(_ argv: [[UInt8]]) -> [UInt8]? {
        withArgv(argv) { pointers in
            var output: UnsafeMutablePointer<gchar>?
            var status: gint = 0
            var error: UnsafeMutablePointer<GError>?
            let flags = GSpawnFlags(rawValue: G_SPAWN_SEARCH_PATH.rawValue | G_SPAWN_STDERR_TO_DEV_NULL.rawValue)
            guard g_spawn_sync(nil, pointers, nil, flags, nil, nil, &output, nil, &status, &error) != 0 else {
                g_clear_error(&error)
                return nil
            }
            defer { g_free(output) }
            guard g_spawn_check_wait_status(status, nil) != 0 else { return nil }
            return output.map { CString.bytes($0) } ?? []
        }
    }

    /// Starts `argv` and does not wait for it (a file manager or mail program outlives us).
    @discardableResult
    public static func detached(_ argv: [[UInt8]]) -> Bool {
        withArgv(argv) { pointers in
            var error: UnsafeMutablePointer<GError>?
            let flags = GSpawnFlags(rawValue: G_SPAWN_SEARCH_PATH.rawValue | G_SPAWN_STDOUT_TO_DEV_NULL.rawValue | G_SPAWN_STDERR_TO_DEV_NULL.rawValue)
            if g_spawn_async(nil, pointers, nil, flags, nil, nil, nil, &error) != 0 { return true }
            g_clear_error(&error)
            return false
        }
    }

    /// Runs `argv` with exactly `environment` (and found on its `PATH`) and reads the first line of its
    /// output straight into a `Secret`; the rest is read and dropped, so a chatty child is not killed by
    /// SIGPIPE. Standard input is /dev/null: the child must not eat input meant for us.
    /// - Returns: the line (nil when it printed nothing) and whether it exited with 0; nil when it could
    ///   not be started.
    static func firstLine(of argv: [[UInt8]], environment: [String: String]) -> (line: Secret?, succeeded: Bool)? {
        var child: GPid = 0
        var output: gint = -1
        var error: UnsafeMutablePointer<GError>?
        let flags = GSpawnFlags(
            rawValue: G_SPAWN_SEARCH_PATH.rawValue | G_SPAWN_SEARCH_PATH_FROM_ENVP.rawValue
                | G_SPAWN_DO_NOT_REAP_CHILD.rawValue | G_SPAWN_STDERR_TO_DEV_NULL.rawValue)
        let started = withArgv(argv) { argv in
            withArgv(environment.map { Array("\($0.key)=\($0.value)".utf8) }) { envp in
                g_spawn_async_with_pipes(nil, argv, envp, flags, nil, nil, &child, nil, &output, nil, &error) != 0
            }
        }
        guard started else {
            g_clear_error(&error)
            return nil
        }
        let line = Secret.readLine(from: output)
        discardRest(of: output)
        close(output)
        var status: Int32 = 0
        var reaped: pid_t
        repeat { reaped = waitpid(child, &status, 0) } while reaped < 0 && errno == EINTR
        return (line, reaped == child && g_spawn_check_wait_status(status, nil) != 0)
    }

    private static func discardRest(of descriptor: Int32) {
        let size = 512
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: size)
        defer {
            explicit_bzero(buffer, size)
            buffer.deallocate()
        }
        while true {
            let got = read(descriptor, buffer, size)
            if got < 0, errno == EINTR { continue }
            if got <= 0 { return }
        }
    }

    private static func withArgv<R>(_ argv: [[UInt8]], _ body: (UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>) -> R) -> R {
        var copies: [UnsafeMutablePointer<gchar>?] = argv.map { bytes in
            let copy = UnsafeMutablePointer<gchar>.allocate(capacity: bytes.count + 1)
            for (index, byte) in bytes.enumerated() { copy[index] = gchar(bitPattern: byte) }
            copy[bytes.count] = 0
            return copy
        }
        copies.append(nil)
        defer { for copy in copies { copy?.deallocate() } }
        return copies.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
    }
}
