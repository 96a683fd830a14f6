import ArchiverTestSupport
import Foundation
import Testing

/// Encrypted rar through RARLAB's unrar, the only program that decrypts it. unrar is non-free: CI builds
/// one from source for these tests (scripts/build-test-unrar.sh) and names it in ARCHIVER_TEST_UNRAR;
/// without it, or without the fixtures, the tests say "skipped".
@Suite struct UnrarTests {
    static var installed: String? { TestUnrar.installed }
    static var unrar: String? { TestUnrar.program }

    /// Why these tests cannot run here, printed as the skip; nil when they can.
    static var missing: String? {
        if !RarFixtureTests.present { return "skipped: fixtures not present (\(RarFixtureTests.fixtures))" }
        return TestUnrar.missing
    }

    /// A PATH whose `unrar` records its arguments and environment in `record`, then runs the real one.
    static func recordingUnrar(_ s: ScratchDirectory) throws -> [String: String] {
        ["PATH": try TestUnrar.recordingFolder(in: s.path) + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")]
    }

    static func fixture(_ name: String) -> String { RarFixtureTests.fixtures + "/" + name }

    /// A copy of the RAR4 fixture at `path` with entries renamed by `names` (old name → new bytes,
    /// escaped for Python) and the plain stored ones in `links` turned into Unix symlinks to the given
    /// target; headers resized and their checksums made right. Hostile archives that RAR itself would
    /// not write, made without it.
    static func editedRar4(names: [String: String] = [:], links: [String: String] = [:], to path: String) throws {
        func python(_ pairs: [String: String]) -> String {
            "{" + pairs.map { "b'\($0.key)': b'\($0.value)'" }.joined(separator: ", ") + "}"
        }
        try E2E.python(
            """
            import os, struct, sys, zlib
            os.makedirs(os.path.dirname(sys.argv[2]), exist_ok=True)
            data = open(sys.argv[1], 'rb').read()
            names, links = \(python(names)), \(python(links))
            out, pos = bytearray(data[:7]), 7
            while pos < len(data):
                kind, flags, size = struct.unpack_from('<BHH', data, pos + 2)
                header = bytearray(data[pos:pos + size])
                length = struct.unpack_from('<I', data, pos + 7)[0] if kind == 0x74 or flags & 0x8000 else 0
                body = data[pos + size:pos + size + length]
                if kind == 0x74:
                    count = struct.unpack_from('<H', header, 26)[0]
                    old = bytes(header[32:32 + count])
                    if old in links:
                        # Stored data is the link target; host 3 is Unix, whose mode says symlink.
                        body = links[old]
                        struct.pack_into('<IIBI', header, 7, len(body), len(body), 3, zlib.crc32(body))
                        struct.pack_into('<I', header, 28, 0o120777)
                    new = names.get(old, old)
                    header[32:32 + count] = new
                    struct.pack_into('<H', header, 26, len(new))
                    struct.pack_into('<H', header, 5, len(header))
                    struct.pack_into('<H', header, 0, zlib.crc32(bytes(header[2:])) & 0xFFFF)
                out += header + body
                pos += size + length
            open(sys.argv[2], 'wb').write(out)
            """, [fixture("rar4_encrypted.rar"), path])
    }

    static func text(_ path: String) -> String? { try? String(contentsOfFile: path, encoding: .utf8) }

    /// b.txt opens with `password`, d.txt with `password2`: the files that one password opens are
    /// extracted, the other is a warning (exit 1), and the password reaches unrar only on its standard input.
    @Test(arguments: ["rar4_encrypted.rar", "rar5_encrypted.rar"])
    func thePasswordOpensWhatItCanAndNeverShows(fixture: String) throws {
        if let missing = Self.missing { return print(missing) }
        let s = try ScratchDirectory("unrar-\(fixture)")
        let environment = try Self.recordingUnrar(s)
        let out = try E2E.run(
            "extract-with-archiver", ["--json", "--password-stdin", "--to", s.sub("out"), Self.fixture(fixture)],
            environment: environment, input: "password\n")
        #expect(out.status == 1, "\(out.stderr)")
        let folder = s.sub("out/" + fixture.replacingOccurrences(of: ".rar", with: ""))
        #expect(s.list("out/" + fixture.replacingOccurrences(of: ".rar", with: "")) == ["a.txt", "b.txt", "c.txt"])
        for name in ["a", "b", "c"] { #expect(Self.text(folder + "/\(name).txt") == "This is from \(name).txt") }
        let result = try #require((out.json?["results"] as? [[String: Any]])?.first)
        let warnings = result["warnings"] as? [String] ?? []
        #expect(warnings.count == 1 && warnings[0].contains("d.txt"), "\(warnings)")
        #expect(result["files"] as? Int == 3, "\(result)")

        let record = try #require(Self.text(s.sub("record")))
        #expect(record.contains("argv:"), "the recording unrar ran")
        #expect(!record.contains("password"), "\(record)")
        #expect(!out.stdout.contains("password\"") && !out.stderr.contains("password\n"))
    }

    @Test(arguments: ["rar4_encrypted.rar", "rar5_encrypted.rar"])
    func threeWrongPasswordsAreExit6AndWriteNothing(fixture: String) throws {
        if let missing = Self.missing { return print(missing) }
        let s = try ScratchDirectory("unrar-wrong-\(fixture)")
        let askpass = try PasswordTests.askpass(s, password: "not it")
        var environment = try Self.recordingUnrar(s)
        environment["ARCHIVER_ASKPASS"] = askpass
        let out = try E2E.run(
            "extract-with-archiver", ["--to", s.sub("out"), Self.fixture(fixture)], environment: environment)
        #expect(out.status == 6, "\(out.stderr)")
        #expect(out.stderr.contains("Wrong password for “\(fixture)”"), "\(out.stderr)")
        #expect(PasswordTests.asked(s).count == 3, "\(PasswordTests.asked(s))")
        #expect(s.list("out").isEmpty)
        #expect(!(Self.text(s.sub("record")) ?? "").contains("not it"))
    }

    /// `--entry` is checked against the entry asked for: d.txt opens with its own password, and a plain
    /// entry needs none at all.
    @Test func anEntryIsCheckedWithItsOwnPasswordOrNone() throws {
        if let missing = Self.missing { return print(missing) }
        let s = try ScratchDirectory()
        let environment = try Self.recordingUnrar(s)
        let archive = Self.fixture("rar5_encrypted.rar")
        let d = try E2E.run(
            "extract-with-archiver", ["--password-stdin", "--entry", "d.txt", "--to", s.sub("d"), archive],
            environment: environment, input: "password2\n")
        #expect(d.status == 0, "\(d.stderr)")
        #expect(Self.text(s.sub("d/d.txt")) == "This is from d.txt")

        // No way to ask (stdin is /dev/null, no helper): it works only because nothing is asked.
        let a = try E2E.run("extract-with-archiver", ["--entry", "a.txt", "--to", s.sub("a"), archive], environment: environment)
        #expect(a.status == 0, "\(a.stderr)")
        #expect(s.list("a") == ["a.txt"])

        let unknown = try E2E.run(
            "extract-with-archiver", ["--password-stdin", "--entry", "e.txt", "--to", s.sub("e"), archive],
            environment: environment, input: "password\n")
        #expect(unknown.status != 0 && unknown.stderr.contains("no entry “e.txt”"), "\(unknown.stderr)")
        #expect(s.list("e").isEmpty)
    }

    /// A RAR5 with one password for everything (the sample of the PyPI package unrar is built from, kept
    /// beside it by scripts/build-test-unrar.sh), opened as from a file manager: asked once through the
    /// askpass helper, all of it extracted beside the archive, exit 0.
    @Test func aOnePasswordRar5OpensThroughTheAskpassHelper() throws {
        guard let unrar = Self.unrar else { return print("skipped: unrar not installed") }
        let sample = URL(fileURLWithPath: unrar).deletingLastPathComponent().appendingPathComponent("samples/test_rar_pwd.rar").path
        guard FileManager.default.fileExists(atPath: sample) else {
            return print("skipped: no sample beside \(unrar) (scripts/build-test-unrar.sh keeps one)")
        }
        let s = try ScratchDirectory()
        try FileManager.default.createDirectory(atPath: s.sub("mail"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: sample, toPath: s.sub("mail/Report.rar"))
        var environment = try Self.recordingUnrar(s)
        environment["ARCHIVER_ASKPASS"] = try PasswordTests.askpass(s, password: "test")
        let out = try E2E.run("extract-with-archiver", ["--json", s.sub("mail/Report.rar")], environment: environment)
        #expect(out.status == 0, "\(out.stderr)")
        #expect(PasswordTests.asked(s) == ["Password for “Report.rar”"])
        #expect(s.list("mail") == ["Report.rar", "test_file.txt"])
        #expect(Self.text(s.sub("mail/test_file.txt")) == "This is a test file of unrar2-cffi\n")
        let arguments = (Self.text(s.sub("record")) ?? "").split(separator: "\n").filter { $0.hasPrefix("argv:") }
        #expect(!arguments.isEmpty)
        #expect(!arguments.contains { $0.split(separator: " ").contains { $0 == "test" || $0 == "-ptest" } }, "\(arguments)")
    }

    /// Names that would take unrar elsewhere: an entry climbing out with `..` is refused and nothing
    /// lands outside; a name starting with @ is a name, not a list file; a selected name that is also a
    /// folder where we run is not taken for the destination.
    @Test func namesThatWouldMisleadUnrarAreTakenAsNames() throws {
        if let missing = Self.missing { return print(missing) }
        let s = try ScratchDirectory()
        let environment = try Self.recordingUnrar(s)
        try Self.editedRar4(names: ["a.txt": "../../a.txt", "c.txt": "@c.txt"], to: s.sub("in/hostile.rar"))
        let out = try E2E.run(
            "extract-with-archiver", ["--json", "--password-stdin", "--to", s.sub("out"), s.sub("in/hostile.rar")],
            environment: environment, input: "password\n")
        #expect(out.status == 1, "\(out.stderr)")
        #expect(s.list("out/hostile") == ["@c.txt", "b.txt"])
        #expect(Self.text(s.sub("out/hostile/@c.txt")) == "This is from c.txt")
        #expect(s.list().filter { $0.hasSuffix(".txt") }.isEmpty && s.list("in") == ["hostile.rar"])
        let result = try #require((out.json?["results"] as? [[String: Any]])?.first)
        let refused = (result["refused"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
        #expect(refused == ["../../a.txt"], "\(result)")

        try FileManager.default.createDirectory(atPath: s.sub("cwd/@c.txt"), withIntermediateDirectories: true)
        let picked = try E2E.run(
            "extract-with-archiver", ["--password-stdin", "--entry", "@c.txt", "--to", s.sub("picked"), s.sub("in/hostile.rar")],
            in: s.sub("cwd"), environment: environment, input: "password\n")
        #expect(picked.status == 0, "\(picked.stderr)")
        #expect(s.list("picked") == ["@c.txt"])
        #expect(Self.text(s.sub("picked/@c.txt")) == "This is from c.txt")
    }

    /// A symlink out of the destination is never made, whether unrar skips it (and says so, or not) or
    /// makes it; a link that stays inside is kept.
    @Test func linksOutOfTheDestinationAreRefused() throws {
        if let missing = Self.missing { return print(missing) }
        let s = try ScratchDirectory()
        try Self.editedRar4(
            names: ["a.txt": "out", "c.txt": "in"], links: ["a.txt": "../../../etc/passwd", "c.txt": "b.txt"],
            to: s.sub("in/links.rar"))
        let out = try E2E.run(
            "extract-with-archiver", ["--json", "--password-stdin", "--to", s.sub("out"), s.sub("in/links.rar")],
            environment: try Self.recordingUnrar(s), input: "password\n")
        #expect(out.status == 1, "\(out.stderr)")
        #expect(s.list("out/links") == ["b.txt", "in"])
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: s.sub("out/links/in"))) == "b.txt")
        let result = try #require((out.json?["results"] as? [[String: Any]])?.first)
        let refused = (result["refused"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
        #expect(refused == ["out"], "\(result)")
        #expect(result["symlinks"] as? Int == 1, "\(result)")
    }

    /// unrar prints names as they are: a line break in one could forge a listing line, so such an
    /// archive is refused before anything is written.
    @Test func aLineBreakInANameIsRefused() throws {
        if let missing = Self.missing { return print(missing) }
        let s = try ScratchDirectory()
        try Self.editedRar4(names: ["c.txt": "c\\n        Name: ../x.txt"], to: s.sub("in/forged.rar"))
        let out = try E2E.run(
            "extract-with-archiver", ["--password-stdin", "--to", s.sub("out"), s.sub("in/forged.rar")],
            environment: try Self.recordingUnrar(s), input: "password\n")
        #expect(out.status == 5, "\(out.stderr)")
        #expect(out.stderr.contains("line break"), "\(out.stderr)")
        #expect(s.list("out").isEmpty)
    }

    /// libarchive does not flag rar5's encrypted entries; unrar's listing does.
    @Test func listingMarksRar5EncryptedEntries() throws {
        if let missing = Self.missing { return print(missing) }
        let s = try ScratchDirectory()
        let listed = try E2E.run(
            "extract-with-archiver", ["--list", "--json", Self.fixture("rar5_encrypted.rar")],
            environment: try Self.recordingUnrar(s))
        #expect(listed.status == 0, "\(listed.stderr)")
        let entries = ((listed.json?["archives"] as? [[String: Any]])?.first?["entries"] as? [[String: Any]]) ?? []
        #expect(entries.map { $0["path"] as? String ?? "" } == ["a.txt", "b.txt", "c.txt", "d.txt"])
        #expect(entries.map { $0["encrypted"] as? Bool ?? false } == [false, true, false, true])
        #expect(entries.map { $0["size"] as? Int ?? -1 } == [18, 18, 18, 18])
    }

    /// A rar comment is the comment and never part of the listing: unrar prints it before its listing, which
    /// it could imitate line by line (here as an encrypted entry, which would hand the archive to unrar and
    /// list a file that is not there). The archive is made header by header; no fixture has a comment.
    @Test func aCommentIsShownAndNeverReadAsEntries() throws {
        guard Self.unrar != nil else { return print("skipped: unrar not installed (set ARCHIVER_TEST_UNRAR; see scripts/build-test-unrar.sh)") }
        let s = try ScratchDirectory()
        let fake = "Read me\n\n        Name: injected.txt\n        Type: File\n        Size: 5\n Packed size: 5\n       Ratio: 100%\n       Flags: encrypted\n"
        try HandmadeRar.make(s.sub("fake.rar"), name: "notes.txt", text: "hello rar\n", comment: fake)
        let listed = try E2E.run("extract-with-archiver", ["--list", "--json", s.sub("fake.rar")], environment: try Self.recordingUnrar(s))
        #expect(listed.status == 0, "\(listed.stderr)")
        let archive = (listed.json?["archives"] as? [[String: Any]])?.first
        #expect((archive?["entries"] as? [[String: Any]])?.map { $0["path"] as? String ?? "" } == ["notes.txt"], "\(listed.stdout)")
        #expect(archive?["comment"] as? String == fake)
        #expect((Self.text(s.sub("record")) ?? "").contains(" -c- "), "unrar was asked, without the comment")
    }

    /// With unrar installed, archives without encryption still go through libarchive, sets included.
    @Test func plainSetsStillExtract() throws {
        if let missing = Self.missing { return print(missing) }
        let s = try ScratchDirectory()
        let environment = try Self.recordingUnrar(s)
        let out = try E2E.run(
            "extract-with-archiver", ["--json", "--to", s.sub("out"), Self.fixture("rar5_multiarchive.part03.rar")],
            environment: environment)
        #expect(out.status == 0, "\(out.stderr)")
        let result = try #require((out.json?["results"] as? [[String: Any]])?.first)
        #expect(result["format"] as? String == "RAR5", "\(result)")
        #expect(result["bytes"] as? Int == 144_608 + 365_672, "\(result)")
        #expect((Self.text(s.sub("record")) ?? "").contains("argv: lt -v"), "unrar was asked about encryption")
    }
}
