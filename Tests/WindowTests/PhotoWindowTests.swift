import ArchiverTestSupport
import Foundation
import Testing

/// The Compress Photos… window, the real executable driven over AT-SPI (WindowSession), with photos made by
/// Pillow (Debian's python3-pil), never by us. Serialized: each test has its own display and bus, but the
/// machine has two cores and the batches are timed.
@Suite(.serialized, .disabled(if: WindowSession.missing != nil, Comment(rawValue: WindowSession.missing ?? "")))
struct PhotoWindowTests {
    /// A folder `Album` of `count` noisy JPEGs `IMG_00.jpg`… of `width`×`height` (noise: they compress as a
    /// camera's do), and with `damaged`, `broken.jpg`: a JPEG's first bytes, then nothing a decoder can read.
    private func album(_ scratch: ScratchDirectory, count: Int, width: Int = 1600, height: Int = 1200, damaged: Bool = false) throws -> String {
        let folder = scratch.sub("Album")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let script = """
            import sys
            from PIL import Image
            folder, count, width, height = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
            for i in range(min(count, 4)):
                noise = Image.effect_noise((width, height), 40 + i).convert("RGB")
                tint = Image.new("RGB", (width, height), ((i * 53) % 256, (i * 97) % 256, (i * 31) % 256))
                Image.blend(noise, tint, 0.5).save(f"{folder}/IMG_{i:02d}.jpg", quality=95)
            """
        let made = try Tool.run(["/usr/bin/python3", "-c", script, folder, String(count), String(width), String(height)])
        #expect(made.status == 0, "\(made.output)")
        // Past four, copies (encoding noise is what takes Pillow long): the engine takes them as any photos.
        for index in 4..<max(count, 4) {
            try FileManager.default.copyItem(atPath: folder + "/IMG_0\(index % 4).jpg", toPath: folder + String(format: "/IMG_%02d.jpg", index))
        }
        if damaged {
            FileManager.default.createFile(atPath: folder + "/broken.jpg", contents: Data([0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 0x41, count: 4000)))
        }
        return folder
    }

    /// - Parameter settings: `io.github.archiver` keys as the person set them (keyfile lines).
    private func launch(_ inputs: [String], environment: [String: String] = [:], settings: String? = nil) throws -> WindowSession {
        let executable = try #require(
            BuiltProducts.folder(holding: ["archiver-compress-photos", "compress-photos-with-archiver"]).map { $0 + "/archiver-compress-photos" },
            "build archiver-compress-photos and compress-photos-with-archiver first")
        let session = try WindowSession()
        var environment = environment
        if let settings {
            try session.presetSettings(["io/github/archiver": settings])
            environment.merge(WindowSession.keyfileSettings) { $1 }
        }
        try session.launch([executable] + inputs, environment: environment)
        try session.waitForApp("archiver-compress-photos")
        return session
    }

    /// The copies in `Compressed - Album`, by name (hidden names: a copy being written).
    private func copies(_ scratch: ScratchDirectory) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: scratch.sub("Compressed - Album"))) ?? []).sorted()
    }

    private let outcome = ["Compressed", "Could not", "Cancelled"]

    /// Waits until the totals line has its estimate ("… → about 400 kB"); returns the labels then.
    private func totalsEstimated(_ session: WindowSession, timeout: Double = 30) throws -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let labels = try session.labels()
            if labels.contains(where: { $0.contains(" photos, ") && $0.contains("→ about") }) { return labels }
            guard Date() < deadline else {
                Issue.record("no estimate in the totals after \(timeout) s: \(labels)")
                return labels
            }
            Thread.sleep(forTimeInterval: 0.2)
        }
    }

    @Test func theGridShowsThePhotosTheirEstimatesAndTheDamagedOne() throws {
        let scratch = try ScratchDirectory()
        let folder = try album(scratch, count: 6, damaged: true)
        let session = try launch([folder])
        defer { session.stop() }
        #expect(try session.windowTitle() == "Compress Photos")
        // The estimate comes from compress-photos-with-archiver --estimate: "6 photos, 1.9 MB → about 400 kB".
        // Every photo at once, then the damaged one found out (by its thumbnail or the estimate).
        try session.waitForText("photos, ", timeout: 30)
        try session.waitForText("6 photos, ", timeout: 30)
        let labels = try totalsEstimated(session)
        let estimated = labels.first { $0.hasPrefix("6 photos, ") } ?? ""
        #expect(estimated.contains("1 unreadable, skipped"), "\(estimated)")
        for index in 0..<3 { #expect(labels.contains("IMG_0\(index).jpg"), "\(labels)") }
        #expect(labels.contains("Unreadable"), "\(labels)")
        #expect(labels.contains { $0.hasSuffix(", cannot be read") }, "\(labels)")
        #expect(labels.contains { $0.contains(" → about ") && !$0.contains("photos") }, "a cell's estimate: \(labels)")
        #expect(try !session.isSensitive("broken.jpg"), "the damaged photo cannot be selected")
        try session.screenshot("photos-grid")

        // Unselecting follows in the totals.
        try session.toggle("IMG_01.jpg", on: false)
        #expect(try session.waitForText("5 photos, ").hasPrefix("5 photos, "))
        try session.click("Select None")
        #expect(try session.waitForText("0 photos, ").hasPrefix("0 photos"))
        #expect(try !session.isSensitive("Compress", role: "push button"))
        try session.click("Select All")
        try session.waitForText("6 photos, ")

        // Thumbnails were made and written to the desktop's cache, as the freedesktop spec names them.
        let cache = session.environment["XDG_CACHE_HOME"]! + "/thumbnails/large"
        let cached = (try? FileManager.default.contentsOfDirectory(atPath: cache))?.filter { $0.hasSuffix(".png") && !$0.hasPrefix(".") } ?? []
        #expect(cached.count == 6, "\(cached)")
        let uri = URL(fileURLWithPath: folder + "/IMG_00.jpg").absoluteString
        let md5 = try Tool.run(["/bin/sh", "-c", "printf %s '\(uri)' | md5sum | cut -c1-32"]).output.trimmingCharacters(in: .whitespacesAndNewlines)
        let stamp = try Tool.run(["/usr/bin/identify", "-format", "%[Thumb::MTime] %[Thumb::URI]", cache + "/\(md5).png"]).output
        let mtime = try FileManager.default.attributesOfItem(atPath: folder + "/IMG_00.jpg")[.modificationDate] as! Date
        #expect(stamp.trimmingCharacters(in: .whitespacesAndNewlines) == "\(Int(mtime.timeIntervalSince1970)) \(uri)")
    }

    /// The settings for this run start from the photo-* settings, not from numbers of the window's own.
    @Test func theRunStartsFromThePhotoSettings() throws {
        let scratch = try ScratchDirectory()
        let folder = try album(scratch, count: 1)
        let settings = "photo-max-size=1000\nphoto-quality=50\nphoto-format='webp'\nphoto-strip-location=true"
        let session = try launch([folder], settings: settings)
        defer { session.stop() }
        try session.waitForText("1000 px", exact: true)
        let labels = try session.labels()
        #expect(labels.contains("50 — smallest files") && labels.contains("WebP — smaller, for the web"), "\(labels)")
        #expect(!labels.contains("1500 px") && !labels.contains("75 — balanced"), "not the built-in defaults: \(labels)")
        #expect(try session.isChecked("Remove location", role: "check box"))
        #expect(try !session.isChecked("Replace originals", role: "check box"), "not a setting: always off at the start")
    }

    /// Starts a batch of `count` photos at full size (each takes long enough to be caught running), pauses it
    /// and checks that no copy comes for 2.5 s; returns the copies there at the pause.
    private func compressAndPause(_ session: WindowSession, _ scratch: ScratchDirectory, count: Int) throws -> [String] {
        try session.waitForText("\(count) photos, ", timeout: 30)
        try session.select("Keep the size", in: "Longest side")
        try session.click("Compress", role: "push button")
        try session.waitForText(" of \(count)", timeout: 60)
        try session.screenshot("photos-progress")
        try session.click("Pause", role: "push button")
        try session.waitForText("Paused", exact: true, timeout: 60)
        let atPause = copies(scratch)
        #expect(atPause.count < count, "the batch ended before Pause")
        Thread.sleep(forTimeInterval: 2.5)
        #expect(copies(scratch) == atPause, "copies appeared while paused")
        return atPause
    }

    /// Pause (no new copy for 2.5 s), Resume: the batch goes on to its end, every photo once.
    @Test func pauseAndResumeFinishTheBatch() throws {
        let scratch = try ScratchDirectory()
        let folder = try album(scratch, count: 40, width: 3000, height: 2000)
        let session = try launch([folder])
        defer { session.stop() }
        let atPause = try compressAndPause(session, scratch, count: 40)
        try session.screenshot("photos-paused")
        // While paused the machine is idle and the click is quick; once resumed the batch has both cores,
        // and finding a button over AT-SPI would take longer than the rest of the batch.
        try session.click("Resume", role: "push button")
        #expect(try session.waitForText(anyOf: outcome, timeout: 120) == "Compressed 40 photos")
        let done = copies(scratch)
        #expect(done.count == 40 && done.count > atPause.count, "\(done)")
        #expect(Set(atPause).isSubset(of: Set(done)))
    }

    /// Pause, then Cancel: the finished copies stay, whole; none half-written; the rest is not made.
    @Test func cancelKeepsFinishedCopies() throws {
        let scratch = try ScratchDirectory()
        let folder = try album(scratch, count: 40, width: 3000, height: 2000)
        let session = try launch([folder])
        defer { session.stop() }
        _ = try compressAndPause(session, scratch, count: 40)
        // The job page's own Cancel (unused here, never laid out) has the name too: the one with a size.
        try session.click("Cancel", role: "push button", first: true)
        #expect(try session.waitForText(anyOf: outcome, timeout: 60) == "Cancelled")
        let kept = copies(scratch)
        #expect(!kept.isEmpty, "the copies finished before Cancel are kept")
        #expect(kept.count < 40)
        for name in kept {
            #expect(!name.hasPrefix("."), "a half-written copy: \(name)")
            let header = try Tool.run(["/usr/bin/vipsheader", scratch.sub("Compressed - Album/\(name)")])
            #expect(header.status == 0, "\(name) is not a whole photo: \(header.output)")
        }
    }

    /// A batch to its end, then the result page's Compare: the original and the copy with both sizes.
    @Test func theResultComparesBeforeAndAfter() throws {
        let scratch = try ScratchDirectory()
        let folder = try album(scratch, count: 3, width: 4000, height: 3000)
        let session = try launch([folder])
        defer { session.stop() }
        try session.waitForText("3 photos, ", timeout: 30)
        try session.click("Compress", role: "push button")
        #expect(try session.waitForText(anyOf: outcome, timeout: 120) == "Compressed 3 photos")
        #expect(copies(scratch) == ["IMG_00.jpg", "IMG_01.jpg", "IMG_02.jpg"])
        try session.screenshot("photos-result")
        try session.click("Compare", role: "push button")
        let before = try session.waitForText("Before:", timeout: 30)
        #expect(before.contains("MB") || before.contains("kB"), "\(before)")
        let dimensions = try session.waitForText("4000 × 3000 px", timeout: 30)
        #expect(dimensions.hasPrefix("Before:"))
        let after = try session.waitForText("After:  ")
        #expect(after.contains("1500 × 1125 px"), "the copy's size and dimensions: \(after)")
        Thread.sleep(forTimeInterval: 3)  // both pictures decode on a worker
        try session.screenshot("photos-compare")
        try session.click("Split View")
        Thread.sleep(forTimeInterval: 1)
        try session.screenshot("photos-compare-split")
    }

    /// An interrupted batch's journal beside the photos (the engine names it `.archiver-photos-KEY.journal`):
    /// the window offers Resume, which runs with --resume.
    @Test func anInterruptedBatchIsOfferedAsResume() throws {
        let scratch = try ScratchDirectory()
        let folder = try album(scratch, count: 2)
        FileManager.default.createFile(atPath: scratch.sub(".archiver-photos-0123456789abcdef.journal"), contents: Data())
        let session = try launch([folder])
        defer { session.stop() }
        try session.waitForText("An interrupted batch was found", timeout: 30)
        #expect(try session.isSensitive("Resume", role: "push button"))
    }

    /// Started with no photo, the window finds the large photos in the Pictures folder (`--suggest`): the
    /// ones that would save the most, not the small one, with the estimated total, ready to compress.
    @Test func withNoPhotoItFindsTheLargeOnesInPictures() throws {
        let scratch = try ScratchDirectory()
        let executable = try #require(
            BuiltProducts.folder(holding: ["archiver-compress-photos", "compress-photos-with-archiver"]).map { $0 + "/archiver-compress-photos" })
        let session = try WindowSession()
        defer { session.stop() }
        let pictures = session.environment["HOME"]! + "/Pictures"
        try FileManager.default.createDirectory(atPath: pictures + "/Trip", withIntermediateDirectories: true)
        let folder = try album(scratch, count: 3, width: 2400, height: 1800)
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
            try FileManager.default.copyItem(atPath: folder + "/" + name, toPath: pictures + "/Trip/" + name)
        }
        let small = try Tool.run(["/usr/bin/python3", "-c", "from PIL import Image; Image.new('RGB', (320, 240), (9, 99, 199)).save(__import__('sys').argv[1], quality=80)", pictures + "/small.jpg"])
        #expect(small.status == 0)
        try session.launch([executable])
        try session.waitForApp("archiver-compress-photos")
        let labels = try totalsEstimated(session)
        #expect(labels.contains { $0.hasPrefix("3 photos, ") && $0.contains("→ about") }, "\(labels)")
        #expect(!labels.contains("small.jpg"), "\(labels)")
        #expect(labels.contains("IMG_00.jpg"), "\(labels)")
        #expect(try session.isSensitive("Compress", role: "push button"))
        try session.screenshot("photos-suggestions")
    }

    /// The photo cells shown (their names), once they are `names`; fails after `timeout` with what was shown.
    private func waitForCells(_ session: WindowSession, _ names: [String], timeout: Double = 15) throws {
        let deadline = Date().addingTimeInterval(timeout)
        var shown: [String] = []
        while Date() < deadline {
            shown = Array(Set(try session.labels().filter { $0.hasPrefix("IMG_") && $0.hasSuffix(".jpg") })).sorted()
            if shown == names { return }
            Thread.sleep(forTimeInterval: 0.2)
        }
        Issue.record("the grid shows \(shown), not \(names)")
    }

    /// Issue 35: the filters. Four photos made by Pillow, dated, located and placed by exiftool (EXIF dates and
    /// GPS, an IPTC City, an XMP City): by year, by location, by place and by name the grid, the totals and
    /// the filter's line follow; Compress makes copies of the photos shown, and of no other.
    @Test func theFiltersNarrowTheGridTheTotalsAndTheRun() throws {
        let scratch = try ScratchDirectory()
        let folder = try album(scratch, count: 4)
        let gps = ["-GPS:GPSLatitudeRef=N", "-GPS:GPSLatitude=38.71", "-GPS:GPSLongitudeRef=W", "-GPS:GPSLongitude=9.14"]
        let tags: [(String, [String])] = [
            ("IMG_00.jpg", ["-ExifIFD:DateTimeOriginal=2021:06:01 10:00:00", "-IPTC:City=Lisboa", "-IPTC:Country-PrimaryLocationName=Portugal"] + gps),
            ("IMG_01.jpg", ["-ExifIFD:DateTimeOriginal=2022:07:02 10:00:00", "-XMP-photoshop:City=Berlin", "-XMP-photoshop:Country=Germany"]),
            ("IMG_02.jpg", ["-ExifIFD:DateTimeOriginal=2022:08:03 10:00:00"] + gps),
            ("IMG_03.jpg", ["-ExifIFD:DateTimeOriginal=2020:01:01 10:00:00"]),
        ]
        for (name, arguments) in tags {
            let tagged = try Tool.run(["/usr/bin/exiftool", "-q", "-overwrite_original"] + arguments + [folder + "/" + name])
            #expect(tagged.status == 0, "\(tagged.output)")
        }
        let session = try launch([folder])
        defer { session.stop() }
        _ = try totalsEstimated(session)
        try session.click("Filters", role: "push button")

        try session.select("2022", in: "Date taken")
        try waitForCells(session, ["IMG_01.jpg", "IMG_02.jpg"])
        try session.waitForText("Showing 2 of 4 photos. Only the photos shown are compressed.", exact: true)
        #expect(try session.labels().contains { $0.hasPrefix("2 photos, ") }, "the totals follow")
        try session.select("Any date", in: "Date taken")
        try waitForCells(session, ["IMG_00.jpg", "IMG_01.jpg", "IMG_02.jpg", "IMG_03.jpg"])

        try session.select("With a location", in: "Location")
        try waitForCells(session, ["IMG_00.jpg", "IMG_02.jpg"])
        try session.select("Without a location", in: "Location")
        try waitForCells(session, ["IMG_01.jpg", "IMG_03.jpg"])
        try session.select("With or without", in: "Location")

        try session.select("Berlin", in: "Place")
        try waitForCells(session, ["IMG_01.jpg"])
        try session.waitForText("1 photo, ")
        try session.select("Portugal", in: "Place")
        try waitForCells(session, ["IMG_00.jpg"])
        try session.select("All places", in: "Place")

        try session.type("Search by name", "03")
        try waitForCells(session, ["IMG_03.jpg"])
        try session.type("Search by name", "")
        try waitForCells(session, ["IMG_00.jpg", "IMG_01.jpg", "IMG_02.jpg", "IMG_03.jpg"])
        #expect(try !session.labels().contains { $0.hasPrefix("Showing ") }, "no filter, no line")

        // Compress with 2022's photos shown: their copies, beside them (given one by one), and no other.
        try session.select("2022", in: "Date taken")
        try session.waitForText("Showing 2 of 4 photos", timeout: 15)
        try session.screenshot("photos-filtered")
        try session.click("Compress", role: "push button")
        #expect(try session.waitForText(anyOf: outcome, timeout: 120) == "Compressed 2 photos")
        let made = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.contains("(compressed)") }.sorted()
        #expect(made == ["IMG_01 (compressed).jpg", "IMG_02 (compressed).jpg"], "\(made)")
        #expect(copies(scratch) == [], "no folder of copies: the photos went one by one")
    }

    @Test func everyControlHasANameAndARole() throws {
        let scratch = try ScratchDirectory()
        let folder = try album(scratch, count: 3)
        let session = try launch([folder])
        defer { session.stop() }
        try session.waitForText("3 photos, ", timeout: 30)
        let unnamed = try session.unnamedControls()
        #expect(unnamed == [], "\(unnamed)")
    }

    @Test func germanLabels() throws {
        let scratch = try ScratchDirectory()
        let folder = try album(scratch, count: 2, damaged: true)
        let session = try launch([folder], environment: try TestLanguages.german())
        defer { session.stop() }
        #expect(try session.windowTitle() == "Fotos komprimieren")
        try session.waitForText("2 Fotos, ", timeout: 30)
        let labels = try session.labels()
        for german in ["Einstellungen für diesen Durchlauf", "Längste Seite", "Qualität", "Format", "Ort entfernen", "Originale ersetzen",
                       "Große Fotos finden", "Unlesbar", "Abbrechen", "Komprimieren", "Filter"]
        {
            #expect(labels.contains(german), "\(german) in \(labels)")
        }
        try session.screenshot("photos-grid-de")
    }

    /// Under the pseudo-locale made from the template, every label the window shows comes from the catalog.
    @Test func everyLabelComesFromTheCatalog() throws {
        let scratch = try ScratchDirectory()
        let folder = try album(scratch, count: 2, damaged: true)
        let session = try launch([folder], environment: try TestLanguages.pseudo())
        defer { session.stop() }
        try session.waitForText("⟦", timeout: 30)
        Thread.sleep(forTimeInterval: 2)  // the thumbnails' verdicts and the estimate
        let labels = try session.labels().filter { $0.contains(where: \.isLetter) }
        // Names, paths and sizes are data, not words: the photos' names, the folder row's path, "162 kB".
        let size = /^[0-9.,]+ (bytes|kB|MB|GB)$/
        let words = labels.filter { !$0.hasPrefix("/") && !$0.hasSuffix(".jpg") && $0.wholeMatch(of: size) == nil && $0 != "GtkLabel" }
        #expect(!words.isEmpty)
        for label in words { #expect(label.contains("⟦"), "\(label) is not from the catalog: \(labels)") }
        #expect(try session.windowTitle().contains("⟦"))
    }
}
