import ArchiverTestSupport
import Foundation
import Testing

/// Runs a window executable under its own Xvfb and a private D-Bus session (with the AT-SPI bus started on
/// demand), and a pyatspi script beside it that drives it through `winlib.py` (notes: gtk-from-swift.md §7).
///
/// A minimal local driver until the shared harness (WindowSession + atspi/driver.py) is merged; the tests
/// only depend on `run(…)` and the RESULT lines the script prints.
enum LocalWindowRun {
    static let bin: String? = BuiltProducts.folder(holding: ["archiver-compress", "compress-with-archiver"])
    static let screenshots = packageRoot.appendingPathComponent(".build/screenshots").path
    private static let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path

    /// Whether this machine can run the window tests at all.
    static var available: Bool {
        bin != nil && FileManager.default.isExecutableFile(atPath: "/usr/bin/Xvfb")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-run-session")
            && (try? Tool.run(["/usr/bin/python3", "-c", "import pyatspi"]))?.status == 0
    }

    struct Output {
        var status: Int32
        var text: String
        /// The values of every `report(...)` of the script, merged.
        var results: [String: Any]
        subscript(key: String) -> Any? { results[key] }
    }

    /// Runs `app arguments…` and `script` (python, `from winlib import *` already done) in one session.
    static func run(
        _ app: String, _ arguments: [String], script: String, environment extra: [String: String] = [:], timeout: Int = 120
    ) throws -> Output {
        let bin = try #require(bin, "build archiver-compress and compress-with-archiver first")
        let display = ":\(200 + Int(getpid() % 500) + Int.random(in: 0..<200))"
        let xvfb = Process()
        xvfb.executableURL = URL(fileURLWithPath: "/usr/bin/Xvfb")
        xvfb.arguments = [display, "-screen", "0", "1024x768x24", "-nolisten", "tcp"]
        xvfb.standardOutput = FileHandle.nullDevice
        xvfb.standardError = FileHandle.nullDevice
        try xvfb.run()
        defer {
            // SIGKILL: Xvfb inherits the test runner's mask, which blocks SIGTERM.
            kill(xvfb.processIdentifier, SIGKILL)
            xvfb.waitUntilExit()
        }
        let socket = "/tmp/.X11-unix/X" + display.dropFirst()
        for _ in 0..<100 where !FileManager.default.fileExists(atPath: socket) { usleep(50_000) }

        var environment = ProcessInfo.processInfo.environment
        for key in environment.keys where key.hasPrefix("LC_") || ["LANG", "LANGUAGE", "DBUS_SESSION_BUS_ADDRESS", "AT_SPI_BUS"].contains(key) {
            environment[key] = nil
        }
        environment.merge(BuiltProducts.isolation) { $1 }
        environment["DBUS_SESSION_BUS_ADDRESS"] = nil
        // Even an empty WAYLAND_DISPLAY makes libatspi synthesize input through Mutter's remote-desktop API,
        // which aborts the driver here (no such session path); under Xvfb it must use XTest.
        environment["WAYLAND_DISPLAY"] = nil
        // DISPLAY before dbus-run-session: the activated at-spi registry inherits it (XTest clicks need it).
        environment["DISPLAY"] = display
        environment["GSK_RENDERER"] = "cairo"
        environment["GTK_A11Y"] = nil
        environment["NO_AT_BRIDGE"] = nil
        environment["PYTHONPATH"] = here
        environment["SCREENSHOTS"] = screenshots
        environment["APP"] = bin + "/" + app
        environment["SCRIPT"] = "from winlib import *\n" + script
        environment.merge(extra) { $1 }

        let process = Process()
        // Children of the test runner inherit a signal mask that blocks SIGTERM (PrivateBus.swift says the
        // same): unblock and reset signals first, or neither `timeout` nor the window's Cancel could stop anything.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [
            "-c",
            "import os, signal, sys\nsignal.pthread_sigmask(signal.SIG_SETMASK, [])\nfor s in (signal.SIGINT, signal.SIGQUIT, signal.SIGHUP, signal.SIGPIPE, signal.SIGTERM): signal.signal(s, signal.SIG_DFL)\nos.execv(sys.argv[1], sys.argv[1:])",
            "/usr/bin/timeout", String(timeout), "/usr/bin/dbus-run-session", "--", "/bin/bash", "-c",
            #""$APP" "$@" 2>"$SCREENSHOTS/../window-stderr.txt" & P=$!; LC_ALL=C.UTF-8 /usr/bin/python3 -c "$SCRIPT"; s=$?; kill $P 2>/dev/null; wait $P 2>/dev/null; exit $s"#,
            "bash",
        ] + arguments
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try FileManager.default.createDirectory(atPath: screenshots, withIntermediateDirectories: true)
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        var results: [String: Any] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("RESULT ") {
            if let object = try? JSONSerialization.jsonObject(with: Data(line.dropFirst(7).utf8)) as? [String: Any] {
                results.merge(object) { $1 }
            }
        }
        return Output(status: process.terminationStatus, text: text, results: results)
    }

    /// Catalogs compiled from po/ (for ARCHIVER_LOCALEDIR) and a de_DE.UTF-8 locale built with localedef
    /// (LOCPATH), as Tests/EndToEndTests/Localization does.
    static func germanEnvironment() throws -> [String: String] {
        let catalogs = packageRoot.appendingPathComponent(".build/test-scratch/window-locale-\(getpid())").path
        let built = try Tool.run(["/bin/bash", packageRoot.appendingPathComponent("scripts/po.sh").path, "mo", catalogs])
        try #require(built.status == 0, "msgfmt could not build the catalogs")
        let locales = packageRoot.appendingPathComponent(".build/test-scratch/locales").path
        if !FileManager.default.fileExists(atPath: locales + "/de_DE.UTF-8/LC_NUMERIC") {
            try? FileManager.default.createDirectory(atPath: locales, withIntermediateDirectories: true)
            _ = try? Tool.run(["/usr/bin/localedef", "-i", "de_DE", "-f", "UTF-8", locales + "/de_DE.UTF-8"])
        }
        try #require(FileManager.default.fileExists(atPath: locales + "/de_DE.UTF-8/LC_NUMERIC"), "localedef could not build de_DE.UTF-8")
        return ["LOCPATH": locales, "LC_ALL": "de_DE.UTF-8", "ARCHIVER_LOCALEDIR": catalogs]
    }
}
