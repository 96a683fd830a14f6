import ArchiverTestSupport
import Foundation
import Testing

/// Output names on compression, layout and destination on extraction.
@Suite struct CompressNamingTests {
    /// The names (last component) of the outputs our compressor reports in JSON, after checking the run.
    func made(_ s: ScratchDirectory, _ arguments: [String], cwd: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let out = try s.compress(["--json"] + arguments, cwd: cwd)
        #expect(out.status == 0, "\(out)", sourceLocation: sourceLocation)
        let path = ((out.json?["outputs"] as? [[String: Any]])?.first?["path"] as? String) ?? "?"
        #expect(E2E.exists(path), "reported output \(path) exists", sourceLocation: sourceLocation)
        return (path as NSString).lastPathComponent
    }

    func zipNames(_ s: ScratchDirectory, _ zip: String) throws -> [String] {
        try s.must("/usr/bin/unzip", ["-Z1", zip]).stdout.split(separator: "\n").map(String.init).sorted()
    }

    @Test func oneFileOneFolderSeveralItems() throws {
        try E2E.withScratch { s in
            try s.write("docs/a.pdf", "%PDF-1.4 not really")
            try s.write("docs/Photos/one.jpg", "jpeg")
            try s.write("docs/Photos/sub/two.jpg", "jpeg2")
            try s.write("docs/note.txt", "note")

            // One file → a.zip beside it, holding a.pdf.
            #expect(try made(s, [s.path("docs/a.pdf")]) == "a.zip")
            #expect(try zipNames(s, s.path("docs/a.zip")) == ["a.pdf"])
            // A folder → Photos.zip holding Photos/….
            #expect(try made(s, [s.path("docs/Photos")]) == "Photos.zip")
            let photos = try zipNames(s, s.path("docs/Photos.zip"))
            #expect(photos.contains("Photos/one.jpg") && photos.contains("Photos/sub/two.jpg"), "\(photos)")
            #expect(photos.allSatisfy { $0.hasPrefix("Photos/") }, "\(photos)")
            // Several items → Archive.zip in their common folder, each at the top.
            #expect(try made(s, [s.path("docs/a.pdf"), s.path("docs/note.txt"), s.path("docs/Photos")]) == "Archive.zip")
            let several = try zipNames(s, s.path("docs/Archive.zip"))
            #expect(several.contains("a.pdf") && several.contains("note.txt") && several.contains("Photos/sub/two.jpg"), "\(several)")
            #expect(!several.contains { $0.hasPrefix("docs/") }, "\(several)")

            // Several items in different subfolders: the archive goes to the deepest common folder, items at top.
            #expect(try made(s, [s.path("docs/Photos/one.jpg"), s.path("docs/Photos/sub/two.jpg")]) == "Archive.zip")
            #expect(E2E.exists(s.path("docs/Photos/Archive.zip")))
            #expect(try zipNames(s, s.path("docs/Photos/Archive.zip")) == ["one.jpg", "two.jpg"])
            #expect(E2E.list(s.path("docs")) == ["Archive.zip", "Photos", "Photos.zip", "a.pdf", "a.zip", "note.txt"])
        }
    }

    @Test func neverOverwritesNumbersBeforeTheWholeExtension() throws {
        try E2E.withScratch { s in
            try s.write("w/a.txt", "a")
            try s.write("w/b.txt", "b")
            try s.write("w/Photos/p.jpg", "p")
            let pair = [s.path("w/a.txt"), s.path("w/b.txt")]
            #expect(try made(s, pair) == "Archive.zip")
            let firstBytes = E2E.read(s.path("w/Archive.zip"))
            #expect(try made(s, pair) == "Archive (2).zip")
            #expect(try made(s, pair) == "Archive (3).zip")
            #expect(E2E.read(s.path("w/Archive.zip")) == firstBytes)
            #expect(try made(s, ["--format", "tar.gz", s.path("w/Photos")]) == "Photos.tar.gz")
            #expect(try made(s, ["--format", "tar.gz", s.path("w/Photos")]) == "Photos (2).tar.gz")
            #expect(try made(s, ["--format", "tar.gz", s.path("w/Photos")]) == "Photos (3).tar.gz")
            #expect(try made(s, ["--format", "7z", s.path("w/Photos")]) == "Photos.7z")
            #expect(try made(s, ["--format", "7z", s.path("w/Photos")]) == "Photos (2).7z")
            // Single-stream: note.txt → note.txt.gz, then a different new name; the first is untouched.
            try s.write("w/note.txt", "first")
            #expect(try made(s, ["--format", "gz", s.path("w/note.txt")]) == "note.txt.gz")
            let second = try made(s, ["--format", "gz", s.path("w/note.txt")])
            #expect(second != "note.txt.gz" && second.hasSuffix(".gz") && second.contains("(2)"), "\(second)")
            #expect(E2E.list(s.path("w")).filter { !$0.hasPrefix(".") }.count == 14, "\(E2E.list(s.path("w")))")
            #expect(E2E.leftovers(under: s.root).isEmpty)
        }
    }

    @Test func nameAndOutputOptions() throws {
        try E2E.withScratch { s in
            try s.write("w/a.txt", "a")
            try s.write("w/b.txt", "b")
            // --name picks the name in the same folder, adds the extension, numbers on conflict.
            #expect(try made(s, ["--name", "mail", s.path("w/a.txt"), s.path("w/b.txt")]) == "mail.zip")
            #expect(try made(s, ["--name", "mail", s.path("w/a.txt"), s.path("w/b.txt")]) == "mail (2).zip")
            #expect(try made(s, ["--name", "report.zip", s.path("w/a.txt")]) == "report.zip")
            #expect(try made(s, ["--name", "bundle", "--format", "tar.xz", s.path("w/a.txt")]) == "bundle.tar.xz")
            // --output writes exactly there.
            try s.mkdir("elsewhere")
            let out = try s.compress(["--json", "--format", "tar.zst", "--output", s.path("elsewhere/x.tar.zst"), s.path("w/a.txt"), s.path("w/b.txt")])
            #expect(out.status == 0, "\(out)")
            #expect((out.json?["outputs"] as? [[String: Any]])?.first?["path"] as? String == s.path("elsewhere/x.tar.zst"))
            #expect(E2E.list(s.path("elsewhere")) == ["x.tar.zst"])
            let listing = try s.must("/usr/bin/bsdtar", ["-tf", s.path("elsewhere/x.tar.zst")])
            #expect(listing.stdout.split(separator: "\n").map(String.init).sorted() == ["a.txt", "b.txt"])
        }
    }
}

@Suite struct ExtractLayoutTests {
    /// Makes an archive with Python's tarfile holding `names` (a trailing "/" makes a folder).
    func tar(_ s: ScratchDirectory, _ path: String, _ names: [String]) throws {
        try s.python(
            """
            import tarfile, io, sys
            with tarfile.open(sys.argv[1], 'w:gz' if sys.argv[1].endswith('gz') else 'w') as t:
                for n in sys.argv[2:]:
                    i = tarfile.TarInfo(n.rstrip('/')); i.mtime = 1600000000
                    if n.endswith('/'):
                        i.type = tarfile.DIRTYPE; i.mode = 0o755; t.addfile(i)
                    else:
                        data = ('content of ' + n).encode(); i.size = len(data); i.mode = 0o644
                        t.addfile(i, io.BytesIO(data))
            """, [path] + names)
    }

    @Test func oneTopLevelItemExtractsAsIs() throws {
        try E2E.withScratch { s in
            try s.mkdir("w")
            try tar(s, s.path("w/folder.tar.gz"), ["top/", "top/a.txt", "top/sub/b.txt"])
            try tar(s, s.path("w/onefile.tar"), ["lonely.txt"])
            try tar(s, s.path("w/implicit.tar"), ["implied/x.txt", "implied/y.txt"])  // no folder entry

            // Beside the archive: top/, lonely.txt and implied/ as is.
            for name in ["folder.tar.gz", "onefile.tar", "implicit.tar"] {
                let out = try s.extract([s.path("w/" + name)])
                #expect(out.status == 0, "\(out)")
            }
            #expect(E2E.list(s.path("w")) == ["folder.tar.gz", "implicit.tar", "implied", "lonely.txt", "onefile.tar", "top"])
            #expect(E2E.text(s.path("w/top/sub/b.txt")) == "content of top/sub/b.txt")
            #expect(E2E.text(s.path("w/lonely.txt")) == "content of lonely.txt")
            #expect(E2E.list(s.path("w/implied")) == ["x.txt", "y.txt"])

            // Again: never overwrite, number.
            for _ in 0..<2 { #expect(try s.extract([s.path("w/folder.tar.gz")]).status == 0) }
            #expect(try s.extract([s.path("w/onefile.tar")]).status == 0)
            #expect(E2E.list(s.path("w")).contains("top (2)") && E2E.list(s.path("w")).contains("top (3)"), "\(E2E.list(s.path("w")))")
            #expect(E2E.list(s.path("w")).contains("lonely (2).txt") || E2E.list(s.path("w")).contains("lonely.txt (2)"),
                    "a numbered second copy: \(E2E.list(s.path("w")))")
            #expect(E2E.text(s.path("w/top (3)/a.txt")) == "content of top/a.txt")

            // --to D with one folder top → D/top.
            let to = try s.extract(["--to", s.path("D"), s.path("w/folder.tar.gz")])
            #expect(to.status == 0, "\(to)")
            #expect(E2E.list(s.path("D")) == ["top"])
            #expect(E2E.list(s.path("D/top")) == ["a.txt", "sub"])
            #expect(E2E.leftovers(under: s.root).isEmpty)
        }
    }

    @Test func severalTopLevelItemsGetAFolderNamedAfterTheArchive() throws {
        try E2E.withScratch { s in
            try s.mkdir("w")
            try tar(s, s.path("w/x.tar.gz"), ["one.txt", "two.txt", "dir/", "dir/three.txt"])
            let out = try s.extract([s.path("w/x.tar.gz")])
            #expect(out.status == 0, "\(out)")
            #expect(E2E.list(s.path("w")) == ["x", "x.tar.gz"], "x.tar.gz → x")
            #expect(E2E.list(s.path("w/x")) == ["dir", "one.txt", "two.txt"])
            #expect(try s.extract([s.path("w/x.tar.gz")]).status == 0)
            #expect(try s.extract([s.path("w/x.tar.gz")]).status == 0)
            #expect(E2E.list(s.path("w")) == ["x", "x (2)", "x (3)", "x.tar.gz"])
            #expect(E2E.list(s.path("w/x (3)")) == ["dir", "one.txt", "two.txt"])

            // Other archive extensions are stripped too.
            try s.python(
                """
                import zipfile, sys
                with zipfile.ZipFile(sys.argv[1], 'w') as z:
                    z.writestr('a.txt', 'a'); z.writestr('b.txt', 'b')
                """, [s.path("w/report.final.zip")])
            #expect(try s.extract(["--to", s.path("D"), s.path("w/report.final.zip")]).status == 0)
            #expect(E2E.list(s.path("D")) == ["report.final"])
            #expect(try s.extract(["--to", s.path("D"), s.path("w/x.tar.gz")]).status == 0)
            #expect(E2E.list(s.path("D")) == ["report.final", "x"])
            #expect(E2E.list(s.path("D/x")) == ["dir", "one.txt", "two.txt"])
        }
    }

    @Test func singleStreamAndEmptyArchives() throws {
        try E2E.withScratch { s in
            try s.write("w/data.txt", "single stream content\n")
            try s.must("/usr/bin/gzip", ["-q", s.path("w/data.txt")])
            try s.must("/bin/mv", [s.path("w/data.txt.gz"), s.path("w/x.txt.gz")])
            let out = try s.extract([s.path("w/x.txt.gz")])
            #expect(out.status == 0, "\(out)")
            #expect(E2E.list(s.path("w")) == ["x.txt", "x.txt.gz"], "x.txt.gz → x.txt")
            #expect(E2E.text(s.path("w/x.txt")) == "single stream content\n")
            #expect(try s.extract([s.path("w/x.txt.gz")]).status == 0)
            #expect(E2E.list(s.path("w")).count == 3, "second copy numbered: \(E2E.list(s.path("w")))")

            // Valid empty archives: exit 0, nothing created.
            try s.mkdir("e")
            try s.python("import tarfile,sys\ntarfile.open(sys.argv[1], 'w').close()", [s.path("e/empty.tar")])
            try s.python("import zipfile,sys\nzipfile.ZipFile(sys.argv[1], 'w').close()", [s.path("e/empty.zip")])
            try s.python("import tarfile,sys\ntarfile.open(sys.argv[1], 'w:gz').close()", [s.path("e/empty.tar.gz")])
            for name in ["empty.tar", "empty.zip", "empty.tar.gz"] {
                let empty = try s.extract(["--json", s.path("e/" + name)])
                #expect(empty.status == 0, "\(name): \(empty)")
                let result = (empty.json?["results"] as? [[String: Any]])?.first
                #expect(E2E.isNull(result?["output"]), "\(name): output null: \(empty.stdout)")
                let to = try s.extract(["--to", s.path("e-to"), s.path("e/" + name)])
                #expect(to.status == 0, "\(name): \(to)")
            }
            #expect(E2E.list(s.path("e")) == ["empty.tar", "empty.tar.gz", "empty.zip"])
            #expect(E2E.list(s.path("e-to")).isEmpty)
            #expect(E2E.leftovers(under: s.root).isEmpty)
        }
    }

    @Test func destinationBesideOrDownloads() throws {
        try E2E.withScratch { s in
            try s.mkdir("home/Documents")
            try tar(s, s.path("home/Documents/top.tar"), ["top/", "top/f.txt"])

            func output(_ archive: String, env: [String: String?] = [:]) throws -> String? {
                let out = try s.extract(["--json", archive], env: env)
                #expect(out.status == 0, "\(out)")
                return (out.json?["results"] as? [[String: Any]])?.first?["output"] as? String
            }

            // A normal folder: beside the archive.
            #expect(try output(s.path("home/Documents/top.tar")) == s.path("home/Documents/top"))
            #expect(E2E.text(s.path("home/Documents/top/f.txt")) == "content of top/f.txt")

            // An archive in $TMPDIR (a mail attachment): into ~/Downloads (created).
            try s.mkdir("mailtmp")
            try tar(s, s.path("mailtmp/attach.tar"), ["attach/", "attach/f.txt"])
            #expect(try output(s.path("mailtmp/attach.tar"), env: ["TMPDIR": s.path("mailtmp")]) == s.path("home/Downloads/attach"))
            #expect(E2E.text(s.path("home/Downloads/attach/f.txt")) == "content of attach/f.txt")
            #expect(E2E.list(s.path("mailtmp")) == ["attach.tar"])

            // $XDG_RUNTIME_DIR and ~/.cache are temporary places too.
            try s.mkdir("runtime")
            try tar(s, s.path("runtime/rt.tar"), ["rt/", "rt/f.txt"])
            #expect(try output(s.path("runtime/rt.tar"), env: ["XDG_RUNTIME_DIR": s.path("runtime")]) == s.path("home/Downloads/rt"))
            try s.mkdir("home/.cache/browser")
            try tar(s, s.path("home/.cache/browser/c.tar"), ["c/", "c/f.txt"])
            #expect(try output(s.path("home/.cache/browser/c.tar")) == s.path("home/Downloads/c"))

            // XDG_DOWNLOAD_DIR from ~/.config/user-dirs.dirs is honoured.
            try s.write("home/.config/user-dirs.dirs", "# written by xdg-user-dirs-update\nXDG_DOWNLOAD_DIR=\"$HOME/Téléchargements\"\n")
            #expect(try output(s.path("mailtmp/attach.tar"), env: ["TMPDIR": s.path("mailtmp")]) == s.path("home/Téléchargements/attach"))
            #expect(E2E.text(s.path("home/Téléchargements/attach/f.txt")) == "content of attach/f.txt")
            // --to always wins.
            let to = try s.extract(["--to", s.path("chosen"), s.path("mailtmp/attach.tar")], env: ["TMPDIR": s.path("mailtmp")])
            #expect(to.status == 0, "\(to)")
            #expect(E2E.list(s.path("chosen")) == ["attach"])
            #expect(E2E.list(s.path("mailtmp")) == ["attach.tar"])
        }
    }

    @Test func macJunkIsSkippedUnlessKept() throws {
        try E2E.withScratch { s in
            try s.python(
                """
                import zipfile, sys
                with zipfile.ZipFile(sys.argv[1], 'w') as z:
                    for n in ['Proj/readme.txt', 'Proj/src/main.c', 'Proj/.DS_Store', 'Proj/src/._main.c',
                              '__MACOSX/Proj/._readme.txt', '__MACOSX/Proj/src/._main.c', 'Proj/.gitignore']:
                        z.writestr(n, 'data of ' + n)
                """, [s.path("mac.zip")])
            let clean = try s.extract(["--json", "--to", s.path("clean"), s.path("mac.zip")])
            #expect(clean.status == 0, "junk skipping is not a warning: \(clean)")
            #expect(E2E.list(s.path("clean")) == ["Proj"], "junk removed, one top-level folder remains")
            #expect(E2E.allPaths(under: s.path("clean/Proj")).sorted() == [".gitignore", "readme.txt", "src", "src/main.c"])
            let skipped = ((clean.json?["results"] as? [[String: Any]])?.first?["skippedJunk"] as? [String]) ?? []
            #expect(skipped.count == 4, "\(skipped)")
            #expect(skipped.contains { $0.contains(".DS_Store") } && skipped.contains { $0.contains("__MACOSX") })

            let kept = try s.extract(["--keep-junk", "--to", s.path("kept"), s.path("mac.zip")])
            #expect(kept.status == 0, "\(kept)")
            #expect(E2E.list(s.path("kept")) == ["mac"], "two top-level folders with junk kept")
            #expect(E2E.list(s.path("kept/mac")) == ["Proj", "__MACOSX"])
            #expect(E2E.exists(s.path("kept/mac/Proj/.DS_Store")) && E2E.exists(s.path("kept/mac/Proj/src/._main.c")))
        }
    }

    @Test func selectedEntriesOnly() throws {
        try E2E.withScratch { s in
            try Tree.makeRich(at: s.path("src/Tree"))
            #expect(try s.compress(["--format", "7z", s.path("src/Tree")]).status == 0)
            #expect(try s.compress(["--format", "tar.gz", s.path("src/Tree")]).status == 0)
            for format in ["7z", "tar.gz"] {
                let archive = s.path("src/Tree.\(format)")
                // One file.
                let one = try s.extract(["--to", s.path("one-\(format)"), "--entry", "Tree/top.txt", archive])
                #expect(one.status == 0, "\(one)")
                #expect(E2E.allPaths(under: s.path("one-\(format)")).sorted() == ["Tree", "Tree/top.txt"] ||
                        E2E.allPaths(under: s.path("one-\(format)")).sorted() == ["top.txt"], "\(E2E.allPaths(under: s.path("one-\(format)")).sorted())")
                // A folder selects everything under it (with a non-ASCII name).
                let folder = try s.extract(["--to", s.path("folder-\(format)"), "--entry", "Tree/a", "--entry=Tree/日本語", "--", archive])
                #expect(folder.status == 0, "\(folder)")
                let got = E2E.allPaths(under: s.path("folder-\(format)")).sorted()
                #expect(got == ["Tree", "Tree/a", "Tree/a/b", "Tree/a/b/c", "Tree/a/b/c/deep.txt", "Tree/a/b/up", "Tree/a/link",
                                "Tree/a/random.bin", "Tree/日本語", "Tree/日本語/ファイル.txt"], "\(got)")
                #expect(E2E.read(s.path("folder-\(format)/Tree/a/random.bin")) == E2E.read(s.path("src/Tree/a/random.bin")))
                // An unknown name: usage error naming a close match, nothing extracted.
                let unknown = try s.extract(["--to", s.path("none-\(format)"), "--entry", "Tree/top.tx", archive])
                #expect(unknown.status == 2, "\(unknown)")
                #expect(unknown.stderr.contains("Tree/top.txt"), "close match suggested: \(unknown.stderr)")
                #expect(E2E.list(s.path("none-\(format)")).isEmpty)
            }
            #expect(E2E.leftovers(under: s.root).isEmpty)
        }
    }

    @Test func severalArchivesInOneRun() throws {
        try E2E.withScratch { s in
            try s.mkdir("w")
            try tar(s, s.path("w/one.tar"), ["one/", "one/f.txt"])
            try tar(s, s.path("w/two.tar.gz"), ["a.txt", "b.txt"])
            let both = try s.extract(["--json", "--to", s.path("D"), s.path("w/one.tar"), s.path("w/two.tar.gz")])
            #expect(both.status == 0, "\(both)")
            #expect(E2E.list(s.path("D")) == ["one", "two"])
            #expect((both.json?["results"] as? [Any])?.count == 2)
            // One missing of two: exit 1, the good one extracted.
            let partial = try s.extract(["--to", s.path("P"), s.path("w/one.tar"), s.path("w/missing.tar")])
            #expect(partial.status == 1, "\(partial)")
            #expect(partial.stderr.contains("missing.tar"))
            #expect(E2E.list(s.path("P")) == ["one"])
        }
    }
}
