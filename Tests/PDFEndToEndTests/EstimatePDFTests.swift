import ArchiverTestSupport
import Foundation
import Testing

/// `--estimate` and `--progress-json`, as the Compress PDF… window runs them.
@Suite(.serialized) struct EstimatePDFTests {
    static let qualities = ["best", "high", "medium", "low", "very-low", "minimum"]

    /// The one JSON object on standard output.
    private func object(_ run: Outcome) throws -> [String: Any] {
        let parsed = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8))
        return try #require(parsed as? [String: Any], "\(run.stdout)")
    }

    private func levels(_ object: [String: Any]) -> [[String: Any]] { object["levels"] as? [[String: Any]] ?? [] }

    @Test func estimateGivesSixLevelsAndWritesNothing() throws {
        let scratch = try ScratchDirectory()
        let input = try TestPDFs.copy(TestPDFs.sample, into: scratch, as: "report.pdf")
        let before = try FileManager.default.attributesOfItem(atPath: input)[.modificationDate] as? Date
        let run = try PDF.compress(["--estimate", "--json", "report.pdf"], in: scratch.path)
        #expect(run.status == 0, "\(run.stderr)")
        let result = try object(run)
        #expect(result["operation"] as? String == "estimate-pdf")
        #expect(result["exitCode"] as? Int == 0)
        #expect(result["path"] as? String == input)
        #expect((result["size"] as? NSNumber)?.int64Value == PDF.size(input))
        #expect(result["pages"] as? Int == 7)
        #expect(result["encrypted"] as? Bool == false)
        #expect(result["alreadyOptimal"] as? Bool == false)
        #expect(result["error"] is NSNull)
        #expect((result["elapsed"] as? Double).map { $0 > 0 && $0 < 30 } == true)
        let levels = levels(result)
        #expect(levels.compactMap { $0["quality"] as? String } == Self.qualities)
        #expect(levels.compactMap { $0["dpi"] as? Int } == [300, 200, 150, 100, 72, 50])
        #expect(levels.compactMap { $0["jpegQuality"] as? Int } == [90, 70, 50, 30, 15, 5])
        let sizes = levels.compactMap { ($0["estimatedSize"] as? NSNumber)?.int64Value }
        try #require(sizes.count == 6, "\(levels)")
        // Each level at most a little above the one before it, and the ladder really descends.
        for (higher, lower) in zip(sizes, sizes.dropFirst()) { #expect(Double(lower) <= Double(higher) * 1.05, "\(sizes)") }
        #expect(sizes[5] * 4 < sizes[0], "\(sizes)")
        #expect(sizes.allSatisfy { $0 > 0 && $0 < PDF.size(input) }, "\(sizes)")
        #expect(levels.allSatisfy { $0["helps"] as? Bool == true })
        // Nothing written, the input untouched.
        #expect(PDF.names(in: scratch.path) == ["report.pdf"])
        #expect(try FileManager.default.attributesOfItem(atPath: input)[.modificationDate] as? Date == before)
    }

    @Test func estimateForPeopleIsATable() throws {
        let scratch = try ScratchDirectory()
        _ = try TestPDFs.copy(TestPDFs.sample, into: scratch, as: "report.pdf")
        let run = try PDF.compress(["--estimate", "report.pdf"], in: scratch.path)
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("report.pdf: 7 pages, ") == true, "\(run.stdout)")
        #expect(lines.count == 7, "\(run.stdout)")
        #expect(lines.dropFirst().first?.contains("Best (300 dpi, JPEG 90)") == true, "\(run.stdout)")
        #expect(lines.last?.contains("Minimum (50 dpi, JPEG 5)") == true, "\(run.stdout)")
        #expect(lines.dropFirst().allSatisfy { $0.contains("about ") && $0.contains(" % smaller)") }, "\(run.stdout)")
    }

    @Test func textOnlyPDFIsAlreadyOptimal() throws {
        let scratch = try ScratchDirectory()
        try Self.textOnly(at: scratch.sub("letter.pdf"))
        let run = try PDF.compress(["--estimate", "--json", "letter.pdf"], in: scratch.path)
        #expect(run.status == 0, "\(run.stderr)")
        let result = try object(run)
        #expect(result["alreadyOptimal"] as? Bool == true)
        let size = PDF.size(scratch.sub("letter.pdf"))
        for level in levels(result) {
            #expect(level["helps"] as? Bool == false)
            let estimated = (level["estimatedSize"] as? NSNumber)?.int64Value ?? -1
            #expect(estimated <= size && Double(estimated) > Double(size) * 0.95, "\(estimated) of \(size)")
        }
        let words = try PDF.compress(["--estimate", "letter.pdf"], in: scratch.path)
        #expect(words.stdout.contains("“letter.pdf” is already optimal"), "\(words.stdout)")
        #expect(PDF.names(in: scratch.path) == ["letter.pdf"])
    }

    @Test func encryptedPDFNeedsItsPassword() throws {
        let scratch = try ScratchDirectory()
        try TestPDFs.encrypt(TestPDFs.sample, password: "s3cret", into: scratch, as: "locked.pdf")
        let refused = try PDF.compress(["--estimate", "--json", "locked.pdf"], in: scratch.path)
        #expect(refused.status == 6, "\(refused.stderr)")
        let error = try object(refused)["error"] as? [String: Any]
        #expect(error?["kind"] as? String == "password", "\(refused.stdout)")
        #expect(levels(try object(refused)).isEmpty)
        // The window always passes --password-stdin, with an empty line until it has a password.
        let empty = try PDF.compress(["--estimate", "--json", "--password-stdin", "locked.pdf"], in: scratch.path, input: "\n")
        #expect(empty.status == 6, "\(empty.stderr)")
        let wrong = try PDF.compress(["--estimate", "--json", "--password-stdin", "locked.pdf"], in: scratch.path, input: "nope\n")
        #expect(wrong.status == 6 && wrong.stderr.contains("Wrong password"), "\(wrong.stderr)")
        let run = try PDF.compress(["--estimate", "--json", "--password-stdin", "locked.pdf"], in: scratch.path, input: "s3cret\n")
        #expect(run.status == 0, "\(run.stderr)")
        let result = try object(run)
        #expect(result["encrypted"] as? Bool == true)
        #expect(result["alreadyOptimal"] as? Bool == false)
        #expect(PDF.names(in: scratch.path) == ["locked.pdf"])
    }

    @Test func estimateRefusesWhatItCannotDo() throws {
        let scratch = try ScratchDirectory()
        _ = try TestPDFs.copy(TestPDFs.a85, into: scratch, as: "a.pdf")
        _ = try TestPDFs.copy(TestPDFs.a85, into: scratch, as: "b.pdf")
        #expect(try PDF.compress(["--estimate", "a.pdf", "b.pdf"], in: scratch.path).status != 0)
        #expect(try PDF.compress(["--estimate", "-o", "c.pdf", "a.pdf"], in: scratch.path).status != 0)
        let damaged = try Data(contentsOf: URL(fileURLWithPath: TestPDFs.sample)).prefix(200_000)
        try damaged.write(to: URL(fileURLWithPath: scratch.sub("cut.pdf")))
        let cut = try PDF.compress(["--estimate", "--json", "cut.pdf"], in: scratch.path)
        #expect(cut.status == 5, "\(cut.stderr)")
        #expect((try object(cut)["error"] as? [String: Any])?["kind"] as? String == "corrupt", "\(cut.stdout)")
        #expect(PDF.names(in: scratch.path) == ["a.pdf", "b.pdf", "cut.pdf"])
    }

    /// The estimate against the copy really made at each level, on the generated PDFs: within 25 %.
    @Test(arguments: ["sample", "a85", "stamp", "inline"])
    func estimateIsWithinAQuarterOfTheResult(_ fixture: String) throws {
        let scratch = try ScratchDirectory()
        let source = [
            "sample": TestPDFs.sample, "a85": TestPDFs.a85, "stamp": TestPDFs.stamp, "inline": TestPDFs.inline,
        ][fixture]!
        let input = try TestPDFs.copy(source, into: scratch, as: "in.pdf")
        let run = try PDF.compress(["--estimate", "--json", "in.pdf"], in: scratch.path)
        #expect(run.status == 0, "\(run.stderr)")
        let estimates = levels(try object(run)).compactMap { ($0["estimatedSize"] as? NSNumber)?.int64Value }
        try #require(estimates.count == 6)
        for (quality, estimate) in zip(Self.qualities, estimates) {
            let made = try PDF.compress(["--no-notify", "-q", quality, "-o", "\(quality).pdf", "in.pdf"], in: scratch.path)
            #expect(made.status == 0, "\(made.stderr)")
            // No copy: the original is the result.
            let real = PDF.names(in: scratch.path).contains("\(quality).pdf") ? PDF.size(scratch.sub("\(quality).pdf")) : PDF.size(input)
            let error = Double(estimate - real) / Double(real)
            #expect(abs(error) <= 0.25, "\(fixture) \(quality): estimated \(estimate), made \(real) (\(Int(error * 100)) %)")
        }
    }

    @Test func progressJSONReportsImagesPagesAndText() throws {
        let scratch = try ScratchDirectory()
        _ = try TestPDFs.copy(TestPDFs.sample, into: scratch, as: "report.pdf")
        let run = try PDF.compress(["--progress-json", "--no-notify", "report.pdf"], in: scratch.path)
        #expect(run.status == 0, "\(run.stderr)")
        let events = try run.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], "\($0)")
        }
        let progress = events.filter { $0["event"] as? String == "progress" }
        // The sample's five images drawn above Medium's 150 dpi, counted as they are done.
        #expect(progress.last?["done"] as? Int == 5 && progress.last?["total"] as? Int == 5, "\(run.stdout)")
        let done = progress.compactMap { $0["done"] as? Int }
        #expect(done == done.sorted() && done.count >= 2, "\(done)")
        let result = try #require(events.last)
        #expect(result["event"] as? String == "result" && result["operation"] as? String == "compress-pdf")
        #expect(events.filter { $0["event"] as? String == "result" }.count == 1)
        let item = try #require((result["results"] as? [[String: Any]])?.first)
        #expect(item["pages"] as? Int == 7)
        #expect(item["textKept"] as? Bool == true)
        #expect(item["output"] as? String == scratch.sub("report (compressed).pdf"))
        #expect(try PDF.text(scratch.sub("report (compressed).pdf")) == PDF.text(TestPDFs.sample))

        // Flattened, the copy has no text left, and says so.
        let flat = try PDF.compress(
            ["--progress-json", "--no-notify", "--flatten", "-o", "flat.pdf", "report.pdf"], in: scratch.path)
        #expect(flat.status == 0, "\(flat.stderr)")
        let last = try #require(flat.stdout.split(separator: "\n").last)
        let flatResult = try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
        let flatItem = try #require((flatResult["results"] as? [[String: Any]])?.first)
        #expect(flatItem["textKept"] as? Bool == false, "\(last)")
        #expect((flatResult["warningCodes"] as? [String])?.contains("pdf-flattened") == true)
        #expect(flat.stdout.contains(#""event":"warning","code":"pdf-flattened""#), "\(flat.stdout)")
    }

    /// A one-page PDF of text only (Helvetica, no images), already written compactly by qpdf.
    static func textOnly(at path: String) throws {
        let lines = (1...40).map { "BT /F1 11 Tf 72 \(800 - $0 * 18) Td (Line \($0) of a letter with nothing but words.) Tj ET" }
        let content = lines.joined(separator: "\n")
        let objects = [
            "<< /Type /Catalog /Pages 2 0 R >>",
            "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
            "<< /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream",
            "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        ]
        var pdf = "%PDF-1.4\n"
        var offsets: [Int] = []
        for (number, body) in objects.enumerated() {
            offsets.append(pdf.utf8.count)
            pdf += "\(number + 1) 0 obj\n\(body)\nendobj\n"
        }
        let xref = pdf.utf8.count
        pdf += "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
        pdf += offsets.map { String(format: "%010d 00000 n \n", $0) }.joined()
        pdf += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
        try pdf.write(toFile: path + ".plain", atomically: true, encoding: .utf8)
        let compact = try Tool.run([
            "/usr/bin/qpdf", "--object-streams=generate", "--recompress-flate", "--compression-level=9", path + ".plain", path,
        ])
        #expect(compact.status == 0, "\(compact.output)")
        try FileManager.default.removeItem(atPath: path + ".plain")
    }
}
