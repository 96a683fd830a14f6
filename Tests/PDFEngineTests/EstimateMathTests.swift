import PDFEngine
import Testing

@Suite struct EstimateMathTests {
    typealias Math = EstimateMath

    @Test func trialAtTheNewWidthIsTakenAsItIs() {
        let trial = Math.LevelTrial(
            newWidth: 1000, newHeight: 500, samples: [.init(width: 1000, bytesPerPixel: 0.5)], headerBytes: 600)
        #expect(trial.bytes == 250_600)
        #expect(Math.LevelTrial(newWidth: 1000, newHeight: 500).bytes == nil, "nothing measured")
        #expect(Math.LevelTrial(newWidth: 0, newHeight: 0, samples: trial.samples).bytes == nil, "not resampled")
    }

    @Test func trialBelowTheNewWidthIsCarriedUpAlongItsSlope() throws {
        // Twice the width, half the bytes per pixel: slope -1, so at 2000 it is 0.25.
        let halving = Math.LevelTrial(
            newWidth: 2000, newHeight: 1000,
            samples: [.init(width: 1000, bytesPerPixel: 0.5), .init(width: 500, bytesPerPixel: 1.0)])
        let quarter: Double = 0.25 * 2000 * 1000
        let bytes = try #require(halving.bytes)
        #expect(abs(bytes - quarter) < 1)
        // Steeper than -1 is noise: held at -1.
        let steep = Math.LevelTrial(
            newWidth: 2000, newHeight: 1000,
            samples: [.init(width: 1000, bytesPerPixel: 0.5), .init(width: 500, bytesPerPixel: 4.0)])
        let steepBytes = try #require(steep.bytes)
        #expect(abs(steepBytes - quarter) < 1)
        // A picture never gets much denser as it grows: at most slope 0.25.
        let rising = Math.LevelTrial(
            newWidth: 2000, newHeight: 1000,
            samples: [.init(width: 1000, bytesPerPixel: 1.0), .init(width: 500, bytesPerPixel: 0.1)])
        let expected: Double = 2_000_000 * 2.0.squareRoot().squareRoot()
        let risingBytes = try #require(rising.bytes)
        #expect(abs(risingBytes - expected) < 1)
        // One sample only: its bytes per pixel as they are.
        let single = Math.LevelTrial(newWidth: 2000, newHeight: 1000, samples: [.init(width: 1000, bytesPerPixel: 0.3)])
        let singleBytes = try #require(single.bytes)
        #expect(abs(singleBytes - 600_000) < 1)
    }

    /// A JPEG image of 4000 × 3000 stored in `stored` bytes, resampled to 1000 × 750 at the one level.
    private func image(stored: Int64, thorough: Double?, quick: Double?) -> Math.ImageTrial {
        func trial(_ perPixel: Double?) -> Math.LevelTrial {
            Math.LevelTrial(
                newWidth: 1000, newHeight: 750, samples: perPixel.map { [.init(width: 1000, bytesPerPixel: $0)] } ?? [])
        }
        return Math.ImageTrial(
            width: 4000, height: 3000, storedBytes: stored, keptBytes: stored, jpeg: true, levels: [trial(thorough)],
            quick: quick.map { [trial($0)] })
    }

    @Test func imagesOutsideTheSampleBorrowFromIt() {
        // Sampled: thorough 0.2 against quick 0.16, so quick trials count 1.25 times.
        let sampled = image(stored: 2_000_000, thorough: 0.2, quick: 0.16)
        let quickOnly = image(stored: 2_000_000, thorough: nil, quick: 0.08)
        let size = Math.size(rest: 10_000, images: [sampled, quickOnly], level: 0)
        #expect(size == 10_000 + 150_000 + 75_000)
        // Without any quick trial, the stored bytes scaled as the sampled image's were: it made 150,000 bytes
        // of 125,000 (2 MB × 1/16 of the pixels), so the other, stored in 4 MB, makes 300,000.
        let unmeasured = image(stored: 4_000_000, thorough: nil, quick: nil)
        #expect(Math.size(rest: 0, images: [sampled, unmeasured], level: 0) == 150_000 + 300_000)
        // Past the quick trials' limit, an image borrows from the quick ones too: these two made 225,000 bytes
        // of 250,000 scaled stored bytes (0.9), so 4 MB stored (250,000 scaled) makes 225,000.
        #expect(Math.size(rest: 0, images: [sampled, quickOnly, unmeasured], level: 0) == 150_000 + 75_000 + 225_000)
    }

    @Test func anImageWhoseJPEGWouldNotBeSmallerKeepsItsPlace() {
        // 1.0 bytes per pixel at 1000 × 750 is 750,000 bytes: more than the 500,000 it takes now.
        let bigger = Math.ImageTrial(
            width: 4000, height: 3000, storedBytes: 500_000, keptBytes: 400_000, jpeg: true,
            levels: [Math.LevelTrial(newWidth: 1000, newHeight: 750, samples: [.init(width: 1000, bytesPerPixel: 1.0)])])
        #expect(Math.size(rest: 1_000, images: [bigger], level: 0) == 1_000 + 400_000)
        // Not resampled at a level: kept too.
        let untouched = Math.ImageTrial(
            width: 400, height: 300, storedBytes: 50_000, keptBytes: 40_000, jpeg: false,
            levels: [Math.LevelTrial(newWidth: 0, newHeight: 0)])
        #expect(Math.size(rest: 0, images: [untouched], level: 0) == 40_000)
    }

    @Test func softMaskFollowsItsImage() {
        // A 2000 × 1000 mask of 8,000 bytes, its image resampled to 500 × 250: a sixteenth of its pixels.
        let masked = Math.ImageTrial(
            width: 2000, height: 1000, storedBytes: 1_000_000, keptBytes: 800_000, maskWidth: 2000, maskHeight: 1000,
            maskKeptBytes: 8_000, jpeg: false,
            levels: [Math.LevelTrial(newWidth: 500, newHeight: 250, samples: [.init(width: 500, bytesPerPixel: 0.4)])])
        #expect(Math.size(rest: 0, images: [masked], level: 0) == 50_000 + 500)
    }

    @Test func levelHelpsFromFivePercentSmaller() {
        func verdict(_ estimated: Int64) -> String {
            let (size, helps) = Math.verdict(inputBytes: 1_000_000, estimated: estimated)
            return "\(size) \(helps)"
        }
        #expect(verdict(1_200_000) == "1000000 false", "the original is kept")
        #expect(verdict(1_000_000) == "1000000 false")
        #expect(verdict(990_000) == "990000 false", "1 % is not worth it")
        #expect(verdict(950_000) == "950000 true")
        #expect(verdict(40_000) == "40000 true")
    }
}
