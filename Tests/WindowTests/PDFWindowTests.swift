import ArchiverTestSupport
import Foundation
import Testing

/// The Compress PDF… window, the real executable driven over AT-SPI (WindowSession), with the real
/// `compress-pdf-with-archiver` beside it for the estimate and the copy. Serialized like the other windows.
@Suite(.serialized, .disabled(if: WindowSession.missing != nil, Comment(rawValue: WindowSession.missing ?? "")))
struct PDFWindowTests {
    /// What a copy ends with: its result, no copy, or the error the window shows.
    private let outcome = ["Compressed “", "is already optimal", "Could not"]
    /// What a level's row ends with once the estimate is in.
    private let estimated = ["about ", "no smaller"]

    private func window(_ pdf: String, environment: [String: String] = [:]) throws -> WindowSession {
        let executable = try #require(
            BuiltProducts.folder(holding: ["archiver-compress-pdf", "compress-pdf-with-archiver"]).map { $0 + "/archiver-compress-pdf" },
            "build archiver-compress-pdf and compress-pdf-with-archiver first")
        let session = try WindowSession()
        try session.launch([executable, "--", pdf], environment: environment)
        try session.waitForApp("archiver-compress-pdf")
        return session
    }

    /// The level rows' estimates, once all six are in.
    private func estimates(_ session: WindowSession) throws -> [String] {
        try session.waitForText(anyOf: estimated, timeout: 30)
        let deadline = Date().addingTimeInterval(10)
        while true {
            let shown = try session.labels().filter { label in estimated.contains { label.hasPrefix($0) } }
            if shown.count == 6 || Date() > deadline { return shown }
            Thread.sleep(forTimeInterval: 0.2)
        }
    }

    /// The bytes "about 1.4 MB" or "1.4 MB" stand for, in the window's own units (kB, MB: powers of 1000).
    private func bytes(_ text: String) -> Double? {
        let words = text.split(separator: " ")
        guard words.count >= 2, let value = Double(words[0].replacingOccurrences(of: ",", with: ".")) else { return nil }
        let units = ["bytes": 1.0, "byte": 1.0, "B": 1.0, "kB": 1e3, "MB": 1e6, "GB": 1e9]
        return units[String(words[1]).trimmingCharacters(in: .punctuationCharacters)].map { value * $0 }
    }

    /// Polls `condition` until it holds or `seconds` pass: a click reaches the window's main loop later.
    private func eventually(seconds: Double = 10, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.2)
        }
        return try condition()
    }

    private func size(_ path: String) throws -> Double {
        Double((try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0)
    }

    @Test func theLevelsShowTheirEstimatesThenTheCopyKeepsTheText() throws {
        let scratch = try ScratchDirectory()
        let pdf = try scratch.copy(WindowPDFs.report, as: "report.pdf")
        let session = try window(pdf)
        defer { session.stop() }
        #expect(try session.windowTitle() == "Compress “report.pdf”")
        // The six estimates, before any choice: each a size and a saving, the smaller levels not larger.
        let shown = try estimates(session)
        #expect(shown.count == 6, "\(shown)")
        let sizes = shown.compactMap { bytes(String($0.dropFirst("about ".count))) }
        #expect(sizes.count == 6 && shown.allSatisfy { $0.contains("% smaller") }, "\(shown)")
        #expect(sizes == sizes.sorted(by: >), "\(shown)")
        #expect(try session.waitForText("3 pages, ").hasPrefix("3 pages, "))
        #expect(try session.isChecked("Medium", role: "radio button"), "the pdf-quality setting's default")
        try session.screenshot("pdf-levels")

        try session.click("Low", role: "radio button")
        #expect(try eventually { try session.isChecked("Low", role: "radio button") })
        try session.click("Compress", role: "push button")
        #expect(try session.waitForText(anyOf: outcome, timeout: 60) == "Compressed “report.pdf”")
        try session.screenshot("pdf-result")
        let copy = scratch.sub("report (compressed).pdf")
        let real = try size(copy)
        // "2.3 MB → 180 kB, 92 % smaller": the after figure is the copy's size.
        let line = try session.waitForText(" → ")
        let after = try #require(bytes(String(line.split(separator: "→")[1].split(separator: ",")[0]).trimmingCharacters(in: .whitespaces)), "\(line)")
        #expect(abs(after - real) / real < 0.06, "\(line) vs \(real) bytes")
        #expect(line.contains("\n3 pages, text kept\n"), "\(line)")
        // Low's estimate against the real copy: the window's promise, within 25 %.
        let estimate = sizes[3]
        #expect(abs(estimate - real) / real < 0.25, "Low estimated \(estimate), made \(real)")
        let text = try Tool.run(["/usr/bin/pdftotext", copy, "-"])
        #expect(text.output.contains("Quarterly harvest report") && text.output.contains("orchard"), "\(text.output)")

        // Try a Smaller Level: back to the form with Very low chosen; the new copy replaces this window's last.
        try session.click("Try a Smaller Level", role: "push button")
        #expect(try eventually { try session.isChecked("Very low", role: "radio button") })
        try session.click("Compress", role: "push button")
        // The job page's labels keep the last result while hidden: the folder tells when this copy is made.
        var files: [String] = []
        #expect(try eventually(seconds: 60) {
            files = try FileManager.default.contentsOfDirectory(atPath: scratch.path).sorted()
            return files == ["report (compressed).pdf", "report.pdf"] && (try? size(copy)).map { $0 < real } == true
        }, "\(files)")
        #expect(try session.waitForText(anyOf: outcome, timeout: 60) == "Compressed “report.pdf”")
        #expect(try size(copy) < real)
        #expect(try Tool.run(["/usr/bin/pdftotext", copy, "-"]).output.contains("orchard"))
    }

    /// A copy made at Minimum: no level can make it smaller, so the window says so up front and its default
    /// button is Close.
    @Test func aCopyAtMinimumIsAlreadyOptimalAndTheWindowOffersClose() throws {
        let scratch = try ScratchDirectory()
        let cli = try #require(BuiltProducts.executable("compress-pdf-with-archiver"))
        let made = try Tool.run([cli, "--quality", "minimum", "--no-notify", "--output", scratch.sub("small.pdf"), "--", WindowPDFs.report])
        #expect(made.status == 0, "\(made.output)")
        let session = try window(scratch.sub("small.pdf"))
        defer { session.stop() }
        #expect(try session.waitForText("Already optimal", timeout: 30) == "Already optimal")
        let shown = try estimates(session)
        #expect(shown == Array(repeating: "no smaller", count: 6), "\(shown)")
        try session.screenshot("pdf-optimal")
        // The header's default button (the job page's own Close, not shown, is later in the tree).
        try session.click("Close", role: "push button", first: true)
        try session.waitUntilGone("Already optimal")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path) == ["small.pdf"])
    }

    /// A level that would not help makes no copy, and the result says so: the original is kept.
    @Test func aLevelThatWouldNotHelpMakesNoCopy() throws {
        let scratch = try ScratchDirectory()
        let cli = try #require(BuiltProducts.executable("compress-pdf-with-archiver"))
        let made = try Tool.run([cli, "--quality", "low", "--no-notify", "--output", scratch.sub("low.pdf"), "--", WindowPDFs.report])
        #expect(made.status == 0, "\(made.output)")
        let session = try window(scratch.sub("low.pdf"))
        defer { session.stop() }
        let shown = try estimates(session)
        #expect(shown.prefix(4).allSatisfy { $0 == "no smaller" } && shown.suffix(2).allSatisfy { $0.hasPrefix("about ") }, "\(shown)")
        try session.click("Best", role: "radio button")
        #expect(try eventually { try session.isChecked("Best", role: "radio button") })
        try session.click("Compress", role: "push button")
        #expect(try session.waitForText(anyOf: outcome, timeout: 60) == "“low.pdf” is already optimal")
        #expect(try session.waitForText("At Best").hasPrefix("At Best the copy would not be smaller ("))
        try session.screenshot("pdf-no-copy")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path) == ["low.pdf"])
    }

    @Test func aPDFThatCannotBeOpenedShowsTheError() throws {
        let scratch = try ScratchDirectory()
        let pdf = scratch.sub("broken.pdf")
        try Data("%PDF-1.7\nthis is not a PDF at all\n".utf8).write(to: URL(fileURLWithPath: pdf))
        let session = try window(pdf)
        defer { session.stop() }
        #expect(try session.waitForText("Could not open", timeout: 30) == "Could not open “broken.pdf”")
        try session.screenshot("pdf-unreadable")
        #expect(try session.isSensitive("Close", role: "push button"))
        #expect(try !session.states(of: "Cancel", role: "push button").contains("showing"), "the header's Cancel is hidden")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path) == ["broken.pdf"])
    }

    @Test func anEncryptedPDFAsksForItsPassword() throws {
        let scratch = try ScratchDirectory()
        let pdf = try scratch.copy(WindowPDFs.locked, as: "locked.pdf")
        let session = try window(pdf)
        defer { session.stop() }
        #expect(try session.waitForText("is encrypted", timeout: 30).contains("“locked.pdf”"))
        try session.type("Password", "wrong")
        try session.click("Unlock", role: "push button")
        #expect(try session.waitForText("Wrong password", timeout: 30) == "Wrong password for “locked.pdf”; nothing was made.")
        try session.screenshot("pdf-password")
        try session.type("Password", "secret")
        try session.click("Unlock", role: "push button")
        let shown = try estimates(session)
        #expect(shown.count == 6, "\(shown)")
        try session.click("Compress", role: "push button")
        #expect(try session.waitForText(anyOf: outcome, timeout: 60) == "Compressed “locked.pdf”")
        // The copy stays encrypted with the same password.
        let copy = scratch.sub("locked (compressed).pdf")
        #expect(try Tool.run(["/usr/bin/qpdf", "--password=secret", "--check", copy]).status == 0)
        #expect(try Tool.run(["/usr/bin/qpdf", "--requires-password", copy]).status == 0)
    }

    @Test func germanLabels() throws {
        let scratch = try ScratchDirectory()
        let pdf = try scratch.copy(WindowPDFs.report, as: "bericht.pdf")
        let session = try window(pdf, environment: try TestLanguages.german())
        defer { session.stop() }
        #expect(try session.windowTitle() == "„bericht.pdf“ komprimieren")
        try session.waitForText("etwa ", timeout: 30)
        let labels = try session.labels()
        for german in ["Qualität", "Beste", "Minimal", "Zum Drucken: Bilder bleiben bei 300 dpi", "Abbrechen", "Komprimieren"] {
            #expect(labels.contains(german), "\(german) in \(labels)")
        }
        #expect(labels.contains { $0.hasPrefix("3 Seiten, ") }, "\(labels)")
        try session.screenshot("pdf-levels-de")
    }

    /// Under the pseudo-locale made from the template, every label the window shows comes from the catalog.
    @Test func everyLabelComesFromTheCatalog() throws {
        let scratch = try ScratchDirectory()
        let pdf = try scratch.copy(WindowPDFs.report, as: "report.pdf")
        let session = try window(pdf, environment: try TestLanguages.pseudo())
        defer { session.stop() }
        try session.waitForText("⟦", timeout: 30)
        Thread.sleep(forTimeInterval: 3)
        let labels = try session.labels().filter { $0.contains(where: \.isLetter) }
        // The PDF's name is data; an empty label reads as GTK 4.8's class-name placeholder.
        let words = labels.filter { $0 != "report.pdf" && $0 != "GtkLabel" }
        #expect(words.count > 12, "\(labels)")
        for label in words { #expect(label.contains("⟦"), "\(label) is not from the catalog: \(labels)") }
        #expect(try session.windowTitle().contains("⟦"))
        #expect(try session.unnamedControls() == [])
    }
}

/// The PDFs these tests open, made once per test run with Debian's ReportLab and PIL: a report of three pages
/// (text on each, two photographs drawn at 600 and 400 dpi), and the report encrypted with the password
/// "secret".
enum WindowPDFs {
    static let folder: String = {
        let folder = packageRoot.appendingPathComponent(".build/test-scratch/window-pdfs-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let result = try? Tool.run(["/usr/bin/python3", "-c", generator, folder])
        if result?.status != 0 {
            Issue.record("Could not make the test PDFs (python3-reportlab, python3-pil): \(result?.output ?? "python3 did not start")")
        }
        return folder
    }()

    static var report: String { folder + "/report.pdf" }
    static var locked: String { folder + "/locked.pdf" }

    private static let generator = #"""
        import random, sys
        from PIL import Image, ImageFilter
        from reportlab.lib.pagesizes import A4
        from reportlab.lib.units import inch
        from reportlab.pdfgen import canvas

        out = sys.argv[1]
        random.seed(17)

        def photo(name, w, h):
            # Random pixels softened a little over a diagonal wash: detail JPEG cannot throw away for free,
            # so every level has something to save and the sizes differ from level to level.
            grain = Image.frombytes('RGB', (w // 4, h // 4), random.randbytes(w * h * 3 // 16)).resize((w, h), Image.BICUBIC)
            wash = Image.linear_gradient('L').rotate(45, expand=False).resize((w, h)).convert('RGB')
            path = f'{out}/{name}'
            Image.blend(grain.filter(ImageFilter.SMOOTH), wash, 0.4).save(path, quality=90)
            return path

        words = ('orchard apples harvest rain soil yield pruning cider frost blossom ' * 8).split()

        def report(path, encrypt=None):
            c = canvas.Canvas(path, pagesize=A4, encrypt=encrypt)
            for page, (image, width) in enumerate([(big, 4), (wide, 5), (None, 0)]):
                c.setFont('Helvetica-Bold', 18)
                c.drawString(72, 780, 'Quarterly harvest report' if page == 0 else f'Section {page + 1}')
                c.setFont('Helvetica', 11)
                for line in range(12):
                    c.drawString(72, 750 - 14 * line, ' '.join(random.sample(words, 12)))
                if image:
                    c.drawImage(image, 72, 150, width=width * inch, preserveAspectRatio=True)
                c.showPage()
            c.save()

        big = photo('big.jpg', 2400, 1600)
        wide = photo('wide.jpg', 2000, 1200)
        report(f'{out}/report.pdf')
        report(f'{out}/locked.pdf', encrypt='secret')

        """#
}
