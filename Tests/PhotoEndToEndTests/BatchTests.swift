import ArchiverTestSupport
import Foundation
import Testing

/// Folders, names, the never-worse rule, failures inside a batch, --replace, usage errors, cancellation.
@Suite struct PhotoBatchTests {
    /// Album/ a.jpg, IMG_3.heic + IMG_3.MOV, notes.txt, .hidden.jpg; Album/Sub/b.png; Album/Sub/Deep/broken.jpg
    /// (a JPEG cut in half) and c.jpg.
    private func album(_ scratch: ScratchDirectory) throws -> String {
        let album = scratch.sub("Album")
        try FileManager.default.createDirectory(atPath: album + "/Sub/Deep", withIntermediateDirectories: true)
        try Photos.makeJPEG(album + "/a.jpg", width: 1600, height: 1200)
        try Photos.writeCameraMetadata(album + "/a.jpg", orientation: 1, scratch: scratch)
        try Photos.makeJPEG(album + "/Sub/Deep/c.jpg", width: 1000, height: 1000)
        try Photos.makeJPEG(scratch.sub("whole.jpg"), width: 1200, height: 900)
        let whole = try Data(contentsOf: URL(fileURLWithPath: scratch.sub("whole.jpg")))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: album + "/Sub/Deep/broken.jpg"))
        try Photos.makeTransparentPNG(album + "/Sub/b.png", width: 900, height: 600)
        _ = try Tool.run(["/usr/bin/heif-enc", "-q", "50", album + "/a.jpg", "-o", album + "/IMG_3.heic"])
        try Data("not really a video".utf8).write(to: URL(fileURLWithPath: album + "/IMG_3.MOV"))
        try Data("notes".utf8).write(to: URL(fileURLWithPath: album + "/notes.txt"))
        try Data("junk".utf8).write(to: URL(fileURLWithPath: album + "/.hidden.jpg"))
        return album
    }

    @Test func folderIsMirroredAndACorruptPhotoIsNamed() throws {
        let scratch = try ScratchDirectory()
        let album = try album(scratch)
        let originals = Photos.files(under: album).map { ($0, Photos.size(album + "/" + $0)) }
        let result = try Photos.run(["--max-size", "800", album], in: scratch)
        #expect(result.status == 1, "some failed: exit 1; \(result.stderr)")
        #expect(result.stderr.contains("broken.jpg"), "\(result.stderr)")
        #expect(!result.stderr.contains("a.jpg"), "\(result.stderr)")
        let mirror = scratch.sub("Compressed - Album")
        #expect(Photos.files(under: mirror) == ["IMG_3.MOV", "IMG_3.jpg", "Sub/Deep/c.jpg", "Sub/b.jpg", "a.jpg"])
        #expect(try Photos.header(mirror + "/a.jpg", "width") == "800")
        #expect(try Photos.header(mirror + "/Sub/b.jpg", "bands") == "3")
        #expect(try Photos.tags(mirror + "/a.jpg")["IFD0:Model"] == "Pixel 5")
        // The Live Photo's video is a byte-for-byte copy beside its still.
        #expect(try Data(contentsOf: URL(fileURLWithPath: mirror + "/IMG_3.MOV")) == Data("not really a video".utf8))
        #expect(result.stdout.contains("4 photos"), "\(result.stdout)")
        // Originals untouched; a second run never reuses the first folder.
        #expect(Photos.files(under: album).map { ($0, Photos.size(album + "/" + $0)) }.elementsEqual(originals) { $0 == $1 })
        let again = try Photos.run(["--max-size", "800", "--json", album], in: scratch)
        #expect(again.status == 1)
        #expect(Photos.files(under: scratch.sub("Compressed - Album (2)")).count == 5)
        let json = try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any]
        #expect(json?["photos"] as? Int == 4)
        #expect(json?["exitCode"] as? Int == 1)
        let failures = json?["failures"] as? [[String: Any]] ?? []
        #expect(failures.count == 1 && (failures.first?["path"] as? String)?.hasSuffix("Sub/Deep/broken.jpg") == true, "\(failures)")
        #expect((failures.first?["error"] as? [String: Any])?["kind"] as? String == "corrupt", "\(failures)")
        #expect((json?["warningCodes"] as? [String])?.isEmpty == true, "\(again.stdout)")

        // Nothing but the broken photo: exit 5 (corrupt), the photo named, no folder left.
        let broken = scratch.sub("Broken")
        try FileManager.default.createDirectory(atPath: broken, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: album + "/Sub/Deep/broken.jpg", toPath: broken + "/broken.jpg")
        let none = try Photos.run(["--json", broken], in: scratch)
        #expect(none.status == 5 && none.stderr.contains("broken.jpg") && none.stderr.contains("damaged"), "\(none.stderr)")
        #expect(((try JSONSerialization.jsonObject(with: Data(none.stdout.utf8)) as? [String: Any])?["failures"] as? [Any])?.count == 1)
        #expect(!FileManager.default.fileExists(atPath: scratch.sub("Compressed - Broken")))
    }

    @Test func photosOfTheSameNameEachGetTheirCopy() throws {
        let scratch = try ScratchDirectory()
        let album = scratch.sub("Phone")
        try FileManager.default.createDirectory(atPath: album, withIntermediateDirectories: true)
        // A phone's pair (HEIC beside JPG) and one picture in four formats: six copies all called ….jpg.
        try Photos.makeJPEG(album + "/IMG_0001.JPG", width: 1600, height: 1200)
        let heif = try Tool.run(["/usr/bin/heif-enc", "-q", "60", album + "/IMG_0001.JPG", "-o", album + "/IMG_0001.HEIC"])
        try #require(heif.status == 0, "\(heif.output)")
        try Photos.makeJPEG(album + "/o2.jpg", width: 1400, height: 1000)
        try Photos.python(
            """
            import sys
            from PIL import Image
            im = Image.open(sys.argv[1] + '/o2.jpg')
            for ext in ('png', 'tif', 'webp'):
                im.save(sys.argv[1] + '/o2.' + ext)
            """, [album])
        // Workers race for the names: several runs, each into a folder of its own.
        for run in 1...3 {
            let result = try Photos.run(["--max-size", "600", album], in: scratch)
            #expect(result.status == 0, "\(result.stderr)")
            let mirror = scratch.sub(run == 1 ? "Compressed - Phone" : "Compressed - Phone (\(run))")
            #expect(
                Photos.files(under: mirror)
                    == ["IMG_0001 (2).jpg", "IMG_0001.jpg", "o2 (2).jpg", "o2 (3).jpg", "o2 (4).jpg", "o2.jpg"],
                "\(Photos.files(under: mirror))")
        }
    }

    @Test func eachFailedPhotoHasItsOwnReasonInOurWords() throws {
        let scratch = try ScratchDirectory()
        let broken = scratch.sub("Broken")
        try FileManager.default.createDirectory(atPath: broken, withIntermediateDirectories: true)
        // Photos failing at once on every worker, each kind its own way: libvips says them all in one buffer.
        try Photos.makeJPEG(scratch.sub("whole.jpg"), width: 1200, height: 900)
        try Photos.python(
            """
            import sys
            from PIL import Image
            folder, whole = sys.argv[1], sys.argv[2]
            data = open(whole, 'rb').read()
            Image.open(whole).save(folder + '/../whole.png')
            png = open(folder + '/../whole.png', 'rb').read()
            for i in range(4):
                open(f'{folder}/cut{i}.jpg', 'wb').write(data[:len(data) // 2])
                open(f'{folder}/cut{i}.png', 'wb').write(png[:len(png) // 2])
                open(f'{folder}/text{i}.tif', 'wb').write(b'not a picture at all\\n' * 50)
            """, [broken, scratch.sub("whole.jpg")])
        let result = try Photos.run(["--json", broken], in: scratch)
        #expect(result.status == 5, "\(result.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let failures = json?["failures"] as? [[String: Any]] ?? []
        #expect(failures.count == 12, "\(result.stdout)")
        for failure in failures {
            let path = failure["path"] as? String ?? ""
            let message = (failure["error"] as? [String: Any])?["message"] as? String ?? ""
            let name = (path as NSString).lastPathComponent
            // Its own name, and the reason for its own kind of damage, in our words.
            let reason = name.hasPrefix("text") ? "it is not an image, or it is damaged" : "it is damaged or cut short"
            #expect(message == "“\(name)” could not be compressed: \(reason).", "\(path): \(message)")
        }
    }

    @Test func pyramidTIFFsAreReadAtTheirFullResolution() throws {
        let scratch = try ScratchDirectory()
        let maps = scratch.sub("Maps")
        try FileManager.default.createDirectory(atPath: maps, withIntermediateDirectories: true)
        try Photos.makeJPEG(scratch.sub("source.jpg"), width: 4000, height: 2144)
        // Levels as pages, and levels as sub-IFDs: both start with the full-resolution picture.
        for (name, layout) in [("pages.tif", [] as [String]), ("subifd.tif", ["--subifd"])] {
            let made = try Tool.run(
                ["/usr/bin/vips", "tiffsave", scratch.sub("source.jpg"), maps + "/" + name, "--pyramid", "--tile",
                 "--compression", "deflate"] + layout)
            try #require(made.status == 0, "\(made.output)")
        }
        let result = try Photos.run(["--max-size", "3000", maps], in: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        let mirror = scratch.sub("Compressed - Maps")
        #expect(Photos.files(under: mirror) == ["pages.jpg", "subifd.jpg"])
        for name in ["pages.jpg", "subifd.jpg"] {
            #expect(try Photos.header(mirror + "/" + name, "width") == "3000", "\(name)")
            #expect(try Photos.header(mirror + "/" + name, "height") == "1608", "\(name)")
        }
    }

    @Test func tiffVariantsAreReadOrRefusedPrecisely() throws {
        let scratch = try ScratchDirectory()
        // Written by hand (no TIFF writer at hand makes all three): planes stored apart, 12-bit grey, and
        // JPEG of TIFF's old kind (compression 6), each 640×480.
        try Photos.python(
            #"""
            import io, random, struct, sys
            from PIL import Image
            folder = sys.argv[1]
            W, H = 640, 480
            def tiff(path, entries, blocks):
                offsets, data, at = [], bytearray(), 8
                for block in blocks:
                    offsets.append(at + len(data)); data += block + b'\0' * (len(block) % 2)
                fields = sorted(entries(offsets))
                values = bytearray()
                ifd_at = at + len(data)
                ifd = struct.pack('<H', len(fields))
                for tag, kind, items in fields:
                    raw = b''.join(struct.pack('<H' if kind == 3 else '<I', v) for v in items)
                    if len(raw) <= 4:
                        ifd += struct.pack('<HHI', tag, kind, len(items)) + raw.ljust(4, b'\0')
                    else:
                        ifd += struct.pack('<HHII', tag, kind, len(items), ifd_at + 2 + 12 * len(fields) + 4 + len(values))
                        values += raw
                open(path, 'wb').write(b'II*\0' + struct.pack('<I', ifd_at) + data + ifd + struct.pack('<I', 0) + values)
            im = Image.new('RGB', (W, H), (200, 30, 60))
            planes = [c.tobytes() for c in im.split()]
            tiff(f'{folder}/planar.tif', lambda o: [(256, 3, [W]), (257, 3, [H]), (258, 3, [8, 8, 8]), (259, 3, [1]),
                 (262, 3, [2]), (273, 4, o), (277, 3, [3]), (278, 3, [H]), (279, 4, [W * H] * 3), (284, 3, [2])], planes)
            grey = bytes(random.randrange(256) for _ in range(W * H * 3 // 2))
            tiff(f'{folder}/grey12.tif', lambda o: [(256, 3, [W]), (257, 3, [H]), (258, 3, [12]), (259, 3, [1]),
                 (262, 3, [1]), (273, 4, o), (277, 3, [1]), (278, 3, [H]), (279, 4, [len(grey)])], [grey])
            jpeg = io.BytesIO(); im.save(jpeg, 'JPEG'); jpeg = jpeg.getvalue()
            tiff(f'{folder}/oldjpeg.tif', lambda o: [(256, 3, [W]), (257, 3, [H]), (258, 3, [8, 8, 8]), (259, 3, [6]),
                 (262, 3, [6]), (273, 4, o), (277, 3, [3]), (278, 3, [H]), (279, 4, [len(jpeg)]), (513, 4, o),
                 (514, 4, [len(jpeg)])], [jpeg])
            """#, [scratch.path])
        let planar = try Photos.run(["--max-size", "320", scratch.sub("planar.tif")], in: scratch)
        #expect(planar.status == 0, "\(planar.stderr)")
        let colour = try Photos.pixel(scratch.sub("planar (compressed).jpg"), x: 100, y: 100)
        #expect(colour.count == 3 && abs(colour[0] - 200) < 8 && abs(colour[1] - 30) < 8 && abs(colour[2] - 60) < 8, "\(colour)")
        // What libvips cannot read: exit 4 (an unsupported format), saying which variant, nothing left.
        let grey = try Photos.run([scratch.sub("grey12.tif")], in: scratch)
        #expect(grey.status == 4 && grey.stderr.contains("“grey12.tif” is a TIFF with 12 bits per sample"), "\(grey.stderr)")
        let old = try Photos.run([scratch.sub("oldjpeg.tif")], in: scratch)
        #expect(old.status == 4 && old.stderr.contains("JPEG of the old kind (TIFF compression 6)"), "\(old.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.sub("grey12 (compressed).jpg")))
    }

    @Test func aCopyThatWouldBeLargerIsTheOriginal() throws {
        let scratch = try ScratchDirectory()
        let small = scratch.sub("small.jpg")
        try Photos.makeJPEG(small, width: 320, height: 240, quality: 30)
        try Photos.setModificationTime(small, Date(timeIntervalSince1970: 1_600_000_000))
        let result = try Photos.run(["--quality", "95", "--json", small], in: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        let copy = scratch.sub("small (compressed).jpg")
        #expect(try Data(contentsOf: URL(fileURLWithPath: copy)) == Data(contentsOf: URL(fileURLWithPath: small)))
        #expect(Photos.modificationTime(copy) == Date(timeIntervalSince1970: 1_600_000_000))
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        #expect(json?["kept"] as? Int == 1)
        #expect((json?["outputs"] as? [[String: Any]])?.first?["outcome"] as? String == "kept")
    }

    @Test func looseCopiesNeverOverwrite() throws {
        let scratch = try ScratchDirectory()
        let photo = scratch.sub("photo.jpg")
        try Photos.makeJPEG(photo, width: 1000, height: 800)
        for _ in 0..<2 { #expect(try Photos.run(["--max-size", "500", photo], in: scratch).status == 0) }
        #expect(Photos.files(under: scratch.url.path).filter { $0.hasPrefix("photo") }
            == ["photo (compressed) (2).jpg", "photo (compressed).jpg", "photo.jpg"])
        let output = scratch.sub("out")
        #expect(try Photos.run(["--keep-size", "-o", output, photo], in: scratch).status == 0)
        #expect(try Photos.header(output + "/photo.jpg", "width") == "1000")
        // A link the person chose is followed; its name names the copy.
        try FileManager.default.createSymbolicLink(atPath: scratch.sub("link.jpg"), withDestinationPath: photo)
        #expect(try Photos.run(["--max-size", "200", scratch.sub("link.jpg")], in: scratch).status == 0)
        #expect(try Photos.header(scratch.sub("link (compressed).jpg"), "width") == "200")
    }

    @Test func replaceTrashesTheOriginal() throws {
        let scratch = try ScratchDirectory()
        let photo = scratch.sub("IMG_9.heic")
        try Photos.makeJPEG(scratch.sub("src.jpg"), width: 1600, height: 1200)
        _ = try Tool.run(["/usr/bin/heif-enc", "-q", "90", scratch.sub("src.jpg"), "-o", photo])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: photo))
        let result = try Photos.run(["--replace", "--max-size", "640", photo], in: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: photo))
        #expect(try Photos.header(scratch.sub("IMG_9.jpg"), "width") == "640")
        let trashed = scratch.sub("data/Trash/files/IMG_9.heic")
        #expect(try Data(contentsOf: URL(fileURLWithPath: trashed)) == bytes, "the original is in the trash, whole")
    }

    @Test func replaceInAFolderLeavesKeptPhotosAndVideosAlone() throws {
        let scratch = try ScratchDirectory()
        let folder = scratch.sub("Trip")
        try FileManager.default.createDirectory(atPath: folder + "/Day 1", withIntermediateDirectories: true)
        try Photos.makeJPEG(folder + "/Day 1/big.jpg", width: 2400, height: 1600)
        try Photos.makeJPEG(folder + "/small.jpg", width: 300, height: 200, quality: 30)
        try Photos.makeJPEG(scratch.sub("src.jpg"), width: 2000, height: 1500)
        _ = try Tool.run(["/usr/bin/heif-enc", "-q", "90", scratch.sub("src.jpg"), "-o", folder + "/IMG_4.heic"])
        try Data("video".utf8).write(to: URL(fileURLWithPath: folder + "/IMG_4.mov"))
        let small = try Data(contentsOf: URL(fileURLWithPath: folder + "/small.jpg"))
        let result = try Photos.run(["--replace", "--max-size", "1000", folder], in: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Photos.files(under: folder) == ["Day 1/big.jpg", "IMG_4.jpg", "IMG_4.mov", "small.jpg"])
        #expect(try Photos.header(folder + "/Day 1/big.jpg", "width") == "1000")
        #expect(try Photos.header(folder + "/IMG_4.jpg", "width") == "1000")
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/small.jpg")) == small, "not smaller: left as it was")
        #expect(Photos.files(under: scratch.sub("data/Trash/files")) == ["IMG_4.heic", "big.jpg"])
        #expect(!FileManager.default.fileExists(atPath: scratch.sub("Compressed - Trip")))
    }

    @Test func badRequestsAreRefusedClearly() throws {
        let scratch = try ScratchDirectory()
        let photo = scratch.sub("p.jpg")
        try Photos.makeJPEG(photo, width: 100, height: 100)
        let quality = try Photos.run(["--quality", "0", photo], in: scratch)
        #expect(quality.status == 2 && quality.stderr.contains("--quality"), "\(quality.stderr)")
        #expect(try Photos.run(["--replace", "-o", scratch.sub("x"), photo], in: scratch).status == 2)
        #expect(try Photos.run(["--format", "gif", photo], in: scratch).status == 2)
        let missing = try Photos.run([scratch.sub("nope.jpg")], in: scratch)
        #expect(missing.status == 3 && missing.stderr.contains("nope.jpg"), "\(missing.stderr)")
        try Data("text".utf8).write(to: URL(fileURLWithPath: scratch.sub("notes.txt")))
        let text = try Photos.run([scratch.sub("notes.txt")], in: scratch)
        #expect(text.status == 4 && text.stderr.contains("not a photo"), "\(text.stderr)")
        let empty = scratch.sub("Empty")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        #expect(try Photos.run([empty], in: scratch).status == 4)
        #expect(!FileManager.default.fileExists(atPath: scratch.sub("Compressed - Empty")), "no empty folder left behind")
    }

    @Test func cancelKeepsFinishedPhotosAndRemovesTheOneInProgress() throws {
        let scratch = try ScratchDirectory()
        let folder = try Photos.manyPhotos(scratch)
        let running = try Photos.start(["--max-size", "2000", "--format", "webp", folder], in: scratch)
        let process = running.process
        let mirror = scratch.sub("Compressed - Many")
        let deadline = Date().addingTimeInterval(60)
        while Photos.files(under: mirror).filter({ !$0.hasPrefix(".") }).count < 2, Date() < deadline { usleep(20_000) }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationStatus == 8)
        let left = Photos.files(under: mirror)
        #expect(left.allSatisfy { !$0.hasPrefix(".") }, "no temporary left: \(left)")
        #expect(left.count >= 2 && left.count < 40, "\(left)")
        for name in left { #expect(try Photos.header(mirror + "/" + name, "width") == "2000", "\(name) is whole") }
    }

    @Test func aStopThatCannotWaitForTheEncoderStillKeepsWhatIsDone() throws {
        let scratch = try ScratchDirectory()
        let folder = try Photos.manyPhotos(scratch)
        // HEVC encoding takes seconds a photo: past the grace period the process removes what is in
        // progress and exits without waiting for the encoder.
        let running = try Photos.start(["--format", "heic", "--keep-size", folder], in: scratch)
        let process = running.process
        usleep(1_500_000)
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationStatus == 8)
        let mirror = scratch.sub("Compressed - Many")
        let left = Photos.files(under: mirror)
        #expect(left.allSatisfy { !$0.hasPrefix(".") }, "no temporary left: \(left)")
        for name in left { #expect(try Photos.header(mirror + "/" + name, "width") == "3000", "\(name) is whole") }
        if left.isEmpty { #expect(!FileManager.default.fileExists(atPath: mirror), "no empty folder left behind") }
    }

    @Test func theTimeBudgetStopsTheBatchAndKeepsWhatIsDone() throws {
        let scratch = try ScratchDirectory()
        let folder = try Photos.manyPhotos(scratch)
        // Far over the budget: refused before anything is made.
        let refused = try Photos.run(["--time-budget", "0.1", "--format", "heic", folder], in: scratch)
        #expect(refused.status == 9 && refused.stderr.contains("Not started"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.sub("Compressed - Many")))
        // Over it, but not so far that the estimate refuses it: stopped part way.
        let result = try Photos.run(["--time-budget", "1.5", "--format", "webp", "--json", folder], in: scratch)
        #expect(result.status == 9, "\(result.stderr)")
        #expect(result.stderr.contains("time budget"), "\(result.stderr)")
        let left = Photos.files(under: scratch.sub("Compressed - Many"))
        #expect(left.allSatisfy { !$0.hasPrefix(".") } && left.count < 40, "\(left)")
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        #expect((json?["outputs"] as? [Any])?.count == left.count, "the JSON lists what was kept")
        #expect((json?["error"] as? [String: Any])?["code"] as? Int == 9)
        #expect((json?["error"] as? [String: Any])?["kind"] as? String == "budget")
    }
}
