import ArchiverTestSupport
import Foundation
import Testing

@Suite struct FormatTests {
    /// Archives and streams that bsdtar writes in formats we do not write ourselves.
    @Test func everythingBsdtarWritesExtracts() throws {
        let s = try ScratchDirectory()
        try E2E.makeTree(s.sub("Tree"))
        let writers: [(String, [String])] = [
            ("t.iso", ["--format", "iso9660"]), ("t.cpio", ["--format", "cpio"]), ("t.xar", ["--format", "xar"]),
            ("t.tar.lz4", ["--lz4"]), ("t.tar.lzma", ["--lzma"]), ("t.tar.lz", ["--lzip"]), ("t.tar.Z", ["-Z"]),
            ("t.newc.cpio.gz", ["--format", "newc", "-z"]),
        ]
        for (name, options) in writers {
            #expect(try E2E.run("/usr/bin/bsdtar", ["-cf", s.sub(name)] + options + ["Tree"], in: s.path).status == 0, "\(name)")
            let result = try E2E.run("extract-with-archiver", ["--to", s.sub("out-\(name)"), s.sub(name)])
            #expect(result.status == 0, "\(name): \(result.stderr)")
            let files = (try? FileManager.default.contentsOfDirectory(atPath: s.sub("out-\(name)/Tree"))) ?? []
            #expect(files.sorted() == ["a", "empty", "run.sh", "zero", "日本語"], "\(name)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: s.sub("out-\(name)/Tree/a/random.bin")))
                == Data(contentsOf: URL(fileURLWithPath: s.sub("Tree/a/random.bin"))), "\(name)")
        }
    }

    @Test func singleCompressedFilesAreNamedAfterTheArchive() throws {
        let s = try ScratchDirectory()
        let text = String(repeating: "a line of text\n", count: 1000)
        try text.write(toFile: s.sub("notes.txt"), atomically: false, encoding: .utf8)
        for (suffix, filter) in [("lz4", "--lz4"), ("lzma", "--lzma"), ("lz", "--lzip"), ("Z", "-Z"), ("gz", "-z")] {
            let archive = s.sub("notes.txt.\(suffix)")
            #expect(try E2E.run("/usr/bin/bsdtar", ["-cf", archive, "--format", "raw", filter, "notes.txt"], in: s.path).status == 0)
            let result = try E2E.run("extract-with-archiver", ["--to", s.sub("out-\(suffix)"), archive])
            #expect(result.status == 0, "\(suffix): \(result.stderr)")
            #expect(try String(contentsOfFile: s.sub("out-\(suffix)/notes.txt"), encoding: .utf8) == text, "\(suffix)")
        }
    }

    @Test func unsupportedFeaturesSaySo() throws {
        let s = try ScratchDirectory()
        try String(repeating: "deflate64 needs a file of some size ", count: 5000).write(toFile: s.sub("big.txt"), atomically: false, encoding: .utf8)
        #expect(try E2E.run("/usr/bin/7zz", ["a", "-tzip", "-mm=Deflate64", s.sub("d64.zip"), s.sub("big.txt")]).status == 0)
        let deflate64 = try E2E.run("extract-with-archiver", ["--to", s.sub("out"), s.sub("d64.zip")])
        #expect(deflate64.status == 4)
        #expect(deflate64.stderr.contains("Deflate64"))
        #expect(try E2E.run("/usr/bin/7zz", ["a", "-t7z", "-mf=ARM64", s.sub("arm.7z"), s.sub("big.txt")]).status == 0)
        let arm = try E2E.run("extract-with-archiver", ["--to", s.sub("out"), s.sub("arm.7z")])
        #expect(arm.status == 4, "\(arm.stderr)")
        #expect(s.list("out").isEmpty)
    }
}

/// RAR fixtures from libarchive's test suite, which CI has beside the clone in ../shared/fixtures.
@Suite struct RarFixtureTests {
    static let fixtures = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/fixtures").path
    static var present: Bool { FileManager.default.fileExists(atPath: fixtures + "/rar4_encrypted.rar") }

    @Test func rarFixtures() throws {
        guard Self.present else {
            print("skipped: fixtures not present (\(Self.fixtures))")
            return
        }
        let s = try ScratchDirectory()
        let listed = try E2E.run("extract-with-archiver", ["--list", "--json", Self.fixtures + "/rar4_encrypted.rar"])
        let entries = ((listed.json?["archives"] as? [[String: Any]])?.first?["entries"] as? [[String: Any]]) ?? []
        #expect(entries.map { $0["path"] as? String ?? "" } == ["a.txt", "b.txt", "c.txt", "d.txt"])
        #expect(entries.map { $0["encrypted"] as? Bool ?? false } == [false, true, false, true])
        // Encrypted entries: refused before anything is written (passwords come later).
        for name in ["rar4_encrypted.rar", "rar5_encrypted.rar"] {
            let result = try E2E.run("extract-with-archiver", ["--to", s.sub("out"), Self.fixtures + "/" + name])
            #expect(result.status == 6, "\(name): \(result.stderr)")
            #expect(s.list("out").isEmpty)
        }
        // One part of a multi-volume set copied alone is incomplete, never a silently short file.
        for name in ["rar5_multiarchive.part01.rar", "rar_multivolume_single_file.part1.rar"] {
            try FileManager.default.createDirectory(atPath: s.sub("alone"), withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: Self.fixtures + "/" + name, toPath: s.sub("alone/" + name))
            let result = try E2E.run("extract-with-archiver", ["--to", s.sub("out"), s.sub("alone/" + name)])
            #expect(result.status == 5, "\(name): \(result.stderr)")
            #expect(s.list("out").isEmpty)
            try FileManager.default.removeItem(atPath: s.sub("alone"))
        }
    }
}
