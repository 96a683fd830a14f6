import ArchiverTestSupport
import Foundation
import Testing

/// The Compress… window, the real executable driven over AT-SPI (WindowSession). Serialized: each test has
/// its own display and bus, but the machine has two cores and the jobs are timed.
@Suite(.serialized, .disabled(if: WindowSession.missing != nil, Comment(rawValue: WindowSession.missing ?? "")))
struct CompressWindowTests {
    /// A folder `Photos` with a text file and some incompressible bytes.
    private func photos(_ scratch: ScratchDirectory, randomMegabytes: Int = 1) throws -> String {
        let folder = scratch.sub("Photos")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try String(repeating: "holiday notes\n", count: 2000).write(toFile: folder + "/notes.txt", atomically: true, encoding: .utf8)
        try Tool.run(["/bin/sh", "-c", "head -c \(randomMegabytes)M /dev/urandom > '\(folder)/beach.raw'"])
        return folder
    }

    private func entries(_ scratch: ScratchDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: scratch.path).sorted()
    }

    /// A session showing the Compress… window for `inputs` (it runs the CLI found beside it).
    private func window(_ inputs: [String], environment: [String: String] = [:]) throws -> WindowSession {
        try launchWindow(inputs, environment: environment).session
    }

    /// The session and the window's own process.
    private func launchWindow(_ inputs: [String], environment: [String: String] = [:]) throws -> (session: WindowSession, process: WindowSession.Launched) {
        let executable = try #require(
            BuiltProducts.folder(holding: ["archiver-compress", "compress-with-archiver"]).map { $0 + "/archiver-compress" },
            "build archiver-compress and compress-with-archiver first")
        let session = try WindowSession()
        let process = try session.launch([executable] + inputs, environment: environment)
        try session.waitForApp("archiver-compress")
        return (session, process)
    }

    /// What a job ends with: its result line, or the error the window shows.
    private let outcome = ["Created", "Could not", "Cancelled"]

    @Test func chosenNameAndFormatMakeThatArchive() throws {
        let scratch = try ScratchDirectory()
        let input = try photos(scratch)
        let session = try window([input], environment: WindowSession.keyfileSettings)
        defer { session.stop() }
        try session.type("Archive name", "Holiday")
        try session.select("7z — smallest; encryption hides the names too", in: "Format")
        #expect(try session.waitForText("Will be saved as “Holiday") == "Will be saved as “Holiday.7z”")
        try session.screenshot("compress-form")
        try session.click("Compress", role: "push button")
        #expect(try session.waitForText(anyOf: outcome, timeout: 60) == "Created “Holiday.7z”")
        try session.screenshot("compress-result")
        let listing = try Tool.run(["/usr/bin/7zz", "l", "-ba", scratch.sub("Holiday.7z")])
        #expect(listing.status == 0)
        #expect(listing.output.contains("Photos/notes.txt"))
        #expect(listing.output.contains("Photos/beach.raw"))
        // The choice is remembered in last-format/last-level, not in the one-click defaults.
        let stored = session.storedSettings
        #expect(stored.contains("last-format='7z'"), "\(stored)")
        #expect(stored.contains("last-level='normal'"), "\(stored)")
        #expect(!stored.contains("default-format"), "\(stored)")
    }

    @Test func encryptedZipOpensWithThePasswordAndMismatchKeepsCompressOff() throws {
        let scratch = try ScratchDirectory()
        let input = try photos(scratch)
        let session = try window([input])
        defer { session.stop() }
        try session.toggle("Encrypt", on: true)
        try session.type("Password", "correct horse")
        try session.type("Confirm password", "correct hors")
        #expect(try !session.isSensitive("Compress", role: "push button"))
        // Said with the field (its description), which keeps its name; shown under its title.
        try session.waitForText("Passwords do not match")
        #expect(try session.states(of: "Confirm password", role: "password text").contains("editable"))
        try session.screenshot("compress-mismatch")
        try session.type("Confirm password", "correct horse")
        #expect(try session.isSensitive("Compress", role: "push button"))
        try session.click("Compress", role: "push button")
        #expect(try session.waitForText(anyOf: outcome, timeout: 60) == "Created “Photos.zip”")
        let archive = scratch.sub("Photos.zip")
        #expect(try Tool.run(["/usr/bin/7zz", "t", "-pcorrect horse", archive]).status == 0)
        #expect(try Tool.run(["/usr/bin/7zz", "t", "-pwrong", archive]).status != 0)
        let technical = try Tool.run(["/usr/bin/7zz", "l", "-slt", "-pcorrect horse", archive]).output
        #expect(technical.contains("AES-256"))
    }

    @Test func finalNameSkipsWhatTheFolderHolds() throws {
        let scratch = try ScratchDirectory()
        let input = try photos(scratch)
        for taken in ["Photos.zip", "Photos (2).zip", "Report.zip"] {
            FileManager.default.createFile(atPath: scratch.sub(taken), contents: Data())
        }
        let session = try window([input])
        defer { session.stop() }
        #expect(try session.waitForText("Will be saved as") == "Will be saved as “Photos (3).zip”")
        try session.type("Archive name", "Report")
        #expect(try session.waitForText("Will be saved as “Report") == "Will be saved as “Report (2).zip”")
        try session.type("Archive name", "")
        #expect(try !session.isSensitive("Compress", role: "push button"))
    }

    @Test func cancelMidJobLeavesNothing() throws {
        let scratch = try ScratchDirectory()
        let input = try photos(scratch, randomMegabytes: 96)
        let before = try entries(scratch)
        let session = try window([input])
        defer { session.stop() }
        try session.select("tar.xz — small, slower", in: "Format")
        try session.select("Maximum — smallest, slowest", in: "Level")
        try session.click("Compress", role: "push button")
        try session.waitForText(" of ", timeout: 30)
        try session.screenshot("compress-progress")
        try session.click("Cancel", role: "push button")
        #expect(try session.waitForText(anyOf: outcome, timeout: 60) == "Cancelled")
        #expect(try entries(scratch) == before)
    }

    /// Cancel pressed before the tool listens for signals (its first moment, on a loaded machine; held here by
    /// `ARCHIVER_TEST_SLOW_START`): the tool dies of the window's SIGTERM before doing anything, which is a
    /// cancel, not "Could not compress".
    @Test func cancelBeforeTheToolListensIsACancel() throws {
        let scratch = try ScratchDirectory()
        let input = try photos(scratch)
        let before = try entries(scratch)
        let session = try window([input], environment: ["ARCHIVER_TEST_SLOW_START": "30"])
        defer { session.stop() }
        try session.click("Compress", role: "push button")
        try session.waitForText("Compressing “Photos”", exact: true, timeout: 10)
        // The form's Cancel shows until the page has slid away: then the job's is the only one.
        #expect(eventually(within: 5) { (try? session.click("Cancel", role: "push button")) != nil })
        let said = try session.waitForText(anyOf: outcome, timeout: 20)
        #expect(said == "Cancelled", "\((try? session.labels()) ?? [])")
        #expect(try entries(scratch) == before)
    }

    /// Closing the window while it compresses hides it; the job goes on and its end is a desktop
    /// notification, sent the way the tools send theirs (libnotify on the window's own loop).
    @Test func closedMidJobTheResultComesAsANotification() throws {
        let scratch = try ScratchDirectory()
        let input = try photos(scratch, randomMegabytes: 16)
        let (session, process) = try launchWindow([input])
        defer { session.stop() }
        let log = session.folder + "/notify.log"
        try session.startNotificationServer(log: log)
        try session.select("tar.xz — small, slower", in: "Format")
        try session.click("Compress", role: "push button")
        try session.waitForText(" of ", timeout: 30)
        try session.closeWindow("Compress “Photos”")
        let status = try process.waitForExit(within: 240)
        #expect(status == 0, "\(process.errors)")
        let shown = LoggedNotification.all(in: log)
        #expect(shown.map(\.summary) == ["Created “Photos.tar.xz”"], "\(shown)")
        #expect(shown.first?.hints.contains("io.github.archiver.Compress") == true, "the launcher's name and icon: \(shown)")
        #expect(FileManager.default.fileExists(atPath: scratch.sub("Photos.tar.xz")))
    }

    /// Share… → Copy puts the archive on the clipboard as a file manager pastes it.
    @Test func copyPutsTheResultOnTheClipboard() throws {
        let scratch = try ScratchDirectory()
        let input = try photos(scratch)
        let session = try window([input])
        defer { session.stop() }
        try session.click("Compress", role: "push button")
        #expect(try session.waitForText(anyOf: outcome, timeout: 60) == "Created “Photos.zip”")
        try session.click("Share…")
        try session.click("Copy", role: "push button")
        let reader = #"""
            import sys, gi
            gi.require_version("Gdk", "4.0"); gi.require_version("Gtk", "4.0")
            from gi.repository import Gdk, GLib, Gtk
            Gtk.init()
            loop = GLib.MainLoop()
            out = {}
            def read(mime):
                def got(stream, result):
                    out[mime] = stream.read_bytes_finish(result).get_data().decode()
                    if len(out) == 2: loop.quit()
                def done(clipboard, result):  # reading must not block: the data arrives through this loop
                    stream, _ = clipboard.read_finish(result)
                    stream.read_bytes_async(65536, 0, None, got)
                Gdk.Display.get_default().get_clipboard().read_async([mime], 0, None, done)
            clipboard = Gdk.Display.get_default().get_clipboard()
            def ready():  # the owner's formats reach a new client a moment after it connects
                if not clipboard.get_formats().contain_mime_type("text/uri-list"): return True
                read("text/uri-list"); read("x-special/gnome-copied-files")
                return False
            GLib.timeout_add(100, ready)
            GLib.timeout_add_seconds(10, loop.quit)
            loop.run()
            print(repr(out.get("text/uri-list")), repr(out.get("x-special/gnome-copied-files")), clipboard.get_formats().to_string())
            """#
        let read = try Tool.run(["/usr/bin/timeout", "30", "/usr/bin/env", "DISPLAY=\(session.display)", "/usr/bin/python3", "-c", reader])
        let folder = URL(fileURLWithPath: scratch.sub("Photos.zip")).absoluteString
        #expect(read.output.contains("'\(folder)\\r\\n'"), "\(read.output)")
        #expect(read.output.contains("'copy\\n\(folder)'"), "\(read.output)")
    }

    @Test func everyControlHasANameAndARole() throws {
        let scratch = try ScratchDirectory()
        let input = try photos(scratch)
        let session = try window([input, input + "/notes.txt"])
        defer { session.stop() }
        #expect(try session.windowTitle() == "Compress 2 items")
        try session.toggle("Encrypt", on: true)
        try session.toggle("Split into parts", on: true)
        try session.waitFor("Part size", role: "combo box")
        let unnamed = try session.unnamedControls()
        #expect(unnamed == [], "\(unnamed)")
        try session.screenshot("compress-options")
    }

    @Test func germanLabels() throws {
        let scratch = try ScratchDirectory()
        let input = try photos(scratch)
        let session = try window([input], environment: try TestLanguages.german())
        defer { session.stop() }
        #expect(try session.windowTitle() == "„Photos“ komprimieren")
        let labels = try session.labels()
        for german in ["Archivname", "Wird als „Photos.zip“ gespeichert", "Ordner", "Format", "Stufe", "Verschlüsseln", "In Teile aufteilen", "Abbrechen", "Komprimieren"] {
            #expect(labels.contains(german), "\(german) in \(labels)")
        }
        try session.screenshot("compress-form-de")
    }

    /// Keyboard only: the name field has the focus with its text selected, typing replaces it, Enter is
    /// Compress; in a second window, Escape is Cancel and closes it without making anything.
    @Test func theKeyboardAloneCompressesAndCancels() throws {
        let scratch = try ScratchDirectory()
        let input = try photos(scratch)
        let session = try window([input])
        defer { session.stop() }
        try session.typeKeys("Trip")
        #expect(try session.waitForText("Will be saved as “Trip") == "Will be saved as “Trip.zip”")
        try session.press("Return")
        #expect(try session.waitForText(anyOf: outcome, timeout: 60) == "Created “Trip.zip”")
        #expect(FileManager.default.fileExists(atPath: scratch.sub("Trip.zip")))

        let before = try entries(scratch)
        let (second, process) = try launchWindow([input])
        defer { second.stop() }
        try second.press("Escape")
        #expect(try process.waitForExit(within: 10) == 0)
        #expect(try entries(scratch) == before)
    }

    /// Under the pseudo-locale made from the template, every label the window shows comes from the catalog.
    @Test func everyLabelComesFromTheCatalog() throws {
        let scratch = try ScratchDirectory()
        let input = try photos(scratch)
        let session = try window([input], environment: try TestLanguages.pseudo())
        defer { session.stop() }
        try session.toggle(try #require(try session.labels().first { $0.contains("Encrypt") }), on: true)
        let labels = try session.labels().filter { $0.contains(where: \.isLetter) }
        // Names and paths are data, not words: the folder row's path and the name field's text. An empty
        // label (the progress page's, not shown yet) reads as GTK 4.8's class-name placeholder.
        let words = labels.filter { !$0.hasPrefix("/") && $0 != "Photos" && $0 != "GtkLabel" }
        #expect(!words.isEmpty)
        for label in words { #expect(label.contains("⟦"), "\(label) is not from the catalog: \(labels)") }
        #expect(try session.windowTitle().contains("⟦"))
    }

    /// The window follows the desktop's dark style (GNOME's color-scheme setting), as libadwaita reads it.
    @Test func followsTheDarkStyle() throws {
        let scratch = try ScratchDirectory()
        let input = try photos(scratch)
        let executable = try #require(BuiltProducts.folder(holding: ["archiver-compress"]).map { $0 + "/archiver-compress" })
        let session = try WindowSession()
        defer { session.stop() }
        try session.presetSettings(["org/gnome/desktop/interface": "color-scheme='prefer-dark'"])
        try session.launch([executable, input], environment: WindowSession.keyfileSettings)
        try session.waitForApp("archiver-compress")
        try session.waitForText("Will be saved as “Photos.zip”")
        let shot = try session.screenshot("compress-dark")
        // The window's mean colour, from ImageMagick: dark when its lightness is under a third.
        let mean = try Tool.run(["/usr/bin/convert", shot, "-colorspace", "Gray", "-format", "%[fx:mean]", "info:"])
        let lightness = try #require(Double(mean.output.trimmingCharacters(in: .whitespacesAndNewlines)), "\(mean.output)")
        #expect(lightness < 0.33, "lightness \(lightness): the window is not dark")
    }

    /// A node project in a git work tree of its own: node_modules, a cache, OS junk, an ignored log.
    private func project(_ scratch: ScratchDirectory) throws -> String {
        let folder = scratch.sub("app")
        for (path, size) in ["index.js": 300, "node_modules/left/pad.js": 4000, "node_modules/b.js": 2000,
                             "__pycache__/x.pyc": 100, ".DS_Store": 10, "debug.log": 50, ".gitignore": 0] {
            let file = folder + "/" + path
            try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            FileManager.default.createFile(atPath: file, contents: Data(repeating: 0x61, count: size))
        }
        try "*.log\n".write(toFile: folder + "/.gitignore", atomically: true, encoding: .utf8)
        try Tool.run(["/usr/bin/git", "init", "-q", folder])
        return folder
    }

    /// The section shows what each switch would leave out, the settings' defaults on (junk only), the total
    /// and the archive's estimated size as the switches change it; what they choose is what the archive leaves
    /// out, and the switches are remembered as the settings' defaults when the job starts (issue 31).
    @Test func leaveOutSwitchesShowTheirFiguresAndDecideTheArchive() throws {
        let scratch = try ScratchDirectory()
        let input = try project(scratch)
        let session = try window([input], environment: WindowSession.keyfileSettings)
        defer { session.stop() }
        // node_modules has a switch of its own (issue 31: it shared the caches').
        let nodeModules = "Leave out node_modules", caches = "Leave out build and cache folders"
        try session.waitFor(nodeModules, role: "check box")
        // node_modules: the folder, its folder and two files; the cache folder and its file.
        try session.waitForText("6.0 kB, 4 items")
        try session.waitForText("100 bytes, 2 items")
        try session.waitForText("10 bytes, 1 item")
        #expect(try session.isChecked("Leave out OS junk (Thumbs.db, desktop.ini, …)", role: "check box"))
        #expect(try !session.isChecked(nodeModules, role: "check box") && !session.isChecked(caches, role: "check box"))
        #expect(try session.waitForText("Leaves out 1 item").hasPrefix("Leaves out 1 item (10 bytes); "))
        try session.toggle(nodeModules, on: true)
        #expect(try session.waitForText("Leaves out 5").hasPrefix("Leaves out 5 items (6.0 kB); "))
        try session.toggle(caches, on: true)
        #expect(try session.waitForText("Leaves out 7").hasPrefix("Leaves out 7 items (6.1 kB); "))
        try session.toggle("Follow .gitignore", on: true)
        // What remains: index.js (300 bytes of one letter) and .gitignore's 6. Its estimate: deflate's ratio on
        // the sample; stored, the bytes themselves.
        let total = try session.waitForText("306 bytes to compress. Estimated archive size: ")
        #expect(!total.hasSuffix(" 306 bytes."), "\(total)")
        try session.select("Store — no compression", in: "Level")
        try session.waitForText("306 bytes to compress. Estimated archive size: 306 bytes.")
        try session.select("Normal", in: "Level")
        try session.screenshot("compress-leave-out")
        try session.click("Compress", role: "push button")
        #expect(try session.waitForText(anyOf: outcome, timeout: 60) == "Created “app.zip”")
        let names = try Tool.run(["/usr/bin/python3", "-c", "import sys, zipfile; print(sorted(zipfile.ZipFile(sys.argv[1]).namelist()))", scratch.sub("app.zip")])
        #expect(names.output.trimmingCharacters(in: .whitespacesAndNewlines) == "['app/', 'app/.gitignore', 'app/index.js']", "\(names.output)")
        // Remembered: the switches turned on are the new defaults; junk, on by default, needed no writing.
        let stored = session.storedSettings
        for key in ["exclude-node-modules=true", "exclude-caches=true", "follow-gitignore=true"] {
            #expect(stored.contains(key), "\(key): \(stored)")
        }
        #expect(!stored.contains("exclude-junk"), "\(stored)")
    }

    /// Only files: nothing to leave out, no section.
    @Test func noLeaveOutSectionWithoutFolders() throws {
        let scratch = try ScratchDirectory()
        let input = try photos(scratch)
        let session = try window([input + "/notes.txt"])
        defer { session.stop() }
        try session.waitForText("Will be saved as")
        #expect(try !session.labels().contains("Leave out"))
    }

    /// The names in a zip, sorted, by Python's zipfile.
    private func namesIn(_ zip: String) throws -> String {
        let names = try Tool.run(["/usr/bin/python3", "-c", "import sys, zipfile; print(sorted(zipfile.ZipFile(sys.argv[1]).namelist()))", zip])
        return names.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// "Will it open for them?": the form's archive checked before it is written, a row per kind of
    /// problem with its own fix. A fix clicked is part of the next check, so its row goes (Undo brings it
    /// back); a row not fixed stays; the archive holds what the fixes chose.
    @Test func eachPortabilityProblemHasItsOwnFix() throws {
        let scratch = try ScratchDirectory()
        let folder = scratch.sub("Share")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for name in ["CON.txt", "a:b.txt", "Readme", "README", "fine.txt", "end."] {
            FileManager.default.createFile(atPath: folder + "/" + name, contents: Data(name.utf8))
        }
        try Tool.run(["/usr/bin/python3", "-c", "import sys; open(sys.argv[1].encode() + b'/caf\\xe9', 'w').write('latin')", folder])
        try FileManager.default.createSymbolicLink(atPath: folder + "/link", withDestinationPath: "fine.txt")
        let session = try window([folder])
        defer { session.stop() }
        let devices = "1 name Windows keeps for devices (CON, NUL, COM1…)"
        try session.waitForText(devices, timeout: 30)
        try session.waitForText("“Share/CON.txt”")
        try session.click("Rename the names Windows keeps for devices")
        try session.waitUntilGone(devices, timeout: 30)
        try session.waitForText("1 fix chosen", exact: true)
        #expect(eventually(within: 5) { (try? session.focused().name) == "Undo the fixes" }, "the focus goes to Undo")
        try session.screenshot("compress-will-it-open")
        try session.click("Undo the fixes")
        try session.waitForText(devices, timeout: 30)

        let fixed = [
            ("Rename the names Windows keeps for devices", devices),
            ("Rename the names ending in a dot or space", "1 name ending in a dot or space, which Windows drops"),
            ("Rename the names that are not UTF-8", "1 name that is not UTF-8, shown garbled on other systems"),
            ("Rename the names differing only in capitals", "1 name differing from another only in capitals: Windows and macOS keep one"),
            ("Follow the symbolic links", "1 symbolic link, which Windows does not make"),
        ]
        for (button, row) in fixed {
            try session.click(button)
            try session.waitUntilGone(row, timeout: 30)
        }
        try session.waitForText("5 fixes chosen", exact: true)
        // Not chosen: it stays, and so does the name.
        try session.waitForText("1 name with characters Windows cannot use (< > : \" | ? *)", exact: true)
        try session.click("Compress", role: "push button")
        #expect(try session.waitForText(anyOf: outcome, timeout: 60) == "Created “Share.zip”")
        try session.waitForText("4 items renamed so that they open everywhere")
        #expect(try namesIn(scratch.sub("Share.zip"))
            == "['Share/', 'Share/CON_.txt', 'Share/README', 'Share/Readme (2)', 'Share/a:b.txt', 'Share/caf_', 'Share/end_', 'Share/fine.txt', 'Share/link']")
        let link = try Tool.run(["/usr/bin/python3", "-c", "import sys, zipfile; print(zipfile.ZipFile(sys.argv[1]).read('Share/link').decode())", scratch.sub("Share.zip")])
        #expect(link.output == "fine.txt\n", "the link followed: the file's own text, \(link.output)")
    }

    /// The other two fixes: symlinks left out, and ZipCrypto for an encrypted zip (chosen only by its click).
    @Test func symlinksLeftOutAndZipCryptoChosen() throws {
        let scratch = try ScratchDirectory()
        let folder = scratch.sub("Share")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: folder + "/fine.txt", contents: Data("fine".utf8))
        try FileManager.default.createSymbolicLink(atPath: folder + "/link", withDestinationPath: "fine.txt")
        let session = try window([folder])
        defer { session.stop() }
        let link = "1 symbolic link, which Windows does not make"
        try session.waitForText(link, timeout: 30)
        try session.toggle("Encrypt", on: true)
        try session.type("Password", "open sesame")
        try session.type("Confirm password", "open sesame")
        let aes = try session.waitForText("cannot open zips encrypted with AES", timeout: 30)
        try session.click("Leave out the symbolic links")
        try session.click("Use ZipCrypto")
        try session.waitUntilGone(link, timeout: 30)
        try session.waitUntilGone(aes, timeout: 30)
        try session.waitForText("2 fixes chosen", exact: true)
        try session.click("Compress", role: "push button")
        #expect(try session.waitForText(anyOf: outcome, timeout: 60) == "Created “Share.zip”")
        let zip = scratch.sub("Share.zip")
        #expect(try namesIn(zip) == "['Share/', 'Share/fine.txt']")
        let read = try Tool.run([
            "/usr/bin/python3", "-c",
            "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); print(z.getinfo('Share/fine.txt').flag_bits & 1, z.read('Share/fine.txt', pwd=b'open sesame').decode())",
            zip,
        ])
        #expect(read.output == "1 fine\n", "ZipCrypto, which Python's zipfile (as Explorer) decrypts: \(read.output)")
    }

    /// A zip's comment from its field, read back by Info-ZIP's unzip.
    @Test func theCommentFieldSetsTheZipComment() throws {
        let scratch = try ScratchDirectory()
        let input = try photos(scratch)
        let session = try window([input])
        defer { session.stop() }
        try session.type("Comment", "Holiday 2026 — für Oma")
        try session.click("Compress", role: "push button")
        #expect(try session.waitForText(anyOf: outcome, timeout: 60) == "Created “Photos.zip”")
        let comment = try Tool.run(["/usr/bin/unzip", "-z", scratch.sub("Photos.zip")])
        #expect(comment.output.contains("Holiday 2026 — für Oma"), "\(comment.output)")
    }

    /// Given one archive, the window converts it: the same tree in the chosen format, beside it.
    @Test func oneArchiveIsConvertedToTheChosenFormat() throws {
        let scratch = try ScratchDirectory()
        _ = try photos(scratch)
        try Tool.run(["/usr/bin/bsdtar", "-czf", scratch.sub("trip.tar.gz"), "-C", scratch.path, "Photos"])
        let session = try window([scratch.sub("trip.tar.gz")])
        defer { session.stop() }
        try session.toggle("Convert “trip.tar.gz” to another format", on: true)
        try session.select("7z — smallest; encryption hides the names too", in: "Format")
        #expect(try session.waitForText("Will be saved as “trip") == "Will be saved as “trip.7z”")
        #expect(try !session.isSensitive("Archive name"))
        try session.click("Compress", role: "push button")
        #expect(try session.waitForText(anyOf: outcome, timeout: 60) == "Created “trip.7z”")
        let listing = try Tool.run(["/usr/bin/7zz", "l", "-ba", scratch.sub("trip.7z")])
        #expect(listing.status == 0)
        #expect(listing.output.contains("Photos/notes.txt") && listing.output.contains("Photos/beach.raw"), "\(listing.output)")
        #expect(FileManager.default.fileExists(atPath: scratch.sub("trip.tar.gz")))
    }

    /// The menus run `archiver-compress -- FILE…`: the "--" ends the options and is no file.
    @Test func theMenusDoubleDashIsNoFile() throws {
        let scratch = try ScratchDirectory()
        let input = try photos(scratch)
        let session = try window(["--", input])
        defer { session.stop() }
        #expect(try session.windowTitle() == "Compress “Photos”")
    }
}
