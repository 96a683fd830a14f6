import ArchiverTestSupport
import Foundation
import Testing

/// compress-pdf-with-archiver's result notification, on a private bus with python3-dbusmock's daemon.
@Suite(.serialized) struct PDFNotificationTests {
    @Test func resultSaysBeforeAfterAndOpenFolderShowsTheCopy() throws {
        let s = try ScratchDirectory()
        let (bus, log, shown) = try PrivateBus.desktop(in: s)
        defer { bus.stop() }
        try E2E.python(
            """
            import sys
            from PIL import Image
            from reportlab.lib.units import inch
            from reportlab.pdfgen import canvas
            Image.merge('RGB', [Image.effect_noise((2000, 1500), 60)] * 3).save(sys.argv[1] + '/photo.jpg', quality=92)
            c = canvas.Canvas(sys.argv[1] + '/report.pdf', invariant=1)
            c.drawString(72, 780, 'Report with a photo')
            c.drawImage(sys.argv[1] + '/photo.jpg', 72, 300, width=3 * inch, height=2.25 * inch)
            c.save()
            """, [s.path])

        let job = try DesktopFeedbackTests.Job(
            "compress-pdf-with-archiver", [s.sub("report.pdf")], scratch: s, environment: bus.environment)
        let calls = DesktopFeedbackTests.waitFor(log) { $0.contains { $0.summary.hasPrefix("Compressed") } }
        let result = try #require(calls.last, "\(job.stderr)")
        #expect(result.summary == "Compressed report (compressed).pdf")
        #expect(result.body.contains("report.pdf: ") && result.body.contains(" % smaller"), "\(result.body)")
        #expect(result.body.contains(s.path))
        #expect(result.actions.contains("open-folder") && result.actions.contains("email"), "\(result.actions)")

        #expect(job.process.isRunning, "waits for an action when stdin is not a terminal")
        try bus.invokeAction("open-folder")
        #expect(job.wait(10) == 0, "\(job.stderr)")
        let revealed = (try? String(contentsOfFile: shown, encoding: .utf8)) ?? ""
        #expect(revealed.contains("ShowItems") && revealed.contains("compressed"), "\(revealed)")
    }
}
