import ArchiverTestSupport
import Foundation
import Testing

/// The Compress… window, the real executable driven over AT-SPI (LocalWindowRun). Serialized: each test has
/// its own X server and bus, but the machine has two cores and the jobs are timed.
@Suite(.serialized, .enabled(if: LocalWindowRun.available, "needs Xvfb, dbus-run-session, python3-pyatspi and the built executables"))
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

    @Test func chosenNameAndFormatMakeThatArchive() throws {
        let scratch = try ScratchDirectory()
        let input = try photos(scratch)
        let run = try LocalWindowRun.run("archiver-compress", [input], script: """
            a = app("archiver-compress")
            set_text(a, "Archive name", "Holiday")
            select(a, "Format", "7z — smallest; encryption hides the names too")
            report(saved=wait_label(a, lambda t: t.startswith("Will be saved as")))
            shot("compress-form")
            click(a, "Compress", "push button")
            report(done=wait_label(a, lambda t: t.startswith("Created") or t.startswith("Could not")))
            shot("compress-result")
            report(buttons=[n.name for n in nodes(a) if n.getRoleName() in ("push button", "toggle button")])
            """, environment: ["GSETTINGS_BACKEND": "keyfile", "XDG_CONFIG_HOME": scratch.sub("config")])
        #expect(run.status == 0, "\(run.text)")
        #expect(run["saved"] as? String == "Will be saved as “Holiday.7z”")
        #expect(run["done"] as? String == "Created “Holiday.7z”")
        let listing = try Tool.run(["/usr/bin/7zz", "l", "-ba", scratch.sub("Holiday.7z")])
        #expect(listing.status == 0)
        #expect(listing.output.contains("Photos/notes.txt"))
        #expect(listing.output.contains("Photos/beach.raw"))
        // The choice is remembered in last-format/last-level, not in the one-click defaults.
        let stored = (try? String(contentsOfFile: scratch.sub("config/glib-2.0/settings/keyfile"), encoding: .utf8)) ?? ""
        #expect(stored.contains("last-format='7z'"), "\(stored)")
        #expect(stored.contains("last-level='normal'"), "\(stored)")
        #expect(!stored.contains("default-format"), "\(stored)")
    }

    @Test func encryptedZipOpensWithThePasswordAndMismatchKeepsCompressOff() throws {
        let scratch = try ScratchDirectory()
        let input = try photos(scratch)
        let run = try LocalWindowRun.run("archiver-compress", [input], script: """
            a = app("archiver-compress")
            click(a, "Encrypt", "check box")
            set_text(a, "Password", "correct horse")
            set_text(a, "Confirm password", "correct hors")
            report(mismatched=sensitive(a, "Compress", "push button"))
            shot("compress-mismatch")
            set_text(a, "Passwords do not match", "correct horse")
            report(matched=sensitive(a, "Compress", "push button"))
            click(a, "Compress", "push button")
            report(done=wait_label(a, lambda t: t.startswith("Created") or t.startswith("Could not")))
            """)
        #expect(run.status == 0, "\(run.text)")
        #expect(run["mismatched"] as? Bool == false)
        #expect(run["matched"] as? Bool == true)
        #expect(run["done"] as? String == "Created “Photos.zip”")
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
        let run = try LocalWindowRun.run("archiver-compress", [input], script: """
            a = app("archiver-compress")
            report(initial=wait_label(a, lambda t: t.startswith("Will be saved as")))
            set_text(a, "Archive name", "Report")
            report(report=wait_label(a, lambda t: t.startswith("Will be saved as") and "Report" in t))
            set_text(a, "Archive name", "")
            report(empty=sensitive(a, "Compress", "push button"))
            """)
        #expect(run.status == 0, "\(run.text)")
        #expect(run["initial"] as? String == "Will be saved as “Photos (3).zip”")
        #expect(run["report"] as? String == "Will be saved as “Report (2).zip”")
        #expect(run["empty"] as? Bool == false)
    }

    @Test func cancelMidJobLeavesNothing() throws {
        let scratch = try ScratchDirectory()
        let input = try photos(scratch, randomMegabytes: 96)
        let before = try entries(scratch)
        let run = try LocalWindowRun.run("archiver-compress", [input], script: """
            a = app("archiver-compress")
            select(a, "Format", "tar.xz — small, slower")
            select(a, "Level", "Maximum — smallest, slowest")
            click(a, "Compress", "push button")
            report(progress=wait_label(a, lambda t: " of " in t, timeout=30))
            shot("compress-progress")
            click(a, "Cancel", "push button")
            report(done=wait_label(a, lambda t: t in ("Cancelled",) or t.startswith("Created"), timeout=60))
            report(text=labels(a))
            """)
        #expect(run.status == 0, "\(run.text)")
        #expect(run["done"] as? String == "Cancelled")
        #expect(try entries(scratch) == before)
    }

    @Test func everyControlHasANameAndARole() throws {
        let scratch = try ScratchDirectory()
        let input = try photos(scratch)
        let run = try LocalWindowRun.run("archiver-compress", [input, input + "/notes.txt"], script: """
            a = app("archiver-compress")
            report(title=find(a, "Compress 2 items", "frame").name)
            click(a, "Encrypt", "check box")
            click(a, "Split into parts", "check box")
            time.sleep(0.5)
            report(unnamed=unnamed(a))
            shot("compress-options")
            """)
        #expect(run.status == 0, "\(run.text)")
        #expect(run["title"] as? String == "Compress 2 items")
        #expect((run["unnamed"] as? [String]) == [])
    }

    @Test func germanLabels() throws {
        let scratch = try ScratchDirectory()
        let input = try photos(scratch)
        let run = try LocalWindowRun.run("archiver-compress", [input], script: """
            a = app("archiver-compress")
            report(title=a.getChildAtIndex(0).name)
            report(labels=labels(a))
            shot("compress-form-de")
            """, environment: try LocalWindowRun.germanEnvironment())
        #expect(run.status == 0, "\(run.text)")
        #expect(run["title"] as? String == "„Photos“ komprimieren")
        let labels = run["labels"] as? [String] ?? []
        for german in ["Archivname", "Wird als „Photos.zip“ gespeichert", "Ordner", "Format", "Stufe", "Verschlüsseln", "In Teile aufteilen", "Abbrechen", "Komprimieren"] {
            #expect(labels.contains(german), "\(german) in \(labels)")
        }
    }
}
