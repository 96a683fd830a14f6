import ArchiverTestSupport
import Foundation
import Testing

@Suite struct NamingAndPlacesTests {
    @Test func compressNamesAndNumbers() throws {
        let s = try ScratchDirectory()
        try E2E.makeTree(s.sub("Photos"))
        try "pdf".write(toFile: s.sub("a.pdf"), atomically: false, encoding: .utf8)
        try "note".write(toFile: s.sub("note.txt"), atomically: false, encoding: .utf8)
        func output(_ arguments: [String]) throws -> String {
            let result = try E2E.run("compress-with-archiver", arguments + ["--json"])
            #expect(result.status == 0, "\(result.stderr)")
            return ((result.json?["outputs"] as? [[String: Any]])?.first?["path"] as? String).map { ($0 as NSString).lastPathComponent } ?? "?"
        }
        #expect(try output([s.sub("a.pdf")]) == "a.zip")
        #expect(try output([s.sub("Photos")]) == "Photos.zip")
        #expect(try output(["--format", "tar.gz", s.sub("Photos")]) == "Photos.tar.gz")
        #expect(try output(["--format", "tar.gz", s.sub("Photos")]) == "Photos (2).tar.gz")
        #expect(try output([s.sub("a.pdf"), s.sub("note.txt")]) == "Archive.zip")
        #expect(try output([s.sub("a.pdf"), s.sub("note.txt")]) == "Archive (2).zip")
        #expect(try output([s.sub("a.pdf"), s.sub("note.txt")]) == "Archive (3).zip")
        #expect(try output(["--format", "gz", s.sub("note.txt")]) == "note.txt.gz")
        #expect(try output(["--name", "mail", s.sub("a.pdf")]) == "mail.zip")
        let listing = try E2E.run("/usr/bin/unzip", ["-Z1", s.sub("Archive.zip")])
        #expect(listing.stdout.split(separator: "\n").sorted() == ["a.pdf", "note.txt"])
        let photos = try E2E.run("/usr/bin/unzip", ["-Z1", s.sub("Photos.zip")])
        #expect(photos.stdout.split(separator: "\n").allSatisfy { $0.hasPrefix("Photos/") })
    }

    @Test func foldersReachedThroughSymlinksWork() throws {
        let s = try ScratchDirectory()
        try FileManager.default.createDirectory(atPath: s.sub("real"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: s.sub("link"), withDestinationPath: "real")
        try "x".write(toFile: s.sub("real/f.txt"), atomically: false, encoding: .utf8)
        #expect(try E2E.run("compress-with-archiver", [s.sub("link/f.txt")]).status == 0)
        #expect(try E2E.run("compress-with-archiver", ["--output", s.sub("link/out.zip"), s.sub("real/f.txt")]).status == 0)
        #expect(s.list("real") == ["f.txt", "f.zip", "out.zip"])
    }

    @Test func extractLayoutAndPlaces() throws {
        let s = try ScratchDirectory()
        try FileManager.default.createDirectory(atPath: s.sub("home/docs"), withIntermediateDirectories: true)
        try E2E.makeTree(s.sub("home/docs/top"))
        try "x".write(toFile: s.sub("home/docs/one.txt"), atomically: false, encoding: .utf8)
        #expect(try E2E.run("compress-with-archiver", ["--format", "tar.gz", s.sub("home/docs/top")]).status == 0)
        #expect(try E2E.run("compress-with-archiver", ["--name", "pair", "--format", "tar.gz", s.sub("home/docs/top"), s.sub("home/docs/one.txt")]).status == 0)

        // One top-level folder: as is, then numbered; several: a folder named after the archive.
        #expect(try E2E.run("extract-with-archiver", ["--to", s.sub("D"), s.sub("home/docs/top.tar.gz")]).status == 0)
        #expect(try E2E.run("extract-with-archiver", ["--to", s.sub("D"), s.sub("home/docs/top.tar.gz")]).status == 0)
        #expect(try E2E.run("extract-with-archiver", ["--to", s.sub("D"), s.sub("home/docs/pair.tar.gz")]).status == 0)
        #expect(s.list("D") == ["pair", "top", "top (2)"])
        #expect(s.list("D/pair") == ["one.txt", "top"])

        // Beside the archive by default.
        let beside = try E2E.run("extract-with-archiver", ["--json", s.sub("home/docs/pair.tar.gz")], environment: ["HOME": s.sub("home")])
        #expect((beside.json?["results"] as? [[String: Any]])?.first?["output"] as? String == s.sub("home/docs/pair"))

        // From a temporary place (a mail attachment): into Downloads, or XDG_DOWNLOAD_DIR.
        let attachments = ["TMPDIR": s.sub("home/docs"), "HOME": s.sub("home")]
        let downloads = try E2E.run("extract-with-archiver", ["--json", s.sub("home/docs/top.tar.gz")], environment: attachments)
        #expect((downloads.json?["results"] as? [[String: Any]])?.first?["output"] as? String == s.sub("home/Downloads/top"))
        try FileManager.default.createDirectory(atPath: s.sub("home/.config"), withIntermediateDirectories: true)
        try "XDG_DOWNLOAD_DIR=\"$HOME/Téléchargements\"\n".write(toFile: s.sub("home/.config/user-dirs.dirs"), atomically: false, encoding: .utf8)
        let french = try E2E.run("extract-with-archiver", ["--json", s.sub("home/docs/top.tar.gz")], environment: attachments)
        #expect((french.json?["results"] as? [[String: Any]])?.first?["output"] as? String == s.sub("home/Téléchargements/top"))
    }

    @Test func selectionAndJunk() throws {
        let s = try ScratchDirectory()
        try E2E.python(
            """
            import zipfile, sys
            with zipfile.ZipFile(sys.argv[1], 'w') as z:
                for n in ['Mac/report.txt', 'Mac/img/a.png', 'Mac/img/b.png', 'Mac/.DS_Store', 'Mac/._report.txt', '__MACOSX/Mac/._report.txt']:
                    z.writestr(n, n)
            """, [s.sub("mac.zip")])
        let clean = try E2E.run("extract-with-archiver", ["--json", "--to", s.sub("clean"), s.sub("mac.zip")])
        #expect(clean.status == 0)
        #expect(s.list("clean/Mac") == ["img", "report.txt"])
        #expect(((clean.json?["results"] as? [[String: Any]])?.first?["skippedJunk"] as? [String])?.count == 3)
        #expect(try E2E.run("extract-with-archiver", ["--keep-junk", "--to", s.sub("kept"), s.sub("mac.zip")]).status == 0)
        // With the junk kept there are two top-level folders, so they get a folder named after the archive.
        #expect(s.list("kept/mac") == ["Mac", "__MACOSX"])

        #expect(try E2E.run("extract-with-archiver", ["--to", s.sub("some"), "--entry", "Mac/img", s.sub("mac.zip")]).status == 0)
        #expect(s.list("some/Mac") == ["img"])
        #expect(s.list("some/Mac/img") == ["a.png", "b.png"])
        let unknown = try E2E.run("extract-with-archiver", ["--to", s.sub("none"), "--entry", "Mac/reprot.txt", "--", s.sub("mac.zip")])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("Mac/report.txt"))
        #expect(s.list("none").isEmpty)
    }
}

@Suite struct ReportTests {
    @Test func jsonResultsCarryTheFacts() throws {
        let s = try ScratchDirectory()
        try E2E.makeTree(s.sub("Tree"))
        let made = try E2E.run("compress-with-archiver", ["--json", "--format", "7z", s.sub("Tree")])
        let json = made.json ?? [:]
        #expect(json["operation"] as? String == "compress")
        #expect(json["exitCode"] as? Int == 0)
        #expect(json["files"] as? Int == 5 && json["folders"] as? Int == 6 && json["symlinks"] as? Int == 1)
        #expect(json["inputBytes"] as? Int == 30_000 + 16 + 50_000 + 18)
        let output = try #require((json["outputs"] as? [[String: Any]])?.first)
        let size = try FileManager.default.attributesOfItem(atPath: s.sub("Tree.7z"))[.size] as? Int
        #expect(output["size"] as? Int == size)
        #expect(json["durationSeconds"] is Double)

        let listed = try E2E.run("extract-with-archiver", ["--list", "--json", s.sub("Tree.7z")])
        let entries = try #require(((listed.json?["archives"] as? [[String: Any]])?.first?["entries"]) as? [[String: Any]])
        let byPath = Dictionary(uniqueKeysWithValues: entries.map { ($0["path"] as? String ?? "", $0) })
        #expect(byPath["Tree/a/random.bin"]?["size"] as? Int == 50_000)
        #expect(byPath["Tree/a/random.bin"]?["type"] as? String == "file")
        #expect(byPath["Tree/a/link"]?["type"] as? String == "symlink")
        #expect(byPath["Tree/a/link"]?["linkTarget"] as? String == "b/c/café é.txt")
        #expect((byPath["Tree/run.sh"]?["mtime"] as? String)?.hasPrefix("20") == true)
        #expect(byPath["Tree/run.sh"]?["encrypted"] as? Bool == false)

        let extracted = try E2E.run("extract-with-archiver", ["--json", "--to", s.sub("out"), s.sub("Tree.7z")])
        let result = try #require((extracted.json?["results"] as? [[String: Any]])?.first)
        #expect(result["output"] as? String == s.sub("out/Tree"))
        #expect(result["files"] as? Int == 5 && result["bytes"] as? Int == 80_034)
        #expect(result["error"] is NSNull)

        let failed = try E2E.run("extract-with-archiver", ["--json", s.sub("nope.zip")])
        #expect(failed.status == 3)
        let error = try #require((failed.json?["results"] as? [[String: Any]])?.first?["error"] as? [String: Any])
        #expect(error["code"] as? Int == 3)
        #expect(failed.stderr.contains("does not exist"))
    }

    @Test func progressOnlyOnATerminal() throws {
        let s = try ScratchDirectory()
        try E2E.python("import os,sys\nos.makedirs(sys.argv[1])\nopen(sys.argv[1] + '/r.bin','wb').write(os.urandom(40 << 20))", [s.sub("R")])
        // Not a terminal: nothing on stderr.
        let quiet = try E2E.run("compress-with-archiver", ["--format", "tar.xz", "--level", "maximum", "--name", "quiet", s.sub("R")])
        #expect(quiet.status == 0)
        #expect(quiet.stderr.isEmpty)
        // A terminal: a progress line (zip, whose work happens as the input is read, unlike xz's
        // threads, which swallow the whole input at once) with percent, sizes, rate and time left, then the result.
        let tty = try E2E.python(
            """
            import os, pty, sys
            pid, fd = pty.fork()
            if pid == 0:
                os.execv(sys.argv[1], [sys.argv[1], '--format', 'zip', '--level', 'maximum', '--name', 'tty', sys.argv[2]])
            out = b''
            while True:
                try: chunk = os.read(fd, 4096)
                except OSError: break
                if not chunk: break
                out += chunk
            print(out.decode(errors='replace'))
            """, [E2E.binDir + "/compress-with-archiver", s.sub("R")])
        #expect(tty.stdout.contains("Compressing"))
        #expect(tty.stdout.contains("%"))
        #expect(tty.stdout.contains("MB of 41.9 MB"))
        #expect(tty.stdout.contains("MB/s"))
        #expect(tty.stdout.contains("Created"))
    }

    @Test func batchWithOneBadArchiveIsPartial() throws {
        let s = try ScratchDirectory()
        try "x".write(toFile: s.sub("a.txt"), atomically: false, encoding: .utf8)
        #expect(try E2E.run("compress-with-archiver", [s.sub("a.txt")]).status == 0)
        let result = try E2E.run("extract-with-archiver", ["--to", s.sub("out"), s.sub("a.zip"), s.sub("missing.zip")])
        #expect(result.status == 1)
        #expect(s.list("out") == ["a.txt"])
    }
}

@Suite(.enabled(if: ProcessInfo.processInfo.environment["ARCHIVER_SLOW_TESTS"] == "1", "set ARCHIVER_SLOW_TESTS=1"))
struct Zip64RoundTripTests {
    @Test func moreThan4GiBRoundTrips() throws {
        let s = try ScratchDirectory()
        try FileManager.default.createDirectory(atPath: s.sub("Huge"), withIntermediateDirectories: true)
        // Mixed content, not a sparse file: random blocks with zero runs, 4.5 GiB.
        try E2E.python(
            """
            import os, sys
            with open(sys.argv[1], 'wb') as f:
                block = os.urandom(1 << 20)
                for i in range(4608): f.write(block if i % 3 == 0 else bytes(1 << 20))
            """, [s.sub("Huge/big.bin")])
        let made = try E2E.run("compress-with-archiver", ["--format", "zip", "--level", "fast", s.sub("Huge")])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(try E2E.run("/usr/bin/7zz", ["t", s.sub("Huge.zip")]).status == 0)
        #expect(try E2E.run("/usr/bin/unzip", ["-l", s.sub("Huge.zip")]).stdout.contains("4831838208"))
        #expect(try E2E.run("extract-with-archiver", ["--to", s.sub("out"), s.sub("Huge.zip")]).status == 0)
        let sums = try E2E.run("/usr/bin/sha256sum", [s.sub("Huge/big.bin"), s.sub("out/Huge/big.bin")]).stdout
            .split(separator: "\n").map { $0.split(separator: " ").first.map(String.init) ?? "" }
        #expect(sums.count == 2 && sums[0] == sums[1])
    }
}
