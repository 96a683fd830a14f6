import ArchiverCore
import ArchiverTestSupport
import Foundation
import SystemPackage
import Testing

@testable import ArchiveEngine

/// One deflate stream made on several cores (pigz's way): Python's zlib inflates it to the input exactly, to
/// its end and no further, and the bytes are the same whatever the number of workers.
@Suite struct ParallelDeflateTests {
    /// Text that compresses like prose: phrases of a few words that recur, some with a number after them,
    /// so that the levels differ in how much of it they find again (across block boundaries too).
    static func text(_ count: Int) -> [UInt8] {
        var generator = SplitMix(seed: 7)
        let words = (0..<500).map { _ in (0..<Int.random(in: 2...9, using: &generator)).map { _ in UInt8.random(in: 97...122, using: &generator) } }
        let phrases = (0..<300).map { _ in
            (0..<Int.random(in: 2...7, using: &generator)).map { _ in words[Int.random(in: 0..<words.count, using: &generator)] }
                .joined(separator: [32])
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 100)
        while bytes.count < count {
            bytes += phrases[Int.random(in: 0..<phrases.count, using: &generator)]
            if Int.random(in: 0..<10, using: &generator) < 3 { bytes += Array(" \(Int.random(in: 0..<1000, using: &generator))".utf8) }
            bytes.append(Int.random(in: 0..<10, using: &generator) == 0 ? 10 : 32)
        }
        return Array(bytes.prefix(count))
    }

    static func random(_ count: Int) -> [UInt8] {
        var generator = SplitMix(seed: 11)
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    /// Compresses `input` handed over in pieces of the sizes `pieces` cycles through.
    static func deflate(_ input: [UInt8], level: Int32, workers: Int, pieces: [Int] = [100_000]) throws
        -> (bytes: [UInt8], crc: UInt32, inputSize: Int64, outputSize: Int64)
    {
        let compressor = ParallelDeflate(level: level, workers: workers)
        var output: [UInt8] = []
        let emit = { (bytes: UnsafeRawBufferPointer) -> Bool in
            output += bytes
            return true
        }
        var offset = 0, turn = 0
        try input.withUnsafeBytes { all in
            while offset < all.count {
                let count = min(pieces[turn % pieces.count], all.count - offset)
                try #require(compressor.write(UnsafeRawBufferPointer(rebasing: all[offset..<(offset + count)]), emit: emit))
                (offset, turn) = (offset + count, turn + 1)
            }
        }
        try #require(compressor.finish(emit: emit))
        return (output, compressor.crc, compressor.inputSize, compressor.outputSize)
    }

    /// Python's zlib inflates `stream` as raw deflate: what it gives, whether the stream ended (its last
    /// block final), and the CRC-32 of the result.
    static func inflate(_ stream: [UInt8]) throws -> (bytes: [UInt8], ended: Bool, crc: UInt32) {
        let scratch = try ScratchDirectory()
        let (input, output) = (scratch.sub("stream"), scratch.sub("plain"))
        try Data(stream).write(to: URL(fileURLWithPath: input))
        let script = """
            import sys, zlib
            d = zlib.decompressobj(-15)
            plain = d.decompress(open(sys.argv[1], 'rb').read())
            open(sys.argv[2], 'wb').write(plain)
            print(d.eof, len(d.unused_data), zlib.crc32(plain))
            """
        let said = try Tool.run(["/usr/bin/python3", "-c", script, input, output]).output.split(separator: " ")
        try #require(said.count == 3, "\(said)")
        let plain = try [UInt8](Data(contentsOf: URL(fileURLWithPath: output)))
        return (plain, said[0] == "True" && said[1] == "0", UInt32(said[2].trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0)
    }

    /// A deflater reset after a stream (zip's small members share one a worker) makes the next stream as a
    /// new one would: no dictionary, sums and sizes from zero.
    @Test func aResetDeflaterMakesTheStreamANewOneWould() throws {
        let (first, second) = (Self.text(300_000), Self.text(200_000).reversed().map { $0 })
        for level: Int32 in [1, 6] {
            let reused = ParallelDeflate(level: level, workers: 1)
            for input in [first, second, []] {
                reused.reset()
                var output: [UInt8] = []
                let emit = { (bytes: UnsafeRawBufferPointer) -> Bool in
                    output += bytes
                    return true
                }
                try input.withUnsafeBytes { try #require(reused.write($0, emit: emit) && reused.finish(emit: emit)) }
                let fresh = try Self.deflate(input, level: level, workers: 1)
                #expect(output == fresh.bytes && reused.crc == fresh.crc && reused.outputSize == fresh.outputSize)
                #expect(reused.inputSize == Int64(input.count))
            }
        }
    }

    @Test func emptyInputIsAnEndedEmptyStream() throws {
        let made = try Self.deflate([], level: 6, workers: 2)
        let back = try Self.inflate(made.bytes)
        #expect(back.bytes.isEmpty && back.ended)
        #expect(made.crc == 0 && made.inputSize == 0 && made.outputSize == Int64(made.bytes.count))
    }

    /// Levels 1 (ISA-L), 6 and 9 (zlib), and 0 (stored), over blocks of every kind: the last one full or not.
    @Test(arguments: [Int32(0), 1, 6, 9])
    func severalBlocksComeBackWholeAndTheSameOnAnyNumberOfWorkers(level: Int32) throws {
        let input = Self.text(5 * ParallelDeflate.blockSize + 12_345) + Self.random(ParallelDeflate.blockSize)
        let one = try Self.deflate(input, level: level, workers: 1, pieces: [65_536, 1, 200_003])
        let two = try Self.deflate(input, level: level, workers: 2)
        let three = try Self.deflate(input, level: level, workers: 3, pieces: [ParallelDeflate.blockSize])
        #expect(one.bytes == two.bytes && two.bytes == three.bytes)
        let back = try Self.inflate(two.bytes)
        #expect(back.bytes == input)
        #expect(back.ended)
        #expect(two.crc == back.crc)
        #expect(two.inputSize == Int64(input.count) && two.outputSize == Int64(two.bytes.count))
        if level == 0 {
            #expect(two.bytes.count > input.count)
        } else {
            #expect(two.bytes.count < input.count * 6 / 10)
        }
    }

    @Test func levelsKeepTheirMeaning() throws {
        let input = Self.text(3 * ParallelDeflate.blockSize)
        let sizes = try [1, 6, 9].map { try Self.deflate(input, level: Int32($0), workers: 2).bytes.count }
        #expect(sizes[0] > sizes[1] && sizes[1] >= sizes[2], "\(sizes)")
    }

    /// A stream ending exactly on a block boundary still ends with a final block.
    @Test func inputOfWholeBlocksEnds() throws {
        let input = Self.text(2 * ParallelDeflate.blockSize)
        let back = try Self.inflate(try Self.deflate(input, level: 6, workers: 2, pieces: [ParallelDeflate.blockSize]).bytes)
        #expect(back.bytes == input && back.ended)
    }

    @Test func manyTinyWritesMakeTheSameStreamAsOneLargeOne() throws {
        let input = Self.text(300_000)
        let tiny = try Self.deflate(input, level: 6, workers: 2, pieces: [1, 3, 7, 13])
        let large = try Self.deflate(input, level: 6, workers: 1, pieces: [input.count])
        #expect(tiny.bytes == large.bytes)
        #expect(try Self.inflate(tiny.bytes).bytes == input)
    }

    @Test func incompressibleInputGrowsOnlyByTheBlocksFraming() throws {
        let input = Self.random(4 * ParallelDeflate.blockSize + 99)
        for level in [Int32(1), 9] {
            let made = try Self.deflate(input, level: level, workers: 2)
            #expect(made.bytes.count < input.count + input.count / 500, "level \(level): \(made.bytes.count)")
            let back = try Self.inflate(made.bytes)
            #expect(back.bytes == input && back.ended)
        }
    }

    /// A failing destination stops the stream at once, for good; the blocks still being compressed are
    /// waited for.
    @Test func aRefusedWriteStopsIt() throws {
        let compressor = ParallelDeflate(level: 6, workers: 2)
        let input = Self.text(20 * ParallelDeflate.blockSize)
        var calls = 0
        let accepted = input.withUnsafeBytes { compressor.write($0) { _ in calls += 1; return false } }
        #expect(!accepted && calls == 1)
        // libarchive ends even a failed archive: the end fails too, handing out nothing again.
        #expect(!compressor.finish { _ in true })
    }
}

/// tar.gz and .gz go through `GzipStage`: a stop half-way (Cancel, the time budget: the same check) leaves
/// nothing under any name, with blocks still being compressed on other threads.
@Suite struct GzipStageTests {
    @Test(arguments: [ArchiveFormat.tarGz, .gz])
    func aStoppedGzipLeavesNothing(format: ArchiveFormat) throws {
        let scratch = try ScratchDirectory()
        try Data(ParallelDeflateTests.text(4 << 20)).write(to: URL(fileURLWithPath: scratch.sub("big.txt")))
        let control = JobControl()
        do {
            _ = try Compressor.run(inputs: [FilePath(scratch.sub("big.txt"))], format: format, level: .normal, control: control, progress: { done, _ in
                if done >= 1 << 20 { control.cancel() }
            })
            Issue.record("a cancelled job made an archive")
        } catch {
            #expect(error.code == .cancelled, "\(error)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path) == ["big.txt"])
    }

    @Test func theHeaderAndTrailerAreGzips() {
        #expect(GzipStage.header(level: 9) == [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 2, 3])
        #expect(GzipStage.header(level: 1)[8] == 4 && GzipStage.header(level: 6)[8] == 0)
        #expect(GzipStage.trailer(crc: 0x1234_5678, size: (1 << 32) + 5) == [0x78, 0x56, 0x34, 0x12, 5, 0, 0, 0])
    }
}
