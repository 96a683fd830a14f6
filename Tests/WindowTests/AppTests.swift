import ArchiverTestSupport
import Foundation
import Testing

/// The Archiver app (`archiver`), the real executable driven over AT-SPI on a display and bus of its own
/// (WindowSession), with its settings in the session's keyfile and its Recent list and trash in the
/// session's own data folder.
@Suite(.serialized, .disabled(if: WindowSession.missing != nil, Comment(rawValue: WindowSession.missing ?? "")))
struct AppTests {
    private static let tools = ["archiver", "archiver-compress", "archiver-extract", "compress-with-archiver"]

    enum Page: CaseIterable {
        case home, recent, settings
        var shortcut: String { [.home: "ctrl+h", .recent: "ctrl+r", .settings: "ctrl+,"][self]! }
        var title: String { [.home: "Home", .recent: "Recent", .settings: "Settings"][self]! }
    }

    private struct App {
        let session: WindowSession
        let bin: String
        /// $XDG_DATA_HOME of everything started: recently-used.xbel and the trash.
        let data: String
        let environment: [String: String]
        /// The app's own process (its stderr tells why it ended, should it end).
        var process: WindowSession.Launched?

        var recentFile: String { data + "/recently-used.xbel" }

        /// Runs compress-with-archiver as a menu would, with the app's settings and Recent list.
        @discardableResult
        func compress(_ arguments: [String]) throws -> Int32 {
            try session.launch([bin + "/compress-with-archiver", "--no-notify"] + arguments, environment: environment)
                .waitForExit(within: 60)
        }

        /// Gives the app a moment after the list was rebuilt before the tree is walked again: GTK 4.8's
        /// AT-SPI answered a walk that came while the dialog closed and the rows went with a NULL object path
        /// and crashed (in gtk's accessible method handler, under g_variant_new). Fails if the app ended.
        func settle() throws {
            usleep(500_000)
            if process?.process.isRunning == false { throw WindowFailure("the app ended: \(process?.errors ?? "")") }
        }

        /// Shows a page by its keyboard shortcut (the view switcher's tabs exist twice over AT-SPI: the
        /// switcher title holds a wide and a narrow switcher), and waits until its tab is selected.
        func show(_ page: Page) throws {
            try session.press(page.shortcut)
            guard try eventually(within: 5, { try session.tabs(selected: true).contains(page.title) }) else {
                throw WindowFailure("\(page.title) not selected after \(page.shortcut)", tree: try session.tree())
            }
        }

        /// The app's style-dark action state over D-Bus: what libadwaita's style manager decided.
        func styleIsDark() throws -> Bool {
            let reply = try Tool.run([
                "/usr/bin/gdbus", "call", "--address", session.environment["DBUS_SESSION_BUS_ADDRESS"] ?? "",
                "--dest", "io.github.archiver", "--object-path", "/io/github/archiver",
                "--method", "org.gtk.Actions.Describe", "style-dark",
            ])
            guard reply.status == 0 else { throw WindowFailure("gdbus: \(reply.output)") }
            return reply.output.contains("[<true>]")
        }

        /// Sends files to the running app as a drop does: GApplication's `open` (here over D-Bus).
        func open(_ paths: [String]) throws {
            let uris = paths.map { "'" + URL(fileURLWithPath: $0).absoluteString + "'" }.joined(separator: ", ")
            let reply = try Tool.run([
                "/usr/bin/gdbus", "call", "--address", session.environment["DBUS_SESSION_BUS_ADDRESS"] ?? "",
                "--dest", "io.github.archiver", "--object-path", "/io/github/archiver",
                "--method", "org.freedesktop.Application.Open", "[\(uris)]", "{}",
            ])
            guard reply.status == 0 else { throw WindowFailure("gdbus: \(reply.output)") }
        }
    }

    /// A session with the app shown (started with `extra` in its environment).
    private func app(_ extra: [String: String] = [:], before: ((App) throws -> Void)? = nil) throws -> App {
        let bin = try #require(BuiltProducts.folder(holding: Self.tools), "build \(Self.tools) first")
        let session = try WindowSession()
        let data = session.folder + "/data"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        let environment = WindowSession.keyfileSettings.merging(["XDG_DATA_HOME": data]) { $1 }
        var app = App(session: session, bin: bin, data: data, environment: environment)
        try before?(app)
        app.process = try session.launch([bin + "/archiver"], environment: environment.merging(extra) { $1 })
        try session.waitForApp("archiver")
        return app
    }

    private func photos(_ scratch: ScratchDirectory) throws -> String {
        let folder = scratch.sub("Photos")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try String(repeating: "holiday notes\n", count: 2000).write(toFile: folder + "/notes.txt", atomically: true, encoding: .utf8)
        return folder
    }

    @Test func settingsBecomeTheDefaultsOfAPlainCompress() throws {
        let scratch = try ScratchDirectory()
        let input = try photos(scratch)
        let app = try app()
        defer { app.session.stop() }
        try app.show(.settings)
        try app.session.select("7z — smallest; encryption hides the names too", in: "Archive format")
        try app.session.select("Store — no compression", in: "Compression level")
        let stored = app.session.storedSettings
        #expect(stored.contains("default-format='7z'") && stored.contains("compression-level='store'"), "\(stored)")
        #expect(try app.compress([input]) == 0)
        let listing = try Tool.run(["/usr/bin/7zz", "l", "-slt", scratch.sub("Photos.7z")])
        #expect(listing.status == 0, "\(listing.output)")
        #expect(listing.output.contains("Method = Copy"), "stored, not compressed: \(listing.output)")
        // Reset to Defaults puts both back.
        // Its name says what it resets, once (issue 33: GTK 4.8 had appended the label's words).
        try app.session.click("Reset Compressing to defaults")
        #expect(try eventually(within: 5) { !app.session.storedSettings.contains("default-format='7z'") })
    }

    /// The defaults of --verify, --nested, the leave-out flags and the mount's idle timeout are on the page (issue
    /// 33: they were missing): each a named control showing its key's value, and a change is stored at once.
    @Test func verifyNestedAndLeaveOutSwitchesAreBoundToTheirKeys() throws {
        let app = try app()
        defer { app.session.stop() }
        try app.show(.settings)
        let switches = [
            ("Test each new archive", "verify-after-compress", false), ("Also extract the archives inside", "extract-nested", false),
            ("System leftovers", "exclude-junk", true), ("Version-control folders", "exclude-vcs", false),
            ("Dependency, build and cache folders", "exclude-caches", false), ("What git ignores", "follow-gitignore", false),
        ]
        // A flip reports and stores the other value than the default: the switch showed the key's value.
        for (name, key, byDefault) in switches {
            #expect(try app.session.toggle(name) == !byDefault, "\(name)")
            #expect(try eventually(within: 5) { app.session.storedSettings.contains("\(key)=\(!byDefault)") },
                    "\(key): \(app.session.storedSettings)")
        }
        // mount-idle-timeout (issue 33: it was not on the page): a spin button in seconds, showing the key's value.
        let idle = "Seconds unused before unmounting"
        #expect(try app.session.value(of: idle, role: "spin button") == 300)
        try app.session.setValue(45, of: idle)
        #expect(try eventually(within: 5) { app.session.storedSettings.contains("mount-idle-timeout=45") },
                "\(app.session.storedSettings)")
        let unnamed = try app.session.unnamedControls()
        #expect(unnamed == [], "\(unnamed)")
    }

    /// Light and dark, every page: the screenshots the README points at; Dark in Settings is what
    /// libadwaita's style manager then reports, and the window is dark.
    @Test func darkAppearanceAndScreenshots() throws {
        let scratch = try ScratchDirectory()
        let input = try photos(scratch)
        // Something in Recent for the pictures.
        let app = try app { app in
            let status = try app.compress([input])
            #expect(status == 0)
        }
        defer { app.session.stop() }
        #expect(try !app.styleIsDark())
        for page in Page.allCases {
            try app.show(page)
            try app.session.screenshot("app/\(page.title.lowercased())-light")
        }
        try app.show(.settings)
        try app.session.select("Dark", in: "Style")
        #expect(try eventually(within: 5) { try app.styleIsDark() })
        #expect(app.session.storedSettings.contains("color-scheme='dark'"))
        for page in Page.allCases.reversed() {
            try app.show(page)
            let shot = try app.session.screenshot("app/\(page.title.lowercased())-dark")
            let mean = try Tool.run(["/usr/bin/convert", shot, "-colorspace", "Gray", "-format", "%[fx:mean]", "info:"])
            let lightness = try #require(Double(mean.output.trimmingCharacters(in: .whitespacesAndNewlines)), "\(mean.output)")
            #expect(lightness < 0.33, "\(page): lightness \(lightness), not dark")
        }
    }

    @Test func recentListsWhatWasJustMadeAndMovesItToTheTrash() throws {
        let scratch = try ScratchDirectory()
        let input = try photos(scratch)
        let archive = scratch.sub("Photos.zip")
        let app = try app { app in
            let status = try app.compress([input])
            #expect(status == 0)
        }
        defer { app.session.stop() }
        try app.show(.recent)
        try app.session.waitFor("Photos.zip")
        let trash = "Move “Photos.zip” to the Trash"
        try app.session.click(trash)
        #expect(try eventually(within: 5) { !FileManager.default.fileExists(atPath: archive) })
        #expect(FileManager.default.fileExists(atPath: app.data + "/Trash/files/Photos.zip"))
        try app.session.waitForText("missing")
        try app.session.click("Undo", role: "push button")
        #expect(try eventually(within: 5) { FileManager.default.fileExists(atPath: archive) })
        try app.session.waitFor(trash)
    }

    @Test func clearHistoryRemovesOnlyOurEntriesAndUndoPutsThemBack() throws {
        let scratch = try ScratchDirectory()
        let input = try photos(scratch)
        let theirs = "file://" + scratch.sub("letter.txt")
        let app = try app() { app in
            try RecentList.writeOthers(at: app.recentFile, uri: theirs)
            let status = try app.compress([input])
            #expect(status == 0)
        }
        defer { app.session.stop() }
        let ours = "file://" + scratch.sub("Photos.zip")
        let before = try RecentList.read(app.recentFile)
        #expect(Set(before.keys) == [theirs, ours])
        try app.show(.recent)
        try app.session.waitFor("Photos.zip")
        try app.session.click("Clear History…")
        try app.session.click("Clear History", role: "push button", first: true)
        try app.settle()
        try app.session.waitForText("Nothing Yet")
        #expect(Set(try RecentList.read(app.recentFile).keys) == [theirs])
        try app.session.click("Undo", role: "push button")
        try app.session.waitFor("Photos.zip")
        let restored = try RecentList.read(app.recentFile)
        #expect(Set(restored.keys) == [theirs, ours])
        #expect(restored == before, "as it was: \(restored)")
    }

    /// Home's Statistics count what the executables recorded; "Clear History and Statistics" empties both,
    /// and Undo puts both back.
    @Test func statisticsCountJobsAndClearWithTheHistory() throws {
        let scratch = try ScratchDirectory()
        let input = try photos(scratch)
        let app = try app { app in
            for format in ["zip", "7z"] {
                let status = try app.compress(["--format", format, input])
                #expect(status == 0)
            }
        }
        defer { app.session.stop() }
        try app.session.waitFor("Archives made: 2")
        // At the window's default size the heading is whole, not cut by the bottom edge (issue 33).
        #expect(try app.session.isWhollyShown("Statistics", role: "label"), "\(String(describing: try? app.session.extents(of: "Statistics", role: "label")))")
        try app.show(.recent)
        try app.session.click("Clear History…")
        try app.session.click("Clear History and Statistics", role: "push button", first: true)
        try app.settle()
        try app.session.waitForText("Nothing Yet")
        #expect(!FileManager.default.fileExists(atPath: app.data + "/io.github.archiver/statistics.ini"))
        try app.show(.home)
        try app.session.waitFor("Archives made: 0")
        try app.session.click("Undo", role: "push button")
        try app.session.waitFor("Archives made: 2")
        #expect(try RecentList.read(app.recentFile).count == 2)
    }

    /// A PDF and a photo made smaller by their tools (as the Compress PDF… and Compress Photos… windows run
    /// them) show in Recent with their saving, and in Home's statistics.
    @Test func smallerPDFsAndPhotosShowInRecentWithTheirSavingAndInTheStatistics() throws {
        let scratch = try ScratchDirectory()
        let pdf = try scratch.copy(WindowPDFs.report, as: "report.pdf")
        let photo = scratch.sub("beach.jpg")
        let made = try Tool.run([
            "/usr/bin/python3", "-c",
            "import random, sys; from PIL import Image; random.seed(3); Image.frombytes('RGB', (750, 500), random.randbytes(750 * 500 * 3)).resize((3000, 2000)).save(sys.argv[1], quality=95)",
            photo,
        ])
        #expect(made.status == 0, "\(made.output)")
        let tools = try #require(BuiltProducts.folder(holding: ["compress-pdf-with-archiver", "compress-photos-with-archiver"]))
        let app = try app { app in
            for argv in [["compress-pdf-with-archiver", "--quality", "low", "--", pdf], ["compress-photos-with-archiver", "--", photo]] {
                let run = try app.session.launch([tools + "/" + argv[0], "--no-notify"] + argv.dropFirst(), environment: app.environment)
                #expect(try run.waitForExit(within: 60) == 0, "\(argv[0]): \(run.errors)")
            }
        }
        defer { app.session.stop() }
        try app.session.waitFor("PDFs made smaller: 1")
        try app.session.waitFor("Photos made smaller: 1")
        let pdfSaved = try app.session.waitForText(" saved; 1 in the last 30 days")
        #expect(!pdfSaved.replacingOccurrences(of: "\u{00A0}", with: " ").hasPrefix("0 bytes"), "\(pdfSaved)")
        try app.show(.recent)
        try app.session.waitFor("report (compressed).pdf")
        // Each row: kind · date · the copy's size, and how much smaller it is than what it was made from.
        let labels = try app.session.labels()
        let rows = labels.filter { $0.hasSuffix("% smaller") }
        #expect(rows.count == 2, "\(labels)")
        let copy = Double((try FileManager.default.attributesOfItem(atPath: scratch.sub("report (compressed).pdf"))[.size] as? Int) ?? 0)
        let saving = Int((100 - copy * 100 / Double(try FileManager.default.attributesOfItem(atPath: pdf)[.size] as? Int ?? 1)).rounded())
        #expect(rows.contains { $0.hasPrefix("PDF document · ") && $0.hasSuffix(", \(min(saving, 99)) % smaller") }, "\(rows), \(saving)")
        try app.session.screenshot("app/recent-smaller")
    }

    /// A PDF dropped on the app asks what to do; Compress PDF… opens its window. Home offers Compress PDF…
    /// and Compress Photos… beside the two archive actions.
    @Test func aDroppedPDFOpensTheCompressPDFWindow() throws {
        let scratch = try ScratchDirectory()
        let pdf = try scratch.copy(WindowPDFs.report, as: "report.pdf")
        try #require(BuiltProducts.executable("archiver-compress-pdf") != nil, "build archiver-compress-pdf first")
        let app = try app()
        defer { app.session.stop() }
        for action in ["Compress Files…", "Extract Archive…", "Compress PDF…", "Compress Photos…"] {
            #expect(try app.session.isSensitive(action, role: "push button"), "\(action)")
        }
        try app.open([pdf])
        // The question's default answer is the PDF's own window (Home's button has the same name: Enter it is).
        try app.session.waitForText("Compress the PDF?")
        try app.settle()
        try app.session.press("Return")
        try app.session.waitForApp("archiver-compress-pdf")
        #expect(try app.session.windowTitle() == "Compress “report.pdf”")
        try app.session.waitForText("about ", timeout: 30)
    }

    /// A drop hands the files to GApplication's `open`, as D-Bus does here; a second start does the same.
    @Test func droppedFilesOpenTheCompressWindowAndAnArchiveTheExtractWindow() throws {
        let scratch = try ScratchDirectory()
        let input = try photos(scratch)
        let app = try app()
        defer { app.session.stop() }
        try app.open([input])
        try app.session.waitForApp("archiver-compress")
        #expect(try app.session.windowTitle() == "Compress “Photos”")

        #expect(try app.compress([input]) == 0)
        let second = try app.session.launch([app.bin + "/archiver", scratch.sub("Photos.zip")], environment: app.environment)
        #expect(try second.waitForExit(within: 10) == 0, "the second start hands over and ends: \(second.errors)")
        #expect(app.process?.process.isRunning == true, "the first instance goes on")
        try app.session.waitForApp("archiver-extract")
        #expect(try app.session.windowTitle().contains("Photos.zip"))
    }

    @Test func keyboardShortcutsAndNames() throws {
        let app = try app()
        defer { app.session.stop() }
        for page in Page.allCases {
            try app.show(page)
            let unnamed = try app.session.unnamedControls()
            #expect(unnamed == [], "\(page): \(unnamed)")
        }
        try app.session.waitFor("Archive format", role: "combo box")
        try app.show(.recent)
        try app.session.waitFor("Search by name")
        // Ctrl+? shows the shortcuts window; Ctrl+Q (back in the main window) quits.
        try app.session.press("ctrl+?")
        try app.session.waitForText("Search the history")
        try app.session.press("Escape")
        try app.session.waitUntilGone("Search the history")
        try app.session.press("ctrl+q")
        #expect(try app.process?.waitForExit(within: 10) == 0)
    }

    @Test func germanAndPseudoLocaleLabels() throws {
        let scratch = try ScratchDirectory()
        let input = try photos(scratch)
        let german = try app(try TestLanguages.german()) { app in
            let status = try app.compress([input])
            #expect(status == 0)
        }
        defer { german.session.stop() }
        var labels = try german.session.labels()
        // The ellipsis is bound to its word by a no-break space: never alone on a line (issue 33).
        for word in ["Dateien hier ablegen", "Dateien komprimieren\u{00A0}…", "Archiv entpacken\u{00A0}…"] {
            #expect(labels.contains(word), "\(word) in \(labels)")
        }
        try german.session.press(Page.settings.shortcut)
        #expect(try eventually(within: 5) { try german.session.tabs(selected: true) == ["Einstellungen"] })
        labels = try german.session.labels()
        for word in ["Komprimieren", "Entpacken", "Darstellung", "Jedes neue Archiv prüfen", "Aus neuen Archiven weggelassen"] { #expect(labels.contains(word), "\(word) in \(labels)") }
        try german.session.screenshot("app/settings-de")
        // A size's number and unit stay on one line: "122 Bytes" had wrapped in Recent (issue 33).
        try german.session.press(Page.recent.shortcut)
        try german.session.waitFor("Photos.zip")
        let sizes = try german.session.labels().filter { $0.range(of: "[0-9][ \u{00A0}](Bytes|kB|MB)", options: .regularExpression) != nil }
        #expect(!sizes.isEmpty && sizes.allSatisfy { $0.range(of: "[0-9] (Bytes|kB|MB)", options: .regularExpression) == nil }, "\(sizes)")
        try german.session.screenshot("app/recent-de")
        german.session.stop()

        let pseudo = try app(try TestLanguages.pseudo())
        defer { pseudo.session.stop() }
        var seen: [String] = []
        for page in Page.allCases {
            try pseudo.session.press(page.shortcut)
            #expect(try eventually(within: 5) { try pseudo.session.tabs(selected: true) == ["⟦\(page.title)⟧"] })
            seen += try pseudo.session.labels()
        }
        // Data, not words: format names and sizes the settings show as they are.
        let words = seen.filter { $0.contains(where: \.isLetter) && $0 != "GtkLabel" }
        #expect(!words.isEmpty)
        for label in words { #expect(label.contains("⟦"), "\(label) is not from the catalog") }
    }
}

private extension WindowSession {
    /// The names of the view switcher's tabs (each once), or of the selected ones.
    func tabs(selected: Bool = false) throws -> Set<String> {
        Set(try nodes().filter { $0.role == "page tab" && (!selected || $0.states.contains("selected")) }.map(\.name))
    }
}
