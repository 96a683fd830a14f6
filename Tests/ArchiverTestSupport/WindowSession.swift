import Foundation

/// A display of the test's own on which windows are started and driven as a person (or a screen reader) would:
/// an Xvfb, a private D-Bus session bus that is also the accessibility bus, the AT-SPI registry, and the
/// AT-SPI driver (`atspi/driver.py`, run by Debian's /usr/bin/python3) that clicks, types and reads back.
/// Everything is killed when the session is stopped (call `stop()` in a `defer`; `deinit` does it too).
/// Sessions are independent (each has its own display, bus and folder), so tests may run them side by side.
///
/// Why one bus: apps and pyatspi take the accessibility bus from `AT_SPI_BUS_ADDRESS` before asking
/// org.a11y.Bus, so the session bus can serve as both, and no at-spi-bus-launcher (whose own bus daemon and the
/// registry it activates would outlive a killed launcher) is needed. The registry is started here, with DISPLAY,
/// because it synthesizes the key presses and clicks (XTest) on that display.
public final class WindowSession {
    /// The X display, ":N".
    public let display: String
    /// What a window under test runs with: this display and bus, software rendering, GTK's AT-SPI backend, the
    /// settings isolation of `BuiltProducts.isolation`, and a home, runtime and config folders of its own.
    public private(set) var environment: [String: String]
    /// The application name that commands look in (set by `waitForApp`; nil: every application).
    public var app: String?
    /// How long a command waits for the widget it needs before it fails (seconds).
    public var timeout: Double = 10
    /// Where the session's own files are: `home/`, `runtime/`, and each launched program's stdout/stderr.
    public let folder: String

    private let scratch: ScratchDirectory
    private let xvfb: Process
    private let bus: PrivateBus
    private let registry: Process
    private let driver: Process
    private let toDriver: FileHandle
    private let fromDriver: FileHandle
    private var pending = Data()
    private var launched: [Process] = []
    /// Each launched program's stderr file, in `launched`'s order.
    private var launchedErrors: [String] = []
    private var stopped = false

    /// What this machine lacks to run window tests (nil: nothing), for Swift Testing's "skipped: …" line.
    /// Only these are reasons to skip: CI installs both, and a missing python3-pyatspi or built executable
    /// must fail the tests, not skip them.
    public static let missing: String? = {
        let needs = ["/usr/bin/Xvfb": "Xvfb (package xvfb)", registryPath: "the AT-SPI registry (package at-spi2-core)"]
        let lacking = needs.keys.sorted().filter { !FileManager.default.isExecutableFile(atPath: $0) }.map { needs[$0]! }
        return lacking.isEmpty ? nil : "window tests need " + lacking.joined(separator: " and ")
    }()

    private static let registryPath = "/usr/libexec/at-spi2-registryd"

    /// Starts the display, bus, registry and driver (about 0.3 s).
    public init(_ label: String = #function) throws {
        scratch = try ScratchDirectory("window-" + label)
        folder = scratch.path
        for sub in ["home", "runtime", "config", "cache", "state"] {
            try FileManager.default.createDirectory(atPath: scratch.sub(sub), withIntermediateDirectories: true)
        }
        chmod(scratch.sub("runtime"), 0o700)

        // -displayfd: Xvfb takes the first free display and writes its number when it accepts connections.
        xvfb = Self.process(["/usr/bin/Xvfb", "-displayfd", "1", "-nolisten", "tcp", "-screen", "0", "1280x800x24"])
        let displayNumber = Pipe()
        xvfb.standardOutput = displayNumber
        xvfb.standardError = FileHandle.nullDevice
        xvfb.standardInput = FileHandle.nullDevice
        try xvfb.run()
        bus = try PrivateBus()  // meanwhile Xvfb starts
        guard let number = Self.readLine(displayNumber.fileHandleForReading, seconds: 10), Int(number) != nil else {
            kill(xvfb.processIdentifier, SIGKILL)
            bus.stop()
            throw WindowFailure("Xvfb did not start (no display number within 10 s)")
        }
        display = ":" + number

        var environment = ProcessInfo.processInfo.environment.merging(BuiltProducts.isolation) { $1 }
        environment.removeValue(forKey: "NO_AT_BRIDGE")  // GTK 3 would then stay off AT-SPI
        // Even an empty WAYLAND_DISPLAY (BuiltProducts.isolation sets one) makes libatspi synthesize input
        // through Mutter's remote-desktop API, which aborts the driver; under Xvfb it must use XTest.
        environment.removeValue(forKey: "WAYLAND_DISPLAY")
        environment.removeValue(forKey: "LANGUAGE")
        environment.merge([
            "DISPLAY": display, "DBUS_SESSION_BUS_ADDRESS": bus.address, "AT_SPI_BUS_ADDRESS": bus.address,
            "GSK_RENDERER": "cairo", "GTK_A11Y": "atspi", "GDK_BACKEND": "x11", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
            "HOME": scratch.sub("home"), "XDG_RUNTIME_DIR": scratch.sub("runtime"),
            "XDG_CONFIG_HOME": scratch.sub("config"), "XDG_CACHE_HOME": scratch.sub("cache"),
            "XDG_STATE_HOME": scratch.sub("state"),
        ]) { $1 }
        self.environment = environment

        registry = Self.process([Self.registryPath])
        registry.environment = environment
        registry.standardOutput = FileHandle.nullDevice
        registry.standardError = FileHandle.nullDevice
        registry.standardInput = FileHandle.nullDevice
        driver = Self.process(["/usr/bin/python3", Self.driverPath, "serve"])
        driver.environment = environment
        let input = Pipe(), output = Pipe()
        driver.standardInput = input
        driver.standardOutput = output
        driver.standardError = try Self.file(scratch.sub("driver.err"))
        toDriver = input.fileHandleForWriting
        fromDriver = output.fileHandleForReading
        do {
            try registry.run()
            let waited = try Tool.run(
                ["/usr/bin/gdbus", "wait", "--address", bus.address, "--timeout", "10", "org.a11y.atspi.Registry"])
            guard waited.status == 0 else { throw WindowFailure("the AT-SPI registry did not start: \(waited.output)") }
            try driver.run()
        } catch {
            stop()
            throw error
        }
    }

    deinit { stop() }

    /// The driver script, found from this file's location (the tests run from the package).
    public static let driverPath = packageRoot.appendingPathComponent("Tests/ArchiverTestSupport/atspi/driver.py").path

    // MARK: Programs under test

    /// A program started on the session's display.
    public final class Launched {
        public let process: Process
        let name: String, stdoutPath: String, stderrPath: String
        init(process: Process, name: String, stdoutPath: String, stderrPath: String) {
            self.process = process
            self.name = name
            self.stdoutPath = stdoutPath
            self.stderrPath = stderrPath
        }
        /// Everything it wrote on stdout so far.
        public var output: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
        /// Everything it wrote on stderr so far.
        public var errors: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }
        /// Waits for it to end; throws when it is still running after `seconds`.
        @discardableResult
        public func waitForExit(within seconds: Double = 10) throws -> Int32 {
            guard eventually(within: seconds, { !process.isRunning }) else {
                throw WindowFailure("\(name) still runs after \(seconds) s")
            }
            process.waitUntilExit()
            return process.terminationStatus
        }
    }

    /// Starts `argv` (an absolute program path first) on the session's display, stdout and stderr into files.
    /// - Parameter environment: added to (or replacing in) the session's `environment`; "" removes a variable.
    @discardableResult
    public func launch(_ argv: [String], environment extra: [String: String] = [:], in directory: String? = nil)
        throws -> Launched
    {
        let process = Self.process(argv)
        var environment = self.environment.merging(extra) { $1 }
        for (key, value) in extra where value.isEmpty && key != "DISPLAY" { environment.removeValue(forKey: key) }
        process.environment = environment
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let name = URL(fileURLWithPath: argv[0]).lastPathComponent
        let base = scratch.sub("\(launched.count)-\(name)")
        process.standardOutput = try Self.file(base + ".out")
        process.standardError = try Self.file(base + ".err")
        process.standardInput = FileHandle.nullDevice
        try process.run()
        launched.append(process)
        launchedErrors.append(base + ".err")
        return Launched(process: process, name: name, stdoutPath: base + ".out", stderrPath: base + ".err")
    }

    /// A notification daemon (python3-dbusmock's) on this session's bus, logging each call to `log`.
    public func startNotificationServer(log: String) throws {
        try bus.startNotificationServer(log: log)
    }

    /// What `launch(environment:)` takes for settings that outlive the program: GLib's keyfile backend, in the
    /// session's own config folder (read back with `storedSettings`), instead of the memory backend.
    public static let keyfileSettings = ["GSETTINGS_BACKEND": "keyfile"]

    /// Settings as the person set them, for programs started with `keyfileSettings` after this call:
    /// `["org/gnome/desktop/interface": "color-scheme='prefer-dark'"]`.
    public func presetSettings(_ groups: [String: String]) throws {
        let folder = scratch.sub("config/glib-2.0/settings")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let text = groups.map { "[\($0.key)]\n\($0.value)\n" }.joined()
        try text.write(toFile: folder + "/keyfile", atomically: true, encoding: .utf8)
    }

    /// The settings the programs wrote under `keyfileSettings`: GLib's keyfile ("" when none was written).
    public var storedSettings: String {
        (try? String(contentsOfFile: scratch.sub("config/glib-2.0/settings/keyfile"), encoding: .utf8)) ?? ""
    }

    /// Text at `scale` for the programs started after this call, as GNOME's text scaling gives it under X11:
    /// GTK 4 takes its font DPI from XSETTINGS `Xft/DPI` (1024 × 96 × scale), served here by xsettingsd
    /// (`text-scaling-factor` alone changes nothing under Xvfb). Returns once the settings are on the display.
    public func scaleText(_ scale: Double) throws {
        let config = scratch.sub("xsettingsd.conf")
        try "Xft/DPI \(Int(1024 * 96 * scale))\n".write(toFile: config, atomically: true, encoding: .utf8)
        let server = try launch(["/usr/bin/xsettingsd", "-c", config])
        // It owns the _XSETTINGS_S0 selection once it says it made its window.
        guard eventually(within: 10, { server.errors.contains("Created window") }) else {
            throw WindowFailure("xsettingsd did not start: \(server.errors)")
        }
    }

    /// Resizes the program's top-level window (by its process id) as a window manager would, say to a phone's
    /// 360 px; returns the width the X window has then.
    @discardableResult
    public func resizeWindow(of program: Launched, width: Int, height: Int) throws -> Int {
        let pid = String(program.process.processIdentifier)
        let found = try Tool.run(["/usr/bin/env", "DISPLAY=" + display, "/usr/bin/xdotool", "search", "--onlyvisible", "--pid", pid])
        guard let window = found.output.split(separator: "\n").last.map(String.init), found.status == 0 else {
            throw WindowFailure("no window of process \(pid) to resize: \(found.output)")
        }
        let resized = try Tool.run(["/usr/bin/env", "DISPLAY=" + display, "/usr/bin/xdotool", "windowsize", window, String(width), String(height)])
        guard resized.status == 0 else { throw WindowFailure("xdotool windowsize: \(resized.output)") }
        let shown = {
            let info = (try? Tool.run(["/usr/bin/xwininfo", "-display", self.display, "-id", window]))?.output ?? ""
            return info.split(separator: "\n").first { $0.contains("Width:") }.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
        }
        _ = eventually(within: 5) { shown() == width }
        // A window cannot be narrower than its content's minimum: GTK sizes it back after the configure event.
        usleep(800_000)
        return shown()
    }

    /// A process that starts `argv` through `env --default-signal`: the tests run on libdispatch's worker
    /// threads, which block SIGTERM and most other signals, and a child inherits that mask (and ignored
    /// signals), so a window's Cancel or a program's own SIGTERM handling would not work as on a desktop.
    private static func process(_ argv: [String]) -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["--default-signal"] + argv
        return process
    }

    // MARK: Driving the windows

    /// Waits until an application of that name (its program name: "zenity", "archiver-compress") shows a
    /// window, and makes it the one the next commands look in. Returns the seconds waited.
    @discardableResult
    public func waitForApp(_ name: String, timeout: Double? = nil) throws -> Double {
        let reply = try send(["cmd": "wait-app", "app": name, "timeout": timeout])
        app = name
        return reply["seconds"] as? Double ?? 0
    }

    /// Waits until a widget of that accessible name shows; returns its role.
    @discardableResult
    public func waitFor(_ name: String, role: String? = nil, timeout: Double? = nil) throws -> String {
        try send(["cmd": "wait", "name": name, "role": role, "timeout": timeout])["role"] as? String ?? ""
    }

    /// Waits until no widget of that name shows (a window closed, a panel went away).
    public func waitUntilGone(_ name: String, role: String? = nil, timeout: Double? = nil) throws {
        try send(["cmd": "gone", "name": name, "role": role, "timeout": timeout])
    }

    /// Clicks a button (or any control with an action) by its accessible name; fails when it is greyed out.
    /// GTK 4.8 names a mnemonic button "C_ompress Compress": "Compress" matches it.
    /// `first`: the first of several that match (AdwMessageDialog holds each response button twice, for its
    /// wide and narrow layouts).
    public func click(_ name: String, role: String? = nil, first: Bool = false) throws {
        try send(["cmd": "click", "name": name, "role": role, "first": first ? true : nil])
    }

    /// Puts `text` into the entry of that name (or labelled by that label), replacing what it held.
    public func type(_ field: String, _ text: String) throws {
        try send(["cmd": "set-text", "name": field, "text": text])
    }

    /// Puts `text` into the entry right of the label `label`: only for other people's windows whose fields
    /// have no accessible name (zenity --forms). Ours must be named.
    public func type(besideLabel label: String, _ text: String) throws {
        try send(["cmd": "set-text", "beside": label, "text": text])
    }

    /// Types `text` as key presses into whatever has the keyboard focus.
    public func typeKeys(_ text: String) throws { try send(["cmd": "type", "text": text]) }

    /// Presses keys in order: "Tab", "Return", "Escape", "Down", "space", "ctrl+a", "alt+c", "a" …
    public func press(_ keys: String...) throws { try send(["cmd": "keys", "keys": keys]) }

    /// Gives the keyboard focus to the widget of that name.
    public func focus(_ name: String, role: String? = nil) throws {
        try send(["cmd": "focus", "name": name, "role": role])
    }

    /// Flips a check box, switch or toggle button; with `on`, only when it is not already so.
    /// Returns whether it is checked afterwards.
    @discardableResult
    public func toggle(_ name: String, on: Bool? = nil) throws -> Bool {
        try send(["cmd": "toggle", "name": name, "on": on])["checked"] as? Bool ?? false
    }

    /// Picks `item` in the combo box or drop-down of that name.
    public func select(_ item: String, in combo: String) throws {
        try send(["cmd": "select", "name": combo, "item": item])
    }

    /// Activates (double-clicks, or its "activate" action) the list/tree row of that name or holding that label.
    public func activateRow(_ name: String) throws { try send(["cmd": "activate-row", "name": name]) }

    /// The text of a label or entry of that name (an entry's contents, not its name).
    public func text(of name: String, role: String? = nil) throws -> String {
        try send(["cmd": "text", "name": name, "role": role])["text"] as? String ?? ""
    }

    /// Waits until a shown label holds `text` (or is exactly it); returns the label's whole text.
    /// A label's accessible name is its text, so this is how a result or an error line is read.
    @discardableResult
    public func waitForText(_ text: String, exact: Bool = false, timeout: Double? = nil) throws -> String {
        try waitForText(anyOf: [text], exact: exact, timeout: timeout)
    }

    /// Waits until a shown label holds one of `texts` (a job's outcome: "Created", "Could not"…); returns the
    /// label's whole text.
    @discardableResult
    public func waitForText(anyOf texts: [String], exact: Bool = false, timeout: Double? = nil) throws -> String {
        try send(["cmd": "wait-text", "text": texts, "exact": exact, "timeout": timeout])["text"] as? String ?? ""
    }

    /// The title of the application's showing window.
    /// Closes the window titled `title` as a window manager's close button does.
    public func closeWindow(_ title: String) throws { try send(["cmd": "close-window", "title": title]) }

    public func windowTitle() throws -> String { try send(["cmd": "title"])["title"] as? String ?? "" }

    /// The text of every shown label, in tree order.
    public func labels() throws -> [String] { try send(["cmd": "labels"])["labels"] as? [String] ?? [] }

    /// The AT-SPI states of the widget of that name ("sensitive", "checked", "focused", "editable", …).
    public func states(of name: String, role: String? = nil) throws -> Set<String> {
        Set(try send(["cmd": "states", "name": name, "role": role])["states"] as? [String] ?? [])
    }

    /// Whether the widget can be used (not greyed out).
    public func isSensitive(_ name: String, role: String? = nil) throws -> Bool {
        try states(of: name, role: role).contains("sensitive")
    }

    /// Whether a check box, switch or toggle button is on.
    public func isChecked(_ name: String, role: String? = nil) throws -> Bool {
        let states = try states(of: name, role: role)
        return states.contains("checked") || states.contains("pressed")
    }

    /// The value of a spin button, slider or progress bar.
    public func value(of name: String, role: String? = nil) throws -> Double? {
        try send(["cmd": "value", "name": name, "role": role])["value"] as? Double
    }

    /// Sets the value of a spin button or slider.
    public func setValue(_ value: Double, of name: String) throws {
        try send(["cmd": "set-value", "name": name, "value": value])
    }

    /// Where the widget of that name is in its window (x, y, width, height in pixels) and the window's size.
    public func extents(of name: String, role: String? = nil) throws -> (box: [Int], window: [Int]) {
        let reply = try send(["cmd": "extents", "name": name, "role": role])
        return (reply["box"] as? [Int] ?? [], reply["window"] as? [Int] ?? [])
    }

    /// Whether the widget of that name lies whole inside its window (not cut by an edge).
    public func isWhollyShown(_ name: String, role: String? = nil) throws -> Bool {
        let (box, window) = try extents(of: name, role: role)
        guard box.count == 4, window.count == 2 else { return false }
        return box[0] >= 0 && box[1] >= 0 && box[0] + box[2] <= window[0] && box[1] + box[3] <= window[1]
    }

    /// The accessible tree as text: one line per widget, `[role] "name" {states} text=… value=…`.
    public func tree() throws -> String { try send(["cmd": "tree"])["tree"] as? String ?? "" }

    /// The accessible tree as nodes, in tree order: role, name, states (AT-SPI nicks), text, value, depth.
    public func nodes() throws -> [(role: String, name: String, states: Set<String>)] {
        let nodes = try send(["cmd": "tree"])["nodes"] as? [[String: Any]] ?? []
        return nodes.map { ($0["role"] as? String ?? "", $0["name"] as? String ?? "", Set($0["states"] as? [String] ?? [])) }
    }

    /// The shown interactive controls (buttons, entries, check boxes, combo boxes, spin buttons, rows, menu
    /// items, switches) that a screen reader could not name: empty name, or GTK's class-name placeholder.
    public func unnamedControls() throws -> [String] { try send(["cmd": "names"])["unnamed"] as? [String] ?? [] }

    /// What a screen reader says about a control: its role, name, AT-SPI states and description.
    /// `detail` is the accessible description (what follows the name: a field's error).
    public struct Spoken: CustomStringConvertible {
        public let role: String, name: String, states: Set<String>, detail: String
        public var description: String {
            "[\(role)] \"\(name)\"" + (detail.isEmpty ? "" : " (\(detail))") + " {\(states.sorted().joined(separator: ","))}"
        }
    }

    /// The widget that has the keyboard focus (role "" when none).
    public func focused() throws -> Spoken { Self.spoken(try send(["cmd": "focused"])) }

    /// Presses Tab (or `keys`) until the focus comes back to where it started (or stays put), at most `limit`
    /// times; returns the focused widget after each press, the last one being where it came back to.
    public func tabWalk(keys: [String] = ["Tab"], limit: Int = 40) throws -> [Spoken] {
        let stops = try send(["cmd": "tab-walk", "keys": keys, "limit": limit, "timeout": Double(limit) * 2])["stops"] as? [[String: Any]] ?? []
        return stops.map(Self.spoken)
    }

    /// What is wrong with an accessible name as a screen reader would say it (nil: nothing): empty, GTK's
    /// class-name placeholder, a mnemonic underscore, or said twice ("Compress Compress").
    public static func nameProblem(_ name: String) -> String? {
        let words = name.split(separator: " ")
        if words.isEmpty { return "no name" }
        if name.range(of: "^(Gtk|Adw)[A-Z][A-Za-z]*$", options: .regularExpression) != nil { return "a class name, \(name)" }
        // Names that are spelt with one (node_modules, __pycache__) are not a mnemonic's leftover.
        let spelt = ["node_modules", "__pycache__"].reduce(name) { $0.replacingOccurrences(of: $1, with: "") }
        if spelt.contains("_") { return "a mnemonic underscore in \"\(name)\"" }
        if words.count % 2 == 0, words.count >= 2, words[..<(words.count / 2)] == words[(words.count / 2)...] {
            return "said twice: \"\(name)\""
        }
        return nil
    }

    private static func spoken(_ reply: [String: Any]) -> Spoken {
        Spoken(role: reply["role"] as? String ?? "", name: reply["name"] as? String ?? "",
               states: Set(reply["states"] as? [String] ?? []), detail: reply["description"] as? String ?? "")
    }

    // MARK: Screenshots

    /// The folder screenshots go to: `<package>/.build/screenshots`.
    public static let screenshotFolder = packageRoot.appendingPathComponent(".build/screenshots").path

    /// Writes the display to `.build/screenshots/<name>.png` (`name` may include a folder) and returns its path; `trimmed`: only the windows
    /// (the black of the empty screen around them cut away).
    @discardableResult
    public func screenshot(_ name: String, trimmed: Bool = true) throws -> String {
        let path = Self.screenshotFolder + "/\(name).png"
        // A name may hold a folder of its own ("app/home-dark").
        try FileManager.default.createDirectory(
            atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path, withIntermediateDirectories: true)
        // ImageMagick's own import: /usr/local/bin may hold a stand-in for convert, never for import.
        let result = try Tool.run(
            ["/usr/bin/import", "-display", display, "-window", "root"] + (trimmed ? ["-trim", "+repage"] : []) + [path])
        guard result.status == 0, FileManager.default.fileExists(atPath: path) else {
            throw WindowFailure("import could not take the screenshot \(name): \(result.output)")
        }
        return path
    }

    // MARK: Ending

    /// Kills the session's processes (`processes()`: what the programs under test started too, such as a
    /// window's job) and removes Xvfb's lock and socket. SIGKILL: quick, and nothing here has anything to save.
    public func stop() {
        guard !stopped else { return }
        stopped = true
        try? toDriver.close()
        for pid in processes() { kill(pid, SIGKILL) }
        for process in launched + [driver, registry, xvfb] where process.processIdentifier > 0 {
            process.waitUntilExit()
        }
        bus.stop()
        // A killed Xvfb leaves its lock and socket; only ours: another session may already have the number.
        if let number = Int(display.dropFirst()),
            let lock = try? String(contentsOfFile: "/tmp/.X\(number)-lock", encoding: .utf8),
            Int32(lock.trimmingCharacters(in: .whitespacesAndNewlines)) == xvfb.processIdentifier
        {
            unlink("/tmp/.X11-unix/X\(number)")
            unlink("/tmp/.X\(number)-lock")
        }
    }

    /// The processes of this session that still run: Xvfb, the bus, the registry, the driver, the programs
    /// launched, and every process these started (from /proc's parent links). Zombies are left out.
    public func processes() -> [pid_t] {
        var children: [pid_t: [pid_t]] = [:]
        var zombies: Set<pid_t> = []
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let end = stat.lastIndex(of: ")")
            else { continue }
            // "pid (name) state ppid …": the name may hold spaces and parentheses, so split after its last ")".
            let fields = stat[stat.index(after: end)...].split(separator: " ")
            guard fields.count > 1, let parent = pid_t(fields[1]) else { continue }
            children[parent, default: []].append(pid)
            if fields[0] == "Z" { zombies.insert(pid) }
        }
        let roots = (launched + [driver, registry, xvfb]).map(\.processIdentifier) + bus.processIdentifiers
        var found: [pid_t] = []
        var queue = roots.filter { $0 > 0 && kill($0, 0) == 0 }
        while let pid = queue.popLast() {
            if !zombies.contains(pid) { found.append(pid) }
            queue += children[pid] ?? []
        }
        return found
    }

    // MARK: The driver's protocol

    /// Sends one command, waits for its reply; throws a `WindowFailure` holding the tree when it failed.
    @discardableResult
    func send(_ command: [String: Any?]) throws -> [String: Any] {
        var object = command.compactMapValues { $0 }
        if object["app"] == nil, let app { object["app"] = app }
        if object["timeout"] == nil { object["timeout"] = timeout }
        let data = try JSONSerialization.data(withJSONObject: object) + Data("\n".utf8)
        guard driver.isRunning else { throw WindowFailure("the AT-SPI driver is not running (\(command["cmd"] ?? ""))") }
        try toDriver.write(contentsOf: data)
        let seconds = (object["timeout"] as? Double ?? timeout) + 20
        guard let line = Self.readLine(fromDriver, seconds: seconds, buffer: &pending) else {
            kill(driver.processIdentifier, SIGKILL)
            throw WindowFailure("the AT-SPI driver gave no answer to \(object) within \(Int(seconds)) s")
        }
        guard let reply = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw WindowFailure("the AT-SPI driver answered \(line)")
        }
        guard reply["ok"] as? Bool == true else {
            let what = object.filter { $0.key != "cmd" && $0.key != "app" }.map { "\($0.key): \($0.value)" }
                .sorted().joined(separator: ", ")
            throw WindowFailure(
                "\(object["cmd"] ?? "") (\(what)) in \(app ?? "any application"): \(reply["error"] as? String ?? line)"
                    + endedPrograms(),
                tree: reply["tree"] as? String)
        }
        return reply
    }

    /// The launched programs that have ended, how, and the end of their stderr: a window that crashed is
    /// then said so, not only "no application on the bus".
    private func endedPrograms() -> String {
        zip(launched, launchedErrors).filter { !$0.0.isRunning }.map { process, errors in
            let how = process.terminationReason == .uncaughtSignal ? "signal" : "status"
            let stderr = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
            return "\n\(process.executableURL?.lastPathComponent ?? "?") ended (\(how) \(process.terminationStatus)): "
                + String(stderr.suffix(2000))
        }.joined()
    }

    private static func file(_ path: String) throws -> FileHandle {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path)
        else { throw WindowFailure("cannot write \(path)") }
        return handle
    }

    private static func readLine(_ handle: FileHandle, seconds: Double) -> String? {
        var buffer = Data()
        return readLine(handle, seconds: seconds, buffer: &buffer)
    }

    /// One line from `handle`, waiting at most `seconds` (poll(2): a hung driver must fail the test, not hang it).
    private static func readLine(_ handle: FileHandle, seconds: Double, buffer: inout Data) -> String? {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            if let end = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<end], as: UTF8.self)
                buffer = Data(buffer[(end + 1)...])
                return line
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return nil }
            var descriptor = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Int32(min(left, 1) * 1000))
            if ready < 0 && errno != EINTR { return nil }
            guard ready > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = read(handle.fileDescriptor, &chunk, chunk.count)
            if count <= 0 { return nil }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }
}

/// A window test's failure: what was asked, what went wrong, and the accessible tree at that moment.
public struct WindowFailure: Error, CustomStringConvertible {
    public let message: String
    public let tree: String?
    public init(_ message: String, tree: String? = nil) {
        self.message = message
        self.tree = tree
    }
    public var description: String {
        guard let tree, !tree.isEmpty else { return message }
        return message + "\nAccessible tree:\n" + tree
    }
}
