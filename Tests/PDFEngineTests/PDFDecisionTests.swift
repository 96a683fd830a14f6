import ArchiverCore
import CPDFShim
import Testing

@Suite struct PDFQualityTests {
    @Test func ladderMatchesWhatUsersKnow() {
        let ladder = PDFQuality.allCases.map { ($0.rawValue, $0.dpi, $0.jpegQuality) }
        let expected = [
            ("best", 300, 90), ("high", 200, 70), ("medium", 150, 50), ("low", 100, 30), ("very-low", 72, 15),
            ("minimum", 50, 5),
        ]
        #expect(ladder.count == expected.count)
        for (step, want) in zip(ladder, expected) { #expect(step == want) }
        #expect(PDFQuality.standard == .medium)
        #expect(PDFQuality.veryLow.label.english == "Very low (72 dpi, JPEG 15)")
        #expect(PDFQuality.medium.label.english == "Medium (150 dpi, JPEG 50)")
    }

    @Test func budgetRefusesOnlyFarOverIt() {
        // 100 MB of PDF is about 20 s.
        #expect(BudgetEstimate.checkPDF(bytes: 100_000_000, budget: 10) == nil)
        #expect(BudgetEstimate.checkPDF(bytes: 100_000_000, budget: nil) == nil)
        let refusal = BudgetEstimate.checkPDF(bytes: 100_000_000, budget: 2)
        #expect(refusal?.code == .budget)
        #expect(
            refusal?.message.english.hasPrefix("Not started: compressing it would take about") == true,
            "\(String(describing: refusal))")
    }

    @Test func settingChoosesTheDefault() {
        var settings = ArchiverSettings()
        #expect(settings.pdfQuality == .medium)
        do {
            let applied = settings.apply(.pdfQuality, .string("very-low"))
            #expect(applied)
        }
        #expect(settings.pdfQuality == .veryLow)
        do {
            let applied = settings.apply(.pdfQuality, .string("extreme"))
            #expect(!applied)
        }
        #expect(settings.pdfQuality == .veryLow)
    }
}

@Suite struct PDFNamingTests {
    private func name(_ text: String) -> String { PDFNaming.compressedName(for: Array(text.utf8)).displayName }

    @Test func copyIsNamedBesideTheInput() {
        #expect(name("report.pdf") == "report (compressed).pdf")
        #expect(name("Scan 2024.PDF") == "Scan 2024 (compressed).pdf")
        #expect(name("download") == "download (compressed).pdf")
        #expect(name(".pdf") == ".pdf (compressed).pdf")
        // Conflicts number before the extension, as every other output does.
        let second = ArchiveNaming.numbered(Array("report (compressed).pdf".utf8), isDirectory: false, attempt: 2)
        #expect(second.displayName == "report (compressed) (2).pdf")
    }

    @Test func pdfIsRecognisedByItsHeader() {
        #expect(PDFNaming.looksLikePDF(Array("%PDF-1.7\n".utf8)))
        #expect(PDFNaming.looksLikePDF(Array(repeating: 0x20, count: 500) + Array("%PDF-1.4".utf8)))
        #expect(!PDFNaming.looksLikePDF(Array("%!PS-Adobe-3.0".utf8)))
        #expect(!PDFNaming.looksLikePDF(Array(repeating: 0x20, count: 1100) + Array("%PDF-1.4".utf8)))
        #expect(!PDFNaming.looksLikePDF([]))
    }

    @Test func summarySaysBeforeAfterAndSaving() {
        #expect(
            PDFNaming.summary(name: "report.pdf", before: 31_800_000, after: 612_000).english
                == "report.pdf: 31.8 MB → 612 kB (98 % smaller)")
        #expect(PDFNaming.saving(before: 1000, after: 998).english == "less than 1 % smaller")
        #expect(PDFNaming.saving(before: 3_200_000, after: 9_600).english == "99 % smaller")
        #expect(PDFNaming.saving(before: 1000, after: 1000).english == "not smaller")
    }
}

/// The shim's resampling decision, called as the image pass calls it.
@Suite struct ResampleDecisionTests {
    private func plan(_ w: Int64, _ h: Int64, _ wi: Double, _ hi: Double, _ dpi: Int32) -> (Int64, Int64)? {
        var nw: Int64 = 0
        var nh: Int64 = 0
        return pdfshim_plan_resample(w, h, wi, hi, dpi, &nw, &nh) == 1 ? (nw, nh) : nil
    }

    @Test func oversizedImagesShrinkToTheTarget() {
        // 2400 px across 4 in is 600 dpi: a quarter at 150.
        #expect(plan(2400, 1600, 4, 4.0 * 1600 / 2400, 150).map { [$0.0, $0.1] } == [600, 400])
        // Placement decides: 3000 px drawn 1 in wide.
        #expect(plan(3000, 3000, 1, 1, 150).map { [$0.0, $0.1] } == [150, 150])
        // Stretched: the less enlarged axis decides, both keep their proportion.
        #expect(plan(1000, 1000, 1, 4, 100).map { [$0.0, $0.1] } == [400, 400])
    }

    @Test func imagesAtOrBelowTheTargetAreLeftAlone() {
        #expect(plan(300, 200, 4, 2.67, 150) == nil)
        #expect(plan(1500, 1000, 10, 6.67, 150) == nil)
        // Within 10 % above: not worth another generation of JPEG loss.
        #expect(plan(1640, 1000, 10, 6.1, 150) == nil)
        // Never drawn, or nonsense sizes.
        #expect(plan(1000, 1000, 0, 0, 150) == nil)
        #expect(plan(0, 10, 1, 1, 150) == nil)
    }
}
