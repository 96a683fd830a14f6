import ArchiverTestSupport
import Foundation
import Testing

@Suite struct ToolRoundTripTests {
    @Test(arguments: ["zip", "7z", "tar", "tar.gz", "tar.bz2", "tar.xz", "tar.zst"])
    func oursToOurs(format: String) throws {
        let s = try ScratchDirectory("rt-\(format)")
        try E2E.makeTree(s.sub("Tree"))
        let made = try E2E.run("compress-with-archiver", ["--format", format, "--json", s.sub("Tree")])
        #expect(made.status == 0, "\(made.stderr)")
        let output = try #require((made.json?["outputs"] as? [[String: Any]])?.first?["path"] as? String)
        #expect(output == s.sub("Tree.\(format)"))
        let back = try E2E.run("extract-with-archiver", ["--to", s.sub("out"), output])
        #expect(back.status == 0, "\(back.stderr)")
        #expect(try TreeSnapshot.differences(expected: s.sub("Tree"), actual: s.sub("out/Tree")) == [])
    }

    /// zip stores such a name without the UTF-8 flag (as Info-ZIP does), tar as pax binary: both exactly.
    /// Reading back, tar gives the bytes as they were; zip's unflagged names are decoded in the code page
    /// that reads them best, here CP1252, so the file comes back as a proper UTF-8 “café.txt”.
    @Test(arguments: ["tar", "zip"])
    func nonUTF8FileNamesSurvive(format: String) throws {
        let s = try ScratchDirectory("latin1-\(format)")
        // The name is Latin-1, and so is the command-line argument naming it.
        let script = """
            import os, subprocess, sys, tarfile, zipfile
            d = sys.argv[2].encode()
            os.makedirs(d + b'/in'); open(d + b'/in/caf\\xe9.txt', 'w').write('latin-1 name')
            a = subprocess.run([sys.argv[1], '--format', sys.argv[4], d + b'/in/caf\\xe9.txt'], stdout=subprocess.DEVNULL)
            b = subprocess.run([sys.argv[3], '--to', d + b'/out', d + b'/in/caf\\xe9.' + sys.argv[4].encode()], stdout=subprocess.DEVNULL)
            print(a.returncode, b.returncode, os.listdir(d + b'/out'))
            print(open(os.path.join(d + b'/out', os.listdir(d + b'/out')[0])).read())
            # Other readers open the whole archive (a UTF-8 flag on these bytes made zipfile refuse it).
            archive = d + b'/in/caf\\xe9.' + sys.argv[4].encode()
            if sys.argv[4] == 'zip':
                print('others:', [i.filename.encode('cp437') for i in zipfile.ZipFile(os.fsdecode(archive)).infolist()])
            else:
                print('others:', [n.encode('utf-8', 'surrogateescape') for n in tarfile.open(os.fsdecode(archive)).getnames()])
            """
        let result = try E2E.python(script, [E2E.binDir + "/compress-with-archiver", s.path, E2E.binDir + "/extract-with-archiver", format])
        let extracted = format == "zip" ? #"0 0 [b'caf\xc3\xa9.txt']"# : #"0 0 [b'caf\xe9.txt']"#
        #expect(result.stdout.contains(extracted), "\(result.stdout)")
        #expect(result.stdout.contains("latin-1 name"))
        #expect(result.stdout.contains(#"others: [b'caf\xe9.txt']"#), "\(result.stdout)")
    }

    /// 7z holds Unicode names only: the file is stored, and the changed name is a warning (exit 1).
    @Test func nonUTF8NamesIn7zAreAWarning() throws {
        let s = try ScratchDirectory()
        let script = """
            import os, subprocess, sys
            d = sys.argv[2].encode()
            os.makedirs(d + b'/in/D'); open(d + b'/in/D/caf\\xe9.txt', 'w').write('latin-1 name')
            a = subprocess.run([sys.argv[1], '--format', '7z', d + b'/in/D'], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            print(a.returncode, a.stderr.decode('utf-8', 'replace'))
            """
        let result = try E2E.python(script, [E2E.binDir + "/compress-with-archiver", s.path])
        #expect(result.stdout.hasPrefix("1 "), "\(result.stdout)")
        #expect(result.stdout.contains("7z names are Unicode") && result.stdout.contains("Use zip or tar"), "\(result.stdout)")
        let listing = try E2E.run("/usr/bin/7zz", ["l", "-ba", s.sub("in/D.7z")])
        #expect(listing.stdout.contains("D/caf\u{FFFD}.txt"), "\(listing.stdout)")
    }
}

@Suite struct OursInOtherToolsTests {
    @Test func zipOpensInUnzip7zBsdtarAndPython() throws {
        let s = try ScratchDirectory()
        try E2E.makeTree(s.sub("Tree"))
        #expect(try E2E.run("compress-with-archiver", [s.sub("Tree")]).status == 0)
        let zip = s.sub("Tree.zip")
        #expect(try E2E.run("/usr/bin/unzip", ["-q", zip, "-d", s.sub("unzip")]).status == 0)
        #expect(try E2E.run("/usr/bin/7zz", ["x", "-snld", "-o" + s.sub("7zz"), zip]).status == 0)
        try FileManager.default.createDirectory(atPath: s.sub("bsdtar"), withIntermediateDirectories: true)
        #expect(try E2E.run("/usr/bin/bsdtar", ["-xf", zip, "-C", s.sub("bsdtar")]).status == 0)
        for tool in ["unzip", "7zz", "bsdtar"] {
            #expect(try TreeSnapshot.differences(expected: s.sub("Tree"), actual: s.sub("\(tool)/Tree")) == [], "\(tool)")
        }
        let check = try E2E.python(
            """
            import zipfile, sys
            z = zipfile.ZipFile(sys.argv[1]); assert z.testzip() is None
            for i in z.infolist():
                if any(ord(c) > 127 for c in i.filename): assert i.flag_bits & 0x800, i.filename
            print(sorted(i.filename for i in z.infolist() if not i.is_dir()))
            print(z.read('Tree/日本語/ファイル 🎉.txt').decode())
            """, [zip])
        #expect(check.stdout.contains("Tree/a/b/c/café é.txt"))
        #expect(check.stdout.contains("こんにちは"))
    }

    @Test func sevenZipOpensIn7zAndBsdtar() throws {
        let s = try ScratchDirectory()
        try E2E.makeTree(s.sub("Tree"))
        #expect(try E2E.run("compress-with-archiver", ["--format", "7z", s.sub("Tree")]).status == 0)
        #expect(try E2E.run("/usr/bin/7zz", ["t", s.sub("Tree.7z")]).status == 0)
        #expect(try E2E.run("/usr/bin/7zz", ["x", "-snld", "-o" + s.sub("7zz"), s.sub("Tree.7z")]).status == 0)
        try FileManager.default.createDirectory(atPath: s.sub("bsdtar"), withIntermediateDirectories: true)
        #expect(try E2E.run("/usr/bin/bsdtar", ["-xf", s.sub("Tree.7z"), "-C", s.sub("bsdtar")]).status == 0)
        // 7-Zip keeps the bytes and names; bsdtar everything.
        let sevenZipDiff = try TreeSnapshot.differences(
            expected: s.sub("Tree"), actual: s.sub("7zz/Tree"), .init(dirModes: false, symlinks: false))
        #expect(sevenZipDiff == [], "\(sevenZipDiff)")
        #expect(try TreeSnapshot.differences(expected: s.sub("Tree"), actual: s.sub("bsdtar/Tree")) == [])
    }

    @Test(arguments: ["tar", "tar.gz", "tar.bz2", "tar.xz", "tar.zst"])
    func tarsOpenInBsdtarGnuTarAndPython(format: String) throws {
        let s = try ScratchDirectory("tar-\(format)")
        try E2E.makeTree(s.sub("Tree"))
        #expect(try E2E.run("compress-with-archiver", ["--format", format, s.sub("Tree")]).status == 0)
        let archive = s.sub("Tree.\(format)")
        for tool in ["bsdtar", "gnutar", "python"] {
            try FileManager.default.createDirectory(atPath: s.sub(tool), withIntermediateDirectories: true)
        }
        #expect(try E2E.run("/usr/bin/bsdtar", ["-xf", archive, "-C", s.sub("bsdtar")]).status == 0)
        #expect(try E2E.run("/bin/tar", ["-xf", archive, "-C", s.sub("gnutar")]).status == 0)
        if format != "tar.zst" {  // Python 3.11's tarfile has no zstd
            try E2E.python("import tarfile,sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])", [archive, s.sub("python")])
            #expect(try TreeSnapshot.differences(expected: s.sub("Tree"), actual: s.sub("python/Tree")) == [])
        }
        #expect(try TreeSnapshot.differences(expected: s.sub("Tree"), actual: s.sub("bsdtar/Tree")) == [])
        #expect(try TreeSnapshot.differences(expected: s.sub("Tree"), actual: s.sub("gnutar/Tree")) == [])
    }
}

@Suite struct OtherToolsInOursTests {
    @Test func archivesMadeByOtherToolsExtract() throws {
        let s = try ScratchDirectory()
        try E2E.makeTree(s.sub("Tree"))
        let makers: [(String, String, [String])] = [
            ("7zz.7z", "/usr/bin/7zz", ["a", "-snl", s.sub("7zz.7z"), "Tree"]),
            ("7zz.zip", "/usr/bin/7zz", ["a", "-tzip", "-snl", s.sub("7zz.zip"), "Tree"]),
            ("infozip.zip", "/usr/bin/zip", ["-q", "-r", "-y", s.sub("infozip.zip"), "Tree"]),
            ("bsdtar.tar.gz", "/usr/bin/bsdtar", ["-czf", s.sub("bsdtar.tar.gz"), "Tree"]),
            ("bsdtar.tar.xz", "/usr/bin/bsdtar", ["-cJf", s.sub("bsdtar.tar.xz"), "Tree"]),
            ("bsdtar.tar.zst", "/usr/bin/bsdtar", ["--zstd", "-cf", s.sub("bsdtar.tar.zst"), "Tree"]),
            ("bsdtar.7z", "/usr/bin/bsdtar", ["--format", "7zip", "-cf", s.sub("bsdtar.7z"), "Tree"]),
        ]
        for (name, tool, arguments) in makers {
            #expect(try E2E.run(tool, arguments, in: s.path).status == 0, "\(name)")
            let out = s.sub("out-\(name)")
            let result = try E2E.run("extract-with-archiver", ["--to", out, s.sub(name)])
            #expect(result.status == 0, "\(name): \(result.stderr)")
            let diff = try TreeSnapshot.differences(expected: s.sub("Tree"), actual: out + "/Tree")
            // 7-Zip does not store Unix modes of folders it did not create; everything else must match.
            #expect(diff == [], "\(name):\n\(diff.joined(separator: "\n"))")
        }
    }

    @Test func pythonMadeArchivesExtract() throws {
        let s = try ScratchDirectory()
        try E2E.python(
            """
            import zipfile, tarfile, io, sys
            d = sys.argv[1]
            with zipfile.ZipFile(d + '/py.zip', 'w', zipfile.ZIP_DEFLATED) as z:
                z.writestr('py/ünïcode.txt', 'zip from python')
                z.writestr('py/sub/data.bin', bytes(range(256)) * 100)
            with tarfile.open(d + '/py.tar.bz2', 'w:bz2') as t:
                b = 'tar from python'.encode(); i = tarfile.TarInfo('py/ünïcode.txt'); i.size = len(b); i.mtime = 1500000000
                t.addfile(i, io.BytesIO(b))
            """, [s.path])
        #expect(try E2E.run("extract-with-archiver", ["--to", s.sub("z"), s.sub("py.zip")]).status == 0)
        #expect(try String(contentsOfFile: s.sub("z/py/ünïcode.txt"), encoding: .utf8) == "zip from python")
        #expect(try Data(contentsOf: URL(fileURLWithPath: s.sub("z/py/sub/data.bin"))) == Data((0..<25600).map { UInt8($0 % 256) }))
        #expect(try E2E.run("extract-with-archiver", ["--to", s.sub("t"), s.sub("py.tar.bz2")]).status == 0)
        #expect(try String(contentsOfFile: s.sub("t/py/ünïcode.txt"), encoding: .utf8) == "tar from python")
    }
}
