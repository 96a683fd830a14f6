import ArchiverTestSupport
import Foundation
import Testing

/// Python checks a zip made by us against the source folder, entry by entry: every file, folder and
/// symlink present, contents and Unix modes equal, symlinks stored as symlinks, CRCs right, and the
/// UTF-8 flag (0x800) set on every non-ASCII name. Prints one problem a line; nothing when all is well.
private let pythonZipCheck = """
    import zipfile, sys, os, stat
    arc, src, prefix = sys.argv[1:4]
    errs = []
    z = zipfile.ZipFile(arc)
    bad = z.testzip()
    if bad: errs.append('bad CRC: ' + bad)
    names = {i.filename: i for i in z.infolist()}
    expected = {prefix: src}
    for dp, dns, fns in os.walk(src):
        for n in dns + fns:
            p = os.path.join(dp, n)
            expected[prefix + '/' + os.path.relpath(p, src)] = p
    for rel, p in sorted(expected.items()):
        st = os.lstat(p)
        key = rel + '/' if stat.S_ISDIR(st.st_mode) else rel
        info = names.pop(key, None)
        if info is None:
            errs.append('missing ' + key); continue
        mode = info.external_attr >> 16
        if not rel.isascii() and not (info.flag_bits & 0x800):
            errs.append('no UTF-8 flag on ' + rel)
        if info.create_system != 3:
            errs.append('not made by Unix: %s %d' % (rel, info.create_system))
        if stat.S_ISLNK(st.st_mode):
            if not stat.S_ISLNK(mode): errs.append('not stored as a symlink: %s (%o)' % (rel, mode))
            if z.read(info) != os.readlink(p).encode(): errs.append('symlink target differs: ' + rel)
        elif stat.S_ISDIR(st.st_mode):
            if not stat.S_ISDIR(mode): errs.append('not a directory: %s (%o)' % (rel, mode))
        else:
            if z.read(info) != open(p, 'rb').read(): errs.append('content differs: ' + rel)
            if mode & 0o7777 != st.st_mode & 0o7777: errs.append('mode %s %o != %o' % (rel, mode & 0o7777, st.st_mode & 0o7777))
            if not stat.S_ISREG(mode): errs.append('not a regular file: %s (%o)' % (rel, mode))
    for extra in names: errs.append('unexpected entry ' + extra)
    print('\\n'.join(errs))
    """

/// Python's tarfile checks a tar made by us against the source folder: types, contents, modes, mtimes,
/// symlink targets, UTF-8 names.
private let pythonTarCheck = """
    import tarfile, sys, os, stat
    arc, src, prefix = sys.argv[1:4]
    errs = []
    t = tarfile.open(arc, encoding='utf-8', errors='strict')
    members = {}
    for m in t.getmembers():
        members[m.name.rstrip('/')] = m
    expected = {prefix: src}
    for dp, dns, fns in os.walk(src):
        for n in dns + fns:
            p = os.path.join(dp, n)
            expected[prefix + '/' + os.path.relpath(p, src)] = p
    for rel, p in sorted(expected.items()):
        st = os.lstat(p)
        m = members.pop(rel, None)
        if m is None:
            errs.append('missing ' + rel); continue
        if stat.S_ISLNK(st.st_mode):
            if not m.issym(): errs.append('not a symlink: ' + rel)
            elif m.linkname != os.readlink(p): errs.append('symlink target differs: %s %s' % (rel, m.linkname))
        elif stat.S_ISDIR(st.st_mode):
            if not m.isdir(): errs.append('not a directory: ' + rel)
            if m.mode & 0o7777 != st.st_mode & 0o7777: errs.append('mode %s %o' % (rel, m.mode))
        else:
            if not m.isfile(): errs.append('not a file: ' + rel); continue
            if t.extractfile(m).read() != open(p, 'rb').read(): errs.append('content differs: ' + rel)
            if m.mode & 0o7777 != st.st_mode & 0o7777: errs.append('mode %s %o' % (rel, m.mode))
            if int(m.mtime) != int(st.st_mtime): errs.append('mtime %s %s %s' % (rel, m.mtime, st.st_mtime))
    for extra in members: errs.append('unexpected entry ' + extra)
    print('\\n'.join(errs))
    """

@Suite struct InteropOursToTheirsTests {
    @Test func ourZipOpensInUnzip7zzBsdtarAndPython() throws {
        try E2E.withScratch { s in
            try Tree.makeRich(at: s.path("Tree"))
            let made = try s.compress(["--format", "zip", s.path("Tree")])
            #expect(made.status == 0, "\(made)")
            let zip = s.path("Tree.zip")

            let unzipTest = try s.tool("/usr/bin/unzip", ["-tq", zip])
            #expect(unzipTest.status == 0, "\(unzipTest)")
            let unzip = try s.tool("/usr/bin/unzip", ["-q", zip, "-d", s.path("by-unzip")])
            #expect(unzip.status == 0, "\(unzip)")
            var problems = try TreeSnapshot.differences(expected: s.path("Tree"), actual: s.path("by-unzip/Tree"))
            #expect(problems.isEmpty, "unzip: \(problems.joined(separator: "\n"))")

            let sevenTest = try s.tool("/usr/bin/7zz", ["t", zip])
            #expect(sevenTest.status == 0, "\(sevenTest)")
            let seven = try s.tool("/usr/bin/7zz", ["x", "-y", "-snld", "-o" + s.path("by-7zz"), zip])
            #expect(seven.status == 0, "\(seven)")
            problems = try TreeSnapshot.differences(expected: s.path("Tree"), actual: s.path("by-7zz/Tree"), .init(modes: true, fileMTimes: true, mtimeTolerance: 2))
            #expect(problems.isEmpty, "7zz: \(problems.joined(separator: "\n"))")

            try s.mkdir("by-bsdtar")
            let bsdtar = try s.tool("/usr/bin/bsdtar", ["-xf", zip, "-C", s.path("by-bsdtar")])
            #expect(bsdtar.status == 0, "\(bsdtar)")
            problems = try TreeSnapshot.differences(expected: s.path("Tree"), actual: s.path("by-bsdtar/Tree"))
            #expect(problems.isEmpty, "bsdtar: \(problems.joined(separator: "\n"))")

            let python = try s.python(pythonZipCheck, [zip, s.path("Tree"), "Tree"])
            #expect(python.stdout.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "python zipfile: \(python.stdout)")
        }
    }

    /// Even with no locale at all our zip marks non-ASCII names as UTF-8 (Info-ZIP lists them right).
    @Test func ourZipNamesAreUTF8FlaggedForUnzip() throws {
        try E2E.withScratch { s in
            try s.write("Ordner/Ärger über Öl.txt", "ä")
            try s.write("Ordner/中文.txt", "中")
            #expect(try s.compress([s.path("Ordner")]).status == 0)
            let listing = try s.must("/usr/bin/unzip", ["-Z1", s.path("Ordner.zip")])
            #expect(listing.stdout.split(separator: "\n").map(String.init).sorted() == ["Ordner/", "Ordner/Ärger über Öl.txt", "Ordner/中文.txt"])
            let flags = try s.python(
                "import zipfile,sys\nprint(sorted((i.filename, bool(i.flag_bits & 0x800)) for i in zipfile.ZipFile(sys.argv[1]).infolist() if not i.filename.isascii()))",
                [s.path("Ordner.zip")])
            #expect(flags.stdout.contains("('Ordner/Ärger über Öl.txt', True)"), "\(flags.stdout)")
            #expect(flags.stdout.contains("('Ordner/中文.txt', True)"), "\(flags.stdout)")
        }
    }

    @Test func our7zOpensIn7zzAndBsdtar() throws {
        try E2E.withScratch { s in
            try Tree.makeRich(at: s.path("Tree"))
            let made = try s.compress(["--format", "7z", s.path("Tree")])
            #expect(made.status == 0, "\(made)")
            let archive = s.path("Tree.7z")
            let test = try s.tool("/usr/bin/7zz", ["t", archive])
            #expect(test.status == 0, "\(test)")
            let info = try s.must("/usr/bin/7zz", ["l", "-slt", archive])
            #expect(info.stdout.contains("Type = 7z"))
            #expect(info.stdout.contains("LZMA2"), "default 7z method is LZMA2: \(info.stdout.prefix(3000))")

            let seven = try s.tool("/usr/bin/7zz", ["x", "-y", "-snld", "-o" + s.path("by-7zz"), archive])
            #expect(seven.status == 0, "\(seven)")
            var problems = try TreeSnapshot.differences(expected: s.path("Tree"), actual: s.path("by-7zz/Tree"))
            #expect(problems.isEmpty, "7zz: \(problems.joined(separator: "\n"))")

            try s.mkdir("by-bsdtar")
            let bsdtar = try s.tool("/usr/bin/bsdtar", ["-xf", archive, "-C", s.path("by-bsdtar")])
            #expect(bsdtar.status == 0, "\(bsdtar)")
            problems = try TreeSnapshot.differences(expected: s.path("Tree"), actual: s.path("by-bsdtar/Tree"))
            #expect(problems.isEmpty, "bsdtar: \(problems.joined(separator: "\n"))")
        }
    }

    /// A tar.bz2 larger than one piece is written as several bzip2 streams, compressed on every core at
    /// once, one after another: bzip2, bsdtar, GNU tar, Python and 7-Zip all read it as one.
    @Test func ourTarBz2OfSeveralStreamsOpensEverywhere() throws {
        try E2E.withScratch("ourtar-bz2-streams") { s in
            try s.mkdir("Big")
            // 6 MB of text that compresses like real files, so the pieces are full blocks.
            try s.python("""
                import random, sys
                random.seed(3)
                words = [''.join(random.choice('abcdefghij') for _ in range(random.randint(2, 9))) for _ in range(5000)]
                for n in range(3):
                    with open(f"{sys.argv[1]}/part{n}.txt", "w") as f:
                        f.write(' '.join(random.choice(words) for _ in range(330000)))
                """, [s.path("Big")])
            let made = try s.compress(["--format", "tar.bz2", s.path("Big")])
            #expect(made.status == 0, "\(made)")
            let archive = s.path("Big.tar.bz2")
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: archive)))
            // Each stream starts byte-aligned with "BZh9" and the first block's magic.
            let start: [UInt8] = Array("BZh9".utf8) + [0x31, 0x41, 0x59, 0x26, 0x53, 0x59]
            let streams = (0...(bytes.count - start.count)).filter { bytes[$0] == 0x42 && Array(bytes[$0..<$0 + start.count]) == start }
            #expect(streams.count >= 3, "\(streams.count) streams")
            #expect(try s.tool("/usr/bin/bzip2", ["-t", archive]).status == 0)
            #expect(try s.tool("/usr/bin/7zz", ["t", "-bd", archive]).status == 0)
            for (tool, arguments) in [("/usr/bin/bsdtar", ["-xf", archive, "-C"]), ("/usr/bin/tar", ["-xf", archive, "-C"])] {
                let into = try s.mkdir("by-" + (tool as NSString).lastPathComponent)
                #expect(try s.tool(tool, arguments + [into]).status == 0)
                let problems = try TreeSnapshot.differences(expected: s.path("Big"), actual: into + "/Big", .full)
                #expect(problems.isEmpty, "\(tool): \(problems.joined(separator: "\n"))")
            }
            try s.python("import tarfile,sys\ntarfile.open(sys.argv[1]).extractall(sys.argv[2])", [archive, s.path("by-python")])
            let problems = try TreeSnapshot.differences(expected: s.path("Big"), actual: s.path("by-python/Big"))
            #expect(problems.isEmpty, "python: \(problems.joined(separator: "\n"))")
        }
    }

    @Test(arguments: ["tar", "tar.gz", "tar.bz2", "tar.xz", "tar.zst"])
    func ourTarsOpenInBsdtarGnuTarAndPython(format: String) throws {
        try E2E.withScratch("ourtar-\(format)") { s in
            try Tree.makeRich(at: s.path("Tree"))
            let made = try s.compress(["--format", format, s.path("Tree")])
            #expect(made.status == 0, "\(made)")
            let archive = s.path("Tree.\(format)")

            // The outer compression is what the name says.
            let kind = try s.must("/usr/bin/file", ["-b", archive])
            let expectedKind = ["tar": "tar archive", "tar.gz": "gzip", "tar.bz2": "bzip2", "tar.xz": "XZ", "tar.zst": "Zstandard"][format]!
            #expect(kind.stdout.contains(expectedKind), "\(format): file says \(kind.stdout)")

            try s.mkdir("by-bsdtar")
            let bsdtar = try s.tool("/usr/bin/bsdtar", ["-xf", archive, "-C", s.path("by-bsdtar")])
            #expect(bsdtar.status == 0, "\(bsdtar)")
            var problems = try TreeSnapshot.differences(expected: s.path("Tree"), actual: s.path("by-bsdtar/Tree"), .full)
            #expect(problems.isEmpty, "bsdtar: \(problems.joined(separator: "\n"))")

            try s.mkdir("by-gnutar")
            let gnu = try s.tool("/usr/bin/tar", ["-xf", archive, "-C", s.path("by-gnutar")])
            #expect(gnu.status == 0, "\(gnu)")
            #expect(!gnu.stderr.contains("Ignoring unknown extended header"), "\(gnu.stderr)")
            problems = try TreeSnapshot.differences(expected: s.path("Tree"), actual: s.path("by-gnutar/Tree"), .full)
            #expect(problems.isEmpty, "GNU tar: \(problems.joined(separator: "\n"))")

            // Python has no zstd: give it the decompressed tar.
            var forPython = archive
            if format == "tar.zst" {
                forPython = s.path("plain-from-zst.tar")
                try s.must("/usr/bin/zstd", ["-q", "-d", archive, "-o", forPython])
            }
            let python = try s.python(pythonTarCheck, [forPython, s.path("Tree"), "Tree"])
            #expect(python.stdout.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "python tarfile: \(python.stdout)")
            // And Python's extractall gives the same tree.
            try s.python("import tarfile,sys\ntarfile.open(sys.argv[1]).extractall(sys.argv[2])", [forPython, s.path("by-python")])
            problems = try TreeSnapshot.differences(expected: s.path("Tree"), actual: s.path("by-python/Tree"))
            #expect(problems.isEmpty, "python extractall: \(problems.joined(separator: "\n"))")
        }
    }
}

@Suite struct InteropTheirsToOursTests {
    struct Maker: CustomStringConvertible, Sendable {
        var name: String  // archive file name
        var program: String
        var arguments: [String]  // run in the folder holding Tree; "ARCHIVE" is replaced
        var compare: Tree.CompareKind
        var description: String { name }
    }

    static let makers: [Maker] = [
        Maker(name: "by-7zz.7z", program: "/usr/bin/7zz", arguments: ["a", "-snl", "ARCHIVE", "Tree"], compare: .exact),
        Maker(name: "by-7zz.zip", program: "/usr/bin/7zz", arguments: ["a", "-tzip", "-snl", "ARCHIVE", "Tree"], compare: .dosTime),
        Maker(name: "by-infozip.zip", program: "/usr/bin/zip", arguments: ["-r", "-y", "-q", "ARCHIVE", "Tree"], compare: .exact),
        Maker(name: "by-bsdtar.tar", program: "/usr/bin/bsdtar", arguments: ["-cf", "ARCHIVE", "Tree"], compare: .exact),
        Maker(name: "by-bsdtar.tar.gz", program: "/usr/bin/bsdtar", arguments: ["-czf", "ARCHIVE", "Tree"], compare: .exact),
        Maker(name: "by-bsdtar.tar.bz2", program: "/usr/bin/bsdtar", arguments: ["-cjf", "ARCHIVE", "Tree"], compare: .exact),
        Maker(name: "by-bsdtar.tar.xz", program: "/usr/bin/bsdtar", arguments: ["-cJf", "ARCHIVE", "Tree"], compare: .exact),
        Maker(name: "by-bsdtar.tar.zst", program: "/usr/bin/bsdtar", arguments: ["--zstd", "-cf", "ARCHIVE", "Tree"], compare: .exact),
        Maker(name: "by-bsdtar.zip", program: "/usr/bin/bsdtar", arguments: ["--format", "zip", "-cf", "ARCHIVE", "Tree"], compare: .exact),
        Maker(name: "by-bsdtar.7z", program: "/usr/bin/bsdtar", arguments: ["--format", "7zip", "-cf", "ARCHIVE", "Tree"], compare: .exact),
        Maker(name: "by-gnutar.tar.gz", program: "/usr/bin/tar", arguments: ["-czf", "ARCHIVE", "Tree"], compare: .exact),
        Maker(name: "by-gnutar-pax.tar.xz", program: "/usr/bin/tar", arguments: ["--format=pax", "-cJf", "ARCHIVE", "Tree"], compare: .exact),
        Maker(
            name: "by-python.tar.bz2", program: "/usr/bin/python3",
            arguments: ["-c", "import tarfile,sys\nwith tarfile.open(sys.argv[1], 'w:bz2') as t: t.add('Tree')", "ARCHIVE"],
            compare: .exact),
        Maker(
            name: "by-python-gnu.tar", program: "/usr/bin/python3",
            arguments: ["-c", "import tarfile,sys\nwith tarfile.open(sys.argv[1], 'w', format=tarfile.GNU_FORMAT) as t: t.add('Tree')", "ARCHIVE"],
            compare: .exact),
        Maker(
            name: "by-python.zip", program: "/usr/bin/python3",
            arguments: [
                "-c",
                """
                import zipfile, sys, os
                with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:
                    for dp, dns, fns in os.walk('Tree'):
                        z.write(dp)
                        for n in fns:
                            p = os.path.join(dp, n)
                            if not os.path.islink(p): z.write(p)
                """, "ARCHIVE",
            ],
            compare: .noSymlinks),
    ]

    @Test(arguments: makers)
    func theirArchiveExtractsWithOurs(maker: Maker) throws {
        try E2E.withScratch("theirs-\(maker.name)") { s in
            try Tree.makeRich(at: s.path("src/Tree"))
            let archive = s.path("archives/" + maker.name)
            try s.mkdir("archives")
            let made = try s.tool(maker.program, maker.arguments.map { $0 == "ARCHIVE" ? archive : $0 }, cwd: s.path("src"))
            #expect(made.status == 0, "could not make the archive: \(made)")

            let out = try s.extract(["--to", s.path("out"), archive])
            #expect(out.status == 0, "\(maker.name): \(out)")
            #expect(E2E.list(s.path("out")) == ["Tree"], "\(maker.name)")
            let problems = try TreeSnapshot.differences(expected: s.path("src/Tree"), actual: s.path("out/Tree"), maker.compare.options)
            #expect(problems.isEmpty, "\(maker.name): \(problems.joined(separator: "\n"))")
            #expect(E2E.leftovers(under: s.root).isEmpty)
        }
    }

    /// Single compressed files made by the reference tools.
    @Test(arguments: [("gzip", "gz"), ("bzip2", "bz2"), ("xz", "xz"), ("zstd", "zst")])
    func theirStreamExtractsWithOurs(program: String, suffix: String) throws {
        try E2E.withScratch("theirstream-\(suffix)") { s in
            var content = Data(String(repeating: "log line 42\n", count: 5000).utf8)
            content.append(SampleTree.randomData(1000))
            try s.write("dl/server.log", data: content)
            try s.must("/usr/bin/" + program, (program == "zstd" ? ["-q", "--rm"] : ["-q"]) + [s.path("dl/server.log")])  // replaces it with server.log.SUFFIX
            #expect(E2E.list(s.path("dl")) == ["server.log.\(suffix)"])
            let out = try s.extract([s.path("dl/server.log.\(suffix)")])
            #expect(out.status == 0, "\(out)")
            #expect(E2E.list(s.path("dl")) == ["server.log", "server.log.\(suffix)"])
            #expect(E2E.read(s.path("dl/server.log")) == content)
        }
    }
}

extension Tree {
    enum CompareKind: Sendable {
        case exact, dosTime, noSymlinks
        var options: TreeSnapshot.Compare {
            switch self {
            case .exact: return TreeSnapshot.Compare(modes: true, fileMTimes: true)
            case .dosTime: return TreeSnapshot.Compare(modes: true, fileMTimes: true, mtimeTolerance: 2)
            case .noSymlinks:
                // Python's zipfile stores no symlinks (the maker leaves them out).
                return TreeSnapshot.Compare(modes: true, fileMTimes: true, mtimeTolerance: 2, ignore: ["a/link", "a/b/up"])
            }
        }
    }
}
