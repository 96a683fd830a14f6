import ArchiverCore
import Testing

/// The Compress PDF… window's wording and choices (PDFChoice), in English (the tests' catalog is unbound).
@Suite struct PDFChoiceTests {
    @Test func trySmallerWalksDownTheLevelsAndStopsAfterMinimum() {
        #expect(PDFChoice.smaller(than: .best) == .high)
        #expect(PDFChoice.smaller(than: .medium) == .low)
        #expect(PDFChoice.smaller(than: .low) == .veryLow)
        #expect(PDFChoice.smaller(than: .veryLow) == .minimum)
        #expect(PDFChoice.smaller(than: .minimum) == nil)
    }

    @Test func anEstimateSaysTheSizeAndTheSavingOrNoSmaller() {
        #expect(PDFChoice.estimate(original: 31_800_000, estimated: 1_400_000, helps: true).english == "about 1.4 MB, 96 % smaller")
        // The estimate's verdict wins: a 2 % saving is no saving worth a copy.
        #expect(PDFChoice.estimate(original: 1_000_000, estimated: 980_000, helps: false).english == "no smaller")
        // And a "help" that is not smaller is no help.
        #expect(PDFChoice.estimate(original: 1_000_000, estimated: 1_200_000, helps: true).english == "no smaller")
    }

    @Test func headerAndResultLines() {
        #expect(PDFChoice.header(size: 31_800_000, pages: nil).english == "31.8 MB")
        #expect(PDFChoice.header(size: 31_800_000, pages: 8).english == "8 pages, 31.8 MB")
        #expect(PDFChoice.header(size: 2_000, pages: 1).english == "1 page, 2.0 kB")
        #expect(PDFChoice.sizes(before: 31_800_000, after: 1_400_000).english == "31.8 MB → 1.4 MB, 96 % smaller")
        #expect(PDFChoice.pages(8, textKept: true).english == "8 pages, text kept")
        #expect(PDFChoice.pages(1, textKept: false).english == "1 page, text not kept")
        #expect(PDFChoice.pages(3, textKept: nil).english == "3 pages")
    }

    @Test func everyLevelSaysWhatItIsFor() {
        let summaries = PDFQuality.allCases.map { PDFChoice.summary(of: $0).english }
        #expect(Set(summaries).count == 6)
        #expect(summaries.first == "For printing: images kept at 300 dpi")
        #expect(summaries.last == "Smallest file: images barely legible")
    }
}
