import ArchiverCore
import ArchiverTestSupport
import Foundation
import Platform
import SystemPackage
import Testing

@testable import ArchiveEngine

/// The edit engine on real archives made by other tools (Python's zipfile and tarfile, 7-Zip, bsdtar),
/// each change kind checked with those tools against the expected tree, and the untouched members'
/// raw bytes compared with the original's.
@Suite struct ArchiveEditorTests {
    /// ASCII: 7-Zip refuses other characters in a zip password.
    static let password = "pass word"

    /// Runs a tool; the test fails when it does.
    @discardableResult
    static func tool(_ argv: [String], in folder: String? = nil, ok: Bool = true, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let (status, output) = try Tool.run(argv, in: folder)
        if ok { #expect(status == 0, "\(argv.joined(separator: " ")): \(output)", sourceLocation: sourceLocation) }
        return output
    }

    static func python(_ script: String, _ arguments: [String] = []) throws -> String {
        try tool(["/usr/bin/python3", "-c", script] + arguments)
    }

    /// name → content (hex for files, "dir", "link:TARGET") of a zip, as Python's zipfile reads it, after
    /// its testzip() and with `password` for encrypted members (through 7-Zip, as zipfile has no AES).
    static func zipTree(_ zip: String) throws -> [String: String] {
        let out = try python(
            """
            import sys, zipfile, stat
            z = zipfile.ZipFile(sys.argv[1])
            assert z.testzip() is None
            for i in z.infolist():
                mode = i.external_attr >> 16
                if i.is_dir(): v = 'dir'
                elif stat.S_ISLNK(mode): v = 'link:' + z.read(i).decode()
                elif i.flag_bits & 1: v = 'encrypted'
                else: v = z.read(i).hex()
                print(i.filename + '\\t' + v)
            """, [zip])
        return Dictionary(uniqueKeysWithValues: out.split(separator: "\n").map {
            let parts = $0.split(separator: "\t", maxSplits: 1).map(String.init)
            return (parts[0], parts.count > 1 ? parts[1] : "")
        })
    }

    /// Raw name bytes (hex) → the member's raw bytes (hex) as they lie in the file: local header to the next member.
    static func rawMembers(_ zip: String) throws -> [String: String] {
        let out = try python(
            """
            import sys, zipfile
            z = zipfile.ZipFile(sys.argv[1])
            data = open(sys.argv[1], 'rb').read()
            infos = sorted(z.infolist(), key=lambda i: i.header_offset)
            ends = [i.header_offset for i in infos[1:]] + [z.start_dir]
            for i, end in zip(infos, ends):
                raw = i.orig_filename.encode('utf-8' if i.flag_bits & 0x800 else 'cp437')
                print(raw.hex() + '\\t' + data[i.header_offset:end].hex())
            """, [zip])
        return Dictionary(uniqueKeysWithValues: out.split(separator: "\n").compactMap {
            let parts = $0.split(separator: "\t").map(String.init)
            return parts.count == 2 ? (parts[0], parts[1]) : nil
        })
    }

    /// - Parameter aes: Info-ZIP's unzip has no AES; 7-Zip tests those.
    static func checkZip(_ zip: String, password: String? = nil, aes: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) throws {
        if !aes { try tool(["/usr/bin/unzip", "-tq"] + (password.map { ["-P", $0] } ?? []) + [zip], sourceLocation: sourceLocation) }
        try tool(["/usr/bin/7zz", "t", "-p\(password ?? "")", zip], sourceLocation: sourceLocation)
        try tool(["/usr/bin/bsdtar", "-tf", zip], sourceLocation: sourceLocation)
    }

    static func hex(_ text: String) -> String { Data(text.utf8).map { String(format: "%02x", $0) }.joined() }

    static func commit(_ archive: String, _ changes: [ArchiveEdit], replacing: Bool = false, password: String? = nil,
                       level: CompressionLevel = .normal, progress: @escaping (Int64, Int64?) -> Void = { _, _ in }) throws -> EditResult {
        let session = try ArchiveEditSession(archive: FilePath(archive))
        let asker = password.map { answer in PasswordAsker(attempts: 1) { _, _ in Secret(Array(answer.utf8)) } }
        return try session.commit(changes, replacing: replacing, level: level, passwords: asker, control: JobControl(), progress: progress)
    }

    static func b(_ s: String) -> [UInt8] { Array(s.utf8) }

    /// A zip by Python: a deflated and a stored member, a folder, a symlink, an archive comment.
    static func makeZip(_ scratch: ScratchDirectory, zip64: Bool = false) throws -> String {
        let zip = scratch.sub("x.zip")
        try python(
            """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], 'w') as z:
                z.comment = b'the comment'
                with z.open(zipfile.ZipInfo('a.txt'), 'w', force_zip64=\(zip64 ? "True" : "False")) as f: f.write(b'alpha ' * 1000)
                i = zipfile.ZipInfo('docs/'); i.external_attr = (0o40755 << 16) | 0x10; z.writestr(i, b'')
                z.writestr(zipfile.ZipInfo('docs/b.txt'), b'bravo', compress_type=zipfile.ZIP_STORED)
                i = zipfile.ZipInfo('link'); i.create_system = 3; i.external_attr = 0o120777 << 16; z.writestr(i, b'docs/b.txt')
                z.writestr('z.txt', b'zulu' * 100, compress_type=zipfile.ZIP_DEFLATED)
            """, [zip])
        return zip
    }

    @Test(arguments: [false, true])
    func zipEveryChangeKindCheckedByFourTools(zip64: Bool) throws {
        let scratch = try ScratchDirectory()
        let zip = try Self.makeZip(scratch, zip64: zip64)
        let before = try Self.rawMembers(zip)
        let new = try scratch.write("new.txt", "new content ".repeating(500))
        try FileManager.default.createDirectory(atPath: scratch.sub("folder/inner"), withIntermediateDirectories: true)
        _ = try scratch.write("folder/inner/deep.txt", "deep")
        let replacement = try scratch.write("replacement.txt", "replaced")

        let result = try Self.commit(zip, [
            .delete(Self.b("z.txt")), .rename(Self.b("a.txt"), to: Self.b("moved/a.txt")), .add(FilePath(new), at: Self.b("docs/new.txt")),
            .add(FilePath(scratch.sub("folder")), at: Self.b("folder")), .replaceContent(Self.b("docs/b.txt"), with: FilePath(replacement)),
            .setAttributes(Self.b("link"), mode: 0o700, modified: nil),
        ])
        #expect(result.output.string == zip && !result.savedBeside)
        #expect(result.deleted == [Self.b("z.txt")] && result.replaced == [Self.b("docs/b.txt")])
        try Self.checkZip(zip)
        #expect(try Self.zipTree(zip) == [
            "moved/a.txt": Self.hex("alpha ".repeating(1000)), "docs/": "dir", "docs/b.txt": Self.hex("replaced"),
            "link": "link:docs/b.txt", "docs/new.txt": Self.hex("new content ".repeating(500)), "folder/": "dir", "folder/inner/": "dir",
            "folder/inner/deep.txt": Self.hex("deep"),
        ])
        let after = try Self.rawMembers(zip)
        // Untouched: byte for byte; a chmod rewrites only the directory record.
        for name in ["docs/", "link"] { #expect(after[Self.hex(name)] == before[Self.hex(name)], "\(name)") }
        let comment = try Self.python("import sys, zipfile; print(zipfile.ZipFile(sys.argv[1]).comment.decode())", [zip])
        #expect(comment.hasPrefix("the comment"))
        let mode = try Self.python("import sys, zipfile; print(oct(zipfile.ZipFile(sys.argv[1]).getinfo('link').external_attr >> 16))", [zip])
        #expect(mode.hasPrefix("0o120700"))
        #expect(try Self.tool(["/usr/bin/7zz", "x", "-so", zip, "moved/a.txt"]).contains("alpha alpha"))
    }

    @Test func legacyCodePageNamesStayByteForByte() throws {
        let scratch = try ScratchDirectory()
        let zip = scratch.sub("x.zip")
        // Info-ZIP stores a name that is not UTF-8 as its bytes, without the UTF-8 flag: “Ärger.txt” in CP437.
        try Self.python(
            """
            import os, subprocess, sys
            os.chdir(sys.argv[2])
            for name in (b'\\x8erger.txt', b'b.txt'):
                with open(name, 'wb') as f: f.write(b'x')
            subprocess.run(['zip', '-q', sys.argv[1], b'\\x8erger.txt', b'b.txt'], check=True)
            """, [zip, scratch.path])
        let before = try Self.rawMembers(zip)
        let legacy = "8e72676572" + Self.hex(".txt")
        #expect(before[legacy] != nil)
        _ = try Self.commit(zip, [.rename(Self.b("b.txt"), to: Self.b("c.txt"))])
        try Self.checkZip(zip)
        #expect(try Self.rawMembers(zip)[legacy] == before[legacy])
    }

    @Test func aesZipGetsAESMembersAndKeepsItsOthersRaw() throws {
        let scratch = try ScratchDirectory()
        _ = try scratch.write("in/a.txt", "secret a")
        _ = try scratch.write("in/b.txt", "secret b")
        let zip = scratch.sub("x.zip")
        try Self.tool(["/usr/bin/7zz", "a", "-tzip", "-mem=AES256", "-p\(Self.password)", zip, "a.txt", "b.txt"], in: scratch.sub("in"))
        let before = try Self.rawMembers(zip)
        let new = try scratch.write("c.txt", "secret c")
        // Deleting needs no password: nothing is decrypted.
        _ = try Self.commit(zip, [.delete(Self.b("b.txt"))])
        _ = try Self.commit(zip, [.add(FilePath(new), at: Self.b("c.txt"))], password: Self.password)
        try Self.checkZip(zip, password: Self.password, aes: true)
        #expect(try Self.rawMembers(zip)[Self.hex("a.txt")] == before[Self.hex("a.txt")])
        let methods = try Self.python("import sys, zipfile; print([i.compress_type for i in zipfile.ZipFile(sys.argv[1]).infolist()])", [zip])
        #expect(methods.hasPrefix("[99, 99]"))
        #expect(try Self.tool(["/usr/bin/7zz", "x", "-so", "-p\(Self.password)", zip, "c.txt"]).contains("secret c"))
        // Without the password, adding is refused before anything is written.
        #expect { try Self.commit(zip, [.add(FilePath(new), at: Self.b("d.txt"))]) } throws: { ($0 as? ArchiverError)?.code == .password }
        #expect { try Self.commit(zip, [.add(FilePath(new), at: Self.b("d.txt"))], password: "wrong") } throws: { ($0 as? ArchiverError)?.code == .password }
    }

    @Test func zipCryptoZipGetsZipCryptoMembersWithAWarning() throws {
        let scratch = try ScratchDirectory()
        _ = try scratch.write("in/a.txt", "secret a")
        let zip = scratch.sub("x.zip")
        try Self.tool(["/usr/bin/zip", "-q", "-P", "pw", zip, "a.txt"], in: scratch.sub("in"))
        let before = try Self.rawMembers(zip)
        let new = try scratch.write("b.txt", "secret b")
        let result = try Self.commit(zip, [.add(FilePath(new), at: Self.b("b.txt"))], password: "pw")
        #expect(result.warnings.map(\.code) == ["weak-encryption"])
        try Self.checkZip(zip, password: "pw")
        #expect(try Self.tool(["/usr/bin/unzip", "-p", "-P", "pw", zip, "b.txt"]) == "secret b")
        #expect(try Self.rawMembers(zip)[Self.hex("a.txt")] == before[Self.hex("a.txt")])
        let flags = try Self.python("import sys, zipfile; print([i.flag_bits & 1 for i in zipfile.ZipFile(sys.argv[1]).infolist()])", [zip])
        #expect(flags.hasPrefix("[1, 1]"))
    }

    /// A member streamed by Info-ZIP from standard input has its sizes in a data descriptor after the data:
    /// copied with it, renamed with it.
    @Test func membersWithDataDescriptorsCopyAndRename() throws {
        let scratch = try ScratchDirectory()
        let zip = scratch.sub("x.zip")
        try Self.tool(["/bin/sh", "-c", "printf 'streamed data' | zip -q " + zip + " - && printf 'other' > o.txt && zip -q " + zip + " o.txt"], in: scratch.path)
        let before = try Self.rawMembers(zip)
        _ = try Self.commit(zip, [.rename(Self.b("-"), to: Self.b("stream.txt")), .add(FilePath(scratch.sub("o.txt")), at: Self.b("p.txt"))])
        try Self.checkZip(zip)
        #expect(try Self.zipTree(zip) == ["stream.txt": Self.hex("streamed data"), "o.txt": Self.hex("other"), "p.txt": Self.hex("other")])
        #expect(try Self.rawMembers(zip)[Self.hex("o.txt")] == before[Self.hex("o.txt")])
    }

    @Test func aZipWithTwoPasswordsCannotTakeNewEntries() throws {
        let scratch = try ScratchDirectory()
        _ = try scratch.write("in/a.txt", "one")
        _ = try scratch.write("in/b.txt", "two")
        let zip = scratch.sub("x.zip")
        try Self.tool(["/usr/bin/7zz", "a", "-tzip", "-mem=AES256", "-pfirst", zip, "a.txt"], in: scratch.sub("in"))
        try Self.tool(["/usr/bin/7zz", "a", "-tzip", "-mem=AES256", "-psecond", zip, "b.txt"], in: scratch.sub("in"))
        let original = try Data(contentsOf: URL(fileURLWithPath: zip))
        #expect {
            try Self.commit(zip, [.add(FilePath(scratch.sub("in/a.txt")), at: Self.b("c.txt"))], password: "first")
        } throws: { ($0 as? ArchiverError)?.code == .notAnArchive }
        #expect(try Data(contentsOf: URL(fileURLWithPath: zip)) == original)
    }

    /// tar, tar.gz, tar.bz2, tar.xz and tar.zst by bsdtar: each change, checked by bsdtar and Python.
    @Test(arguments: ["tar", "tar.gz", "tar.bz2", "tar.xz", "tar.zst"])
    func tarFamily(suffix: String) throws {
        let scratch = try ScratchDirectory()
        _ = try scratch.write("src/a.txt", "alpha")
        _ = try scratch.write("src/docs/b.txt", "bravo")
        _ = try scratch.write("src/" + String(repeating: "long-name-", count: 12) + ".txt", "long")
        try FileManager.default.createSymbolicLink(atPath: scratch.sub("src/link"), withDestinationPath: "a.txt")
        _ = try scratch.write("src/z.txt", "zulu")
        let tar = scratch.sub("x." + suffix)
        try Self.tool(["/usr/bin/bsdtar", "-caf", tar, "-C", scratch.sub("src"), "a.txt", "docs", String(repeating: "long-name-", count: 12) + ".txt", "link", "z.txt"])
        let new = try scratch.write("new.txt", "new")
        func members() throws -> [String: String] {
            // Python's tarfile reads no zstd: give it the tar.
            var readable = tar
            if suffix == "tar.zst" {
                readable = scratch.sub("plain.tar")
                try Self.tool(["/usr/bin/zstd", "-q", "-d", "-f", tar, "-o", readable])
            }
            let out = try Self.python(
                """
                import sys, tarfile
                for m in tarfile.open(sys.argv[1]):
                    v = 'dir' if m.isdir() else ('link:' + m.linkname if m.issym() else tarfile.open(sys.argv[1]).extractfile(m.name).read().decode())
                    print(m.name + '\\t' + v + '\\t' + oct(m.mode))
                """, [readable])
            return Dictionary(uniqueKeysWithValues: out.split(separator: "\n").map {
                let parts = $0.split(separator: "\t").map(String.init)
                return (parts[0], parts[1] + " " + parts[2])
            })
        }
        let before = try members()
        let result = try Self.commit(tar, [
            .delete(Self.b("z.txt")), .rename(Self.b("docs"), to: Self.b("papers")),
            .rename(Self.b(String(repeating: "long-name-", count: 12) + ".txt"), to: Self.b("short.txt")),
            .add(FilePath(new), at: Self.b("new/new.txt")), .setAttributes(Self.b("a.txt"), mode: 0o600, modified: 1_000_000_000),
        ])
        #expect(!result.savedBeside)
        let listing = try Self.tool(["/usr/bin/bsdtar", "-tf", tar])
        #expect(!listing.contains("z.txt") && listing.contains("papers/b.txt"))
        let after = try members()
        #expect(after["link"] == before["link"])
        #expect(after["papers/b.txt"]?.hasPrefix("bravo") == true)
        #expect(after["short.txt"]?.hasPrefix("long") == true)
        #expect(after["new/new.txt"]?.hasPrefix("new") == true && after["new"]?.hasPrefix("dir") == true)
        #expect(after["a.txt"] == "alpha 0o600")
        #expect(after.count == before.count - 1 + 2)
        // The same compression as before.
        let start = try Data(contentsOf: URL(fileURLWithPath: tar)).prefix(512)
        let magic: [String: [UInt8]] = ["tar.gz": [0x1F, 0x8B], "tar.bz2": Array("BZh".utf8), "tar.xz": [0xFD, 0x37, 0x7A, 0x58], "tar.zst": [0x28, 0xB5, 0x2F, 0xFD]]
        if let expected = magic[suffix] { #expect(Array(start.prefix(expected.count)) == expected) } else { #expect(Array(start.dropFirst(257).prefix(5)) == Array("ustar".utf8)) }
    }

    @Test func plainTarKeepsUntouchedEntriesBlockForBlock() throws {
        let scratch = try ScratchDirectory()
        _ = try scratch.write("src/a.txt", "alpha")
        _ = try scratch.write("src/b.txt", "bravo")
        // Larger than the read buffer: its data is copied inside the kernel.
        try Data((0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7 >> 3) }).write(to: URL(fileURLWithPath: scratch.sub("src/big.bin")))
        let tar = scratch.sub("x.tar")
        try Self.tool(["/usr/bin/bsdtar", "--format=pax", "-cf", tar, "-C", scratch.sub("src"), "a.txt", "b.txt", "big.bin"])
        let blocks = """
            import hashlib, sys, tarfile
            data = open(sys.argv[1], 'rb').read()
            for m in tarfile.open(sys.argv[1]):
                print(m.name, hashlib.sha256(data[m.offset:m.offset_data + (m.size + 511) // 512 * 512]).hexdigest())
            """
        let before = try Self.python(blocks, [tar]).split(separator: "\n").filter { !$0.hasPrefix("b.txt ") }
        _ = try Self.commit(tar, [.delete(Self.b("b.txt"))])
        let after = try Self.python(blocks, [tar]).split(separator: "\n")
        #expect(after == before && after.count == 2)
        try Self.tool(["/usr/bin/bsdtar", "-tf", tar])
    }

    @Test(arguments: [false, true])
    func sevenZipThroughSevenZip(encryptedHeaders: Bool) throws {
        let scratch = try ScratchDirectory()
        _ = try scratch.write("src/a.txt", "alpha")
        _ = try scratch.write("src/docs/b.txt", "bravo")
        _ = try scratch.write("src/z.txt", "zulu")
        let archive = scratch.sub("x.7z")
        let secret = encryptedHeaders ? ["-p\(Self.password)", "-mhe=on"] : []
        try Self.tool(["/usr/bin/7zz", "a", archive, "a.txt", "docs", "z.txt"] + secret, in: scratch.sub("src"))
        let new = try scratch.write("new.txt", "new")
        _ = try Self.commit(
            archive,
            [.delete(Self.b("z.txt")), .rename(Self.b("docs"), to: Self.b("papers")), .add(FilePath(new), at: Self.b("added/new.txt"))],
            password: encryptedHeaders ? Self.password : nil)
        let p = "-p\(encryptedHeaders ? Self.password : "")"
        try Self.tool(["/usr/bin/7zz", "t", p, archive])
        let listing = try Self.tool(["/usr/bin/7zz", "l", "-ba", "-slt", p, archive])
        let paths = Set(listing.split(separator: "\n").filter { $0.hasPrefix("Path = ") }.map { String($0.dropFirst(7)) })
        #expect(paths == ["a.txt", "papers", "papers/b.txt", "added", "added/new.txt"])
        #expect(try Self.tool(["/usr/bin/7zz", "x", "-so", p, archive, "added/new.txt"]).contains("new"))
        if encryptedHeaders {
            // Still hidden: without the password not even the names list.
            #expect(try Tool.run(["/usr/bin/7zz", "l", "-p", archive]).status != 0)
        }
        #expect(scratch.list().filter { $0.hasPrefix(".archiver-") }.isEmpty)
    }

    @Test func isoIsRefusedAndUnchanged() throws {
        let scratch = try ScratchDirectory()
        _ = try scratch.write("src/a.txt", "alpha")
        let iso = scratch.sub("x.iso")
        try Self.tool(["/usr/bin/xorriso", "-as", "mkisofs", "-quiet", "-o", iso, scratch.sub("src")])
        let original = try Data(contentsOf: URL(fileURLWithPath: iso))
        #expect { try Self.commit(iso, [.delete(Self.b("a.txt"))]) } throws: { ($0 as? ArchiverError)?.code == .notAnArchive }
        #expect(try Data(contentsOf: URL(fileURLWithPath: iso)) == original)
        #expect(scratch.list().sorted() == ["src", "x.iso"])
    }

    @Test func rarIsRefusedAndUnchanged() throws {
        let fixture = TestUnrar.fixture("plain.rar")
        guard FileManager.default.fileExists(atPath: fixture) else {
            print("skipped: fixtures not present (\(fixture))")
            return
        }
        let scratch = try ScratchDirectory()
        let rar = try scratch.copy(fixture, as: "x.rar")
        let original = try Data(contentsOf: URL(fileURLWithPath: rar))
        #expect { try Self.commit(rar, [.delete(Self.b("a.txt"))]) } throws: { ($0 as? ArchiverError)?.code == .notAnArchive }
        #expect(try Data(contentsOf: URL(fileURLWithPath: rar)) == original)
    }

    @Test func anArchiveChangedMeanwhileIsNeverOverwritten() throws {
        let scratch = try ScratchDirectory()
        let zip = try Self.makeZip(scratch)
        var touched = false
        let result = try Self.commit(zip, [.delete(Self.b("z.txt"))]) { _, _ in
            guard !touched else { return }
            touched = true
            // Another program writes the archive while the edit is under way.
            let handle = FileHandle(forWritingAtPath: zip)!
            handle.seekToEndOfFile()
            handle.write(Data("x".utf8))
            try? handle.close()
        }
        #expect(result.savedBeside && result.output.lastComponent?.string == "x (edited).zip")
        #expect(try Self.zipTree(result.output.string)["z.txt"] == nil)
        #expect(try Data(contentsOf: URL(fileURLWithPath: zip)).last == UInt8(ascii: "x"))
    }

    @Test func theOriginalsModeCarriesOverAndNothingIsLeftBeside() throws {
        let scratch = try ScratchDirectory()
        let zip = try Self.makeZip(scratch)
        chmod(zip, 0o640)
        _ = try Self.commit(zip, [.delete(Self.b("z.txt"))])
        var info = stat()
        stat(zip, &info)
        #expect(info.st_mode & 0o7777 == 0o640)
        #expect(scratch.list().sorted() == ["x.zip"])
    }

    @Test func aSymlinkToTheArchiveStaysOne() throws {
        let scratch = try ScratchDirectory()
        let zip = try Self.makeZip(scratch)
        let link = scratch.sub("link.zip")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "x.zip")
        let result = try Self.commit(link, [.delete(Self.b("z.txt"))])
        #expect(result.output.string == zip)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "x.zip")
        #expect(try Self.zipTree(zip)["z.txt"] == nil)
    }

    @Test func oneWriterAtATime() throws {
        let scratch = try ScratchDirectory()
        let zip = try Self.makeZip(scratch)
        do {
            let first = try ArchiveEditSession(archive: FilePath(zip))
            #expect {
                try ArchiveEditSession(archive: FilePath(zip), wait: .milliseconds(100))
            } throws: { ($0 as? ArchiverError)?.code == .destination }
            withExtendedLifetime(first) {}
        }
        // Released with its session.
        _ = try ArchiveEditSession(archive: FilePath(zip), wait: .zero)
    }

    @Test func aClashChangesNothing() throws {
        let scratch = try ScratchDirectory()
        let zip = try Self.makeZip(scratch)
        let original = try Data(contentsOf: URL(fileURLWithPath: zip))
        let new = try scratch.write("new.txt", "new")
        #expect { try Self.commit(zip, [.add(FilePath(new), at: Self.b("a.txt"))]) } throws: { ($0 as? ArchiverError)?.code == .destination }
        #expect(try Data(contentsOf: URL(fileURLWithPath: zip)) == original)
        #expect(scratch.list().sorted() == ["new.txt", "x.zip"])
    }

    /// The central directory records of untouched members are copied byte for byte, only the offset of
    /// their local header moving: Info-ZIP's time and owner fields, a member's comment.
    @Test func untouchedMembersKeepTheirDirectoryRecordsByteForByte() throws {
        let scratch = try ScratchDirectory()
        try FileManager.default.createDirectory(atPath: scratch.sub("tree/sub"), withIntermediateDirectories: true)
        _ = try scratch.write("tree/one.txt", "one ".repeating(100))
        _ = try scratch.write("tree/sub/two.txt", "two")
        let zip = scratch.sub("x.zip")
        try Self.tool(["/usr/bin/zip", "-qr", zip, "tree"], in: scratch.path)
        try Self.python(
            """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], 'a') as z:
                i = zipfile.ZipInfo('commented.txt'); i.comment = b'a member comment'; z.writestr(i, b'c' * 50)
                z.writestr('gone.txt', b'to be deleted')
            """, [zip])
        // Each record without its offset field (bytes 42 to 45).
        let records = """
            import sys
            data = open(sys.argv[1], 'rb').read()
            at = data.find(b'PK\\x01\\x02')
            while data[at:at + 4] == b'PK\\x01\\x02':
                n, e, c = (int.from_bytes(data[at + k:at + k + 2], 'little') for k in (28, 30, 32))
                print(data[at:at + 42].hex() + data[at + 46:at + 46 + n + e + c].hex())
                at += 46 + n + e + c
            """
        let before = try Self.python(records, [zip]).split(separator: "\n")
        #expect(before.count == 6)
        _ = try Self.commit(zip, [.delete(Self.b("gone.txt"))])
        try Self.checkZip(zip)
        #expect(try Self.python(records, [zip]).split(separator: "\n") == before.dropLast())
    }
}

extension String {
    fileprivate func repeating(_ count: Int) -> String { String(repeating: self, count: count) }
}

extension ScratchDirectory {
    /// Writes `text` at `relative`, making its folders.
    @discardableResult
    fileprivate func write(_ relative: String, _ text: String) throws -> String {
        let path = sub(relative)
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }
}
