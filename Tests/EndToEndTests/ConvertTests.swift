import ArchiverTestSupport
import Foundation
import Testing

/// `compress-with-archiver --convert`: the entries of one archive written into another format beside it,
/// compared with what bsdtar extracts from the source; what a target cannot hold is left out by name.
@Suite struct ConvertTests {
    /// A tar.gz (Python's tarfile) holding a folder, a file, a symlink, a hard link and a name that is not UTF-8.
    static func source(_ s: ScratchDirectory) throws -> String {
        try E2E.python(
            """
            import os, sys
            root = sys.argv[1]
            os.makedirs(os.path.join(root, 'tree/sub'))
            with open(os.path.join(root, 'tree/sub/a.txt'), 'w') as f: f.write('alpha ' * 3000)
            os.chmod(os.path.join(root, 'tree/sub/a.txt'), 0o640)
            os.link(os.path.join(root, 'tree/sub/a.txt'), os.path.join(root, 'tree/same.txt'))
            os.symlink('sub/a.txt', os.path.join(root, 'tree/link'))
            with open(os.path.join(root.encode(), b'tree/caf\\xe9.txt'), 'wb') as f: f.write(b'latin-1')
            for dirpath, dirs, files in os.walk(root):
                for n in dirs + files: os.utime(os.path.join(dirpath, n), (1600000000, 1600000000), follow_symlinks=False)
            os.utime(root + '/tree', (1600000000, 1600000000))
            import tarfile
            # In this order, so that same.txt is the hard link; GNU headers keep the Latin-1 name's bytes.
            with tarfile.open(sys.argv[2], 'w:gz', format=tarfile.GNU_FORMAT, encoding='utf-8', errors='surrogateescape') as t:
                for name in ['tree', 'tree/sub', 'tree/sub/a.txt', 'tree/same.txt', 'tree/link', os.fsdecode(b'tree/caf\\xe9.txt')]:
                    t.add(os.path.join(root, name), arcname=name, recursive=False)
            """, [s.sub("src"), s.sub("tree.tar.gz")])
        return s.sub("tree.tar.gz")
    }

    /// What bsdtar extracts from `archive`, into `folder`.
    static func extracted(_ archive: String, into folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let out = try E2E.run("/usr/bin/bsdtar", ["-xf", archive, "-C", folder])
        #expect(out.status == 0, "bsdtar -xf \(archive): \(out.stderr)")
    }

    @Test(arguments: [
        ("tar", [String]()), ("tar.xz", []), ("zip", ["tree/same.txt"]), ("7z", ["tree/link", "tree/same.txt", "tree/caf\u{FFFD}.txt"]),
    ])
    func aTarGzConvertsToEachFormatLeavingOutOnlyWhatItCannotHold(format: String, leftOut: [String]) throws {
        let s = try ScratchDirectory("convert-\(format)")
        let source = try Self.source(s)
        let out = try E2E.run("compress-with-archiver", ["--convert", "--format", format, "--json", source])
        #expect(out.status == (leftOut.isEmpty ? 0 : 1), "\(format): \(out.stderr)")
        let converted = s.sub("tree.\(format)")
        #expect(E2E.exists(converted), "\(s.list(""))")
        for name in leftOut where !name.contains("\u{FFFD}") {
            #expect(out.stderr.contains("Left out “\(name)”: \(format) cannot hold it"), "\(format): \(out.stderr)")
        }
        #expect(out.stderr.components(separatedBy: "Left out").count - 1 == leftOut.count, "\(out.stderr)")
        try Self.extracted(source, into: s.sub("want"))
        try Self.extracted(converted, into: s.sub("got"))
        for name in leftOut {
            if name.contains("\u{FFFD}") {
                try E2E.python("import os, sys\nos.remove(os.path.join(sys.argv[1].encode(), b'tree/caf\\xe9.txt'))", [s.sub("want")])
            } else {
                try FileManager.default.removeItem(atPath: s.sub("want/\(name)"))
            }
        }
        let differences = try TreeSnapshot.differences(expected: s.sub("want"), actual: s.sub("got"))
        #expect(differences.isEmpty, "\(format): \(differences)")
        #expect(try E2E.run("extract-with-archiver", ["--test", converted]).status == 0)
    }

    @Test func aZipConvertsToTarZstAndNothingIsOverwritten() throws {
        let s = try ScratchDirectory()
        try E2E.python(
            "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:\n    z.writestr('d/a.txt', 'a' * 5000)\n    z.writestr('d/e/', '')\n    z.writestr('b.txt', 'bee')",
            [s.sub("x.zip")])
        #expect(try E2E.run("/usr/bin/bsdtar", ["-cf", s.sub("x.tar.zst"), "--zstd", "-C", "/etc", "hostname"]).status == 0)
        let out = try E2E.run("compress-with-archiver", ["--convert", "--format", "tar.zst", s.sub("x.zip")])
        #expect(out.status == 0, "\(out.stderr)")
        #expect(s.list("").sorted() == ["x (2).tar.zst", "x.tar.zst", "x.zip"], "never over an existing file")
        try Self.extracted(s.sub("x.zip"), into: s.sub("want"))
        try Self.extracted(s.sub("x (2).tar.zst"), into: s.sub("got"))
        #expect(try TreeSnapshot.differences(expected: s.sub("want"), actual: s.sub("got")).isEmpty)
        // Into zip again, encrypted only when asked.
        let plain = try E2E.run("compress-with-archiver", ["--convert", "--format", "zip", s.sub("x (2).tar.zst")])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(try E2E.run("/usr/bin/7zz", ["t", "-p", s.sub("x (2).zip")]).status == 0, "no password")
        let locked = try E2E.run("compress-with-archiver", ["--convert", "--format", "zip", "--encrypt", "--password-stdin", s.sub("x.tar.zst")], input: "pw\n")
        #expect(locked.status == 0, "\(locked.stderr)")
        #expect(try E2E.run("/usr/bin/7zz", ["t", "-ppw", s.sub("x (3).zip")]).status == 0)
        #expect(try E2E.run("/usr/bin/7zz", ["t", "-pwrong", s.sub("x (3).zip")]).status != 0)
    }

    /// Into zip through our own container, as compressing writes it: no data descriptors, a file larger than
    /// the whole-member limit deflated on every core, and the comment in the end record (`unzip -z`, 7-Zip);
    /// an AES target too, its files encrypted as they stream in (the large one as its blocks come back).
    @Test func aConvertedZipIsOurContainerWithItsComment() throws {
        let s = try ScratchDirectory()
        try FileManager.default.createDirectory(atPath: s.sub("src/d"), withIntermediateDirectories: true)
        try Data((0..<600_000).map { "line \($0)\n" }.joined().utf8).write(to: URL(fileURLWithPath: s.sub("src/d/big.txt")))
        try Data("small".utf8).write(to: URL(fileURLWithPath: s.sub("src/d/a.txt")))
        try FileManager.default.createSymbolicLink(atPath: s.sub("src/d/link"), withDestinationPath: "a.txt")
        #expect(try E2E.run("/usr/bin/bsdtar", ["-czf", s.sub("x.tar.gz"), "-C", s.sub("src"), "d"]).status == 0)
        let out = try E2E.run("compress-with-archiver", ["--convert", "--format", "zip", "--comment", "Grüße aus dem Archiv", s.sub("x.tar.gz")])
        #expect(out.status == 0, "\(out.stderr)")
        #expect(try E2E.run("/usr/bin/unzip", ["-z", s.sub("x.zip")]).stdout.contains("Grüße aus dem Archiv"))
        #expect(try E2E.run("/usr/bin/unzip", ["-tq", s.sub("x.zip")]).status == 0)
        #expect(try E2E.run("/usr/bin/7zz", ["t", s.sub("x.zip")]).status == 0)
        let flags = try E2E.python(
            "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1]) as z:\n    print(sorted((i.filename, i.flag_bits & 8, i.compress_type) for i in z.infolist()))",
            [s.sub("x.zip")]
        ).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(flags == "[('d/', 0, 0), ('d/a.txt', 0, 8), ('d/big.txt', 0, 8), ('d/link', 0, 0)]", "\(flags)")
        try Self.extracted(s.sub("x.tar.gz"), into: s.sub("want"))
        try Self.extracted(s.sub("x.zip"), into: s.sub("got"))
        #expect(try TreeSnapshot.differences(expected: s.sub("want"), actual: s.sub("got")).isEmpty)

        let locked = try E2E.run(
            "compress-with-archiver", ["--convert", "--format", "zip", "--encrypt", "--password-stdin", "--comment", "locked", s.sub("x.tar.gz")],
            input: "pw\n")
        #expect(locked.status == 0, "\(locked.stderr)")
        #expect(try E2E.run("/usr/bin/unzip", ["-z", s.sub("x (2).zip")]).stdout.contains("locked"))
        #expect(try E2E.run("/usr/bin/7zz", ["t", "-ppw", s.sub("x (2).zip")]).status == 0)
        #expect(try E2E.run("/usr/bin/7zz", ["t", "-pwrong", s.sub("x (2).zip")]).status != 0)
        let methods = try E2E.python(
            "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1]) as z:\n    print(sorted((i.filename, i.compress_type) for i in z.infolist()))",
            [s.sub("x (2).zip")]
        ).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(methods == "[('d/', 0), ('d/a.txt', 99), ('d/big.txt', 99), ('d/link', 0)]", "\(methods)")
    }

    @Test func anEncryptedZipAsksForItsPassword() throws {
        let s = try ScratchDirectory()
        try FileManager.default.createDirectory(atPath: s.sub("in/Docs"), withIntermediateDirectories: true)
        try Data("secret".utf8).write(to: URL(fileURLWithPath: s.sub("in/Docs/a.txt")))
        #expect(try E2E.run("compress-with-archiver", ["--encrypt", "--password-stdin", s.sub("in/Docs")], input: "pw\n").status == 0)
        let wrong = try E2E.run("compress-with-archiver", ["--convert", "--format", "tar", "--password-stdin", s.sub("in/Docs.zip")], input: "nope\n")
        #expect(wrong.status == 6, "\(wrong.stderr)")
        #expect(!E2E.exists(s.sub("in/Docs.tar")) && E2E.leftovers(under: s.sub("in")).isEmpty)
        let right = try E2E.run("compress-with-archiver", ["--convert", "--format", "tar", "--password-stdin", s.sub("in/Docs.zip")], input: "pw\n")
        #expect(right.status == 0, "\(right.stderr)")
        #expect(try E2E.run("/usr/bin/bsdtar", ["-xOf", s.sub("in/Docs.tar"), "Docs/a.txt"]).stdout == "secret")
    }

    /// Through 7-Zip, by way of a staging folder that is gone afterwards: the names are encrypted too.
    @Test(arguments: ["zip", "tar.gz"]) func a7zWithEncryptedNamesConverts(format: String) throws {
        let s = try ScratchDirectory("convert-7z-\(format)")
        try FileManager.default.createDirectory(atPath: s.sub("src/Docs/sub"), withIntermediateDirectories: true)
        try Data(String(repeating: "plans ", count: 3000).utf8).write(to: URL(fileURLWithPath: s.sub("src/Docs/sub/plans.txt")))
        try Data("b".utf8).write(to: URL(fileURLWithPath: s.sub("src/Docs/b.txt")))
        #expect(try E2E.run("/usr/bin/7zz", ["a", "-psesame", "-mhe=on", s.sub("in/x.7z"), s.sub("src/Docs")]).status == 0)
        let wrong = try E2E.run("compress-with-archiver", ["--convert", "--format", format, "--password-stdin", s.sub("in/x.7z")], input: "no\n")
        #expect(wrong.status == 6, "\(wrong.stderr)")
        let out = try E2E.run("compress-with-archiver", ["--convert", "--format", format, "--password-stdin", s.sub("in/x.7z")], input: "sesame\n")
        #expect(out.status == 0, "\(out.stderr)")
        #expect(s.list("in") == ["x.7z", "x.\(format)"], "no staging folder left: \(s.list("in"))")
        #expect(try E2E.run("/usr/bin/7zz", ["x", "-psesame", "-o" + s.sub("want"), s.sub("in/x.7z")]).status == 0)
        try Self.extracted(s.sub("in/x.\(format)"), into: s.sub("got"))
        #expect(try TreeSnapshot.differences(expected: s.sub("want"), actual: s.sub("got")).isEmpty)
    }

    @Test func aRarFixtureConvertsToZip() throws {
        guard RarFixtureTests.present else {
            print("skipped: fixtures not present (\(RarFixtureTests.fixtures))")
            return
        }
        let s = try ScratchDirectory()
        let rar = try s.copy(RarFixtureTests.fixtures + "/rar5_win32.rar", as: "w.rar")
        let out = try E2E.run("compress-with-archiver", ["--convert", "--format", "zip", rar])
        #expect(out.status == 0, "\(out.stderr)")
        try Self.extracted(rar, into: s.sub("want"))
        try Self.extracted(s.sub("w.zip"), into: s.sub("got"))
        #expect(try TreeSnapshot.differences(expected: s.sub("want"), actual: s.sub("got")).isEmpty)
    }
}
