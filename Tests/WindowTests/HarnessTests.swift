import ArchiverTestSupport
import Foundation
import Testing

/// The window harness itself, proven on windows that are not ours: zenity (GTK 3) and a GTK 4 sample holding one
/// of each control the Archiver windows use. Serialized: each test has its own display, but the start-up
/// figures mean more without a neighbour competing for the 2 cores (other suites may still run beside it).
@Suite(.serialized, .disabled(if: WindowSession.missing != nil, Comment(rawValue: WindowSession.missing ?? "")))
struct HarnessTests {
    static let zenity = "/usr/bin/zenity"
    static let sample = packageRoot.appendingPathComponent("Tests/WindowTests/Fixtures/gtk4-sample.py").path

    @Test func formsAreFilledInAndSubmitted() throws {
        let session = try WindowSession()
        defer { session.stop() }
        let forms = try session.launch([
            Self.zenity, "--forms", "--title=Archiver", "--text=New archive", "--add-entry=Name",
            "--add-password=Password",
        ])
        try session.waitForApp("zenity")
        // zenity's form fields carry no accessible name (its labels are not bound to them): the check sees it.
        let unnamed = try session.unnamedControls()
        #expect(unnamed.count == 2, "\(unnamed)")
        #expect(unnamed.contains { $0.hasPrefix("[text]") } && unnamed.contains { $0.hasPrefix("[password text]") })
        try session.type(besideLabel: "Name", "Holiday photos")
        try session.type(besideLabel: "Password", "sekrit")
        try session.screenshot("harness-zenity-forms")
        try session.click("OK")
        #expect(try forms.waitForExit() == 0)
        #expect(forms.output == "Holiday photos|sekrit\n")
    }

    @Test func questionIsNamedReadAndAnswered() throws {
        let session = try WindowSession()
        defer { session.stop() }
        let question = try session.launch([
            Self.zenity, "--question", "--no-markup", "--title=Archiver", "--text=Replace “Tom & Jerry <1>.zip”?",
        ])
        try session.waitForApp("zenity")
        #expect(try session.unnamedControls() == [])
        #expect(try session.waitForText("Replace", exact: false) == "Replace “Tom & Jerry <1>.zip”?")
        #expect(try session.isSensitive("Yes"))
        let tree = try session.tree()
        #expect(tree.contains(#"[dialog] "Archiver""#) && tree.contains(#"[push button] "No""#), "\(tree)")
        try session.click("No")
        #expect(try question.waitForExit() == 1)
    }

    @Test func questionIsAnsweredWithTheKeyboard() throws {
        let session = try WindowSession()
        defer { session.stop() }
        let question = try session.launch([Self.zenity, "--question", "--title=Archiver", "--text=Go on?"])
        try session.waitForApp("zenity")
        try session.focus("Yes")
        try session.press("Return")
        #expect(try question.waitForExit() == 0)
    }

    /// Every kind of control the Archiver windows use, on GTK 4.8, reached over AT-SPI.
    @Test func gtk4ControlsAreReachable() throws {
        let session = try WindowSession()
        defer { session.stop() }
        let sample = try session.launch(["/usr/bin/python3", Self.sample])
        try session.waitForApp("gtk4-sample.py")

        try session.type("Name", "Holiday")  // an entry named by its mnemonic label
        try session.waitForText("name=Holiday", exact: true)
        #expect(try session.text(of: "Name") == "Holiday")
        try session.type("Password", "sekrit")
        try session.waitForText("password=6 characters")
        #expect(try !session.isChecked("Encrypt"))
        #expect(try session.toggle("Encrypt") == true)
        try session.waitForText("encrypt=True")
        #expect(try session.isChecked("Encrypt"))
        #expect(try session.toggle("Encrypt", on: true) == true)  // already on: nothing happens
        try session.toggle("Delete after compressing", on: true)  // a GtkSwitch
        try session.waitForText("delete=True")
        try session.select("tar.xz", in: "Format")  // a GtkDropDown
        try session.waitForText("format=tar.xz")
        try session.select("7z", in: "Format")
        try session.waitForText("format=7z")
        try session.setValue(7, of: "Level")
        #expect(try session.value(of: "Level") == 7)
        try session.activateRow("photo.jpg")
        try session.waitForText("row=photo.jpg")
        try session.click("Compress")  // GTK 4.8 names it "_Compress Compress"
        try session.waitForText("clicked Compress")
        try session.focus("Name")
        try session.press("ctrl+a", "BackSpace")
        try session.typeKeys("Typed")
        try session.waitForText("name=Typed", exact: true)
        try session.screenshot("harness-gtk4-sample")

        // The one switch left unlabelled on purpose is the one the check reports ("GtkSwitch" is no name).
        let unnamed = try session.unnamedControls()
        #expect(unnamed.count == 1 && unnamed.first?.contains("GtkSwitch") == true, "\(unnamed)")
        try session.click("Cancel")
        #expect(try sample.waitForExit() == 0)
        #expect(sample.output.contains("clicked Compress\n"))
    }

    @Test func aFailureSaysWhatAndShowsTheTree() throws {
        let session = try WindowSession()
        defer { session.stop() }
        try session.launch([Self.zenity, "--question", "--title=Archiver", "--text=Go on?"])
        try session.waitForApp("zenity")
        session.timeout = 0.5
        do {
            try session.click("Compress")
            Issue.record("clicking a button that is not there succeeded")
        } catch let failure as WindowFailure {
            #expect(failure.message.contains("no showing control named 'Compress'"), "\(failure)")
            #expect(failure.description.contains(#"[push button] "Yes""#), "\(failure)")
        }
        do {
            try session.waitForApp("archiver-compress", timeout: 0.5)
            Issue.record("waiting for an application that never started succeeded")
        } catch let failure as WindowFailure {
            #expect(failure.message.contains("applications on the bus: ['zenity']"), "\(failure)")
        }
    }

    /// Nothing of the session runs after `stop()`: only its own processes are looked at, as other tests (and
    /// their sessions) may run at the same time.
    @Test func startsQuicklyAndLeavesNothingBehind() throws {
        let clock = ContinuousClock()
        var session: WindowSession? = nil
        let started = try clock.measure { session = try WindowSession() }
        let display = session!.display
        try session!.launch([Self.zenity, "--info", "--title=Archiver", "--text=Done"])
        try session!.waitForApp("zenity")
        let mine = session!.processes()
        session!.stop()
        session = nil
        print("WindowSession started in \(started) (display \(display))")
        // 5 s, not the 0.3 s it takes alone: the rest of the suite may be running on the same 2 cores.
        #expect(started < .seconds(5))
        #expect(mine.count >= 5, "Xvfb, bus, registry, driver, zenity: \(mine)")
        let left = mine.filter { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return false }
            return !stat.contains(") Z ")
        }
        #expect(left.isEmpty, "still running after stop(): \(left)")
        #expect(!FileManager.default.fileExists(atPath: "/tmp/.X\(display.dropFirst())-lock"))
    }

    /// Exec to the window showing on AT-SPI for `zenity --forms`, the figure the window benchmark compares with.
    @Test func zenityStartupTime() throws {
        var times: [Double] = []
        for _ in 0..<5 {
            let session = try WindowSession()
            defer { session.stop() }
            let start = Date()
            try session.launch([Self.zenity, "--forms", "--title=Archiver", "--add-entry=Name"])
            try session.waitForApp("zenity")
            times.append(Date().timeIntervalSince(start))
        }
        let median = times.sorted()[times.count / 2]
        print("zenity --forms: exec to window on AT-SPI, median of 5: \(Int(median * 1000)) ms (\(times.map { Int($0 * 1000) }) ms)")
        #expect(median < 5)
    }
}
