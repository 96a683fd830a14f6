import ArchiverTestSupport
import Foundation
import Testing

/// Compressed PDF copies in Archiver's statistics, as GLib reads the store back.
@Suite struct PDFStatisticsTests {
    @Test func copiesMadeSmallerAddUpAndAnAlreadyOptimalOneIsNotCounted() throws {
        let scratch = try ScratchDirectory()
        let data = ["XDG_DATA_HOME": scratch.sub("data")]
        let inputs = try [("report.pdf", TestPDFs.sample), ("stamp.pdf", TestPDFs.stamp), ("a85.pdf", TestPDFs.a85)].map {
            try TestPDFs.copy($0.1, into: scratch, as: $0.0)
        }
        // Two jobs, the second with two PDFs; then a copy compressed again, which would not be smaller.
        for arguments in [["report.pdf"], ["stamp.pdf", "a85.pdf"], ["-o", "again.pdf", "report (compressed).pdf"]] {
            let run = try PDF.compress(["--no-notify"] + arguments, in: scratch.path, extraEnvironment: data)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(!run.stderr.contains("statistics"), "\(run.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.sub("again.pdf")))
        let copies = inputs.map { (before: PDF.size($0), after: PDF.size(String($0.dropLast(4)) + " (compressed).pdf")) }
        #expect(copies.allSatisfy { $0.after > 0 && $0.after < $0.before }, "\(copies)")
        let figures = try StatisticsFile.allTime(dataHome: scratch.sub("data"))
        #expect(figures == StatisticsFile.expected("pdfs-compressed", copies), "\(figures)")
    }
}
