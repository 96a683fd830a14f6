import ArchiverCore
import ArchiverTestSupport
import Foundation
import Platform
import SystemPackage
import Testing

@testable import ArchiveEngine

/// A tar.gz (or a tar.xz of several Blocks) opened as a folder is read from a seek point: a file deep in
/// it is reached without inflating what comes before it.
@Suite struct SeekPointTests {
    /// Six files of 3 MiB that do not compress, so the tar.gz holds several seek points, packed by GNU tar.
    private func archive(multiMember: Bool = false) throws -> (archive: FilePath, files: [String: [UInt8]], scratch: ScratchDirectory) {
        let scratch = try ScratchDirectory()
        var generator = SplitMix(seed: 7)
        var files: [String: [UInt8]] = [:]
        try FileManager.default.createDirectory(atPath: scratch.sub("tree/deep"), withIntermediateDirectories: true)
        for number in 0..<6 {
            let name = number < 3 ? "tree/f\(number).bin" : "tree/deep/f\(number).bin"
            var bytes = [UInt8](repeating: 0, count: 3 << 20)
            bytes.withUnsafeMutableBytes { raw in
                for word in 0..<raw.count / 8 { raw.storeBytes(of: generator.next(), toByteOffset: word * 8, as: UInt64.self) }
            }
            files[name] = bytes
            FileManager.default.createFile(atPath: scratch.sub(name), contents: Data(bytes))
        }
        let archive = scratch.sub("tree.tar.gz")
        if multiMember {
            // Three gzip members cut at places that are no tar boundary, then padding zeros, as tapes end.
            let made = try Tool.run(["/usr/bin/tar", "-cf", scratch.sub("tree.tar"), "tree"], in: scratch.path)
            try #require(made.status == 0, "\(made.output)")
            let tar = try Data(contentsOf: URL(fileURLWithPath: scratch.sub("tree.tar")))
            var joined = Data()
            for range in [0..<5_000_001, 5_000_001..<11_111_111, 11_111_111..<tar.count] {
                FileManager.default.createFile(atPath: scratch.sub("piece"), contents: tar[range])
                _ = try Tool.run(["/usr/bin/gzip", "-f", "-n", scratch.sub("piece")])
                joined += try Data(contentsOf: URL(fileURLWithPath: scratch.sub("piece.gz")))
            }
            joined += Data(count: 512)
            FileManager.default.createFile(atPath: archive, contents: joined)
        } else {
            let made = try Tool.run(["/usr/bin/tar", "-czf", archive, "tree"], in: scratch.path)
            try #require(made.status == 0, "\(made.output)")
        }
        return (FilePath(archive), files, scratch)
    }

    private func contents(_ index: ArchiveIndex, _ path: String, chunk: Int = 100_000) throws -> [UInt8] {
        try entryContents(index, path, chunk: chunk)
    }

    @Test func aDeepFileIsReadWithoutInflatingTheStart() throws {
        let (archive, files, scratch) = try archive()
        defer { withExtendedLifetime(scratch) {} }
        let index = try ArchiveIndex.scan(archive, passwords: nil, control: JobControl())
        let points = try #require(index.gzipPoints)
        #expect(points.count >= 2, "18 MiB of output holds a point every 8 MiB")
        #expect(zip(points, points.dropFirst()).allSatisfy { $0.output < $1.output && $0.input < $1.input })
        // Each point holds its compressed state and little more: at 150 points for a 1.2 GB tar.gz, a
        // buffer of the bound kept behind each cost the daemon 6 MB.
        for point in points { #expect(point.state.capacity <= point.state.count + 64) }
        // Damage the start of the compressed data: only a reader that starts there sees it.
        try damage(archive, at: 4096, count: 64 * 1024)
        #expect(try contents(index, "tree/deep/f5.bin") == files["tree/deep/f5.bin"])
        #expect(throws: ArchiverError.self) { _ = try contents(index, "tree/f0.bin") }
    }

    @Test(arguments: [false, true]) func everyFileReadsWholeAndAtRandomPlaces(multiMember: Bool) throws {
        let (archive, files, scratch) = try archive(multiMember: multiMember)
        defer { withExtendedLifetime(scratch) {} }
        let index = try ArchiveIndex.scan(archive, passwords: nil, control: JobControl())
        #expect(index.gzipPoints != nil)
        try expectEveryFileReads(index, files, randomReads: 40, seed: 11)
    }

    /// A second opening reads the points from the cache and reaches the same bytes through them.
    @Test func pointsReadBackFromTheKeptIndex() throws {
        let (archive, files, scratch) = try archive()
        defer { withExtendedLifetime(scratch) {} }
        let index = try ArchiveIndex.scan(archive, passwords: nil, control: JobControl())
        let encoded = try #require(index.encoded())
        let back = try #require(ArchiveIndex.decoded(encoded, archive: archive))
        #expect(back.gzipPoints == index.gzipPoints)
        #expect(back.entryOffsets == index.entryOffsets)
        #expect(try contents(back, "tree/deep/f4.bin") == files["tree/deep/f4.bin"])
        let size = try #require(FileSystem.size(of: archive))
        #expect(Int64(encoded.count) < size / 50, "index and points within 2 % of the archive")
    }

    /// An xz of several Blocks (as multi-threaded xz writes) is read from the Block holding the file.
    @Test func anXzOfSeveralBlocksIsReadFromTheBlockHoldingTheFile() throws {
        let (gzipped, files, scratch) = try archive()
        defer { withExtendedLifetime(scratch) {} }
        let archive = FilePath(scratch.sub("tree.tar.xz"))
        let made = try Tool.run(["/bin/sh", "-c", "gzip -dc \"$0\" | xz -T2 -0 --block-size=1MiB > \"$1\"", gzipped.string, archive.string])
        try #require(made.status == 0, "\(made.output)")
        let index = try ArchiveIndex.scan(archive, passwords: nil, control: JobControl())
        let blocks = try #require(index.xzBlocks)
        #expect(blocks.count >= 18)
        for (name, bytes) in files.sorted(by: { $0.key > $1.key }) {
            #expect(try contents(index, name, chunk: 131_072) == bytes, "\(name)")
        }
        // Damage the first Block: only a reader that starts there sees it.
        try damage(archive, at: 200, count: 4096)
        #expect(try contents(index, "tree/deep/f5.bin") == files["tree/deep/f5.bin"])
        #expect(throws: ArchiverError.self) { _ = try contents(index, "tree/f0.bin") }
        // A kept index finds the Blocks again (it has no gzip points to mistake the file for a gzip).
        let encoded = try #require(index.encoded())
        let back = try #require(ArchiveIndex.decoded(encoded, archive: archive))
        #expect(back.gzipPoints == nil && back.xzBlocks != nil)
        #expect(try contents(back, "tree/deep/f4.bin") == files["tree/deep/f4.bin"])
    }

    /// A plain xz is one Block: nothing to seek by, and it reads as before.
    @Test func aSingleBlockXzHasNoBlocksToSeekBy() throws {
        let (gzipped, files, scratch) = try archive()
        defer { withExtendedLifetime(scratch) {} }
        let archive = FilePath(scratch.sub("one.tar.xz"))
        try #require(try Tool.run(["/bin/sh", "-c", "gzip -dc \"$0\" | xz -T1 -0 > \"$1\"", gzipped.string, archive.string]).status == 0)
        let index = try ArchiveIndex.scan(archive, passwords: nil, control: JobControl())
        #expect(index.seekPlan == nil)
        #expect(try contents(index, "tree/deep/f4.bin") == files["tree/deep/f4.bin"])
    }

    /// A zstd of several frames (pzstd writes one per chunk) is read from the frame holding the file, also
    /// with the frames read back from the kept index.
    @Test func aZstdOfSeveralFramesIsReadFromTheFrameHoldingTheFile() throws {
        let (gzipped, files, scratch) = try archive()
        defer { withExtendedLifetime(scratch) {} }
        let archive = FilePath(scratch.sub("tree.tar.zst"))
        let made = try Tool.run(["/bin/sh", "-c", "gzip -dc \"$0\" | pzstd -q -p 2 -1 > \"$1\"", gzipped.string, archive.string])
        try #require(made.status == 0, "\(made.output)")
        let index = try ArchiveIndex.scan(archive, passwords: nil, control: JobControl())
        let frames = try #require(index.zstdFrames)
        #expect(frames.count >= 2, "18 MiB of output in frames, one noted every 8 MiB")
        #expect(zip(frames, frames.dropFirst()).allSatisfy { $0.output < $1.output && $0.input < $1.input })
        let encoded = try #require(index.encoded())
        let back = try #require(ArchiveIndex.decoded(encoded, archive: archive))
        #expect(back.zstdFrames == frames)
        for (name, bytes) in files.sorted(by: { $0.key > $1.key }) {
            #expect(try contents(back, name, chunk: 131_072) == bytes, "\(name)")
        }
        // Damage the first frame: only a reader that starts there sees it.
        try damage(archive, at: 4096, count: 64 * 1024)
        #expect(try contents(index, "tree/deep/f5.bin") == files["tree/deep/f5.bin"])
        #expect(throws: ArchiverError.self) { _ = try contents(index, "tree/f0.bin") }
    }

    /// Our tar.zst is written in frames of 32 MiB: zstd itself reads it as one stream, and opened as a
    /// folder a file at its end is decoded from the last frame, not from the start.
    @Test func ourTarZstIsWrittenInFramesToSeekBy() throws {
        let scratch = try ScratchDirectory()
        var generator = SplitMix(seed: 5)
        try FileManager.default.createDirectory(atPath: scratch.sub("big"), withIntermediateDirectories: true)
        var last: [UInt8] = []
        for number in 0..<5 {
            var bytes = [UInt8](repeating: 0, count: 16 << 20)
            bytes.withUnsafeMutableBytes { raw in
                for word in 0..<raw.count / 8 { raw.storeBytes(of: generator.next(), toByteOffset: word * 8, as: UInt64.self) }
            }
            FileManager.default.createFile(atPath: scratch.sub("big/part\(number).bin"), contents: Data(bytes))
            last = bytes
        }
        let made = try Compressor.run(inputs: [FilePath(scratch.sub("big"))], format: .tarZst, level: .normal, control: JobControl())
        let listed = try Tool.run(["/usr/bin/zstd", "-lv", made.output.string])
        #expect(listed.output.contains("# Zstandard Frames: 3"), "\(listed.output)")
        let tested = try Tool.run(["/bin/sh", "-c", "zstd -dc \"$0\" | tar -tf - | wc -l", made.output.string])
        #expect(tested.output.trimmingCharacters(in: .whitespacesAndNewlines) == "6", "\(tested.output)")
        let index = try ArchiveIndex.scan(made.output, passwords: nil, control: JobControl())
        #expect(index.zstdFrames?.count == 2)
        // Damage the first frame: only a reader that starts there sees it.
        try damage(made.output, at: 100_000, count: 4096)
        #expect(try contents(index, "big/part4.bin", chunk: 1 << 20) == last)
    }

    /// A plain tar is read from the header of the file wanted: nothing before it is parsed.
    @Test func aPlainTarIsReadFromTheEntrysOwnHeader() throws {
        let (gzipped, files, scratch) = try archive()
        defer { withExtendedLifetime(scratch) {} }
        let archive = FilePath(scratch.sub("tree.tar"))
        let made = try Tool.run(["/bin/sh", "-c", "gzip -dc \"$0\" > \"$1\"", gzipped.string, archive.string])
        try #require(made.status == 0)
        let index = try ArchiveIndex.scan(archive, passwords: nil, control: JobControl())
        let encoded = try #require(index.encoded())
        let back = try #require(ArchiveIndex.decoded(encoded, archive: archive))
        #expect(back.seekPlan.map { if case .plain = $0 { true } else { false } } == true)
        // Damage the first headers: only a reader that starts at the archive's start sees it.
        try damage(archive, at: 0, count: 2048)
        for (name, bytes) in files where name.contains("deep") {
            #expect(try contents(back, name, chunk: 131_072) == bytes, "\(name)")
        }
    }

    /// zstd's own multi-threaded output is one frame: nothing to seek by, and it reads as before.
    @Test func aSingleFrameZstdHasNothingToSeekBy() throws {
        let (gzipped, files, scratch) = try archive()
        defer { withExtendedLifetime(scratch) {} }
        let archive = FilePath(scratch.sub("one.tar.zst"))
        let made = try Tool.run(["/bin/sh", "-c", "gzip -dc \"$0\" | zstd -q -T2 -3 > \"$1\"", gzipped.string, archive.string])
        try #require(made.status == 0)
        let index = try ArchiveIndex.scan(archive, passwords: nil, control: JobControl())
        #expect(index.seekPlan == nil)
        #expect(try contents(index, "tree/deep/f4.bin") == files["tree/deep/f4.bin"])
    }

    @Test(arguments: ["gz", "zst"], [false, true]) func aDamagedOrCutStreamIsRefusedWhenFirstRead(format: String, cut: Bool) throws {
        let (gzipped, _, scratch) = try archive()
        defer { withExtendedLifetime(scratch) {} }
        var archive = gzipped
        if format == "zst" {
            archive = FilePath(scratch.sub("tree.tar.zst"))
            let made = try Tool.run(["/bin/sh", "-c", "gzip -dc \"$0\" | zstd -q -1 > \"$1\"", gzipped.string, archive.string])
            try #require(made.status == 0)
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: archive.string))
        if cut {
            try handle.truncate(atOffset: 12_000_000)
        } else {
            try handle.seek(toOffset: 9_000_000)
            handle.write(Data(repeating: 0xAA, count: 100))
        }
        try handle.close()
        #expect { _ = try ArchiveIndex.scan(archive, passwords: nil, control: JobControl()) } throws: { error in
            (error as? ArchiverError)?.code == .corrupt
        }
    }
}

/// A file's bytes read through the index, `chunk` bytes a call, as the mount reads them.
func entryContents(_ index: ArchiveIndex, _ path: String, chunk: Int = 100_000) throws -> [UInt8] {
    let node = try #require(index.lookup(Array(path.utf8)))
    let stream = try EntryStream(index, node: node)
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: chunk)
    while true {
        let count = try buffer.withUnsafeMutableBytes { try stream.read(into: $0, at: Int64(bytes.count)) }
        if count == 0 { return bytes }
        bytes += buffer[..<count]
    }
}

/// Every file of `files` read whole through the index, then 4 KiB at `randomReads` places.
func expectEveryFileReads(_ index: ArchiveIndex, _ files: [String: [UInt8]], randomReads: Int, seed: UInt64) throws {
    for (name, bytes) in files.sorted(by: { $0.key > $1.key }) {
        #expect(try entryContents(index, name, chunk: 131_072) == bytes, "\(name)")
    }
    var generator = SplitMix(seed: seed)
    let names = files.keys.sorted()
    for _ in 0..<randomReads {
        let name = names[Int(generator.next() % UInt64(names.count))]
        let bytes = try #require(files[name])
        let offset = Int(generator.next() % UInt64(bytes.count))
        let stream = try EntryStream(index, node: try #require(index.lookup(Array(name.utf8))))
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = try buffer.withUnsafeMutableBytes { try stream.read(into: $0, at: Int64(offset)) }
        #expect(buffer[..<count] == bytes[offset..<min(offset + 4096, bytes.count)], "\(name) at \(offset)")
    }
}

/// Fast repeatable bytes that do not compress (SplitMix64: the same bytes on every run).
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Overwrites `count` bytes of `archive` at `offset`.
func damage(_ archive: FilePath, at offset: UInt64, count: Int, with byte: UInt8 = 0x55) throws {
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: archive.string))
    try handle.seek(toOffset: offset)
    handle.write(Data(repeating: byte, count: count))
    try handle.close()
}

extension ArchiveIndex {
    var gzipPoints: [GzipSeekPoints.Point]? { if case .gzip(let points)? = seekPlan { points.points } else { nil } }
    var xzBlocks: [XzBlocks.Block]? { if case .xz(let blocks)? = seekPlan { blocks.blocks } else { nil } }
    var zstdFrames: [ZstdFrames.Frame]? { if case .zstd(let frames)? = seekPlan { frames.frames } else { nil } }
    var bzipBlocks: BzipBlocks? { if case .bzip2(let blocks)? = seekPlan { blocks } else { nil } }
}
