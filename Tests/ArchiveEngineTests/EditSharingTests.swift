import ArchiverCore
import ArchiverTestSupport
import Foundation
import SystemPackage
import Testing

@testable import ArchiveEngine

/// How the edit engine copies what a change leaves alone: a long run of untouched zip members after a
/// change keeps its data at the old offsets modulo 4096 (padding in one local header), every reader still
/// reads it, and on a file system with reflinks (xfs here) the runs are shared with the old archive rather
/// than copied, for zip and for plain tar.
@Suite struct EditSharingTests {
    typealias Editor = ArchiveEditorTests

    /// Per member (by name): where its data starts, its local extra fields (hex), its directory record's
    /// extra fields (hex), and a hash of its data, as Python's zipfile finds them.
    static func layout(_ zip: String) throws -> [String: (data: Int, local: String, central: String, hash: String)] {
        let out = try Editor.python(
            """
            import hashlib, struct, sys, zipfile
            raw = open(sys.argv[1], 'rb').read()
            for i in zipfile.ZipFile(sys.argv[1]).infolist():
                n, e = struct.unpack('<HH', raw[i.header_offset + 26:i.header_offset + 30])
                start = i.header_offset + 30 + n + e
                local = raw[i.header_offset + 30 + n:start]
                print(i.filename, start, local.hex() or '-', i.extra.hex() or '-', hashlib.sha256(raw[start:start + i.compress_size]).hexdigest())
            """, [zip])
        return Dictionary(uniqueKeysWithValues: out.split(separator: "\n").map {
            let f = $0.split(separator: " ").map(String.init)
            return (f[0], (Int(f[1])!, f[2], f[3], f[4]))
        })
    }

    /// A stored zip by Python: a small member, `small` members of 3,000 random bytes, then `big` random bytes.
    static func makeZip(_ zip: String, small: Int, big: Int) throws {
        try Editor.python(
            """
            import os, sys, zipfile
            with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_STORED) as z:
                z.comment = b'kept'
                z.writestr('a.txt', b'first ' * 10)
                for n in range(int(sys.argv[2])): z.writestr('s/%04d.bin' % n, os.urandom(3000))
                z.writestr('big.bin', os.urandom(int(sys.argv[3])))
            """, [zip, String(small), String(big)])
    }

    @Test func aLongRunAfterAChangeKeepsItsBlockOffsetsAndEveryToolReadsIt() throws {
        let scratch = try ScratchDirectory()
        let zip = scratch.sub("x.zip")
        try Self.makeZip(zip, small: 2, big: 2 << 20)
        let before = try Self.layout(zip)
        let rawBefore = try Editor.rawMembers(zip)
        // Random bytes, which deflate cannot shrink: each round moves the run by another amount.
        for (round, size) in [5000, 7001].enumerated() {
            let content = Data((0..<size).map { _ in UInt8.random(in: 0...255) })
            let replacement = scratch.sub("r\(round).bin")
            try content.write(to: URL(fileURLWithPath: replacement))
            _ = try Editor.commit(zip, [.replaceContent(Editor.b("a.txt"), with: FilePath(replacement))])
            try Editor.checkZip(zip)
            #expect(try Editor.zipTree(zip)["a.txt"] == content.map { String(format: "%02x", $0) }.joined())
            let after = try Self.layout(zip)
            // The first member of the run moves to the old offset modulo 4096, its data as it was; the
            // directory record keeps its own extra fields, and the rest of the run follows byte for byte.
            let first = try #require(after["s/0000.bin"]), old = try #require(before["s/0000.bin"])
            #expect((first.data - old.data) % 4096 == 0, "round \(round)")
            #expect(first.hash == old.hash && first.central == old.central)
            // One padding field (0xD935, as zipalign writes it), also when the zip had one already.
            #expect(first.local.hasPrefix("35d9") && first.local.components(separatedBy: "35d9").count == 2, "\(first.local.prefix(16))")
            for name in ["s/0001.bin", "big.bin"] {
                #expect(try Editor.rawMembers(zip)[Editor.hex(name)] == rawBefore[Editor.hex(name)], "\(name)")
                #expect((after[name]!.data - before[name]!.data) % 4096 == 0)
            }
            let comment = try Editor.python("import sys, zipfile; print(zipfile.ZipFile(sys.argv[1]).comment.decode())", [zip])
            #expect(comment.hasPrefix("kept"))
        }
    }

    /// A run shorter than 1 MiB is not worth padding: untouched members stay byte for byte.
    @Test func aShortRunIsNotPadded() throws {
        let scratch = try ScratchDirectory()
        let zip = scratch.sub("x.zip")
        try Self.makeZip(zip, small: 2, big: 100_000)
        let before = try Editor.rawMembers(zip)
        let replacement = scratch.sub("r.txt")
        try Data("other length".utf8).write(to: URL(fileURLWithPath: replacement))
        _ = try Editor.commit(zip, [.replaceContent(Editor.b("a.txt"), with: FilePath(replacement))])
        try Editor.checkZip(zip)
        let after = try Editor.rawMembers(zip)
        for name in ["s/0000.bin", "s/0001.bin", "big.bin"] { #expect(after[Editor.hex(name)] == before[Editor.hex(name)], "\(name)") }
    }

    /// On xfs the members after a replaced one (many small ones, then a large one) share the old archive's
    /// extents: one copy per run, aligned, clones them. The old archive is kept alive by a second link.
    @Test(.enabled(if: ReflinkDisk.unavailable == nil, Comment(rawValue: "skipped: \(ReflinkDisk.unavailable ?? "")")))
    func onXfsTheUntouchedZipMembersAreShared() throws {
        let scratch = try ScratchDirectory()
        let disk = try #require(ReflinkDisk(in: scratch.path))
        let zip = disk.path + "/x.zip"
        try Self.makeZip(zip, small: 400, big: 3 << 20)
        try FileManager.default.linkItem(atPath: zip, toPath: disk.path + "/old.zip")
        #expect(try ReflinkDisk.sharedBytes(zip).shared == 0)
        let replacement = scratch.sub("r.txt")
        try Data(String(repeating: "new ", count: 1000).utf8).write(to: URL(fileURLWithPath: replacement))
        _ = try Editor.commit(zip, [.replaceContent(Editor.b("a.txt"), with: FilePath(replacement))])
        try Editor.checkZip(zip)
        let (shared, total) = try ReflinkDisk.sharedBytes(zip)
        // All but the first block, the changed member and the directory at the end.
        let size = try #require(FileManager.default.attributesOfItem(atPath: zip)[.size] as? Int)
        #expect(total >= size - 4096 && shared >= size - 64 << 10, "\(shared) of \(size) bytes shared")
    }

    /// On xfs the entries of a plain tar after a deleted first entry of 4 KiB share the old tar's extents,
    /// small ones too: the run after it is one copy.
    @Test(.enabled(if: ReflinkDisk.unavailable == nil, Comment(rawValue: "skipped: \(ReflinkDisk.unavailable ?? "")")))
    func onXfsTheUntouchedTarEntriesAreShared() throws {
        let scratch = try ScratchDirectory()
        let disk = try #require(ReflinkDisk(in: scratch.path))
        let tar = disk.path + "/x.tar"
        // A header and 3,584 bytes of data: 4 KiB, so the rest keeps its offsets modulo 4096.
        try Editor.python(
            """
            import io, os, sys, tarfile
            with tarfile.open(sys.argv[1], 'w', format=tarfile.USTAR_FORMAT) as t:
                for name, size in [('gone.bin', 3584)] + [('s/%04d.bin' % n, 1000 + n * 7 % 3000) for n in range(600)]:
                    info = tarfile.TarInfo(name); info.size = size
                    t.addfile(info, io.BytesIO(os.urandom(size)))
            """, [tar])
        try FileManager.default.linkItem(atPath: tar, toPath: disk.path + "/old.tar")
        _ = try Editor.commit(tar, [.delete(Editor.b("gone.bin"))])
        let listing = try Editor.tool(["/usr/bin/bsdtar", "-tf", tar])
        #expect(!listing.contains("gone.bin") && listing.contains("s/0599.bin"))
        let (shared, _) = try ReflinkDisk.sharedBytes(tar)
        let size = try #require(FileManager.default.attributesOfItem(atPath: tar)[.size] as? Int)
        #expect(shared >= size - 16 << 10, "\(shared) of \(size) bytes shared")
    }
}
