import ArchiverTestSupport
import Foundation
import Testing

@Suite struct ErrorTests {
    static var isRoot: Bool {
        ProcessInfo.processInfo.environment["USER"] == "root" || NSUserName() == "root"
    }

    /// A zip and a 7z of real data, cut in half: exit 5, nothing under a final name, no temporaries,
    /// both with `--to` and beside the archive. (A tar keeps the entries before the break:
    /// `aTruncatedTarKeepsTheEntriesBeforeTheBreak`.)
    @Test(arguments: ["zip", "7z"])
    func truncatedArchiveIsCorruptAndLeavesNothing(format: String) throws {
        try E2E.withScratch("truncated-\(format)") { s in
            try Tree.makeRich(at: s.path("src/Data"))
            try s.write("src/Data/big1.bin", data: SampleTree.randomData(300_000))
            try s.write("src/Data/big2.bin", data: SampleTree.randomData(300_000))
            let made = try s.compress(["--format", format, "--output", s.path("src/full.\(format)"), s.path("src/Data")])
            #expect(made.status == 0, "\(made)")
            let full = try #require(E2E.read(s.path("src/full.\(format)")))
            try s.write("arch/broken.\(format)", data: full.prefix(full.count / 2))

            let out = try s.extract(["--json", "--to", s.path("dest"), s.path("arch/broken.\(format)")])
            if format == "7z" {
                // 7z keeps its directory at the end: half a 7z may be reported as not an archive.
                #expect(out.status == 5 || out.status == 4, "\(out)")
            } else {
                #expect(out.status == 5, "\(out)")
            }
            #expect(!out.stderr.isEmpty)
            #expect(E2E.list(s.path("dest")).isEmpty, "left behind: \(E2E.allPaths(under: s.path("dest")).sorted())")
            #expect(E2E.leftovers(under: s.root).isEmpty)
            let json = try #require(out.json, "\(out)")
            let result = try #require((json["results"] as? [[String: Any]])?.first)
            #expect(E2E.isNull(result["output"]), "output should be null: \(result["output"] ?? "nil")")
            let error = try #require(result["error"] as? [String: Any], "\(result)")
            #expect(E2E.int(error["code"]) == Int(out.status))
            #expect(E2E.nonEmptyString(error["message"]))
            #expect(E2E.int(json["exitCode"]) == Int(out.status))

            // Beside the archive (not a temporary place): nothing new there either.
            let beside = try s.extract([s.path("arch/broken.\(format)")])
            #expect(beside.status == out.status, "\(beside)")
            #expect(E2E.list(s.path("arch")) == ["broken.\(format)"])
            #expect(E2E.leftovers(under: s.root).isEmpty)
        }
    }

    /// A tar cut short (a download that stopped) keeps its whole entries before the break, as bsdtar and
    /// the listing do: they are published under the final name, nothing of the entry it broke in is, and
    /// the warning says where it broke (exit 1). Both with `--to` and beside the archive.
    @Test(arguments: ["tar", "tar.gz", "tar.xz"])
    func aTruncatedTarKeepsTheEntriesBeforeTheBreak(format: String) throws {
        try E2E.withScratch("truncated-\(format)") { s in
            try s.write("src/Data/a.txt", "first\n")
            try s.write("src/Data/b.txt", "second\n")
            let big = SampleTree.randomData(600_000)
            try s.write("src/Data/z.bin", data: big)
            let filter = ["tar.gz": ["-z"], "tar.xz": ["-J"]][format] ?? []
            let made = try s.run(
                "/usr/bin/bsdtar",
                ["-c", "--format", "ustar", "-f", s.path("src/full.\(format)"), "-C", s.path("src")] + filter
                    + ["Data/a.txt", "Data/b.txt", "Data/z.bin"])
            #expect(made.status == 0, "\(made)")
            let full = try #require(E2E.read(s.path("src/full.\(format)")))
            try s.write("arch/cut.\(format)", data: full.prefix(full.count * 3 / 4))

            let out = try s.extract(["--json", "--to", s.path("dest"), s.path("arch/cut.\(format)")])
            #expect(out.status == 1, "\(out)")
            #expect(E2E.list(s.path("dest")) == ["Data"])
            #expect(E2E.list(s.path("dest/Data")) == ["a.txt", "b.txt"])
            #expect(E2E.text(s.path("dest/Data/a.txt")) == "first\n")
            #expect(E2E.text(s.path("dest/Data/b.txt")) == "second\n")
            #expect(out.stderr.contains("“z.bin”") || out.stderr.contains("“Data/z.bin”"), "\(out.stderr)")
            #expect(out.stderr.contains("before the damage"), "\(out.stderr)")
            #expect(E2E.leftovers(under: s.root).isEmpty)

            let beside = try s.extract([s.path("arch/cut.\(format)")])
            #expect(beside.status == 1, "\(beside)")
            #expect(E2E.list(s.path("arch")) == ["Data", "cut.\(format)"])
            #expect(E2E.list(s.path("arch/Data")) == ["a.txt", "b.txt"])
            #expect(E2E.leftovers(under: s.root).isEmpty)

            // Cut inside the first entry: nothing whole to keep, so nothing is published.
            try s.write("arch2/head.\(format)", data: full.prefix(format == "tar" ? 515 : 40))
            let head = try s.extract(["--to", s.path("dest2"), s.path("arch2/head.\(format)")])
            #expect(head.status == 5, "\(head)")
            #expect(E2E.list(s.path("dest2")).isEmpty)
        }
    }

    /// A damaged header after the first entry names that entry as stored, not the hidden folder it was
    /// being written to; the entry before it is kept (a tar keeps what comes before a break).
    @Test func aDamagedHeaderNamesTheEntryBeforeIt() throws {
        try E2E.withScratch { s in
            try s.write("src/first.txt", data: Data("one".utf8))
            try s.write("src/second.txt", data: Data("two".utf8))
            let made = try s.compress(["--format", "tar", "--output", s.path("src/two.tar"), s.path("src/first.txt"), s.path("src/second.txt")])
            #expect(made.status == 0, "\(made)")
            var tar = try #require(E2E.read(s.path("src/two.tar")))
            // The second header starts at 512 + 512 (one block of data); its checksum field is at 148.
            tar.replaceSubrange((1024 + 148)..<(1024 + 156), with: Data("XXXXXXXX".utf8))
            try s.write("arch/two.tar", data: tar)

            let out = try s.extract(["--to", s.path("dest"), s.path("arch/two.tar")])
            #expect(out.status == 1, "\(out)")
            #expect(out.stderr.contains("after “first.txt”"), "\(out.stderr)")
            #expect(!out.stderr.contains(".archiver-"), "\(out.stderr)")
            #expect(E2E.list(s.path("dest")) == ["first.txt"])
        }
    }

    @Test func notArchives() throws {
        try E2E.withScratch { s in
            try s.write("in/garbage.zip", data: SampleTree.randomData(20 * 1024))
            try s.write("in/garbage.bin", data: SampleTree.randomData(20 * 1024))
            try s.write("in/empty.zip", data: Data())
            try s.write("in/empty.tar.gz", data: Data())
            try s.write("in/plain.txt", "just some text\nnot an archive\n")
            for name in ["garbage.zip", "garbage.bin", "empty.zip", "empty.tar.gz", "plain.txt"] {
                let out = try s.extract(["--to", s.path("dest"), s.path("in/" + name)])
                #expect(out.status == 4, "\(name): \(out)")
                #expect(!out.stderr.isEmpty, "\(name): an error sentence on stderr")
                let listed = try s.extract(["--list", s.path("in/" + name)])
                #expect(listed.status == 4, "--list \(name): \(listed)")
            }
            #expect(E2E.list(s.path("dest")).isEmpty)
            #expect(E2E.list(s.path("in")).count == 5)
            #expect(E2E.leftovers(under: s.root).isEmpty)
        }
    }

    @Test func missingAndWrongInputs() throws {
        try E2E.withScratch { s in
            try s.mkdir("folder")
            let dir = try s.extract(["--to", s.path("dest"), s.path("folder")])
            #expect(dir.status == 3, "a directory given as archive: \(dir)")

            let missingExtract = try s.extract(["--to", s.path("dest"), s.path("nope.zip")])
            #expect(missingExtract.status == 3, "\(missingExtract)")
            #expect(missingExtract.stderr.contains("nope.zip"), "\(missingExtract.stderr)")

            let missingCompress = try s.compress([s.path("nope.txt")])
            #expect(missingCompress.status == 3, "\(missingCompress)")
            #expect(missingCompress.stderr.contains("nope.txt"), "\(missingCompress.stderr)")

            let json = try s.compress(["--json", s.path("nope.txt")])
            #expect(json.status == 3)
            let object = try #require(json.json, "\(json)")
            #expect(E2E.int(object["exitCode"]) == 3)
            #expect(E2E.int((object["error"] as? [String: Any])?["code"]) == 3, "\(object)")
            #expect((object["outputs"] as? [Any])?.isEmpty ?? true)

            #expect(E2E.list(s.root) == ["folder", "home"], "nothing created: \(E2E.list(s.root))")
            #expect(E2E.list(s.path("dest")).isEmpty)
        }
    }

    @Test func usageErrors() throws {
        try E2E.withScratch { s in
            try s.write("a.txt", "a")
            try s.write("b.txt", "b")
            try s.mkdir("Folder")
            try s.write("Folder/c.txt", "c")
            let cases: [(tool: String, arguments: [String])] = [
                ("c", ["--no-such-flag", s.path("a.txt")]),
                ("x", ["--no-such-flag", s.path("a.txt")]),
                ("c", []),
                ("x", []),
                ("c", ["--format", "rar", s.path("a.txt")]),
                ("c", ["--format", "", s.path("a.txt")]),
                ("c", ["--level", "ultra", s.path("a.txt")]),
                ("c", ["--output", s.path("o.zip"), "--name", "n", s.path("a.txt")]),
                ("c", ["--time-budget", "soon", s.path("a.txt")]),
                ("x", ["--time-budget", "-3", s.path("a.txt")]),
            ]
            for (tool, arguments) in cases {
                let out = tool == "c" ? try s.compress(arguments) : try s.extract(arguments)
                #expect(out.status == 2, "\(out)")
                #expect(!out.stderr.isEmpty, "\(out)")
            }
            // Single-stream formats take one file: a folder or several files is a usage error that points
            // to the tar.* form.
            for format in ["gz", "bz2", "xz", "zst"] {
                let folder = try s.compress(["--format", format, s.path("Folder")])
                #expect(folder.status == 2, "\(folder)")
                #expect(folder.stderr.contains("tar.\(format)"), "should suggest tar.\(format): \(folder.stderr)")
                let several = try s.compress(["--format", format, s.path("a.txt"), s.path("b.txt")])
                #expect(several.status == 2, "\(several)")
                #expect(several.stderr.contains("tar.\(format)"), "should suggest tar.\(format): \(several.stderr)")
            }
            #expect(E2E.list(s.root) == ["Folder", "a.txt", "b.txt", "home"], "nothing created: \(E2E.list(s.root))")
        }
    }

    @Test func outputThatExistsIsRefused() throws {
        try E2E.withScratch { s in
            try s.write("a.txt", "a")
            try s.write("taken.zip", "do not touch")
            let out = try s.compress(["--output", s.path("taken.zip"), s.path("a.txt")])
            #expect(out.status == 7, "\(out)")
            #expect(E2E.text(s.path("taken.zip")) == "do not touch")
            #expect(E2E.list(s.root) == ["a.txt", "home", "taken.zip"])

            // A folder in the way counts too.
            try s.mkdir("dir.tar")
            let dir = try s.compress(["--format", "tar", "--output", s.path("dir.tar"), s.path("a.txt")])
            #expect(dir.status == 7, "\(dir)")
            #expect(E2E.list(s.path("dir.tar")).isEmpty)
            #expect(E2E.leftovers(under: s.root).isEmpty)
        }
    }

    @Test func destinationThatCannotBeWritten() throws {
        try E2E.withScratch { s in
            try s.write("a.txt", "a")
            try s.write("file", "a regular file")
            #expect(try s.compress([s.path("a.txt")]).status == 0)

            // `--to` below a regular file: the folder cannot be made.
            let under = try s.extract(["--to", s.path("file/sub"), s.path("a.zip")])
            #expect(under.status == 7, "\(under)")
            // `--to` that is itself a regular file.
            let onFile = try s.extract(["--to", s.path("file"), s.path("a.zip")])
            #expect(onFile.status == 7, "\(onFile)")
            #expect(E2E.text(s.path("file")) == "a regular file")
            // Compressing into a folder that cannot exist.
            let compress = try s.compress(["--output", s.path("file/out.zip"), s.path("a.txt")])
            #expect(compress.status == 7, "\(compress)")

            // A read-only folder: root can write anywhere, so only a normal user can check this one.
            if !Self.isRoot {
                try s.mkdir("ro")
                try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: s.path("ro"))
                let readOnly = try s.extract(["--to", s.path("ro"), s.path("a.zip")])
                #expect(readOnly.status == 7, "\(readOnly)")
                let readOnlyCompress = try s.compress(["--output", s.path("ro/x.zip"), s.path("a.txt")])
                #expect(readOnlyCompress.status == 7, "\(readOnlyCompress)")
                try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: s.path("ro"))
                #expect(E2E.list(s.path("ro")).isEmpty)
            }
            #expect(E2E.list(s.root) == ["a.txt", "a.zip", "file", "home"] || E2E.list(s.root) == ["a.txt", "a.zip", "file", "home", "ro"])
            #expect(E2E.leftovers(under: s.root).isEmpty)
        }
    }

    @Test func passwordProtectedArchivesNeedAPassword() throws {
        try E2E.withScratch { s in
            try s.write("src/secret.txt", "top secret\n")
            try s.write("src/other.txt", "other\n")
            try s.mkdir("arch")
            try s.must("/usr/bin/zip", ["-q", "-P", "hunter2", s.path("arch/zipcrypto.zip"), "secret.txt", "other.txt"], cwd: s.path("src"))
            try s.must("/usr/bin/7zz", ["a", "-phunter2", "-mhe=on", s.path("arch/headers.7z"), "secret.txt", "other.txt"], cwd: s.path("src"))
            try s.must("/usr/bin/7zz", ["a", "-phunter2", s.path("arch/data.7z"), "secret.txt", "other.txt"], cwd: s.path("src"))
            try s.must("/usr/bin/7zz", ["a", "-tzip", "-mem=AES256", "-phunter2", s.path("arch/aes.zip"), "secret.txt", "other.txt"], cwd: s.path("src"))
            for name in ["zipcrypto.zip", "headers.7z", "data.7z", "aes.zip"] {
                let out = try s.extract(["--to", s.path("dest"), s.path("arch/" + name)])
                #expect(out.status == 6, "\(name): \(out)")
                #expect(E2E.list(s.path("dest")).isEmpty, "\(name): \(E2E.list(s.path("dest")))")
            }
            // Listing says which entries are encrypted.
            let listed = try s.extract(["--list", "--json", s.path("arch/zipcrypto.zip")])
            #expect(listed.status == 0, "\(listed)")
            let entries = ((listed.json?["archives"] as? [[String: Any]])?.first?["entries"] as? [[String: Any]]) ?? []
            #expect(entries.count == 2)
            #expect(entries.allSatisfy { $0["encrypted"] as? Bool == true }, "\(entries)")
            #expect(E2E.leftovers(under: s.root).isEmpty)
        }
    }

    /// Staging folders of a process that is gone are removed by the next run in that folder; those of a
    /// live process are left alone.
    @Test func staleTemporariesOfDeadProcessesAreRemoved() throws {
        try E2E.withScratch { s in
            try s.write("src/a.txt", "a")
            try s.write("src/b.txt", "b")
            // A PID that is not running (checked), and this test process, which is.
            var deadPID = 3_999_971
            while FileManager.default.fileExists(atPath: "/proc/\(deadPID)") { deadPID += 1 }
            let livePID = ProcessInfo.processInfo.processIdentifier
            try s.write("dest/.archiver-\(deadPID)-deadbeef/partial.txt", "half")
            try s.write("dest/.archiver-\(livePID)-cafebabe/partial.txt", "busy")
            try s.must("/usr/bin/zip", ["-q", s.path("pair.zip"), "a.txt", "b.txt"], cwd: s.path("src"))
            let out = try s.extract(["--to", s.path("dest"), s.path("pair.zip")])
            #expect(out.status == 0, "\(out)")
            #expect(E2E.list(s.path("dest")) == [".archiver-\(livePID)-cafebabe", "pair"], "\(E2E.list(s.path("dest")))")
            #expect(E2E.text(s.path("dest/.archiver-\(livePID)-cafebabe/partial.txt")) == "busy")
        }
    }
}
