internal import CGLib
import ArchiverCore
import SystemPackage

/// Asks for a folder with the desktop's own dialog, for "Extract to…": kdialog on KDE, else zenity.
public enum FolderChooser {
    public enum Outcome: Equatable, Sendable {
        case chosen(FilePath)
        case cancelled
        /// Neither dialog program is installed.
        case unavailable
    }

    /// - Parameters:
    ///   - currentDesktop: `XDG_CURRENT_DESKTOP`, a colon-separated list such as `KDE` or `ubuntu:GNOME`.
    public static func ask(title: String, startingAt folder: FilePath, currentDesktop: String?) -> Outcome {
        let onKDE = currentDesktop?.split(separator: ":").contains { $0.uppercased() == "KDE" } ?? false
        let kdialog = ["kdialog", "--title", title, "--getexistingdirectory"]
        let zenity = ["zenity", "--file-selection", "--directory", "--title=\(title)"]
        let order = onKDE ? [kdialog, zenity] : [zenity, kdialog]
        guard let command = order.first(where: { Spawn.isInstalled($0[0]) }) else { return .unavailable }
        // The starting folder goes last, as bytes: it may not be UTF-8.
        let start = command[0] == "kdialog" ? folder.bytes : Array("--filename=".utf8) + folder.bytes + [UInt8(ascii: "/")]
        guard let output = Spawn.run(command.map { Array($0.utf8) } + [start]) else { return .cancelled }
        var bytes = output
        while bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
        return bytes.first == UInt8(ascii: "/") ? .chosen(FilePath(bytes: bytes)) : .cancelled
    }
}

/// Child processes through GLib, argv only (never a shell), so any bytes in a path pass intact.
enum Spawn {
    static func isInstalled(_ program: String) -> Bool { takeString(g_find_program_in_path(program)) != nil }

    /// Runs `argv` and waits. Returns its standard output when it exits with 0, nil otherwise.
    static func run(_ argv: [[UInt8]]) -> [UInt8]? {
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
    static func detached(_ argv: [[UInt8]]) -> Bool {
        withArgv(argv) { pointers in
            var error: UnsafeMutablePointer<GError>?
            let flags = GSpawnFlags(rawValue: G_SPAWN_SEARCH_PATH.rawValue | G_SPAWN_STDOUT_TO_DEV_NULL.rawValue | G_SPAWN_STDERR_TO_DEV_NULL.rawValue)
            if g_spawn_async(nil, pointers, nil, flags, nil, nil, nil, &error) != 0 { return true }
            g_clear_error(&error)
            return false
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
