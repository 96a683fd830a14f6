import ArchiverTestSupport
import Foundation
import Glibc
import Testing

/// "Saved 1 change to “x.zip”" with Undo, clicked (as the notification server sends it, over D-Bus) after
/// the daemon that committed has ended.
@Suite(.serialized, .enabled(if: Mounts.unavailable == nil, Comment(rawValue: Mounts.unavailable ?? "")))
struct CommitUndoTests {
    @Test func undoPutsThePreviousVersionBackOnlyWhileTheArchiveIsTheOneSaved() throws {
        let mounts = try Mounts()
        defer { mounts.cleanUp() }
        let bus = try PrivateBus()
        defer { bus.stop() }
        defer { Self.endOffers(under: mounts.scratch.path) }
        let log = mounts.scratch.sub("notify.log")
        try bus.startNotificationServer(log: log)
        // The trash is $XDG_DATA_HOME/Trash: the test's own.
        let data = mounts.scratch.sub("data")
        let environment = bus.environment.merging(["XDG_DATA_HOME": data]) { $1 }
        let trash = data + "/Trash/files"
        func trashed() -> [Data] {
            ((try? FileManager.default.contentsOfDirectory(atPath: trash)) ?? []).compactMap { FileManager.default.contents(atPath: trash + "/" + $0) }
        }
        let archive = try WritableMountTests.makeZip(mounts)
        let original = try #require(FileManager.default.contents(atPath: archive))

        /// Mounts, adds `name`, unmounts (the daemon ends), and returns the notification's ID once the
        /// saved notification is shown.
        func save(_ name: String) throws -> UInt32? {
            let folder = try mounts.mount(archive, ["--notify"], environment: environment)
            try Data("new\n".utf8).write(to: URL(fileURLWithPath: folder + "/" + name))
            #expect(try mounts.run(["--unmount", folder], environment: environment).status == 0, "\(mounts.errors)")
            #expect(Mounts.daemon(serving: folder) == nil)
            var calls: [LoggedNotification] = []
            _ = eventually(within: 10) {
                calls = LoggedNotification.all(in: log)
                return calls.last?.summary == "Saved 1 change to “x.zip”"
            }
            guard let saved = calls.last, saved.summary == "Saved 1 change to “x.zip”" else {
                Issue.record("no saved notification: \(calls.map(\.summary)) \(mounts.errors)")
                return nil
            }
            #expect(saved.actions.contains("undo"), "\(saved.actions)")
            // The server numbers new notifications 1, 2, …
            return UInt32(calls.filter { $0.replacesID == 0 }.count)
        }

        let first = try #require(try save("new.txt"))
        let saved = try #require(FileManager.default.contents(atPath: archive))
        #expect(trashed() == [original])
        try bus.invokeAction("undo", notification: first)
        #expect(eventually(within: 10) { FileManager.default.contents(atPath: archive) == original }, "\(LoggedNotification.all(in: log).map(\.body))")
        // The previous version left the trash; the version with the changes took its place there.
        #expect(eventually { trashed() == [saved] })
        #expect(eventually { LoggedNotification.all(in: log).last?.summary == "Put back the previous version of “x.zip”" })
        #expect(try Tool.run(["/usr/bin/unzip", "-tq", archive]).status == 0)

        // Another program writes the archive after the save: the Undo says so and changes nothing.
        let second = try #require(try save("other.txt"))
        let appended = try Tool.run(["/usr/bin/python3", "-c", """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], 'a') as z: z.writestr('theirs.txt', 'theirs')
            """, archive])
        try #require(appended.status == 0)
        let theirs = FileManager.default.contents(atPath: archive)
        let inTrash = trashed()
        try bus.invokeAction("undo", notification: second)
        #expect(eventually(within: 10) { LoggedNotification.all(in: log).last?.summary == "Could not undo the changes to “x.zip”" })
        #expect(LoggedNotification.all(in: log).last?.body.contains("was changed after Archiver saved it") == true)
        #expect(FileManager.default.contents(atPath: archive) == theirs)
        #expect(trashed() == inTrash)
    }

    /// Ends the Undo offers of archives under `folder` that a failed test left waiting.
    static func endOffers(under folder: String) {
        for id in ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap({ pid_t($0) }) {
            guard let line = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(id)/cmdline")) else { continue }
            let arguments = line.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            if arguments.contains("--offer-undo"), arguments.last?.hasPrefix(folder) == true { kill(id, SIGTERM) }
        }
    }
}
