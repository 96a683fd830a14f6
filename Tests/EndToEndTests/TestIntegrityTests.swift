import ArchiverTestSupport
import Foundation
import Testing

/// `extract-with-archiver --test`: every writable format read back intact; damage at the start, middle and
/// end named with exit 5; passwords; split sets; batches. Nothing is ever written beside the archive.
@Suite struct TestIntegrityTests {
    /// Three files (one of incompressible bytes) in a folder `Docs`.
    static func docs(_ s: ScratchDirectory) throws {
        try FileManager.default.createDirectory(atPath: s.sub("in/Docs/sub"), withIntermediateDirectories: true)
        try Data(String(repeating: "plans ", count: 5000).utf8).write(to: URL(fileURLWithPath: s.sub("in/Docs/plans.txt")))
        try SampleTree.randomData(40_000).write(to: URL(fileURLWithPath: s.sub("in/Docs/sub/noise.bin")))
        try Data("short".utf8).write(to: URL(fileURLWithPath: s.sub("in/Docs/sub/note.txt")))
    }

    static func test(_ archives: [String], input: String? = nil) throws -> (Outcome, [String: Any]?) {
        let out = try E2E.run("extract-with-archiver", ["--test", "--json"] + (input == nil ? [] : ["--password-stdin"]) + archives, input: input)
        return (out, E2E.json(out.stdout))
    }

    static func results(_ json: [String: Any]?) -> [[String: Any]] { json?["results"] as? [[String: Any]] ?? [] }

    /// Flips one byte at `offset` (negative: from the end).
    static func flip(_ path: String, at offset: Int) throws {
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        let index = offset < 0 ? data.count + offset : offset
        data[index] ^= 0xFF
        try data.write(to: URL(fileURLWithPath: path))
    }

    @Test func everyWritableFormatTestsIntactAndNothingIsWritten() throws {
        let s = try ScratchDirectory()
        try Self.docs(s)
        _ = try s.mkdir("out")
        for format in ["zip", "7z", "tar", "tar.gz", "tar.bz2", "tar.xz", "tar.zst"] {
            let made = try E2E.run("compress-with-archiver", ["--format", format, "--output", s.sub("out/Docs.\(format)"), s.sub("in/Docs")])
            #expect(made.status == 0, "\(format): \(made.stderr)")
        }
        for format in ["gz", "bz2", "xz", "zst"] {
            let made = try E2E.run(
                "compress-with-archiver", ["--format", format, "--output", s.sub("out/plans.txt.\(format)"), s.sub("in/Docs/plans.txt")])
            #expect(made.status == 0, "\(format): \(made.stderr)")
        }
        let before = s.list("out")
        for archive in before {
            let (out, json) = try Self.test([s.sub("out/\(archive)")])
            #expect(out.status == 0, "\(archive): \(out.stderr)")
            let result = Self.results(json).first
            #expect(E2E.int(result?["checked"]) == (archive.hasPrefix("plans") ? 1 : 3), "\(archive): \(out.stdout)")
            #expect((result?["damaged"] as? [Any])?.isEmpty == true, "\(archive)")
        }
        #expect(s.list("out") == before, "nothing written beside the archives")
        let person = try E2E.run("extract-with-archiver", ["--test", s.sub("out/Docs.zip")])
        #expect(person.stdout.contains("“Docs.zip”: all 3 files are intact."), "\(person.stdout)")
    }

    /// A stored zip (no inflater to notice first): one flipped byte in the first, middle or last member's
    /// data is found by its CRC-32, named, and the others still checked.
    @Test(arguments: [0, 1, 2]) func aFlippedByteInAZipMemberIsNamed(member: Int) throws {
        let s = try ScratchDirectory("flip-\(member)")
        let names = ["a.txt", "b.txt", "c.txt"]
        let offsets = try E2E.python(
            """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_STORED) as z:
                for n in ['a.txt', 'b.txt', 'c.txt']: z.writestr(n, (n * 2000).encode())
            with zipfile.ZipFile(sys.argv[1]) as z:
                print(' '.join(str(i.header_offset + 30 + len(i.filename) + len(i.extra) + 100) for i in z.infolist()))
            """, [s.sub("x.zip")]
        ).stdout.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        try #require(offsets.count == 3)
        try Self.flip(s.sub("x.zip"), at: offsets[member])
        #expect(try E2E.run("/usr/bin/7zz", ["t", s.sub("x.zip")]).status != 0, "7-Zip agrees that it is damaged")
        let (out, json) = try Self.test([s.sub("x.zip")])
        #expect(out.status == 5, "\(out.stderr)")
        #expect(out.stderr.contains("“x.zip” is damaged at “\(names[member])”"), "\(out.stderr)")
        #expect(out.stderr.contains("3 files checked"), "\(out.stderr)")
        let damaged = Self.results(json).first?["damaged"] as? [[String: Any]]
        #expect(damaged?.map { $0["path"] as? String } == [names[member]])
        #expect(E2E.int(Self.results(json).first?["checked"]) == 3)
    }

    /// A stored (uncompressed) rar member, RAR5 and RAR 2.9–4.x, with one flipped byte: libarchive checks no
    /// stored member's CRC-32 (`bsdtar -xOf` exits 0 on it), so the one in its header is compared here.
    @Test(arguments: [5, 4]) func aFlippedByteInAStoredRarMemberIsNamed(version: Int) throws {
        let s = try ScratchDirectory("rar\(version)")
        try E2E.python(
            PythonHelpers.prelude + """
                from handmade_rar import rar4, rar5
                d, write = sys.argv[1] + '/', rar5 if sys.argv[2] == '5' else rar4
                write(d + 'x.rar', 'a.txt', b'first member ' * 300, None, more=[('dir/b.txt', b'second member ' * 200)])
                data = bytearray(open(d + 'x.rar', 'rb').read())
                data[data.find(b'second member') + 50] ^= 0xFF
                open(d + 'bad.rar', 'wb').write(data)
                """, [s.path, String(version)])
        let (intact, intactJSON) = try Self.test([s.sub("x.rar")])
        #expect(intact.status == 0, "\(intact.stderr)")
        #expect(E2E.int(Self.results(intactJSON).first?["checked"]) == 2, "\(intact.stdout)")
        let (out, json) = try Self.test([s.sub("bad.rar")])
        #expect(out.status == 5, "\(out.stderr)")
        #expect(out.stderr.contains("“bad.rar” is damaged at “dir/b.txt”: a checksum does not match (2 files checked)."), "\(out.stderr)")
        let damaged = Self.results(json).first?["damaged"] as? [[String: Any]]
        #expect(damaged?.map { $0["path"] as? String } == ["dir/b.txt"], "\(out.stdout)")
        #expect(damaged?.first?["reasonCode"] as? String == "checksum")
    }

    @Test func aTruncatedTarGzAndABrokenCentralDirectoryAreDamaged() throws {
        let s = try ScratchDirectory()
        try Self.docs(s)
        #expect(try E2E.run("compress-with-archiver", ["--format", "tar.gz", "--output", s.sub("x.tar.gz"), s.sub("in/Docs")]).status == 0)
        let data = try Data(contentsOf: URL(fileURLWithPath: s.sub("x.tar.gz")))
        try data.prefix(data.count * 2 / 3).write(to: URL(fileURLWithPath: s.sub("cut.tar.gz")))
        let (cut, _) = try Self.test([s.sub("cut.tar.gz")])
        #expect(cut.status == 5, "\(cut.stderr)")
        #expect(cut.stderr.contains("“cut.tar.gz” is damaged"), "\(cut.stderr)")

        // A single gzip file whose CRC-32 (in its trailer) no longer matches its data, which inflates fine.
        #expect(try E2E.run("compress-with-archiver", ["--format", "gz", "--output", s.sub("plans.txt.gz"), s.sub("in/Docs/plans.txt")]).status == 0)
        try Self.flip(s.sub("plans.txt.gz"), at: -6)
        #expect(try E2E.run("/usr/bin/gzip", ["-t", s.sub("plans.txt.gz")]).status != 0, "gzip agrees")
        let (crc, crcJSON) = try Self.test([s.sub("plans.txt.gz")])
        #expect(crc.status == 5, "\(crc.stderr)")
        #expect((Self.results(crcJSON).first?["damaged"] as? [[String: Any]])?.first?["path"] as? String == "plans.txt")

        // The central directory's signature of the first entry, in a zip of three.
        #expect(try E2E.run("compress-with-archiver", ["--format", "zip", "--output", s.sub("x.zip"), s.sub("in/Docs")]).status == 0)
        var zip = try Data(contentsOf: URL(fileURLWithPath: s.sub("x.zip")))
        let central = try #require(zip.lastRange(of: Data([0x50, 0x4B, 0x01, 0x02])))
        // (A record that disagrees with its local header: the test below.)
        zip[central.lowerBound + 1] ^= 0xFF
        try zip.write(to: URL(fileURLWithPath: s.sub("x.zip")))
        let (broken, _) = try Self.test([s.sub("x.zip")])
        #expect(broken.status == 5, "\(broken.stderr)")
        #expect(broken.stderr.contains("damaged"), "\(broken.stderr)")
    }

    /// A central directory record whose packed size disagrees with its local header: libarchive and unzip
    /// read the local header and find nothing wrong, 7-Zip calls it a header error, and so do we, naming it.
    @Test func aCentralSizeThatDisagreesWithItsLocalHeaderIsNamed() throws {
        let s = try ScratchDirectory()
        try Self.docs(s)
        #expect(try E2E.run("compress-with-archiver", ["--format", "zip", "--output", s.sub("x.zip"), s.sub("in/Docs")]).status == 0)
        var zip = try Data(contentsOf: URL(fileURLWithPath: s.sub("x.zip")))
        let central = try #require(zip.range(of: Data([0x50, 0x4B, 0x01, 0x02])))
        let at = central.lowerBound
        let nameLength = Int(zip[at + 28]) | Int(zip[at + 29]) << 8
        let name = String(decoding: zip[(at + 46)..<(at + 46 + nameLength)], as: UTF8.self)
        zip[at + 20] &+= 1
        try zip.write(to: URL(fileURLWithPath: s.sub("x.zip")))
        #expect(try E2E.run("/usr/bin/7zz", ["t", s.sub("x.zip")]).status != 0, "7-Zip agrees that it is damaged")
        let (out, json) = try Self.test([s.sub("x.zip")])
        #expect(out.status == 5, "\(out.stderr)")
        #expect(out.stderr.contains("“x.zip” is damaged at “\(name)”"), "\(out.stderr)")
        let damaged = Self.results(json).first?["damaged"] as? [[String: Any]]
        #expect(damaged?.first?["path"] as? String == name)
        #expect(damaged?.first?["reasonCode"] as? String == "header-mismatch", "\(out.stdout)")
        #expect(damaged?.first?["reason"] as? String == "its central directory and its local header disagree")
        #expect((damaged?.first?["detail"] as? String)?.contains("packed") == true, "which field: \(out.stdout)")
    }

    /// What is wrong is said in our words, in German as in English, never with the reader's English inside the
    /// sentence; `--json` keeps the reader's own words apart, in `detail`, with a stable `reasonCode`.
    @Test func theReasonIsInOurWordsAndTheReadersStayInDetail() throws {
        let s = try ScratchDirectory()
        let offset = try E2E.python(
            """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_STORED) as z:
                for n in ['a.txt', 'b.txt', 'c.txt']: z.writestr(n, (n * 2000).encode())
            with zipfile.ZipFile(sys.argv[1]) as z:
                i = z.getinfo('b.txt')
                print(i.header_offset + 30 + len(i.filename) + len(i.extra) + 100)
            """, [s.sub("x.zip")]
        ).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try Self.flip(s.sub("x.zip"), at: try #require(Int(offset)))
        let german = try E2E.run("extract-with-archiver", ["--test", s.sub("x.zip")], environment: try TestLanguages.german())
        #expect(german.status == 5, "\(german.stderr)")
        #expect(german.stderr.contains("„x.zip“ ist bei „b.txt“ beschädigt: eine Prüfsumme stimmt nicht (3 Dateien geprüft)."), "\(german.stderr)")
        #expect(!german.stderr.contains("CRC"), "no reader's English in a German sentence: \(german.stderr)")
        let english = try E2E.run("extract-with-archiver", ["--test", s.sub("x.zip")])
        #expect(english.stderr.contains("“x.zip” is damaged at “b.txt”: a checksum does not match (3 files checked)."), "\(english.stderr)")

        let (_, json) = try Self.test([s.sub("x.zip")])
        let damaged = try #require((Self.results(json).first?["damaged"] as? [[String: Any]])?.first)
        #expect(damaged["path"] as? String == "b.txt")
        #expect(damaged["reason"] as? String == "a checksum does not match")
        #expect(damaged["reasonCode"] as? String == "checksum")
        #expect((damaged["detail"] as? String)?.contains("CRC") == true, "libarchive's own words: \(damaged)")
    }

    /// No false alarms from that comparison: zips by 7-Zip, Info-ZIP (also streamed, with data descriptors
    /// and Zip64), Python (Zip64 local headers, and data descriptors on a stream), libarchive and us test intact.
    @Test func untouchedZipsFromOtherToolsHaveNoHeaderMismatch() throws {
        let s = try ScratchDirectory()
        try Self.docs(s)
        let docs = s.sub("in/Docs")
        #expect(try Tool.run(["/usr/bin/7zz", "a", "-tzip", s.sub("7zz.zip"), docs]).status == 0)
        let infoZip = "cd '\(s.sub("in"))' && zip -qr ../infozip.zip Docs && zip -qr - Docs | cat > ../infozip-stream.zip"
        #expect(try Tool.run(["/bin/sh", "-c", infoZip]).status == 0)
        #expect(try Tool.run(["/usr/bin/bsdtar", "-a", "-cf", s.sub("bsdtar.zip"), "-C", s.sub("in"), "Docs"]).status == 0)
        _ = try E2E.python(
            """
            import os, sys, zipfile
            class Stream:
                def __init__(self, f): self.f = f
                def write(self, b): return self.f.write(b)
                def flush(self): self.f.flush()
            def add(z, force):
                for root, _, files in os.walk(sys.argv[1]):
                    for f in sorted(files):
                        path = os.path.join(root, f)
                        with open(path, 'rb') as i, z.open(os.path.relpath(path, sys.argv[1]), 'w', force_zip64=force) as o: o.write(i.read())
            with zipfile.ZipFile(sys.argv[2], 'w', zipfile.ZIP_DEFLATED) as z: add(z, True)
            with open(sys.argv[3], 'wb') as f, zipfile.ZipFile(Stream(f), 'w', zipfile.ZIP_DEFLATED) as z: add(z, False)
            """, [docs, s.sub("python-zip64.zip"), s.sub("python-stream.zip")])
        #expect(try E2E.run("compress-with-archiver", ["--format", "zip", "--output", s.sub("ours.zip"), docs]).status == 0)
        let zips = ["7zz.zip", "infozip.zip", "infozip-stream.zip", "bsdtar.zip", "python-zip64.zip", "python-stream.zip", "ours.zip"]
        for zip in zips {
            #expect(try E2E.run("/usr/bin/7zz", ["t", s.sub(zip)]).status == 0, "\(zip) is sound for 7-Zip")
            let (out, json) = try Self.test([s.sub(zip)])
            #expect(out.status == 0, "\(zip): \(out.stderr)")
            #expect((Self.results(json).first?["damaged"] as? [Any])?.isEmpty == true, "\(zip): \(out.stdout)")
        }
        // The streamed ones really have data descriptors, and the Python one Zip64 fields in its local headers.
        let flags = try E2E.python(
            """
            import struct, sys, zipfile
            for p in sys.argv[1:4]:
                with zipfile.ZipFile(p) as z: print(any(i.flag_bits & 8 for i in z.infolist()))
            with open(sys.argv[4], 'rb') as f: head = f.read(4096)
            n, e = struct.unpack('<HH', head[26:30])
            print(head[30 + n:34 + n] == b'\\x01\\x00\\x10\\x00')
            """, [s.sub("infozip-stream.zip"), s.sub("python-stream.zip"), s.sub("bsdtar.zip"), s.sub("python-zip64.zip")]
        ).stdout.split(separator: "\n").map(String.init)
        #expect(flags == ["True", "True", "True", "True"], "\(flags)")
    }

    /// Extraction checks a single gzip file's CRC-32 too (libarchive's filter never does): a damaged one extracts
    /// nothing, while a file of several members (`cat a.gz b.gz`, whose trailer is the last member's) extracts whole.
    @Test func extractingADamagedGzChecksItsCRCAndSeveralMembersStillExtract() throws {
        let s = try ScratchDirectory()
        try Self.docs(s)
        #expect(try E2E.run("compress-with-archiver", ["--format", "gz", "--output", s.sub("plans.txt.gz"), s.sub("in/Docs/plans.txt")]).status == 0)
        try Self.flip(s.sub("plans.txt.gz"), at: -6)
        let damaged = try E2E.run("extract-with-archiver", ["--to", s.sub("out"), s.sub("plans.txt.gz")])
        #expect(damaged.status == 5, "\(damaged.stderr)")
        #expect(damaged.stderr.contains("“plans.txt.gz” is damaged"), "\(damaged.stderr)")
        #expect(!FileManager.default.fileExists(atPath: s.sub("out/plans.txt")), "nothing under a final name")

        try Tool.run(["/bin/sh", "-c", "cd '\(s.path)' && printf 'one\\n' | gzip > two.txt.gz && printf 'two\\n' | gzip >> two.txt.gz"])
        let whole = try E2E.run("extract-with-archiver", ["--to", s.sub("out"), s.sub("two.txt.gz")])
        #expect(whole.status == 0, "\(whole.stderr)")
        #expect(try String(contentsOfFile: s.sub("out/two.txt"), encoding: .utf8) == "one\ntwo\n")
    }

    @Test func encryptedZipAnd7zWithTheRightAndAWrongPassword() throws {
        let s = try ScratchDirectory()
        try Self.docs(s)
        #expect(try E2E.run("compress-with-archiver", ["--encrypt", "--password-stdin", "--output", s.sub("x.zip"), s.sub("in/Docs")], input: "sesame\n").status == 0)
        #expect(try E2E.run("/usr/bin/7zz", ["a", "-psesame", "-mhe=on", s.sub("x.7z"), s.sub("in/Docs")]).status == 0)
        // Names readable, data encrypted: libarchive reads the names and meets the encryption, then 7-Zip tests.
        #expect(try E2E.run("/usr/bin/7zz", ["a", "-psesame", s.sub("y.7z"), s.sub("in/Docs")]).status == 0)
        for archive in ["x.zip", "x.7z", "y.7z"] {
            let (right, json) = try Self.test([s.sub(archive)], input: "sesame\n")
            #expect(right.status == 0, "\(archive): \(right.stderr)")
            #expect(E2E.int(Self.results(json).first?["checked"]) == 3, "\(archive): \(right.stdout)")
            let (wrong, _) = try Self.test([s.sub(archive)], input: "open\n")
            #expect(wrong.status == 6, "\(archive): \(wrong.stderr)")
            let none = try E2E.run("extract-with-archiver", ["--test", s.sub(archive)])
            #expect(none.status == 6, "\(archive): no way to ask: \(none.stderr)")
        }
        // Damage inside the encrypted 7z's data, found by 7-Zip and named.
        let size = try #require(E2E.size(s.sub("x.7z")))
        try Self.flip(s.sub("x.7z"), at: size / 3)
        let (damaged, json) = try Self.test([s.sub("x.7z")], input: "sesame\n")
        #expect(damaged.status == 5, "\(damaged.stderr)")
        #expect((Self.results(json).first?["damaged"] as? [[String: Any]])?.isEmpty == false, "\(damaged.stdout)")
        #expect(s.list("") == ["in", "x.7z", "x.zip", "y.7z"])
    }

    /// A 7z without encryption is read by libarchive alone, as bsdtar reads it, with no 7-Zip listing first
    /// (7-Zip is a stand-in on PATH here that notes each run); an encrypted one still goes to 7-Zip.
    @Test func aPlain7zIsTestedWithoutRunning7Zip() throws {
        let s = try ScratchDirectory()
        try Self.docs(s)
        #expect(try E2E.run("compress-with-archiver", ["--format", "7z", "--output", s.sub("plain.7z"), s.sub("in/Docs")]).status == 0)
        #expect(try E2E.run("/usr/bin/7zz", ["a", "-psesame", s.sub("locked.7z"), s.sub("in/Docs")]).status == 0)
        _ = try s.mkdir("bin")
        let log = s.sub("runs.log")
        try "#!/bin/sh\necho \"$1\" >> '\(log)'\nexec /usr/bin/7zz \"$@\"\n".write(toFile: s.sub("bin/7zz"), atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: s.sub("bin/7zz"))
        let path = ["PATH": s.sub("bin") + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin")]

        let plain = try E2E.run("extract-with-archiver", ["--test", s.sub("plain.7z")], environment: path)
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.stdout.contains("all 3 files are intact"), "\(plain.stdout)")
        #expect(!FileManager.default.fileExists(atPath: log), "7-Zip was not run for a plain 7z")

        let locked = try E2E.run("extract-with-archiver", ["--test", "--password-stdin", s.sub("locked.7z")], environment: path, input: "sesame\n")
        #expect(locked.status == 0, "\(locked.stderr)")
        #expect(locked.stdout.contains("all 3 files are intact"), "\(locked.stdout)")
        let runs = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(runs.split(separator: "\n").last == "t", "the encrypted one tested by 7-Zip: \(runs)")
    }

    @Test func aSplitSetTestsFromAnyPartAndAMissingPartIsNamed() throws {
        let s = try ScratchDirectory()
        try FileManager.default.createDirectory(atPath: s.sub("in/Big"), withIntermediateDirectories: true)
        try SampleTree.randomData(250_000).write(to: URL(fileURLWithPath: s.sub("in/Big/a.bin")))
        #expect(try E2E.run("compress-with-archiver", ["--split", "100k", "--format", "7z", s.sub("in/Big")]).status == 0)
        #expect(s.list("in") == ["Big", "Big.7z.001", "Big.7z.002", "Big.7z.003"])
        let (middle, _) = try Self.test([s.sub("in/Big.7z.002")])
        #expect(middle.status == 0, "\(middle.stderr)")
        try FileManager.default.removeItem(atPath: s.sub("in/Big.7z.002"))
        let (missing, _) = try Self.test([s.sub("in/Big.7z.003")])
        #expect(missing.status == 3, "\(missing.stderr)")
        #expect(missing.stderr.contains("Part “Big.7z.002”"), "\(missing.stderr)")
    }

    @Test func aBatchExitsOneWhenSomeAreDamagedAndFiveWhenAllAre() throws {
        let s = try ScratchDirectory()
        try Self.docs(s)
        for name in ["good", "bad1", "bad2"] {
            #expect(try E2E.run("compress-with-archiver", ["--format", "tar.xz", "--output", s.sub("\(name).tar.xz"), s.sub("in/Docs")]).status == 0)
        }
        for name in ["bad1", "bad2"] { try Self.flip(s.sub("\(name).tar.xz"), at: 2000) }
        let (some, json) = try Self.test([s.sub("good.tar.xz"), s.sub("bad1.tar.xz")])
        #expect(some.status == 1, "\(some.stderr)")
        #expect(Self.results(json).map { E2E.isNull($0["error"]) } == [true, false])
        let (all, _) = try Self.test([s.sub("bad1.tar.xz"), s.sub("bad2.tar.xz")])
        #expect(all.status == 5, "\(all.stderr)")
    }
}
