import ArchiverTestSupport
import Foundation
import Testing

/// Notifications, settings, the time budget and Recent files, with the real executables, a private D-Bus
/// session and python3-dbusmock's notification daemon (which records every call).
@Suite(.serialized) struct DesktopFeedbackTests {
    /// One of ours, started in the background on the private bus, stdin /dev/null (as from a file manager).
    final class Job {
        let running: Running
        var process: Process { running.process }
        init(_ tool: String, _ arguments: [String], scratch: ScratchDirectory, environment: [String: String]) throws {
            var env = ProcessInfo.processInfo.environment.merging(DesktopIsolation.variables) { $1 }
            for key in ["LANG", "LC_ALL", "LC_CTYPE"] { env[key] = nil }
            running = try Tool.start([E2E.binDir + "/" + tool] + arguments, environment: env.merging(environment) { $1 })
        }
        var stderr: String { running.stderrSoFar }
        /// Waits for the exit; nil when it did not end in time (then it is killed).
        func wait(_ seconds: Double) -> Int32? {
            let deadline = Date().addingTimeInterval(seconds)
            while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
            if process.isRunning {
                process.interrupt()
                process.waitUntilExit()
                return nil
            }
            return process.terminationStatus
        }
    }

    /// Waits until `condition` holds on the logged notifications.
    static func waitFor(_ log: String, seconds: Double = 30, _ condition: ([LoggedNotification]) -> Bool) -> [LoggedNotification] {
        let deadline = Date().addingTimeInterval(seconds)
        var calls = LoggedNotification.all(in: log)
        while !condition(calls), Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
            calls = LoggedNotification.all(in: log)
        }
        return calls
    }

    static func randomFolder(_ s: ScratchDirectory, megabytes: Int) throws {
        try E2E.python(
            "import os,sys\nos.makedirs(sys.argv[1])\nfor i in range(int(sys.argv[2]) // 20): open(sys.argv[1] + '/part%d' % i, 'wb').write(os.urandom(20 << 20))",
            [s.sub("Big"), String(megabytes)])
    }

    @Test func progressIsReplacedByTheResultAndOpenFolderRevealsIt() throws {
        let s = try ScratchDirectory()
        let (bus, log, shown) = try PrivateBus.desktop(in: s)
        defer { bus.stop() }
        try Self.randomFolder(s, megabytes: 160)

        let job = try Job("compress-with-archiver", ["--format", "zip", s.sub("Big")], scratch: s, environment: bus.environment)
        let calls = Self.waitFor(log) { $0.contains { $0.summary.hasPrefix("Compressed") } }
        let progress = calls.filter { $0.summary == "Compressing “Big”" }
        #expect(!progress.isEmpty, "a job of more than a second shows progress: \(calls)")
        let values = progress.compactMap(\.value)
        #expect(values == values.sorted() && !values.isEmpty, "the value hint rises: \(values)")
        #expect(progress.allSatisfy { $0.actions.contains("cancel") && $0.hints.contains("\"transient\": True") })
        #expect(progress.dropFirst().allSatisfy { $0.replacesID == 1 }, "replaced in place")
        #expect(progress.first?.body.contains("%") == true)
        #expect(progress.contains { $0.body.contains(" left") }, "an ETA: \(progress.map(\.body))")

        let result = try #require(calls.last)
        #expect(result.summary == "Compressed to Big.zip")
        #expect(result.replacesID == 1, "the result replaces the progress notification")
        #expect(result.body.contains("8 files, 1 folder → Big.zip, 168 MB") || result.body.contains("→ Big.zip"), "\(result.body)")
        #expect(result.body.contains(s.path))
        #expect(result.actions.contains("open-folder") && result.actions.contains("email"), "\(result.actions)")
        #expect(result.urgency == 1)

        // The process stays for the buttons; Open folder asks the file manager to show the archive.
        #expect(job.process.isRunning, "waits for an action when stdin is not a terminal")
        try bus.invokeAction("open-folder")
        #expect(job.wait(10) == 0, "\(job.stderr)")
        let revealed = (try? String(contentsOfFile: shown, encoding: .utf8)) ?? ""
        #expect(revealed.contains("ShowItems") && revealed.contains("file://\(s.sub("Big.zip"))"), "\(revealed)")
    }

    @Test func cancelStopsTheJobLikeControlC() throws {
        let s = try ScratchDirectory()
        let bus = try PrivateBus()
        defer { bus.stop() }
        let log = s.sub("notify.log")
        try bus.startNotificationServer(log: log)
        try Self.randomFolder(s, megabytes: 400)

        let job = try Job(
            "compress-with-archiver", ["--format", "zip", "--level", "maximum", "--time-budget", "0", s.sub("Big")],
            scratch: s, environment: bus.environment)
        let calls = Self.waitFor(log) { $0.contains { $0.actions.contains("cancel") } }
        #expect(calls.contains { $0.actions.contains("cancel") }, "\(calls)")
        try bus.invokeAction("cancel")
        let status = job.wait(15)
        #expect(status == 8, "exit 8 like Ctrl-C: \(job.stderr)")
        #expect(s.list().filter { !["notify.log", "bus.conf"].contains($0) && !$0.hasSuffix(".err") } == ["Big"], "nothing left: \(s.list())")
        let final = Self.waitFor(log, seconds: 5) { $0.last?.urgency == 2 }
        let last = try #require(final.last)
        #expect(last.urgency == 2 && last.summary == "Could not compress “Big”", "\(last)")
        #expect(last.body.contains("Cancelled"))
    }

    @Test func failureIsCriticalAndSaysWhatToDo() throws {
        let s = try ScratchDirectory()
        let bus = try PrivateBus()
        defer { bus.stop() }
        let log = s.sub("notify.log")
        try bus.startNotificationServer(log: log)
        try Data("PK\u{3}\u{4} this is not really a zip".utf8).write(to: URL(fileURLWithPath: s.sub("broken.zip")))

        let job = try Job("extract-with-archiver", [s.sub("broken.zip")], scratch: s, environment: bus.environment)
        let status = job.wait(20)
        #expect(status == 4 || status == 5, "\(job.stderr)")
        #expect(!job.stderr.isEmpty, "errors still go to stderr")
        let last = try #require(LoggedNotification.all(in: log).last)
        #expect(last.summary == "Could not extract “broken.zip”")
        #expect(last.urgency == 2)
        #expect(last.actions.isEmpty)
        #expect(last.body.contains(job.stderr.split(separator: "\n").first.map(String.init) ?? "?"), "\(last.body) vs \(job.stderr)")
    }

    @Test func withoutAServerOrWithNotificationsOffTheJobStillSucceeds() throws {
        let s = try ScratchDirectory()
        try FileManager.default.createDirectory(atPath: s.sub("Docs"), withIntermediateDirectories: true)
        try Data("hello".utf8).write(to: URL(fileURLWithPath: s.sub("Docs/a.txt")))
        let bus = try PrivateBus()
        defer { bus.stop() }
        // A bus with no notification server: stderr only.
        let quiet = try Job("compress-with-archiver", ["--name", "NoServer", s.sub("Docs")], scratch: s, environment: bus.environment)
        #expect(quiet.wait(30) == 0, "\(quiet.stderr)")
        #expect(s.list().contains("NoServer.zip"))

        let log = s.sub("notify.log")
        try bus.startNotificationServer(log: log)
        let off = try Job("compress-with-archiver", ["--no-notify", "--name", "Off", s.sub("Docs")], scratch: s, environment: bus.environment)
        #expect(off.wait(30) == 0, "\(off.stderr)")
        let json = try Job("compress-with-archiver", ["--json", "--name", "Json", s.sub("Docs")], scratch: s, environment: bus.environment)
        #expect(json.wait(30) == 0, "\(json.stderr)")
        // The setting, through the keyfile backend.
        let config = s.sub("config")
        let settings = ["GSETTINGS_BACKEND": "keyfile", "XDG_CONFIG_HOME": config]
        #expect(try E2E.run("/usr/bin/gsettings", ["set", "io.github.archiver", "notifications", "false"],
                             environment: DesktopIsolation.variables.merging(settings) { $1 }).status == 0)
        let setting = try Job("compress-with-archiver", ["--name", "Setting", s.sub("Docs")], scratch: s,
                              environment: bus.environment.merging(settings) { $1 })
        #expect(setting.wait(30) == 0, "\(setting.stderr)")
        #expect(LoggedNotification.all(in: log).isEmpty, "no notification: \(LoggedNotification.all(in: log))")
        #expect(s.list().filter { $0.hasSuffix(".zip") } == ["Json.zip", "NoServer.zip", "Off.zip", "Setting.zip"])
    }
}
