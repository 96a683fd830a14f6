import ArchiverTestSupport
import Foundation
import Testing

/// Progress and result notifications, received by python3-dbusmock's notification daemon on a private
/// session bus, and Open folder answered by a mock file manager.
@Suite(.serialized) struct PhotoNotificationTests {
    @Test func progressCountsPhotosAndTheResultSaysWhatWasSaved() throws {
        let scratch = try ScratchDirectory()
        let bus = try PrivateBus()
        defer { bus.stop() }
        let log = scratch.sub("notify.log")
        let shown = scratch.sub("filemanager.log")
        try bus.startMock(owning: "org.freedesktop.Notifications", [
            "--template", "notification_daemon", "-p", #"{"capabilities": "body actions persistence"}"#, "-l", log,
        ])
        let manager = "/org/freedesktop/FileManager1"
        try bus.startMock(owning: "org.freedesktop.FileManager1", ["org.freedesktop.FileManager1", manager, "org.freedesktop.FileManager1", "-l", shown])
        _ = try bus.call("org.freedesktop.FileManager1", manager, "org.freedesktop.DBus.Mock.AddMethod", "", "ShowItems", "ass", "", "")
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

        _ = try bus.call(
            "org.freedesktop.Notifications", "/org/freedesktop/Notifications", "org.freedesktop.DBus.Mock.EmitSignal",
            "org.freedesktop.Notifications", "ActionInvoked", "us", "[<uint32 1>, <'open-folder'>]")
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let revealed = (try? String(contentsOfFile: shown, encoding: .utf8)) ?? ""
        #expect(revealed.contains("ShowItems") && revealed.contains("Compressed%20-%20Many"), "\(revealed)")
    }
}
