import Foundation

/// What the tests of the built executables share: where the executables are, and the settings schema of
/// this checkout compiled once, so that each runs with the built-in defaults whatever the person set.
public enum BuiltProducts {
    /// The folder holding all of `executables`: `$ARCHIVER_BIN_DIR`, else beside the running test binary
    /// (and up to 3 parents), else `<package root>/.build/debug`; nil when none holds them.
    public static func folder(holding executables: [String]) -> String? {
        let fm = FileManager.default
        func holds(_ dir: String) -> Bool { executables.allSatisfy { fm.isExecutableFile(atPath: dir + "/" + $0) } }
        if let dir = ProcessInfo.processInfo.environment["ARCHIVER_BIN_DIR"], !dir.isEmpty {
            return holds(dir) ? dir : nil
        }
        var starts: [URL] = []
        if let exe = Bundle.main.executableURL { starts.append(exe.deletingLastPathComponent()) }
        if let first = CommandLine.arguments.first, !first.isEmpty {
            starts.append(URL(fileURLWithPath: first).standardizedFileURL.deletingLastPathComponent())
        }
        for start in starts {
            var candidate = start
            for _ in 0...3 {
                if holds(candidate.path) { return candidate.path }
                candidate.deleteLastPathComponent()
            }
        }
        let fallback = packageRoot.appendingPathComponent(".build/debug").path
        return holds(fallback) ? fallback : nil
    }

    /// The path of one built executable, found as `folder(holding:)` finds it.
    public static func executable(_ name: String) -> String? { folder(holding: [name]).map { $0 + "/" + name } }

    /// The environment that keeps an executable under test away from the desktop of whoever runs the
    /// tests: this checkout's schema with settings in memory, no notification server, a Recent list of its
    /// own, no display (so no password or folder dialog opens on the person's screen), and a temporary
    /// folder of its own: a checkout under /tmp is then not a temporary place to the extractor, which
    /// tests it with archives put in `$TMPDIR` (a mail attachment's place).
    public static var isolation: [String: String] {
        [
            "TMPDIR": temporaryFolder,
            "GSETTINGS_SCHEMA_DIR": schemaFolder,
            "GSETTINGS_BACKEND": "memory",
            "DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/archiver-tests",
            "XDG_DATA_HOME": packageRoot.appendingPathComponent(".build/test-scratch/xdg-data").path,
            "DISPLAY": "", "WAYLAND_DISPLAY": "", "ARCHIVER_ASKPASS": "", "SSH_ASKPASS": "",
        ]
    }

    /// `$TMPDIR` for the executables under test, inside the checkout.
    public static let temporaryFolder: String = {
        let folder = packageRoot.appendingPathComponent(".build/test-scratch/tmp")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.path
    }()

    /// The schema compiled from desktop-files/, once per test process (for GSETTINGS_SCHEMA_DIR).
    public static let schemaFolder: String = {
        let folder = packageRoot.appendingPathComponent(".build/test-scratch/schemas-\(getpid())")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let copy = folder.appendingPathComponent("io.github.archiver.gschema.xml")
        try? FileManager.default.removeItem(at: copy)
        try? FileManager.default.copyItem(
            at: packageRoot.appendingPathComponent("desktop-files/io.github.archiver.gschema.xml"), to: copy)
        _ = try? Tool.run(["/usr/bin/glib-compile-schemas", "--strict", folder.path])
        return folder.path
    }()
}
