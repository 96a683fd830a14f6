import ArchiverCore
import ArchiverTestSupport
import Foundation
import SystemPackage
import Testing

@testable import PhotoEngine

/// The estimate model, the statuses, the suggestions' order, and the marker that recognises our copies.
@Suite struct PhotoEstimateTests {
    /// A phone's 12 MP JPEG at quality 92.
    private let jpeg = PhotoHeader(width: 4032, height: 3024, loader: "jpegload", quality: 92)

    @Test func theCopyIsShrunkAsTheEncoderShrinksIt() {
        #expect(PhotoEstimator.outputDimensions(width: 4032, height: 3024, maxSize: 1500) == (1500, 1125))
        #expect(PhotoEstimator.outputDimensions(width: 3024, height: 4032, maxSize: 1500) == (1125, 1500))
        // Never enlarged; no limit keeps the size.
        #expect(PhotoEstimator.outputDimensions(width: 800, height: 600, maxSize: 1500) == (800, 600))
        #expect(PhotoEstimator.outputDimensions(width: 4032, height: 3024, maxSize: nil) == (4032, 3024))
    }

    @Test func moreQualityOrPixelsCostMoreBytes() {
        func bytes(_ options: PhotoOptions, size: Int64 = 2_000_000, loader: String = "jpegload") -> Int64 {
            PhotoEstimator.estimatedBytes(size: size, width: 4032, height: 3024, loader: loader, sourceQuality: 92, options: options)
        }
        #expect(bytes(PhotoOptions(quality: 60)) < bytes(PhotoOptions(quality: 75)))
        #expect(bytes(PhotoOptions(quality: 75)) < bytes(PhotoOptions(quality: 90)))
        #expect(bytes(PhotoOptions(maxSize: 1000)) < bytes(PhotoOptions(maxSize: 2000)))
        #expect(bytes(PhotoOptions(format: .avif)) < bytes(PhotoOptions(format: .jpeg)))
        // A more detailed photo (more bytes for the same pixels) makes a larger copy.
        #expect(bytes(PhotoOptions(), size: 1_000_000) < bytes(PhotoOptions(), size: 4_000_000))
        // The phone shot of bench/make-photos.sh's 05_Sunset (1.55 MB) gave 135 kB at 1500 px, Q75.
        let sunset = Double(bytes(PhotoOptions(), size: 1_551_593))
        #expect(abs(sunset / 134_801 - 1) < 0.25, "\(sunset)")
    }

    @Test func eachPhotoGetsAStatus() {
        let options = PhotoOptions()
        let big = PhotoEstimator.estimate(source: "/p/big.jpg", size: 3_000_000, header: jpeg, options: options)
        #expect(big.status == .ok && big.estimatedSize < 500_000 && big.width == 4032)
        // 800×600 in 40 kB: its copy would be no smaller.
        let small = PhotoEstimator.estimate(
            source: "/p/small.jpg", size: 40_000, header: PhotoHeader(width: 800, height: 600, loader: "jpegload"), options: options)
        #expect(small.status == .small && small.estimatedSize == 40_000)
        var oursHeader = jpeg
        oursHeader.ours = true
        let ours = PhotoEstimator.estimate(source: "/p/copy.jpg", size: 3_000_000, header: oursHeader, options: options)
        #expect(ours.status == .ours && ours.estimatedSize == 3_000_000)
        let broken = PhotoEstimator.estimate(source: "/p/x.jpg", size: 10, header: nil, reason: tr("it is damaged or cut short"), options: options)
        #expect(broken.status == .unreadable && broken.message?.english == "it is damaged or cut short")
    }

    @Test func suggestionsAreTheLargestSavingsOverTheFloor() {
        func estimate(_ name: String, _ size: Int64, _ estimated: Int64, _ status: PhotoEstimate.Status = .ok) -> PhotoEstimate {
            PhotoEstimate(source: FilePath(name), size: size, width: 1, height: 1, estimatedSize: estimated, status: status)
        }
        let list = [
            estimate("/a", 2_000_000, 200_000), estimate("/b", 5_000_000, 400_000), estimate("/c", 400_000, 40_000),
            estimate("/d", 5_000_000, 5_000_000, .ours), estimate("/e", 3_000_000, 3_000_000, .small),
            estimate("/f", 3_000_000, 3_000_000, .unreadable), estimate("/g", 2_000_000, 200_000),
        ]
        #expect(PhotoEstimator.suggestions(list).map(\.source.string) == ["/b", "/a", "/g"])
        #expect(PhotoEstimator.suggestions(list, floor: 0).map(\.source.string) == ["/b", "/a", "/g", "/c"])
    }

    @Test func ourCopiesAreKnownByTheirXMP() {
        #expect(PhotoMarker.isOurs(#"<rdf:Description xmp:CreatorTool="Archiver (io.github.archiver)"/>"#))
        #expect(PhotoMarker.isOurs("<xmp:CreatorTool>Archiver (io.github.archiver)</xmp:CreatorTool>"))
        #expect(!PhotoMarker.isOurs(#"<rdf:Description xmp:CreatorTool="GIMP 2.10"/>"#))
        #expect(!PhotoMarker.isOurs("Archiver (io.github.archiver)"), "the name alone, outside CreatorTool")
        #expect(!PhotoMarker.isOurs(""))
    }

    @Test func theMarkerIsAddedToWhateverXMPThePhotoHad() {
        let fresh = PhotoCodec.markXMP(nil)
        #expect(PhotoMarker.isOurs(fresh) && fresh.contains("<x:xmpmeta"), "\(fresh)")
        let other = #"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Tiergarten</dc:title></rdf:Description></rdf:RDF></x:xmpmeta>"#
        let merged = PhotoCodec.markXMP(other)
        #expect(PhotoMarker.isOurs(merged) && merged.contains("<dc:title>Tiergarten</dc:title>"), "\(merged)")
        // An existing CreatorTool is replaced, not doubled.
        let gimp = #"<x:xmpmeta><rdf:RDF xmlns:rdf="r"><rdf:Description xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:CreatorTool="GIMP 2.10" xmp:Rating="4"/></rdf:RDF></x:xmpmeta>"#
        let replaced = PhotoCodec.markXMP(gimp)
        #expect(PhotoMarker.isOurs(replaced) && !replaced.contains("GIMP") && replaced.contains(#"xmp:Rating="4""#), "\(replaced)")
        #expect(replaced.components(separatedBy: "CreatorTool").count == 2, "\(replaced)")
    }

    @Test func aJPEGsQualityIsReadFromItsTable() {
        let standard: [UInt8] = [
            16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87,
            80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92, 49, 64, 78, 87, 103, 121, 120, 101, 72,
            92, 95, 98, 112, 100, 103, 99,
        ]
        func jpeg(_ table: [UInt8], id: UInt8 = 0) -> [UInt8] {
            // SOI, an APP0 of 16 bytes, then the DQT.
            [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + [UInt8](repeating: 0, count: 14) + [0xFF, 0xDB, 0x00, 0x43, id] + table
        }
        #expect(PhotoEstimator.jpegQuality(head: jpeg(standard)) == 50)
        // libjpeg at 75 halves the table (scale 50), at 90 takes a fifth (scale 20).
        #expect(PhotoEstimator.jpegQuality(head: jpeg(standard.map { UInt8((Int($0) * 50 + 50) / 100) })) == 75)
        #expect(PhotoEstimator.jpegQuality(head: jpeg(standard.map { UInt8(max(1, (Int($0) * 20 + 50) / 100)) })) == 90)
        #expect(PhotoEstimator.jpegQuality(head: jpeg(standard, id: 1)) == nil, "the chroma table alone says nothing")
        #expect(PhotoEstimator.jpegQuality(head: [0x89, 0x50, 0x4E, 0x47]) == nil)
        // A photo saved at a low quality is already as small as its detail allows: a copy at 75 is no smaller.
        let low = PhotoHeader(width: 1200, height: 900, loader: "jpegload", quality: 50)
        #expect(PhotoEstimator.estimate(source: "/p/q50.jpg", size: 150_000, header: low, options: PhotoOptions()).status == .small)
        var high = low
        high.quality = 95
        #expect(PhotoEstimator.estimate(source: "/p/q95.jpg", size: 150_000, header: high, options: PhotoOptions()).status == .ok)
    }

    @Test func aJPEGWithoutItsEndIsCut() throws {
        #expect(PhotoEstimator.containsEndMarker([0xFF, 0xD8, 0x00, 0xFF, 0xD9]))
        #expect(PhotoEstimator.containsEndMarker([0xFF, 0xD9, 0, 0, 0]), "padding after the end")
        #expect(!PhotoEstimator.containsEndMarker([0xFF, 0xD8, 0x12, 0x34, 0xFF]))
        let scratch = try ScratchDirectory()
        try Data([0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: 7, count: 1000)).write(to: URL(fileURLWithPath: scratch.sub("cut.jpg")))
        #expect(PhotoEstimator.jpegLooksCut(FilePath(scratch.sub("cut.jpg"))))
    }

    @Test func aPauseIsNotWorkingTimeNorBudget() throws {
        let control = JobControl(budget: 0.3)
        #expect(control.pause() && !control.pause(), "a second pause changes nothing")
        #expect(control.isPaused && control.pauseNumber == 1)
        usleep(500_000)
        #expect(control.stopReason == nil, "the budget does not run while paused")
        #expect(control.workingSeconds < 0.2, "\(control.workingSeconds)")
        #expect(control.resume() && !control.resume())
        #expect(control.stopReason == nil, "the pause was given back to the budget")
        usleep(400_000)
        #expect(control.stopReason?.code == .budget)
        // Cancelling while paused stops at once.
        let other = JobControl()
        other.pause()
        other.cancel()
        #expect(other.stopReason?.code == .cancelled)
    }

    @Test func theRemainingTimeFollowsThePace() {
        #expect(PhotoBatch.remaining(done: 0, total: 100, seconds: 5) == nil)
        #expect(PhotoBatch.remaining(done: 25, total: 100, seconds: 5) == 15)
        #expect(PhotoBatch.remaining(done: 100, total: 100, seconds: 5) == 0)
    }
}
