import ArchiverCore
import ArchiverTestSupport
import Foundation
import SystemPackage
import Testing

@testable import ArchiveEngine

/// A tar.bz2 opened as a folder is read from the bzip2 block that holds a file, found by its bit-aligned
/// magic number while the archive is first listed.
@Suite struct BzipBlockTests {
    /// A tree of text and of bytes that do not compress (5 MiB), its tar (GNU tar, sorted by name) and the
    /// tar's bytes. `first` is an extra file that comes first in the tar.
    private func tree(
        first: (name: String, bytes: [UInt8])? = nil
    ) throws -> (tar: String, files: [String: [UInt8]], scratch: ScratchDirectory) {
        let scratch = try ScratchDirectory()
        var generator = SplitMix(seed: 23)
        var files: [String: [UInt8]] = [:]
        try FileManager.default.createDirectory(atPath: scratch.sub("tree/deep/er"), withIntermediateDirectories: true)
        let letters = Array("etaoinshrdlu")
        var words: [String] = []
        for _ in 0..<400 { words.append(String((0..<(3 + generator.next() % 8)).map { _ in letters[Int(generator.next() % 12)] })) }
        for number in 0..<5 {
            let name = number < 2 ? "tree/a\(number).txt" : number == 2 ? "tree/deep/er/r2.bin" : "tree/deep/r\(number).bin"
            var bytes: [UInt8]
            if number < 2 {
                var text = ""
                while text.utf8.count < 1 << 20 {
                    text += words[Int(generator.next() % 400)]
                    text += generator.next() % 9 == 0 ? "\n" : " "
                }
                bytes = Array(text.utf8)
            } else {
                bytes = [UInt8](repeating: 0, count: 1 << 20)
                bytes.withUnsafeMutableBytes { raw in
                    for word in 0..<raw.count / 8 { raw.storeBytes(of: generator.next(), toByteOffset: word * 8, as: UInt64.self) }
                }
            }
            files[name] = bytes
        }
        if let first { files[first.name] = first.bytes }
        for (name, bytes) in files { _ = FileManager.default.createFile(atPath: scratch.sub(name), contents: Data(bytes)) }
        let made = try Tool.run(["/usr/bin/tar", "--sort=name", "-cf", scratch.sub("tree.tar"), "tree"], in: scratch.path)
        try #require(made.status == 0, "\(made.output)")
        return (scratch.sub("tree.tar"), files, scratch)
    }

    /// `bzip2 -1` of `tar`: blocks of 100 kB, about 45 of them.
    private func compressed(_ tar: String, _ scratch: ScratchDirectory) throws -> FilePath {
        let archive = scratch.sub("tree.tar.bz2")
        try #require(try Tool.run(["/bin/sh", "-c", "bzip2 -1 -c \"$0\" > \"$1\"", tar, archive]).status == 0)
        return FilePath(archive)
    }

    private func damage(_ archive: FilePath, at offset: UInt64, count: Int) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: archive.string))
        try handle.seek(toOffset: offset)
        handle.write(Data(repeating: 0x55, count: count))
        try handle.close()
    }

    /// What bsdtar gives for `path` in `archive`.
    private func bsdtar(_ archive: FilePath, _ path: String, _ scratch: ScratchDirectory) throws -> [UInt8] {
        let out = scratch.sub("bsdtar.out")
        try #require(try Tool.run(["/bin/sh", "-c", "bsdtar -xOf \"$0\" \"$1\" > \"$2\"", archive.string, path, out]).status == 0)
        return try [UInt8](Data(contentsOf: URL(fileURLWithPath: out)))
    }

    @Test func aDeepFileIsReadFromItsBlock() throws {
        let (tar, files, scratch) = try tree()
        defer { withExtendedLifetime(scratch) {} }
        let archive = try compressed(tar, scratch)
        let index = try ArchiveIndex.scan(archive, passwords: nil, control: JobControl())
        let blocks = try #require(index.bzipBlocks).blocks
        #expect(blocks.count >= 40)
        #expect(zip(blocks, blocks.dropFirst()).allSatisfy { $0.end <= $1.start && $0.output < $1.output })
        let deep = "tree/deep/r4.bin"
        let expected = try bsdtar(archive, deep, scratch)
        #expect(expected == files[deep])
        #expect(try entryContents(index, deep, chunk: 131_072) == expected)
        // Damage the first block: only a reader that starts there sees it.
        try damage(archive, at: 2000, count: 4096)
        #expect(try entryContents(index, deep) == expected)
        #expect(try entryContents(index, "tree/deep/er/r2.bin") == files["tree/deep/er/r2.bin"])
        #expect(throws: ArchiverError.self) { _ = try entryContents(index, "tree/a0.txt") }
        // The second file starts a megabyte on, far from the damaged block.
        #expect(try entryContents(index, "tree/a1.txt") == files["tree/a1.txt"])
    }

    @Test func everyFileReadsWholeAndAtRandomPlaces() throws {
        let (tar, files, scratch) = try tree()
        defer { withExtendedLifetime(scratch) {} }
        let archive = try compressed(tar, scratch)
        let index = try ArchiveIndex.scan(archive, passwords: nil, control: JobControl())
        #expect(index.bzipBlocks != nil)
        try expectEveryFileReads(index, files, randomReads: 30, seed: 5)
    }

    /// Concatenated streams (as pbzip2 and lbzip2 write, or `cat`), cut where no tar boundary is, with an
    /// empty stream among them and levels that differ: listed and read whole, and seekable in each.
    @Test func concatenatedStreamsListAndRead() throws {
        let (tar, files, scratch) = try tree()
        defer { withExtendedLifetime(scratch) {} }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: tar))
        var joined = Data()
        for (number, range) in [0..<1_500_001, 1_500_001..<1_500_001, 1_500_001..<3_333_333, 3_333_333..<bytes.count].enumerated() {
            _ = FileManager.default.createFile(atPath: scratch.sub("piece"), contents: bytes[range])
            let level = ["-1", "-9", "-2", "-1"][number]
            try #require(try Tool.run(["/usr/bin/bzip2", level, "-f", scratch.sub("piece")]).status == 0)
            joined += try Data(contentsOf: URL(fileURLWithPath: scratch.sub("piece.bz2")))
        }
        let archive = FilePath(scratch.sub("joined.tar.bz2"))
        _ = FileManager.default.createFile(atPath: archive.string, contents: joined)
        let index = try ArchiveIndex.scan(archive, passwords: nil, control: JobControl())
        let blocks = try #require(index.bzipBlocks).blocks
        #expect(Set(blocks.map(\.level)) == [1, 2])
        for (name, contents) in files.sorted(by: { $0.key > $1.key }) {
            #expect(try entryContents(index, name) == contents, "\(name)")
            #expect(try bsdtar(archive, name, scratch) == contents, "\(name)")
        }
        // The first stream damaged: files in the later ones still read, from their own blocks.
        try damage(archive, at: 5000, count: 4096)
        #expect(try entryContents(index, "tree/deep/r4.bin") == files["tree/deep/r4.bin"])
    }

    /// A block whose data holds the block magic by chance: the candidate fails to decode as a block end,
    /// and the block runs on to the next magic. The magic is put in the block's table of the byte values
    /// it uses (16 bits for each 16 values), which the data's bytes decide. The end-of-stream magic the
    /// same way: the stream does not end there, and the files after it still read.
    @Test(arguments: [BzipMagicFinder.Kind.block, .end]) func aMagicNumberInsideABlockIsNoBlockStart(kind: BzipMagicFinder.Kind) throws {
        let magic = kind == .block ? BzipMagicFinder.blockMagic : BzipMagicFinder.endMagic
        var used: [UInt8] = []
        for bit in 0..<48 where (magic >> UInt64(47 - bit)) & 1 == 1 { used.append(UInt8(128 + bit)) }
        var generator = SplitMix(seed: 3)
        let text = Array("the magic is in the table of bytes, not in the bytes ".utf8)
        var bytes: [UInt8] = []
        for index in 0..<300_000 {
            bytes.append(index % 7 == 0 ? used[Int(generator.next() % UInt64(used.count))] : text[index % text.count])
        }
        let (tar, files, scratch) = try tree(first: ("tree/a.txt", bytes))
        defer { withExtendedLifetime(scratch) {} }
        let archive = try compressed(tar, scratch)
        let index = try ArchiveIndex.scan(archive, passwords: nil, control: JobControl())
        let blocks = try #require(index.bzipBlocks).blocks
        // The chance magic lies inside the first block, not at a block start.
        let file = try BzipFile(archive)
        let inside = try #require(BzipMagicFinder(file, from: blocks[0].start + 1).next())
        #expect(inside.bit < blocks[0].end)
        #expect(inside.kind == kind)
        #expect(!blocks.contains { $0.start == inside.bit })
        for (name, contents) in files.sorted(by: { $0.key > $1.key }) {
            #expect(try entryContents(index, name) == contents, "\(name)")
        }
        // Read from the start, as extraction reads it: every entry (three folders and the files).
        var reader = try ArchiveReader(path: archive)
        var entries = 0
        while try reader.next() != nil { entries += 1 }
        #expect(entries == files.count + 3)
    }

    /// Runs make a 100 kB block hold 5 MB, more than a block decoded ahead may hold: its thread waits for
    /// the reader, and every byte still comes once, in order.
    @Test func blocksOfRunsLargerThanWhatIsDecodedAheadReadWhole() throws {
        var runs = [UInt8](repeating: 0, count: 24 << 20)
        for index in stride(from: 0, to: runs.count, by: 3_000_001) { runs[index] = 7 }
        let (tar, files, scratch) = try tree(first: ("tree/a.bin", runs))
        defer { withExtendedLifetime(scratch) {} }
        let archive = try compressed(tar, scratch)
        let index = try ArchiveIndex.scan(archive, passwords: nil, control: JobControl())
        let blocks = try #require(index.bzipBlocks).blocks
        #expect(zip(blocks, blocks.dropFirst()).contains { $1.output - $0.output > Int64(BzipStream.aheadLimit) })
        #expect(try entryContents(index, "tree/a.bin", chunk: 1 << 20) == runs)
        #expect(try entryContents(index, "tree/deep/r4.bin") == files["tree/deep/r4.bin"])
    }

    @Test(arguments: [false, true]) func aDamagedOrCutFileIsRefusedWhenFirstRead(cut: Bool) throws {
        let (tar, _, scratch) = try tree()
        defer { withExtendedLifetime(scratch) {} }
        let archive = try compressed(tar, scratch)
        if cut {
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: archive.string))
            try handle.truncate(atOffset: 2_500_000)
            try handle.close()
        } else {
            try damage(archive, at: 2_000_000, count: 100)
        }
        #expect { _ = try ArchiveIndex.scan(archive, passwords: nil, control: JobControl()) } throws: { error in
            (error as? ArchiverError)?.code == .corrupt
        }
    }

    /// A second opening reads the blocks from the kept index and reaches the same bytes through them.
    @Test func blocksReadBackFromTheKeptIndex() throws {
        let (tar, files, scratch) = try tree()
        defer { withExtendedLifetime(scratch) {} }
        let archive = try compressed(tar, scratch)
        let index = try ArchiveIndex.scan(archive, passwords: nil, control: JobControl())
        let encoded = try #require(index.encoded())
        let back = try #require(ArchiveIndex.decoded(encoded, archive: archive))
        #expect(back.bzipBlocks?.blocks == index.bzipBlocks?.blocks)
        #expect(back.entryOffsets == index.entryOffsets)
        try damage(archive, at: 2000, count: 4096)
        #expect(try entryContents(back, "tree/deep/r3.bin") == files["tree/deep/r3.bin"])
    }
}
