import ArchiverTestSupport
import Foundation
import Testing

/// Progress and result notifications, received by python3-dbusmock's notification daemon on a private
/// session bus, and Open folder answered by a mock file manager.
@Suite(.serialized) struct PhotoNotificationTests {
    @Test func progressCountsPhotosAndTheResultSaysWhatWasSaved() throws {
        let scratch = try ScratchDirectory()
        let (bus, log, shown) = try PrivateBus.desktop(in: scratch)
        defer { bus.stop() }
        let folder = try Photos.manyPhotos(scratch)

        let running = try Photos.start(["--format", "webp", folder], in: scratch, environment: bus.environment)
        let process = running.process
        let logged = { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
        #expect(eventually(within: 120) { logged().contains("\"Compressed 40 photos\"") }, "\(logged())")
        let text = logged()
        #expect(text.contains("\"Compressing 40 photos\""), "a progress notification: \(text)")
        #expect(text.range(of: #"\d+ of 40 photos"#, options: .regularExpression) != nil, "n of N: \(text)")
        #expect(text.contains("cancel"), "progress offers Cancel")
        let result = text.components(separatedBy: "\"Compressed 40 photos\"").last ?? ""
        #expect(result.range(of: #"^ "40 photos, [0-9.]+ MB → [0-9.]+ (kB|MB) \(\d+ % smaller\)"#, options: .regularExpression) != nil, "\(result)")
        #expect(result.contains("open-folder"))

        try bus.invokeAction("open-folder")
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let revealed = (try? String(contentsOfFile: shown, encoding: .utf8)) ?? ""
        #expect(revealed.contains("ShowItems") && revealed.contains("Compressed%20-%20Many"), "\(revealed)")
    }
}
