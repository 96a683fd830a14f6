import ArchiverTestSupport
import Foundation
import Testing

/// The Extract… window, the real executable on a WindowSession (its own Xvfb, bus and AT-SPI driver).
/// Serialized: the machine has two cores.
@Suite(.serialized, .enabled(if: ExtractBuilt.available, "needs Xvfb, at-spi2-core, python3-pyatspi and the built executables"))
struct ExtractWindowTests {

    /// `report/a.txt`, `report/figures/{b.svg,chart.png}` (20 kB of noise), `readme.md`, as `name` in `scratch`
    /// (with `password`: encrypted by our own compress-with-archiver).
    private func archive(_ scratch: ScratchDirectory, _ name: String, password: String? = nil) throws -> String {
        let input = scratch.sub("input")
        try FileManager.default.createDirectory(atPath: input + "/report/figures", withIntermediateDirectories: true)
        try "hi\n".write(toFile: input + "/report/a.txt", atomically: true, encoding: .utf8)
        try "<svg/>\n".write(toFile: input + "/report/figures/b.svg", atomically: true, encoding: .utf8)
        try "top\n".write(toFile: input + "/readme.md", atomically: true, encoding: .utf8)
        try Tool.run(["/bin/sh", "-c", "head -c 20000 /dev/urandom > '\(input)/report/figures/chart.png'"])
        let output = scratch.sub(name)
        let format = name.hasSuffix(".7z") ? "7z" : "zip"
        let command = "cd '\(input)' && " + (password.map { "printf '%s\\n' '\($0)' | " } ?? "")
            + "'\(ExtractBuilt.compress!)' --no-notify --format \(format) --output '\(output)'"
            + (password == nil ? "" : " --encrypt --password-stdin") + " report readme.md"
        let made = try Tool.run(["/bin/sh", "-c", command])
        #expect(made.status == 0, "\(made.output)")
        try FileManager.default.removeItem(atPath: input)
        return output
    }

    /// The regular files under `folder` other than the archives, relative to it.
    private func extracted(_ folder: String) -> [String] {
        let walker = FileManager.default.enumerator(atPath: folder)
        var files: [String] = []
        while let path = walker?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder + "/" + path, isDirectory: &isDirectory), !isDirectory.boolValue,
                !path.hasSuffix(".zip"), !path.hasSuffix(".7z")
            else { continue }
            files.append(path)
        }
        return files.sorted()
    }

    @discardableResult
    private func start(_ session: WindowSession, _ archive: String, environment: [String: String] = [:]) throws -> WindowSession.Launched {
        let settings = BuiltProducts.isolation.filter { ["GSETTINGS_SCHEMA_DIR", "GSETTINGS_BACKEND"].contains($0.key) }
        let launched = try session.launch([ExtractBuilt.window!, archive], environment: settings.merging(environment) { $1 })
        try session.waitForApp("archiver-extract")
        return launched
    }

    @Test func treeListsTheEntriesAndExtractWritesOnlyTheSelection() throws {
        let scratch = try ScratchDirectory()
        let zip = try archive(scratch, "Report.zip")
        let session = try WindowSession()
        defer { session.stop() }
        try start(session, zip)

        #expect(try session.waitForText("4 of 4 files", exact: false).hasPrefix("4 of 4 files, 20"))
        let labels = try session.labels()
        for name in ["report", "figures", "a.txt", "b.svg", "chart.png", "readme.md", "Extract to"] {
            #expect(labels.contains(name), "\(name) in \(labels)")
        }
        try session.screenshot("extract-tree")

        // Unchecking a folder unchecks what it holds; the header follows.
        #expect(try session.toggle("figures", on: false) == false)
        #expect(try !session.isChecked("chart.png", role: "check box"))
        #expect(try !session.isChecked("b.svg", role: "check box"))
        try session.waitForText("2 of 4 files", exact: false)
        try session.toggle("readme.md", on: false)
        try session.waitForText("1 of 4 files", exact: false)
        try session.screenshot("extract-tree-unchecked")
        try session.click("Extract", role: "push button")
        try session.waitForText("Extracted “Report.zip”", timeout: 30)
        try session.screenshot("extract-result")

        // Only report/a.txt, one of the archive's own entries.
        let listing = try Tool.run(["/usr/bin/bsdtar", "-tf", zip]).output.split(separator: "\n").map(String.init)
        #expect(listing.contains("report/figures/chart.png") && listing.contains("readme.md"), "\(listing)")
        let files = extracted(scratch.path)
        #expect(files.count == 1 && files.first?.hasSuffix("report/a.txt") == true, "\(files)")
        #expect(listing.contains { files.first?.hasSuffix($0) == true })
    }

    @Test func wrongThenRightPasswordForAnEncryptedZip() throws {
        let scratch = try ScratchDirectory()
        let zip = try archive(scratch, "Secret.zip", password: "correct horse")
        let session = try WindowSession()
        defer { session.stop() }
        try start(session, zip)

        try session.waitForText("4 of 4 files", exact: false)
        #expect(try !session.isSensitive("Extract", role: "push button"))  // the password first
        try session.type("Password", "wrong")
        try session.click("Extract", role: "push button")
        let wrong = try session.waitForText("Wrong password", timeout: 30)
        #expect(wrong.contains("Secret.zip"), "\(wrong)")
        try session.screenshot("extract-password")
        #expect(extracted(scratch.path).isEmpty)

        try session.type("Password", "correct horse")  // the same field, still there
        try session.click("Extract", role: "push button")
        try session.waitForText("Extracted “Secret.zip”", timeout: 30)
        #expect(extracted(scratch.path).count == 4, "\(extracted(scratch.path))")
    }

    @Test func sevenZipWithEncryptedNamesAsksForThePasswordFirst() throws {
        let scratch = try ScratchDirectory()
        let archive = try archive(scratch, "Hidden.7z", password: "sesame")
        let session = try WindowSession()
        defer { session.stop() }
        try start(session, archive)

        try session.waitForText("are encrypted", timeout: 20)
        try session.type("Password", "open up")
        try session.click("Unlock", role: "push button")
        try session.waitForText("Wrong password", timeout: 20)
        try session.screenshot("extract-password-names")
        try session.type("Password", "sesame")
        try session.click("Unlock", role: "push button")
        try session.waitForText("4 of 4 files", exact: false, timeout: 20)
        #expect(try session.labels().contains("chart.png"))
        try session.click("Extract", role: "push button")
        try session.waitForText("Extracted “Hidden.7z”", timeout: 30)
        #expect(extracted(scratch.path).count == 4, "\(extracted(scratch.path))")
    }

    @Test func aDamagedArchiveShowsItsErrorAndWritesNothing() throws {
        let scratch = try ScratchDirectory()
        let broken = scratch.sub("Broken.zip")
        try Tool.run(["/bin/sh", "-c", "head -c 3000 /dev/urandom > '\(broken)'"])
        let session = try WindowSession()
        defer { session.stop() }
        try start(session, broken)
        let error = try session.waitForText("is not an archive", timeout: 20)
        #expect(error.contains("Broken.zip"), "\(error)")
        #expect(try !session.isSensitive("Extract", role: "push button"))
        try session.screenshot("extract-damaged")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path) == ["Broken.zip"])

        // Cut short: what could be read stays listed, under it the window says only those could be read and
        // nothing can be extracted (extracting fails on the damage and writes nothing, so Extract is not
        // offered); libarchive's own words are under Details, not in the sentence.
        let zip = try archive(scratch, "Cut.zip")
        let cut = scratch.sub("Cut-short.zip")
        try Tool.run(["/bin/sh", "-c", "head -c 12000 '\(zip)' > '\(cut)'"])
        let second = try WindowSession()
        defer { second.stop() }
        try start(second, cut)
        let said = try second.waitForText("listed above could be read", timeout: 20)
        #expect(said.contains("Cut-short.zip") && said.contains("Nothing can be extracted"), "\(said)")
        #expect(try second.labels().contains("chart.png") || second.labels().contains("figures"))
        #expect(try !second.isSensitive("Extract", role: "push button"))
        try second.waitFor("Details")
        #expect(try !second.labels().contains { $0.contains("Truncated") || $0.contains("ZIP") }, "libarchive's words only under Details (closed)")
        try second.screenshot("extract-cut-short")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).sorted() == ["Broken.zip", "Cut-short.zip", "Cut.zip"])
    }

    @Test func everyControlIsNamedAndTheKeyboardIsEnough() throws {
        let scratch = try ScratchDirectory()
        let zip = try archive(scratch, "Keys.zip", password: "pw")
        let session = try WindowSession()
        defer { session.stop() }
        let window = try start(session, zip)
        try session.waitForText("4 of 4 files", exact: false)
        #expect(try session.unnamedControls() == [])
        #expect(try session.tree().contains("[frame] \"Extract “Keys.zip”\""))

        // The tree has the focus: Space flips the first row (the folder "report"), Enter in the password field
        // extracts (Enter on a row opens its entry); Escape on the result closes.
        try session.press("space")
        try session.waitForText("1 of 4 files", exact: false)
        try session.type("Password", "pw")
        try session.focus("Password", role: "password text")
        try session.press("Return")
        try session.waitForText("Extracted “Keys.zip”", timeout: 30)
        #expect(extracted(scratch.path).count == 1 && extracted(scratch.path).first?.hasSuffix("readme.md") == true, "\(extracted(scratch.path))")
        try session.press("Escape")
        #expect(try window.waitForExit() == 0)
    }

    /// A zip made by Python with names that must not be taken as markup, break a row, or crash the tree.
    @Test func strangeNamesAreShownSafely() throws {
        let scratch = try ScratchDirectory()
        let zip = scratch.sub("Strange.zip")
        let script = #"""
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], "w") as z:
                for name in ["<b>bold & co.txt", "line\nbreak.txt", "\u202etxt.exe", "שלום.txt"]:
                    z.writestr(name, b"x")
                info = zipfile.ZipInfo("caf\xe9-latin1.txt")  # no UTF-8 flag: a legacy code page
                z.writestr(info, b"x")
            with open(sys.argv[1], "r+b") as f:  # the raw name bytes: é as Latin-1 0xE9, invalid as UTF-8
                data = f.read().replace("caf\xe9-latin1".encode("cp437"), b"caf\xe9-latin1")
                f.seek(0); f.write(data)
            """#
        let made = try Tool.run(["/usr/bin/python3", "-c", script, zip])
        #expect(made.status == 0, "\(made.output)")
        let session = try WindowSession()
        defer { session.stop() }
        try start(session, zip)
        try session.waitForText("5 of 5 files", exact: false, timeout: 20)
        let labels = try session.labels()
        #expect(labels.contains("<b>bold & co.txt"), "markup characters shown as they are: \(labels)")
        #expect(labels.contains("line?break.txt"), "a newline shown as ?: \(labels)")
        #expect(labels.contains("\u{202E}txt.exe"), "\(labels)")
        #expect(labels.contains("שלום.txt"), "\(labels)")
        #expect(labels.contains { $0.hasPrefix("caf") && $0.hasSuffix("-latin1.txt") && $0.count == 15 }, "the legacy name decoded: \(labels)")
        try session.screenshot("extract-strange-names")
        try session.click("Extract", role: "push button")
        try session.waitForText("Extracted “Strange.zip”", timeout: 30)
        #expect(extracted(scratch.path).count == 5, "\(extracted(scratch.path))")
    }

    /// Cancel mid-job: the window says so and nothing is left beside the archive. The job is held where a
    /// library call would never return (`ARCHIVER_TEST_HANG`, after its first bytes): Cancel must still end it.
    @Test func cancelMidJobLeavesNothing() throws {
        let scratch = try ScratchDirectory()
        let zip = try archive(scratch, "Stuck.zip")
        let session = try WindowSession()
        defer { session.stop() }
        try start(session, zip, environment: ["ARCHIVER_TEST_HANG": "1"])
        try session.waitForText("4 of 4 files", exact: false, timeout: 20)
        try session.click("Extract", role: "push button")
        try session.waitForText("Extracting", exact: false, timeout: 20)
        try session.screenshot("extract-progress")
        let clicked = Date()
        try session.click("Cancel", role: "push button")
        #expect(try session.waitForText(anyOf: ["Extracted", "Cancelled", "Could not"], timeout: 30) == "Cancelled")
        #expect(Date().timeIntervalSince(clicked) < 5, "stop means stop, also from the window")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path) == ["Stuck.zip"])
    }

    /// Test, Properties, search and nested archives in one window, on an encrypted zip with a comment and a
    /// tar.gz inside: Test waits for the password and a wrong one is said at the field; the right one gives
    /// "All 4 files are intact"; Properties shows the listing's facts and a SHA-256 equal to sha256sum's;
    /// the search filters the tree as typed; the nested switch makes Extract unpack the tar.gz in its place.
    @Test func testPropertiesSearchAndNestedArchives() throws {
        let scratch = try ScratchDirectory()
        let input = scratch.sub("input")
        try FileManager.default.createDirectory(atPath: input + "/report/figures", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: scratch.sub("inner/deep"), withIntermediateDirectories: true)
        try "hi\n".write(toFile: input + "/report/a.txt", atomically: true, encoding: .utf8)
        try "top\n".write(toFile: input + "/readme.md", atomically: true, encoding: .utf8)
        try "deep\n".write(toFile: scratch.sub("inner/deep/x.txt"), atomically: true, encoding: .utf8)
        try Tool.run(["/bin/sh", "-c", "head -c 20000 /dev/urandom > '\(input)/report/figures/chart.png'"])
        try Tool.run(["/usr/bin/bsdtar", "-czf", input + "/inner.tar.gz", "-C", scratch.sub("inner"), "deep"])
        try FileManager.default.removeItem(atPath: scratch.sub("inner"))
        let zip = scratch.sub("Secret.zip")
        let made = try Tool.run(["/bin/sh", "-c",
            "cd '\(input)' && printf 'right\\n' | '\(ExtractBuilt.compress!)' --no-notify --format zip --comment 'Q1 figures' "
            + "--encrypt --password-stdin --output '\(zip)' report readme.md inner.tar.gz"])
        #expect(made.status == 0, "\(made.output)")
        try FileManager.default.removeItem(atPath: input)
        let session = try WindowSession()
        defer { session.stop() }
        try start(session, zip)
        try session.waitForText("4 of 4 files", exact: false)

        // Test (in the ⋮ menu): the password first, through the window's field; a wrong one is said there.
        try session.click("Archive actions", role: "push button")
        #expect(try !session.isSensitive("Test", role: "push button"))
        try session.press("Escape")
        try session.type("Password", "wrong")
        try session.click("Archive actions", role: "push button")
        try session.click("Test", role: "push button")
        try session.waitForText("Wrong password", timeout: 30)
        try session.type("Password", "right")
        try session.click("Archive actions", role: "push button")
        try session.click("Test", role: "push button")
        try session.waitForText("All 4 files are intact.", exact: true, timeout: 30)
        try session.screenshot("extract-test-intact")

        // Properties, in the tree's place (a toggle button, which GTK 4.8 reports as a push button).
        try session.click("Archive actions", role: "push button")
        try session.click("Properties", role: "push button")
        try session.waitForText("Encrypted data", exact: true)
        let labels = try session.labels()
        for fact in ["Q1 figures", "yes", "Packed size", "4"] { #expect(labels.contains(fact), "\(fact) in \(labels)") }
        #expect(labels.contains { $0.lowercased().hasPrefix("zip") }, "the format, as the reader names it: \(labels)")
        let sum = try Tool.run(["/usr/bin/sha256sum", zip]).output.prefix(64)
        try session.click("Compute SHA-256", role: "push button")
        try session.waitForText(String(sum), exact: true, timeout: 20)
        try session.screenshot("extract-properties")
        try session.click("Copy SHA-256", role: "push button")
        try session.click("Archive actions", role: "push button")
        try session.click("Properties", role: "push button")

        // Ctrl+F opens the search field (the focus in the tree); a name, in another case, filters the tree.
        // The closing menu gives the focus back to its button (later on a busy machine): the row is focused once
        // the tree is back and the menu has done so.
        try session.waitUntilGone("Compute SHA-256")
        #expect(eventually(within: 30) { (try? session.focus("report", role: "table row")) != nil && (try? session.focused().name) == "report" })
        try session.press("ctrl+f")
        try session.waitFor("Search the names")
        #expect(try eventually(within: 5) { try session.focused().name == "Search the names" }, "\(String(describing: try? session.focused()))")
        try session.type("Search the names", "CHART")
        #expect(try eventually(within: 5) { try !session.labels().contains("readme.md") }, "the tree filters")
        let found = try session.labels()
        for shown in ["report", "figures", "chart.png"] { #expect(found.contains(shown), "\(shown) in \(found)") }
        #expect(!found.contains("a.txt") && !found.contains("inner.tar.gz"), "\(found)")
        try session.screenshot("extract-search")
        try session.click("Search", role: "push button")  // closed: everything shows again
        try session.waitForText("readme.md", exact: true)
        #expect(try session.labels().contains("a.txt"))

        // Also extract archives inside: the tar.gz unpacked in its place, and gone.
        try session.toggle("Also extract archives inside", on: true)
        try session.click("Extract", role: "push button")
        try session.waitForText("Extracted “Secret.zip”", timeout: 30)
        let files = extracted(scratch.path)
        #expect(files.contains { $0.hasSuffix("deep/x.txt") }, "\(files)")
        #expect(!files.contains { $0.hasSuffix("inner.tar.gz") }, "\(files)")
        #expect(files.count == 4, "\(files)")
    }

    /// Test on a zip with one flipped byte in a member's data: the window names that entry and how many files
    /// were checked; under Details, what is wrong in our words and the reader's own under them; nothing is written.
    @Test func testNamesTheFirstDamagedEntry() throws {
        let scratch = try ScratchDirectory()
        let zip = try archive(scratch, "Flipped.zip")
        let flip = #"""
            import sys
            data = bytearray(open(sys.argv[1], "rb").read())
            name = data.find(b"report/figures/chart.png")  # the local header's name; the data follows it
            data[name + 24 + 5000] ^= 0xFF
            open(sys.argv[1], "wb").write(data)
            """#
        #expect(try Tool.run(["/usr/bin/python3", "-c", flip, zip]).status == 0)
        let session = try WindowSession()
        defer { session.stop() }
        try start(session, zip)
        try session.waitForText("4 of 4 files", exact: false)
        try session.click("Archive actions", role: "push button")
        try session.click("Test", role: "push button")
        let said = try session.waitForText("is damaged", timeout: 30)
        #expect(said.hasPrefix("“report/figures/chart.png” is damaged;") && said.contains("files were checked"), "\(said)")
        try session.waitFor("Details")
        try session.click("Details")
        let details = try session.waitForText("a checksum does not match", timeout: 10)
        #expect(details.hasPrefix("“report/figures/chart.png”: a checksum does not match\n") && details.contains("ZIP bad CRC"), "\(details)")
        try session.screenshot("extract-test-damaged")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path) == ["Flipped.zip"])
        #expect(try session.isSensitive("Extract", role: "push button"), "the form is back")
    }

    /// A rar's comment shows under Properties as a zip's does: a RAR5 made header by header (no rar writer
    /// exists here), its comment read from the archive itself.
    @Test func aRarCommentShowsUnderProperties() throws {
        let scratch = try ScratchDirectory()
        let rar = scratch.sub("Notes.rar")
        try HandmadeRar.make(rar, name: "notes.txt", text: "hello rar\n", comment: "Q1 figures, from a rar")
        let session = try WindowSession()
        defer { session.stop() }
        try start(session, rar)
        try session.waitForText("notes.txt", exact: true)
        try session.click("Archive actions", role: "push button")
        try session.click("Properties", role: "push button")
        try session.waitForText("Encrypted data", exact: true)
        let labels = try session.labels()
        #expect(labels.contains("Comment") && labels.contains("Q1 figures, from a rar"), "\(labels)")
        try session.screenshot("extract-properties-rar")
    }

    /// The names in a zip and one member's text, as Python's zipfile reads them (and `testzip()` passes).
    private func zipContents(_ zip: String, member: String? = nil) throws -> (names: [String], text: String) {
        let script = #"""
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1]) as z:
                assert z.testzip() is None
                print("\n".join(z.namelist()))
                if len(sys.argv) > 2:
                    print("--")
                    print(z.read(sys.argv[2]).decode(), end="")
            """#
        let read = try Tool.run(["/usr/bin/python3", "-c", script, zip] + (member.map { [$0] } ?? []))
        #expect(read.status == 0, "\(read.output)")
        let parts = read.output.components(separatedBy: "\n--\n")
        return (parts[0].split(separator: "\n").map(String.init), parts.count > 1 ? parts[1] : "")
    }

    /// The window as an editor: Add Files… through the desktop's file chooser (driven by its keys), Delete with
    /// its question naming the entry, F2 to rename; each change is in the archive (read by Python's zipfile
    /// and unzip -t) and in the tree; the first change's previous version is in the trash, and only it.
    @Test func addDeleteAndRenameChangeTheArchive() throws {
        let scratch = try ScratchDirectory()
        let zip = try archive(scratch, "Edit.zip")
        let extra = scratch.sub("disk/extra.txt")
        try FileManager.default.createDirectory(atPath: scratch.sub("disk"), withIntermediateDirectories: true)
        try "from the disk\n".write(toFile: extra, atomically: true, encoding: .utf8)
        let session = try WindowSession()
        defer { session.stop() }
        // A data folder of the session's own: its trash is looked at below.
        try start(session, zip, environment: ["XDG_DATA_HOME": session.folder + "/data"])
        try session.waitForText("4 of 4 files", exact: false)

        // Add Files…: the chooser, given the path as a person types it (Ctrl+L, the path, Enter) once its
        // location field has the focus (typed earlier, the letters go to its search).
        try session.click("Archive actions", role: "push button")
        try session.click("Add Files…", role: "push button")
        try session.waitFor("Add Files to “Edit.zip”")
        #expect(try eventually(within: 15) {
            try session.press("ctrl+l")
            usleep(300_000)
            return try session.focused().role == "text"
        }, "the chooser's location field: \(String(describing: try? session.focused()))")
        try session.typeKeys(extra)
        usleep(500_000)
        try session.press("Return")
        try session.waitForText("5 of 5 files", exact: false, timeout: 30)
        #expect(try session.labels().contains("extra.txt"))
        #expect(try zipContents(zip).names.contains("extra.txt"), "at the top of the archive")
        try session.screenshot("extract-edit-added")

        // Delete on a row: the question names it; Delete removes it.
        try session.focus("readme.md", role: "table row")
        try session.press("Delete")
        try session.waitForText("Delete 1 entry from “Edit.zip”?", exact: true)
        try session.waitForText("“readme.md”", exact: true)
        try session.screenshot("extract-edit-delete-question")
        try session.click("Delete", role: "push button", first: true)
        try session.waitForText("4 of 4 files", exact: false, timeout: 30)
        #expect(try !zipContents(zip).names.contains("readme.md"))

        // F2: a field with the name; the new name stays in the entry's folder.
        try session.focus("a.txt", role: "table row")
        try session.press("F2")
        #expect(try eventually(within: 5) { try session.focused().name == "New name" }, "the field has the focus: \(String(describing: try? session.focused()))")
        try session.type("New name", "notes.txt")
        try session.click("Rename", role: "push button", first: true)
        try session.waitForText("notes.txt", exact: true, timeout: 30)
        let after = try zipContents(zip, member: "report/notes.txt")
        #expect(after.text == "hi\n", "\(after)")
        #expect(!after.names.contains("report/a.txt") && after.names.contains("report/figures/chart.png"), "\(after.names)")
        #expect(try Tool.run(["/usr/bin/unzip", "-tq", zip]).status == 0)
        let trashed = (try? FileManager.default.contentsOfDirectory(atPath: session.folder + "/data/Trash/files")) ?? []
        #expect(trashed == ["Edit.zip"], "one previous version for the window: \(trashed)")
    }

    /// A format Archiver does not write (an ISO image, made by bsdtar): Delete says why on the window's
    /// error page, in the tool's words, and the image is byte for byte what it was; Back returns to the tree.
    @Test func aFormatThatCannotBeChangedSaysSo() throws {
        let scratch = try ScratchDirectory()
        try FileManager.default.createDirectory(atPath: scratch.sub("in"), withIntermediateDirectories: true)
        for name in ["a.txt", "b.txt"] { try "\(name)\n".write(toFile: scratch.sub("in/" + name), atomically: true, encoding: .utf8) }
        let iso = scratch.sub("Disc.iso")
        #expect(try Tool.run(["/usr/bin/bsdtar", "--format", "iso9660", "-cf", iso, "-C", scratch.sub("in"), "a.txt", "b.txt"]).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: iso))
        let session = try WindowSession()
        defer { session.stop() }
        try start(session, iso)
        try session.waitForText("2 of 2 files", exact: false)
        try session.focus("a.txt", role: "table row")
        try session.press("Delete")
        try session.click("Delete", role: "push button", first: true)
        try session.waitForText("Could not change “Disc.iso”", exact: true, timeout: 30)
        let said = try session.waitForText("cannot change", timeout: 5)
        #expect(said.contains("Disc.iso") && said.contains("zip"), "\(said)")
        try session.screenshot("extract-edit-read-only")
        #expect(try Data(contentsOf: URL(fileURLWithPath: iso)) == before)
        try session.click("Back", role: "push button")
        try session.waitForText("2 of 2 files", exact: false)
    }

    /// Enter on a row opens its entry in the default application, from the archive's mount: a test
    /// application (a .desktop file and mimeapps.list in the session's XDG folders) appends a line, and the
    /// mount commits it into the archive. A change from the window then unmounts first (the mount holds the
    /// archive's lock) and both are in the archive.
    @Test func anEntryOpenedInItsApplicationIsSavedBackIntoTheArchive() throws {
        let scratch = try ScratchDirectory()
        let zip = try archive(scratch, "Open.zip")
        let session = try WindowSession()
        defer { session.stop() }
        let script = session.folder + "/append.sh"
        try "#!/bin/sh\nprintf 'appended\\n' >> \"$1\"\n".write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o755)
        let applications = session.folder + "/data/applications"
        try FileManager.default.createDirectory(atPath: applications, withIntermediateDirectories: true)
        try "[Desktop Entry]\nType=Application\nName=Append\nExec=\(script) %f\nMimeType=text/plain;\n"
            .write(toFile: applications + "/archiver-test-append.desktop", atomically: true, encoding: .utf8)
        try "[Default Applications]\ntext/plain=archiver-test-append.desktop\n"
            .write(toFile: session.folder + "/config/mimeapps.list", atomically: true, encoding: .utf8)
        let mounts = session.folder + "/runtime/archiver"
        defer {
            // The mount outlives the window (as Open as Folder does): unmounted here.
            for folder in (try? FileManager.default.contentsOfDirectory(atPath: mounts)) ?? [] {
                _ = try? Tool.run(["/usr/bin/fusermount3", "-u", mounts + "/" + folder])
            }
        }
        try start(session, zip, environment: ["XDG_DATA_HOME": session.folder + "/data"])
        try session.waitForText("4 of 4 files", exact: false)

        try session.focus("a.txt", role: "table row")
        try session.press("Return")
        #expect(try eventually(within: 40) { try zipContents(zip, member: "report/a.txt").text == "hi\nappended\n" },
                "the application's save is committed into the archive: \(String(describing: try? zipContents(zip, member: "report/a.txt")))")

        // A change from the window while its mount is there.
        try session.focus("readme.md", role: "table row")
        try session.press("Delete")
        try session.click("Delete", role: "push button", first: true)
        try session.waitForText("3 of 3 files", exact: false, timeout: 30)
        let after = try zipContents(zip, member: "report/a.txt")
        #expect(!after.names.contains("readme.md") && after.text == "hi\nappended\n", "\(after)")
        #expect(try Tool.run(["/usr/bin/unzip", "-tq", zip]).status == 0)
        let table = (try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8)) ?? ""
        #expect(!table.contains(mounts), "unmounted before the change: \((try? FileManager.default.contentsOfDirectory(atPath: mounts)) ?? [])")
    }

    /// Under the pseudo-locale made from the template, every label the window shows comes from the catalog.
    @Test func everyLabelComesFromTheCatalog() throws {
        let scratch = try ScratchDirectory()
        let zip = try archive(scratch, "Pseudo.zip", password: "pw")
        let session = try WindowSession()
        defer { session.stop() }
        try start(session, zip, environment: try TestLanguages.pseudo())
        try session.waitForText("readme.md")
        let entryNames: Set = ["report", "figures", "a.txt", "b.svg", "chart.png", "readme.md"]
        let labels = try session.labels().filter { $0.contains(where: \.isLetter) }
        // Names, sizes' units and dates are data; the destination row shows a path; Properties (GTK 4.8 says its
        // hidden page is showing) names the format as the reader does ("ZIP 2.0 (aes)") and SHA-256 is a name.
        let data: Set = ["GtkLabel", "SHA-256"]
        let words = labels.filter {
            !entryNames.contains($0) && !$0.hasPrefix("/") && !data.contains($0) && !$0.hasPrefix("ZIP") && !$0.contains("__MACOSX")
                && $0.first?.isNumber != true
        }
        #expect(words.count > 5, "\(labels)")
        for label in words { #expect(label.contains("⟦"), "\(label) is not from the catalog: \(labels)") }
        #expect(try session.windowTitle().contains("⟦"))
    }

    @Test func germanLabels() throws {
        let scratch = try ScratchDirectory()
        let zip = try archive(scratch, "Bericht.zip")
        let session = try WindowSession()
        defer { session.stop() }
        try start(session, zip, environment: try TestLanguages.german())
        let header = try session.waitForText("von 4 Dateien", exact: false)
        #expect(header.hasPrefix("4 von 4 Dateien, 20,0"), "\(header)")
        #expect(try session.tree().contains("[frame] \"„Bericht.zip“ entpacken\""))
        try session.click("Archivaktionen", role: "push button")
        // The menu's labels reach AT-SPI a moment after the click; a loaded machine read them too early.
        try session.waitForText("Dateien hinzufügen …", exact: true)
        let labels = try session.labels()
        for german in ["Name", "Größe", "Geändert", "Entpacken nach", "Das Archiv danach in den Papierkorb verschieben",
                       "macOS-Zusatzdateien überspringen", "Abbrechen", "Entpacken", "Prüfen", "Eigenschaften",
                       "Auch Archive darin entpacken", "Dateien hinzufügen …", "Umbenennen …", "Löschen …"] {
            #expect(labels.contains(german), "\(german) in \(labels)")
        }
        #expect(try session.tree().contains("\"Suchen\""), "the search button is named in German")
        try session.screenshot("extract-tree-de")
    }
}

enum ExtractBuilt {
    static let window = BuiltProducts.executable("archiver-extract")
    static let compress = BuiltProducts.executable("compress-with-archiver")
    static var available: Bool {
        window != nil && compress != nil && FileManager.default.isExecutableFile(atPath: "/usr/bin/Xvfb")
            && FileManager.default.isExecutableFile(atPath: "/usr/libexec/at-spi2-registryd")
    }
}
