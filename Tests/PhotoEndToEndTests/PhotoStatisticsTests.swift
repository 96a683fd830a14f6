import ArchiverTestSupport
import Foundation
import Testing

/// Compressed photo copies in Archiver's statistics, as GLib reads the store back.
@Suite struct PhotoStatisticsTests {
    @Test func copiesAddUpAndOnlyTheSmallerOnesSave() throws {
        let scratch = try ScratchDirectory()
        let big = scratch.sub("big.jpg")
        let other = scratch.sub("other.jpg")
        let small = scratch.sub("small.jpg")
        try Photos.makeJPEG(big, width: 1600, height: 1200)
        try Photos.makeJPEG(other, width: 1200, height: 900)
        // At quality 95 its copy would be larger: the copy is the original's bytes, counted but not smaller.
        try Photos.makeJPEG(small, width: 320, height: 240, quality: 30)
        for arguments in [["--max-size", "800", big], ["--max-size", "800", "--quality", "95", other, small]] {
            let result = try Photos.run(arguments, in: scratch)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(!result.stderr.contains("statistics"), "\(result.stderr)")
        }
        let copies = [big, other, small].map {
            (before: Photos.size($0), after: Photos.size(String($0.dropLast(4)) + " (compressed).jpg"))
        }
        #expect(copies[2].after == copies[2].before && copies[0].after < copies[0].before, "\(copies)")
        let figures = try StatisticsFile.allTime(dataHome: scratch.sub("data"))
        #expect(figures == StatisticsFile.expected("photos-compressed", copies), "\(figures)")
        #expect(figures["photos-compressed-smaller"] == 2)
    }
}
