import ArchiverTestSupport
import Foundation
import Testing

/// `--estimate` and `--suggest`: from headers, nothing written; the XMP marker that tells our copies apart.
@Suite struct PhotoEstimateEndToEndTests {
    @Test func copiesAreMarkedKeepTheirXMPAndAreKnownWhateverTheirName() throws {
        let scratch = try ScratchDirectory()
        let photo = scratch.sub("IMG_1.jpg")
        try Photos.makeJPEG(photo, width: 2000, height: 1500)
        try Photos.writeCameraMetadata(photo, orientation: 1, scratch: scratch)
        for format in ["jpeg", "webp"] {
            let made = try Photos.run(["--format", format, "-o", scratch.sub(format), photo], in: scratch)
            #expect(made.status == 0, "\(made.stderr)")
            let copy = scratch.sub(format) + "/" + (format == "jpeg" ? "IMG_1.jpg" : "IMG_1.webp")
            let tags = try Photos.tags(copy)
            #expect(tags["XMP-xmp:CreatorTool"] == "Archiver (io.github.archiver)", "\(format): \(tags.filter { $0.key.hasPrefix("XMP") })")
            #expect(tags["XMP-dc:Title"] == "Tiergarten" && tags["XMP-xmp:Rating"] == "4", "the photo's own XMP stays")
        }
        // Renamed, it is still ours: recognised by its metadata, not its name.
        try FileManager.default.moveItem(atPath: scratch.sub("jpeg/IMG_1.jpg"), toPath: scratch.sub("holiday.jpg"))
        let estimate = try Photos.run(["--estimate", "--json", scratch.sub("holiday.jpg"), photo], in: scratch)
        #expect(estimate.status == 0, "\(estimate.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(estimate.stdout.utf8)) as? [String: Any])
        let statuses = (json["estimates"] as? [[String: Any]] ?? []).map { $0["status"] as? String ?? "" }
        #expect(statuses == ["ours", "ok"], "\(estimate.stdout)")
    }

    @Test func anEstimateNamesEachPhotoAndWritesNothing() throws {
        let scratch = try ScratchDirectory()
        let album = scratch.sub("Album")
        try FileManager.default.createDirectory(atPath: album, withIntermediateDirectories: true)
        try Photos.makeJPEG(album + "/a-big.jpg", width: 3000, height: 2000)
        try Photos.makeJPEG(album + "/b-small.jpg", width: 320, height: 240, quality: 30)
        let whole = try Data(contentsOf: URL(fileURLWithPath: album + "/a-big.jpg"))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: album + "/c-broken.jpg"))
        try Data("not a photo".utf8).write(to: URL(fileURLWithPath: album + "/d-fake.png"))
        let before = Photos.files(under: album)
        let start = Date()
        let run = try BackgroundRun(["--estimate", "--progress-json", album], in: scratch)
        #expect(run.finish() == 0, "\(run.stderr)")
        #expect(Date().timeIntervalSince(start) < 5)
        let estimates = run.events("estimate")
        #expect(estimates.map { ($0["source"] as? String ?? "").replacingOccurrences(of: album + "/", with: "") }
            == ["a-big.jpg", "b-small.jpg", "c-broken.jpg", "d-fake.png"], "plan order")
        #expect(estimates.map { $0["status"] as? String ?? "" } == ["ok", "small", "unreadable", "unreadable"])
        #expect(estimates[0]["width"] as? Int == 3000 && estimates[0]["height"] as? Int == 2000)
        #expect((estimates[2]["message"] as? String)?.contains("cut short") == true, "\(estimates[2])")
        #expect(estimates[0]["message"] is NSNull)
        // What the window's filters use: no EXIF date, so the file's (local, no zone); no position, no place.
        #expect((estimates[0]["taken"] as? String)?.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/) != nil, "\(estimates[0])")
        #expect(estimates[0]["located"] as? Bool == false && estimates[0]["city"] is NSNull)
        #expect(estimates[2]["taken"] is NSNull && estimates[2]["located"] is NSNull, "unreadable: nothing read")
        let result = try #require(run.events.last)
        #expect(result["event"] as? String == "result" && result["photos"] as? Int == 4)
        let sizes = estimates.map { $0["size"] as? Int ?? 0 }
        #expect(result["inputBytes"] as? Int == sizes.reduce(0, +))
        #expect(result["estimatedBytes"] as? Int == estimates.map { $0["estimatedSize"] as? Int ?? 0 }.reduce(0, +))
        #expect((estimates[0]["estimatedSize"] as? Int ?? .max) < (estimates[0]["size"] as? Int ?? 0))
        #expect(Photos.files(under: album) == before)
        #expect(!FileManager.default.fileExists(atPath: scratch.sub("Compressed - Album")), "nothing written")
    }

    @Test func suggestionsAreTheLargePhotosOfThePicturesFolder() throws {
        let scratch = try ScratchDirectory()
        let pictures = scratch.sub("home/Pictures")
        try FileManager.default.createDirectory(atPath: pictures + "/2024", withIntermediateDirectories: true)
        try Photos.makeJPEG(pictures + "/large.jpg", width: 3000, height: 2000, quality: 92)
        try Photos.makeJPEG(pictures + "/2024/larger.jpg", width: 4000, height: 3000, quality: 95)
        try Photos.makeJPEG(pictures + "/small.jpg", width: 320, height: 240, quality: 30)
        // A large copy of ours, kept at full size: skipped, it was made by us.
        let ours = try Photos.run(["--keep-size", "--quality", "85", "-o", scratch.sub("made"), pictures + "/2024/larger.jpg"], in: scratch)
        #expect(ours.status == 0)
        try FileManager.default.moveItem(atPath: scratch.sub("made/larger.jpg"), toPath: pictures + "/copy.jpg")
        #expect(Photos.size(pictures + "/copy.jpg") > 500_000)
        let run = try BackgroundRun(["--suggest", "--progress-json"], in: scratch)
        #expect(run.finish() == 0, "\(run.stderr)")
        let listed = run.events("estimate").map { ($0["source"] as? String ?? "").replacingOccurrences(of: pictures + "/", with: "") }
        #expect(listed == ["2024/larger.jpg", "large.jpg"], "largest saving first; small and ours skipped: \(listed)")
        let result = try #require(run.events.last)
        #expect(result["photos"] as? Int == 2 && result["scanned"] as? Int == 4, "\(result)")
        #expect((result["estimatedBytes"] as? Int ?? .max) < (result["inputBytes"] as? Int ?? 0))
        #expect(run.events("progress").last?["done"] as? Int == 4)
    }
}
