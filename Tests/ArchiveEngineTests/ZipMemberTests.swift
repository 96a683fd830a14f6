import ArchiverCore
import ArchiverTestSupport
import Foundation
import SystemPackage
import Testing

@testable import ArchiveEngine

/// A zip opened as a folder reads each stored or deflated member straight from its local header, with
/// no libarchive reader (which would walk the entries before it and hold the central directory).
@Suite struct ZipMemberTests {
    private static let maker = """
        import sys, zipfile, random
        out, kind = sys.argv[1], sys.argv[2]
        rng = random.Random(5)
        files = {'a/stored.bin': bytes(rng.getrandbits(8) for _ in range(70000)),
                 'a/deflated.txt': b'words and more words ' * 20000,
                 'b/empty.txt': b'',
                 'b/bzip2.txt': b'bzip2 member ' * 3000}
        with zipfile.ZipFile(out, 'w') as z:
            for name, data in files.items():
                method = {'a/stored.bin': zipfile.ZIP_STORED, 'b/bzip2.txt': zipfile.ZIP_BZIP2}.get(name, zipfile.ZIP_DEFLATED)
                if kind == 'stream' and method == zipfile.ZIP_DEFLATED:
                    # Written through a pipe-like writer: sizes and CRC follow the data (flag bit 3).
                    with z.open(zipfile.ZipInfo(name), 'w', force_zip64=False) as member:
                        member.write(data)
                else:
                    z.writestr(zipfile.ZipInfo(name), data, compress_type=method)
        for name, data in files.items():
            open(out + '.' + name.replace('/', '_'), 'wb').write(data)
        """

    private func contents(_ index: ArchiveIndex, _ path: String) throws -> [UInt8] {
        let node = try #require(index.lookup(Array(path.utf8)))
        let stream = try EntryStream(index, node: node)
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 50_000)
        while true {
            let count = try buffer.withUnsafeMutableBytes { try stream.read(into: $0, at: Int64(bytes.count)) }
            if count == 0 { return bytes }
            bytes += buffer[..<count]
        }
    }

    @Test(arguments: ["plain", "stream"]) func membersReadStraightFromTheirHeaders(kind: String) throws {
        let scratch = try ScratchDirectory()
        let archive = scratch.sub("m.zip")
        try #require(try Tool.run(["/usr/bin/python3", "-c", Self.maker, archive, kind]).status == 0)
        let index = try ArchiveIndex.scan(FilePath(archive), passwords: nil, control: JobControl())
        #expect(index.zipDirect)
        for name in ["a/stored.bin", "a/deflated.txt", "b/empty.txt"] {
            let expected = try [UInt8](Data(contentsOf: URL(fileURLWithPath: archive + "." + name.replacingOccurrences(of: "/", with: "_"))))
            #expect(try contents(index, name) == expected, "\(name)")
        }
        #expect(index.readers.count == 0, "no libarchive reader was used")
        // A member ZipMember does not read (bzip2) goes through libarchive and still reads whole.
        let bzip2 = try [UInt8](Data(contentsOf: URL(fileURLWithPath: archive + ".b_bzip2.txt")))
        #expect(try contents(index, "b/bzip2.txt") == bzip2)
    }

    /// bsdtar writes deflated members with their CRC in a data descriptor after the data.
    @Test func membersOfABsdtarZipRead() throws {
        let scratch = try ScratchDirectory()
        try FileManager.default.createDirectory(atPath: scratch.sub("d"), withIntermediateDirectories: true)
        var generator = SystemRandomNumberGenerator()
        let files: [String: Data] = [
            "d/random.bin": Data((0..<300_000).map { _ in UInt8.random(in: 0...255, using: &generator) }),
            "d/lines.txt": Data((1...50_000).map { "line \($0)\n" }.joined().utf8),
            "d/empty.txt": Data(),
        ]
        for (name, data) in files { try data.write(to: URL(fileURLWithPath: scratch.sub(name))) }
        let archive = scratch.sub("b.zip")
        try #require(try Tool.run(["/usr/bin/bsdtar", "--format", "zip", "-cf", archive, "d"], in: scratch.path).status == 0)
        let index = try ArchiveIndex.scan(FilePath(archive), passwords: nil, control: JobControl())
        #expect(index.zipDirect)
        for (name, data) in files { #expect(try contents(index, name) == [UInt8](data), "\(name)") }
        #expect(index.readers.count == 0)
    }

    @Test func aDamagedMemberFailsItsCRCCheck() throws {
        let scratch = try ScratchDirectory()
        let archive = scratch.sub("m.zip")
        try #require(try Tool.run(["/usr/bin/python3", "-c", Self.maker, archive, "plain"]).status == 0)
        let index = try ArchiveIndex.scan(FilePath(archive), passwords: nil, control: JobControl())
        // The stored member's bytes are the random ones: flip one in the middle of them.
        var data = try Data(contentsOf: URL(fileURLWithPath: archive))
        let stored = try Data(contentsOf: URL(fileURLWithPath: archive + ".a_stored.bin"))
        let at = try #require(data.range(of: stored.prefix(64))).lowerBound + 30_000
        data[at] ^= 0xFF
        try data.write(to: URL(fileURLWithPath: archive))
        #expect { _ = try contents(index, "a/stored.bin") } throws: { error in
            (error as? ArchiverError)?.code == .corrupt
        }
        #expect(try contents(index, "a/deflated.txt").count == 420_000)
    }
}
