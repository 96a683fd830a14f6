import ArchiverTestSupport
import Foundation
import Testing

/// What the notifications say and how: names are never markup, buttons carry labels in the user's language,
/// and the launcher is named (the `desktop-entry` hint).
@Suite(.serialized) struct NotificationTextTests {
    typealias Job = DesktopFeedbackTests.Job

    static func folder(_ s: ScratchDirectory, _ name: String) throws {
        try FileManager.default.createDirectory(atPath: s.sub(name), withIntermediateDirectories: true)
        try Data("hello".utf8).write(to: URL(fileURLWithPath: s.sub(name + "/a.txt")))
    }

    /// A server without buttons, so the job does not wait for a click.
    @Test(arguments: [("body body-markup persistence", true), ("body persistence", false)])
    func aNameIsEscapedOnlyForServersThatReadMarkup(capabilities: String, markup: Bool) throws {
        let s = try ScratchDirectory()
        let bus = try PrivateBus()
        defer { bus.stop() }
        let log = s.sub("notify.log")
        try bus.startNotificationServer(capabilities: capabilities, log: log)
        try Self.folder(s, "Tom & Jerry <1>")

        let job = try Job("compress-with-archiver", [s.sub("Tom & Jerry <1>")], scratch: s, environment: bus.environment)
        #expect(job.wait(30) == 0, "\(job.stderr)")
        let result = try #require(DesktopFeedbackTests.waitFor(log) { !$0.isEmpty }.last)
        #expect(result.summary == "Compressed to Tom & Jerry <1>.zip", "the summary is plain text: \(result.summary)")
        let name = markup ? "Tom &amp; Jerry &lt;1&gt;.zip" : "Tom & Jerry <1>.zip"
        #expect(result.body.hasPrefix("1 file, 1 folder → \(name), "), "\(result.body)")
        #expect(result.hints.contains("io.github.archiver.Compress"), "the desktop-entry hint: \(result.hints)")
    }

    /// The buttons' labels come from the catalog (a tiny one here), like every other word.
    @Test func buttonsAndWordsFollowTheLanguage() throws {
        let s = try ScratchDirectory()
        let (bus, log, _) = try PrivateBus.desktop(in: s)
        defer { bus.stop() }
        try Self.folder(s, "Docs")
        try FileManager.default.createDirectory(atPath: s.sub("locale/de/LC_MESSAGES"), withIntermediateDirectories: true)
        let po = """
            msgid ""
            msgstr "Content-Type: text/plain; charset=UTF-8\\n"

            msgid "Open folder"
            msgstr "Ordner öffnen"

            msgid "Email…"
            msgstr "Per E-Mail senden …"

            msgid "Compressed to %@"
            msgstr "Komprimiert: %@"

            """
        try Data(po.utf8).write(to: URL(fileURLWithPath: s.sub("de.po")))
        #expect(try E2E.run("/usr/bin/msgfmt", ["-o", s.sub("locale/de/LC_MESSAGES/archiver.mo"), s.sub("de.po")]).status == 0)

        let german = ["LANG": "C.UTF-8", "LANGUAGE": "de", "ARCHIVER_LOCALEDIR": s.sub("locale")]
        let job = try Job("compress-with-archiver", [s.sub("Docs")], scratch: s, environment: bus.environment.merging(german) { $1 })
        let calls = DesktopFeedbackTests.waitFor(log) { !$0.isEmpty }
        let result = try #require(calls.last)
        #expect(result.summary == "Komprimiert: Docs.zip")
        #expect(result.actions.contains("Ordner öffnen") && result.actions.contains("Per E-Mail senden …"), "\(result.actions)")
        #expect(result.actions.contains("open-folder") && result.actions.contains("email"), "ids stay: \(result.actions)")
        try bus.invokeAction("open-folder")
        #expect(job.wait(10) == 0, "\(job.stderr)")
    }
}
