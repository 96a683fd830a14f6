import ArchiverTestSupport
import Foundation
import Testing

/// `--each` (one archive per item) and moving an extracted archive to the trash.
@Suite struct EachAndTrashTests {
    static func items(_ s: ScratchDirectory) throws {
        for name in ["a", "b"] {
            try FileManager.default.createDirectory(atPath: s.sub("in/\(name)"), withIntermediateDirectories: true)
            try Data("in \(name)".utf8).write(to: URL(fileURLWithPath: s.sub("in/\(name)/\(name).txt")))
        }
        try Data("loose".utf8).write(to: URL(fileURLWithPath: s.sub("in/c.txt")))
    }

    @Test func eachItemGetsItsOwnArchive() throws {
        let s = try ScratchDirectory()
        try Self.items(s)
        let out = try E2E.run("compress-with-archiver", ["--each", "--json", s.sub("in/a"), s.sub("in/b"), s.sub("in/c.txt")])
        #expect(out.status == 0, "\(out.stderr)")
        #expect(s.list("in") == ["a", "a.zip", "b", "b.zip", "c.txt", "c.zip"])
        let outputs = (out.json?["outputs"] as? [[String: Any]])?.compactMap { $0["path"] as? String }
        #expect(outputs == ["a", "b", "c"].map { s.sub("in/\($0).zip") })
        // Python's zipfile reads each: the item alone at the top.
        let names = try E2E.python(
            "import sys, zipfile\nfor p in sys.argv[1:]: print(sorted(zipfile.ZipFile(p).namelist()))",
            ["a", "b", "c"].map { s.sub("in/\($0).zip") }).stdout
        #expect(names == "['a/', 'a/a.txt']\n['b/', 'b/b.txt']\n['c.txt']\n", "\(names)")

        let clash = try E2E.run("compress-with-archiver", ["--each", "--name", "x", s.sub("in/a")])
        #expect(clash.status == 2)
    }

    @Test func oneFailureDoesNotStopTheOthers() throws {
        let s = try ScratchDirectory()
        try Self.items(s)
        let out = try E2E.run("compress-with-archiver", ["--each", s.sub("in/a"), s.sub("in/missing"), s.sub("in/b")])
        #expect(out.status == 1, "\(out.stderr)")
        #expect(out.stderr.contains("missing"))
        #expect(s.list("in") == ["a", "a.zip", "b", "b.zip", "c.txt"])
    }

    /// GIO's trash in a scratch XDG_DATA_HOME: the archive goes there (restorable, with its .trashinfo)
    /// only after a complete extraction.
    @Test func aFullyExtractedArchiveGoesToTheTrashAndAFailedOneStays() throws {
        let s = try ScratchDirectory()
        try Self.items(s)
        #expect(try E2E.run("compress-with-archiver", [s.sub("in/a")]).status == 0)
        let data = s.sub("data")
        let environment = ["XDG_DATA_HOME": data]
        let out = try E2E.run("extract-with-archiver", ["--trash-archive", "--to", s.sub("out"), s.sub("in/a.zip")], environment: environment)
        #expect(out.status == 0, "\(out.stderr)")
        #expect(s.list("out") == ["a"])
        #expect(!s.list("in").contains("a.zip"))
        #expect(s.list("data/Trash/files") == ["a.zip"])
        let info = (try? String(contentsOfFile: s.sub("data/Trash/info/a.zip.trashinfo"), encoding: .utf8)) ?? ""
        #expect(info.contains("Path=\(s.sub("in/a.zip"))"), "\(info)")

        // A damaged archive stays where it is.
        try Data("PK\u{3}\u{4} not really a zip".utf8).write(to: URL(fileURLWithPath: s.sub("in/broken.zip")))
        let broken = try E2E.run("extract-with-archiver", ["--trash-archive", "--to", s.sub("out"), s.sub("in/broken.zip")], environment: environment)
        #expect(broken.status != 0)
        #expect(s.list("in").contains("broken.zip"))
        #expect(s.list("data/Trash/files") == ["a.zip"])
    }

    @Test func theSettingTrashesWithoutTheFlag() throws {
        let s = try ScratchDirectory()
        try Self.items(s)
        #expect(try E2E.run("compress-with-archiver", [s.sub("in/b")]).status == 0)
        var environment = try SettingsBudgetRecentTests.keyfile(s, [("trash-archive-after-extract", "true")])
        environment["XDG_DATA_HOME"] = s.sub("data")
        let out = try E2E.run("extract-with-archiver", ["--to", s.sub("out"), s.sub("in/b.zip")], environment: environment)
        #expect(out.status == 0, "\(out.stderr)")
        #expect(s.list("data/Trash/files") == ["b.zip"])
    }

    /// `--no-trash-archive` keeps the archive even when the setting says to trash it (the Extract… window's
    /// switch, turned off).
    @Test func noTrashArchiveWinsOverTheSetting() throws {
        let s = try ScratchDirectory()
        try Self.items(s)
        #expect(try E2E.run("compress-with-archiver", [s.sub("in/b")]).status == 0)
        var environment = try SettingsBudgetRecentTests.keyfile(s, [("trash-archive-after-extract", "true")])
        environment["XDG_DATA_HOME"] = s.sub("data")
        let out = try E2E.run("extract-with-archiver", ["--no-trash-archive", "--to", s.sub("out"), s.sub("in/b.zip")], environment: environment)
        #expect(out.status == 0, "\(out.stderr)")
        #expect(s.list("data/Trash/files").isEmpty)
        #expect(FileManager.default.fileExists(atPath: s.sub("in/b.zip")))
    }
}
