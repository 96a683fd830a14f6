import Foundation

/// Keeps the executables under test away from the desktop of whoever runs the tests: the schema from
/// this checkout with settings held in memory (the built-in defaults, whatever the person set), no
/// notification server, a Recent list of its own, and no display (so no password or folder dialog opens
/// on the person's screen; without one, zenity and kdialog fail like a cancel).
enum DesktopIsolation {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The schema compiled from desktop-files/, once per test run.
    static let schemaFolder: String = {
        let folder = packageRoot.appendingPathComponent(".build/test-scratch/schemas-\(getpid())")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let source = packageRoot.appendingPathComponent("desktop-files/io.github.archiver.gschema.xml")
        let copy = folder.appendingPathComponent("io.github.archiver.gschema.xml")
        try? FileManager.default.removeItem(at: copy)
        try? FileManager.default.copyItem(at: source, to: copy)
        let compile = Process()
        compile.executableURL = URL(fileURLWithPath: "/usr/bin/glib-compile-schemas")
        compile.arguments = ["--strict", folder.path]
        try? compile.run()
        compile.waitUntilExit()
        return folder.path
    }()

    static var variables: [String: String] {
        [
            "GSETTINGS_SCHEMA_DIR": schemaFolder,
            "GSETTINGS_BACKEND": "memory",
            "DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/archiver-tests",
            "XDG_DATA_HOME": packageRoot.appendingPathComponent(".build/test-scratch/xdg-data").path,
            "DISPLAY": "", "WAYLAND_DISPLAY": "", "ARCHIVER_ASKPASS": "", "SSH_ASKPASS": "",
        ]
    }
}
