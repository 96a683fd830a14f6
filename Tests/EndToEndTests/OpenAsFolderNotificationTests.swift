import ArchiverTestSupport
import Foundation
import Testing

/// "Open as Folder" from a menu: the folder opened by the file manager, and the notification's Unmount.
@Suite(.serialized, .enabled(if: access("/dev/fuse", R_OK | W_OK) == 0 && access("/usr/bin/fusermount3", X_OK) == 0,
                             "skipped: FUSE (/dev/fuse and fusermount3) is not usable here"))
struct OpenAsFolderNotificationTests {
    @Test func notificationSaysOpenedAndUnmountUnmounts() throws {
        let s = try ScratchDirectory()
        let (bus, log, shown) = try PrivateBus.desktop(in: s)
        defer { bus.stop() }
        try bus.call(
            "org.freedesktop.FileManager1", "/org/freedesktop/FileManager1", "org.freedesktop.DBus.Mock.AddMethod", "",
            "ShowFolders", "ass", "", "")
        let archive = s.sub("photos.zip")
        try #require(try Tool.run(["/usr/bin/zip", "-j", archive, "/etc/hostname"]).status == 0)
        let runtime = s.sub("run")
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        let folder = runtime + "/archiver/photos.zip"

        let job = try DesktopFeedbackTests.Job(
            "open-with-archiver", [archive], scratch: s, environment: bus.environment.merging(["XDG_RUNTIME_DIR": runtime]) { $1 })
        defer { _ = try? Tool.run(["/usr/bin/fusermount3", "-u", "-z", folder]) }
        let calls = DesktopFeedbackTests.waitFor(log) { $0.contains { $0.summary.hasPrefix("Opened") } }
        let result = try #require(calls.last, "\(job.stderr)")
        #expect(result.summary == "Opened “photos.zip” as a folder")
        #expect(result.actions.contains("unmount"), "\(result.actions)")
        #expect(FileManager.default.contents(atPath: folder + "/hostname") == FileManager.default.contents(atPath: "/etc/hostname"))
        let revealed = (try? String(contentsOfFile: shown, encoding: .utf8)) ?? ""
        #expect(revealed.contains("ShowFolders") && revealed.contains("photos.zip"), "\(revealed)")

        #expect(job.process.isRunning, "waits for a button when stdin is not a terminal")
        try bus.invokeAction("unmount")
        #expect(job.wait(10) == 0, "\(job.stderr)")
        #expect(eventually(within: 5) { !FileManager.default.fileExists(atPath: folder) })
    }
}
