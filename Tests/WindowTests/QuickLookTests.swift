import ArchiverTestSupport
import Foundation
import Testing

/// The Extract… window's thumbnails and quick look (issue 30 item 8): what they show is read from the archive
/// in memory, and nothing is written beside it.
@Suite(.serialized, .enabled(if: ExtractBuilt.available, "needs Xvfb, at-spi2-core, python3-pyatspi and the built executables"))
struct QuickLookTests {
    /// `Look.zip` made by Python: a PNG and a JPEG (PIL), a text, a PDF (ReportLab) and random bytes, in that
    /// order (the tree's order).
    private func archive(_ scratch: ScratchDirectory) throws -> String {
        let zip = scratch.sub("Look.zip")
        let script = #"""
            import io, os, sys, zipfile
            from PIL import Image
            from reportlab.pdfgen import canvas
            def picture(kind):
                out = io.BytesIO()
                Image.new("RGB", (300, 200), (200, 40, 40)).save(out, kind)
                return out.getvalue()
            pdf = io.BytesIO()
            page = canvas.Canvas(pdf)
            page.drawString(72, 720, "First page")
            page.save()
            with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
                z.writestr("photo.png", picture("PNG"))
                z.writestr("photo.jpg", picture("JPEG"))
                z.writestr("notes.txt", "Grüße aus dem Archiv\nzweite Zeile\n")
                z.writestr("report.pdf", pdf.getvalue())
                z.writestr("data.bin", bytes([0, 1, 2, 3, 255]) * 100)
            """#
        let made = try Tool.run(["/usr/bin/python3", "-c", script, zip])
        #expect(made.status == 0, "\(made.output)")
        return zip
    }

    /// Down until the row named `name` has the focus.
    private func focusRow(_ session: WindowSession, _ name: String) throws {
        for _ in 0..<6 where try session.focused().name != name {
            try session.press("Down")
            _ = try eventually(within: 2) { try session.focused().name != "" }
        }
        #expect(try eventually(within: 5) { try session.focused().name == name }, "\(String(describing: try? session.focused()))")
    }

    @Test func imagesGetThumbnailsAndSpaceLooksWithoutExtracting() throws {
        let scratch = try ScratchDirectory()
        let zip = try archive(scratch)
        let session = try WindowSession()
        defer { session.stop() }
        let settings = BuiltProducts.isolation.filter { ["GSETTINGS_SCHEMA_DIR", "GSETTINGS_BACKEND"].contains($0.key) }
        let window = try session.launch([ExtractBuilt.window!, zip], environment: settings)
        try session.waitForApp("archiver-extract")
        try session.waitForText("5 of 5 files", exact: false)

        // Both pictures get a thumbnail, made from their bytes; the text, the PDF and the bytes do not.
        try session.waitFor("Thumbnail of “photo.png”", timeout: 20)
        try session.waitFor("Thumbnail of “photo.jpg”", timeout: 20)
        let thumbnails = try session.nodes().filter { $0.name.hasPrefix("Thumbnail of") }
        #expect(thumbnails.map(\.name).sorted() == ["Thumbnail of “photo.jpg”", "Thumbnail of “photo.png”"], "\(thumbnails)")
        try session.screenshot("extract-thumbnails")

        // Space on the text: its text, read from the archive; Escape closes it and the tree has the focus again.
        try focusRow(session, "notes.txt")
        try session.press("space")
        try session.waitFor("Text of “notes.txt”", timeout: 20)
        #expect(try eventually(within: 10) { try session.text(of: "Text of “notes.txt”").contains("Grüße aus dem Archiv\nzweite Zeile") })
        #expect(try session.windowTitle() == "Preview of “notes.txt”" || session.tree().contains("Preview of “notes.txt”"))
        try session.screenshot("extract-quick-look-text")
        try session.press("Escape")
        try session.waitUntilGone("Text of “notes.txt”")
        #expect(try eventually(within: 5) { try session.focused().name == "notes.txt" }, "\(String(describing: try? session.focused()))")
        #expect(try session.isChecked("notes.txt", role: "check box"), "Space looked; it did not uncheck the file")
        // Ctrl+Space flips a file's box instead.
        try session.press("ctrl+space")
        try session.waitForText("4 of 5 files", exact: false)
        try session.press("ctrl+space")
        try session.waitForText("5 of 5 files", exact: false)

        // The PDF's first page as a picture; bytes that are none of these: "No preview".
        try focusRow(session, "report.pdf")
        try session.press("space")
        try session.waitFor("Picture of “report.pdf”", timeout: 20)
        try session.screenshot("extract-quick-look-pdf")
        try session.press("Escape")
        try session.waitUntilGone("Picture of “report.pdf”")
        try focusRow(session, "data.bin")
        try session.press("space")
        try session.waitForText("Only pictures, texts and PDFs can be previewed.", timeout: 20)
        try session.press("Escape")
        try session.waitUntilGone("Only pictures, texts and PDFs can be previewed.")

        // Nothing was written beside the archive; the window closes as before.
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path) == ["Look.zip"])
        try session.press("Escape")
        #expect(try window.waitForExit() == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path) == ["Look.zip"])
    }

    /// In German, and a picture's quick look: the first row (a PNG) has the focus after the listing.
    @Test func germanThumbnailAndPictureLook() throws {
        let scratch = try ScratchDirectory()
        let zip = try archive(scratch)
        let session = try WindowSession()
        defer { session.stop() }
        let settings = BuiltProducts.isolation.filter { ["GSETTINGS_SCHEMA_DIR", "GSETTINGS_BACKEND"].contains($0.key) }
        try session.launch([ExtractBuilt.window!, zip], environment: settings.merging(try TestLanguages.german()) { $1 })
        try session.waitForApp("archiver-extract")
        try session.waitForText("5 von 5 Dateien", exact: false)
        try session.waitFor("Vorschaubild von „photo.png“", timeout: 20)
        try focusRow(session, "photo.png")
        try session.press("space")
        try session.waitFor("Bild von „photo.png“", timeout: 20)
        #expect(try session.tree().contains("Vorschau von „photo.png“"))
        try session.screenshot("extract-quick-look-picture-de")
        try session.press("Escape")
        try session.waitUntilGone("Bild von „photo.png“")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path) == ["Look.zip"])
    }

    /// An encrypted picture gets its thumbnail only once the archive was opened with its password (here by
    /// Test, which checks it).
    @Test func anEncryptedPictureWaitsForThePassword() throws {
        let scratch = try ScratchDirectory()
        let input = scratch.sub("input")
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        let picture = try Tool.run(["/usr/bin/python3", "-c", "import sys; from PIL import Image; Image.new('RGB', (64, 64), (0, 90, 200)).save(sys.argv[1])", input + "/secret.png"])
        #expect(picture.status == 0, "\(picture.output)")
        let zip = scratch.sub("Secret.zip")
        let made = try Tool.run(["/bin/sh", "-c", "cd '\(input)' && printf 'pw\\n' | '\(ExtractBuilt.compress!)' --no-notify --format zip --output '\(zip)' --encrypt --password-stdin secret.png"])
        #expect(made.status == 0, "\(made.output)")
        try FileManager.default.removeItem(atPath: input)

        let session = try WindowSession()
        defer { session.stop() }
        let settings = BuiltProducts.isolation.filter { ["GSETTINGS_SCHEMA_DIR", "GSETTINGS_BACKEND"].contains($0.key) }
        try session.launch([ExtractBuilt.window!, zip], environment: settings)
        try session.waitForApp("archiver-extract")
        try session.waitForText("1 of 1 file", exact: false)
        try session.waitFor("Password")
        // Listed, but not readable yet: no thumbnail comes (a few seconds are far more than one takes above).
        #expect(try !eventually(within: 4) { try session.nodes().contains { $0.name.hasPrefix("Thumbnail of") } })
        try session.type("Password", "pw")
        try session.click("Archive actions", role: "push button")
        try session.click("Test", role: "push button")
        try session.waitForText("intact", timeout: 30)
        try session.waitFor("Thumbnail of “secret.png”", timeout: 20)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path) == ["Secret.zip"])
    }
}
