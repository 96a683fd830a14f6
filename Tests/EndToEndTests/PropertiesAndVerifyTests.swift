import ArchiverTestSupport
import Foundation
import Testing

/// `--list --json`'s archive facts and CRC-32s against 7-Zip and sha256sum; zip comments written with
/// `--comment` and read by unzip and 7-Zip; rar comments; `--verify` and its setting, and an archive that does not
/// verify leaving nothing behind.
@Suite struct PropertiesAndVerifyTests {
    static func docs(_ s: ScratchDirectory) throws {
        try FileManager.default.createDirectory(atPath: s.sub("in/Docs/sub"), withIntermediateDirectories: true)
        try Data(String(repeating: "plans ", count: 5000).utf8).write(to: URL(fileURLWithPath: s.sub("in/Docs/plans.txt")))
        try SampleTree.randomData(40_000).write(to: URL(fileURLWithPath: s.sub("in/Docs/sub/noise.bin")))
        try Data("short".utf8).write(to: URL(fileURLWithPath: s.sub("in/Docs/sub/note.txt")))
    }

    /// path → CRC as `7zz l -slt` prints it, for files.
    static func sevenZipCRCs(_ archive: String, password: String? = nil) throws -> [String: String] {
        let out = try E2E.run("/usr/bin/7zz", ["l", "-slt", "-ba"] + (password.map { ["-p\($0)"] } ?? []) + [archive])
        var crcs: [String: String] = [:]
        var path: String?
        for line in out.stdout.split(separator: "\n") {
            if line.hasPrefix("Path = ") { path = String(line.dropFirst(7)) }
            if line.hasPrefix("CRC = "), let path, line.count > 6 { crcs[path] = String(line.dropFirst(6)) }
        }
        return crcs
    }

    static func listing(_ archive: String, _ extra: [String] = [], input: String? = nil) throws -> [String: Any]? {
        let out = try E2E.run("extract-with-archiver", ["--list", "--json"] + extra + [archive], input: input)
        #expect(out.status == 0, "\(out.stderr)")
        return (E2E.json(out.stdout)?["archives"] as? [[String: Any]])?.first
    }

    @Test func factsAndCRCsMatch7ZipAndSha256sum() throws {
        let s = try ScratchDirectory()
        try Self.docs(s)
        for format in ["zip", "7z", "tar.gz"] {
            #expect(try E2E.run("compress-with-archiver", ["--format", format, "--output", s.sub("Docs.\(format)"), s.sub("in/Docs")]).status == 0)
        }
        for format in ["zip", "7z"] {
            let archive = s.sub("Docs.\(format)")
            let listed = try #require(try Self.listing(archive, ["--checksum"]))
            let entries = listed["entries"] as? [[String: Any]] ?? []
            var ours: [String: String] = [:]
            for entry in entries { if let crc = entry["crc32"] as? String, let path = entry["path"] as? String { ours[path] = crc } }
            let theirs = try Self.sevenZipCRCs(archive)
            #expect(ours.count == 3 && ours == theirs, "\(format): \(ours) vs \(theirs)")
            let sum = try E2E.run("/usr/bin/sha256sum", [archive]).stdout.split(separator: " ").first.map(String.init)
            #expect(listed["sha256"] as? String == sum, "\(format)")
            #expect(E2E.int(listed["files"]) == 3 && E2E.int(listed["size"]) == 30_000 + 40_000 + 5)
            #expect(E2E.int(listed["packedSize"]) == E2E.size(archive))
            #expect(listed["filters"] as? [String] == [])
            #expect(listed["encryptedData"] as? Bool == false && listed["encryptedNames"] as? Bool == false)
        }
        let tarGz = try #require(try Self.listing(s.sub("Docs.tar.gz")))
        #expect(tarGz["filters"] as? [String] == ["gzip"])
        #expect(E2E.isNull(tarGz["sha256"]), "only with --checksum")
        #expect((tarGz["entries"] as? [[String: Any]])?.allSatisfy { E2E.isNull($0["crc32"]) } == true, "tar stores no CRC")

        #expect(try E2E.run("/usr/bin/7zz", ["a", "-psesame", "-mhe=on", s.sub("hidden.7z"), s.sub("in/Docs")]).status == 0)
        let hidden = try #require(try Self.listing(s.sub("hidden.7z"), ["--password-stdin"], input: "sesame\n"))
        #expect(hidden["encryptedNames"] as? Bool == true && hidden["encryptedData"] as? Bool == true)
        let crcs = (hidden["entries"] as? [[String: Any]] ?? []).compactMap { $0["crc32"] as? String }
        #expect(Set(crcs) == Set(try Self.sevenZipCRCs(s.sub("hidden.7z"), password: "sesame").values))
    }

    @Test func aZipCommentIsWrittenAndReadByUnzip7ZipAndUs() throws {
        let s = try ScratchDirectory()
        try Self.docs(s)
        let comment = "Grüße — Q3 report"
        let made = try E2E.run("compress-with-archiver", ["--format", "zip", "--comment", comment, s.sub("in/Docs")])
        #expect(made.status == 0, "\(made.stderr)")
        let zip = s.sub("in/Docs.zip")
        #expect(try E2E.run("/usr/bin/unzip", ["-z", zip]).stdout.contains(comment))
        #expect(try E2E.run("/usr/bin/7zz", ["l", zip]).stdout.contains("Comment = \(comment)"))
        #expect(try E2E.run("/usr/bin/7zz", ["t", zip]).status == 0)
        #expect(try Self.listing(zip)?["comment"] as? String == comment)
        let person = try E2E.run("extract-with-archiver", ["--list", zip])
        #expect(person.stdout.contains("Comment:\n\(comment)"), "\(person.stdout)")
        // One written by Python's zipfile reads the same; a zip without one says null.
        try E2E.python("import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w') as z:\n    z.comment = 'from python'.encode()\n    z.writestr('a', b'a')", [s.sub("py.zip")])
        #expect(try Self.listing(s.sub("py.zip"))?["comment"] as? String == "from python")
        #expect(E2E.isNull(try Self.listing(s.sub("in/Docs.zip"), [])?["sha256"]))
        let refused = try E2E.run("compress-with-archiver", ["--format", "7z", "--comment", "x", s.sub("in/Docs")])
        #expect(refused.status == 2, "\(refused.stderr)")
    }

    /// RAR comments, in archives made header by header (no rar writer exists here, and Debian's 7-Zip reads
    /// no rar at all): bsdtar lists and reads the file beside the comment, and unrar, where it is built for the
    /// tests, tests them intact and shows the same comment. Ours reads them from the archive itself, unrar or
    /// not, in `--list` and its JSON; a comment whose bytes no longer match their CRC-32 is not shown.
    @Test func rarCommentsAreListed() throws {
        let s = try ScratchDirectory()
        let c5 = "Q1 figures\nzweite Zeile – Grüße", c4 = "Q1 figures\nsecond line"
        let comments = ["c5.rar": c5, "c4.rar": c4]
        try HandmadeRar.make(s.sub("c5.rar"), name: "notes.txt", text: "hello rar\n", comment: c5)
        try HandmadeRar.make(s.sub("c4.rar"), version: 4, name: "notes.txt", text: "hello rar\n", comment: c4)
        try HandmadeRar.make(s.sub("none.rar"), name: "notes.txt", text: "hello rar\n", comment: nil)
        for rar in ["c5.rar", "c4.rar", "none.rar"] {
            #expect(try E2E.run("/usr/bin/bsdtar", ["-tf", s.sub(rar)]).stdout == "notes.txt\n", "\(rar)")
            #expect(try E2E.run("/usr/bin/bsdtar", ["-xOf", s.sub(rar)]).stdout == "hello rar\n", "\(rar)")
        }
        if let unrar = TestUnrar.program {
            for (rar, comment) in comments {
                let tested = try E2E.run(unrar, ["t", s.sub(rar)])
                #expect(tested.status == 0 && tested.stdout.contains(comment), "\(rar): \(tested.stdout)")
            }
        }
        for (rar, comment) in comments {
            #expect(try Self.listing(s.sub(rar))?["comment"] as? String == comment, "\(rar)")
        }
        #expect(E2E.isNull(try Self.listing(s.sub("none.rar"))?["comment"]))
        let person = try E2E.run("extract-with-archiver", ["--list", s.sub("c5.rar")])
        #expect(person.stdout.contains("Comment:\n\(c5)"), "\(person.stdout)")

        var data = try Data(contentsOf: URL(fileURLWithPath: s.sub("c5.rar")))
        let at = try #require(data.range(of: Data("Q1".utf8)))
        data[at.lowerBound] ^= 0x01
        try data.write(to: URL(fileURLWithPath: s.sub("flipped.rar")))
        let flipped = try #require(try Self.listing(s.sub("flipped.rar")))
        #expect(E2E.isNull(flipped["comment"]) && (flipped["entries"] as? [Any])?.count == 1)
    }

    @Test func verifyTestsTheArchiveAndOneThatFailsLeavesNothing() throws {
        let s = try ScratchDirectory()
        try Self.docs(s)
        let good = try E2E.run("compress-with-archiver", ["--verify", "--json", "--format", "tar.gz", s.sub("in/Docs")])
        #expect(good.status == 0, "\(good.stderr)")
        #expect(E2E.json(good.stdout)?["verified"] as? Bool == true)
        let plain = try E2E.run("compress-with-archiver", ["--json", "--format", "tar.xz", s.sub("in/Docs")])
        #expect(E2E.json(plain.stdout)?["verified"] as? Bool == false)

        for format in ["zip", "7z"] {
            let before = s.list("in")
            let bad = try E2E.run(
                "compress-with-archiver", ["--verify", "--format", format, s.sub("in/Docs")],
                environment: ["ARCHIVER_TEST_CORRUPT_OUTPUT": "1"])
            #expect(bad.status == 5, "\(format): \(bad.stderr)")
            #expect(bad.stderr.contains("“Docs.\(format)” did not verify"), "\(bad.stderr)")
            #expect(s.list("in") == before, "\(format): nothing left, not even hidden: \(s.list("in"))")
        }
        // The setting turns it on; --no-verify turns it off again.
        var settings = try SettingsBudgetRecentTests.keyfile(s, [("verify-after-compress", "true")])
        settings["ARCHIVER_TEST_CORRUPT_OUTPUT"] = "1"
        let bySetting = try E2E.run("compress-with-archiver", ["--format", "zip", s.sub("in/Docs")], environment: settings)
        #expect(bySetting.status == 5, "\(bySetting.stderr)")
        let off = try E2E.run("compress-with-archiver", ["--no-verify", "--format", "zip", s.sub("in/Docs")], environment: settings)
        #expect(off.status == 0, "\(off.stderr)")
    }
}
