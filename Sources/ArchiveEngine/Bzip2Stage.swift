internal import CBzip2
import Dispatch
import Glibc

/// Our own bzip2 compression between libarchive's tar stream and the output, in place of libarchive's
/// bzip2 filter, which compresses on one core at about 10 MB/s. The tar is cut into pieces of a few
/// blocks, compressed at once on every core, each into a bzip2 stream of its own, one after another in the
/// file as pbzip2 writes them: bzip2, libarchive, Python and 7-Zip read such a file as one stream, and
/// the blocks are the same as bzip2 would make, so the size barely changes.
final class Bzip2Stage: CompressionStage {
    private let level: Int32
    private let sink: OutputSink
    /// Input per piece: two blocks, so that each worker's output comes in pieces of about 1 MB.
    private let pieceSize: Int
    private let inputs: [UnsafeMutableRawBufferPointer]
    private let outputs: [UnsafeMutableRawBufferPointer]
    private var lengths: [Int]
    /// The piece being filled; the pieces before it are full.
    private var current = 0
    private(set) var lastErrno: Int32 = 0

    /// - Parameters:
    ///   - level: 1–9, bzip2's block size in 100 kB; 9 is bzip2's and libarchive's default.
    ///   - workers: pieces compressed at once.
    init(level: Int32, workers: Int, sink: OutputSink) {
        self.level = min(9, max(1, level))
        self.sink = sink
        let size = Int(self.level) * 100_000 * 2
        let count = max(1, workers)
        pieceSize = size
        inputs = (0..<count).map { _ in .allocate(byteCount: size, alignment: 16) }
        // bzip2's documented bound: 1 % more than the input, plus 600 bytes.
        outputs = (0..<count).map { _ in .allocate(byteCount: size + size / 100 + 600, alignment: 16) }
        lengths = Array(repeating: 0, count: count)
    }

    deinit {
        for buffer in inputs + outputs { buffer.deallocate() }
    }

    /// Takes `input` into the pieces, compressing them whenever all are full; -1 on failure.
    func write(_ input: UnsafeRawBufferPointer) -> Int {
        var taken = 0
        while taken < input.count {
            let count = min(pieceSize - lengths[current], input.count - taken)
            (inputs[current].baseAddress! + lengths[current]).copyMemory(from: input.baseAddress! + taken, byteCount: count)
            lengths[current] += count
            taken += count
            if lengths[current] == pieceSize {
                current += 1
                if current == inputs.count, !flush() { return -1 }
            }
        }
        return input.count
    }

    /// Compresses what is left.
    func end() -> Bool { flush() }

    /// Compresses the pieces filled so far, each on a core of its own, and writes them in order.
    private func flush() -> Bool {
        let count = lengths.firstIndex(of: 0) ?? lengths.count
        defer {
            current = 0
            for index in lengths.indices { lengths[index] = 0 }
        }
        guard count > 0 else { return true }
        let batch = Batch(inputs: inputs, outputs: outputs, lengths: lengths, level: level)
        defer { batch.free() }
        DispatchQueue.concurrentPerform(iterations: count, execute: batch.compress)
        let (produced, statuses) = (batch.produced, batch.statuses)
        for index in 0..<count {
            guard statuses[index] == BZ_OK else {
                lastErrno = ENOMEM
                return false
            }
            // The sink writes all of it or fails.
            guard sink.write(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(outputs[index])[..<Int(produced[index])])) >= 0 else {
                lastErrno = sink.lastErrno
                return false
            }
        }
        return true
    }

    /// One flush's pieces, each compressed by one call of `compress` on its own thread: the calls share
    /// nothing but the arrays, and each writes only its own places.
    private struct Batch: @unchecked Sendable {
        let inputs: [UnsafeMutableRawBufferPointer]
        let outputs: [UnsafeMutableRawBufferPointer]
        let lengths: [Int]
        let level: Int32
        let produced: UnsafeMutableBufferPointer<UInt32>
        let statuses: UnsafeMutableBufferPointer<Int32>

        init(inputs: [UnsafeMutableRawBufferPointer], outputs: [UnsafeMutableRawBufferPointer], lengths: [Int], level: Int32) {
            (self.inputs, self.outputs, self.lengths, self.level) = (inputs, outputs, lengths, level)
            produced = .allocate(capacity: inputs.count)
            statuses = .allocate(capacity: inputs.count)
        }

        func compress(_ index: Int) {
            produced[index] = UInt32(outputs[index].count)
            statuses[index] = BZ2_bzBuffToBuffCompress(
                outputs[index].baseAddress!.assumingMemoryBound(to: CChar.self), &produced[index],
                inputs[index].baseAddress!.assumingMemoryBound(to: CChar.self), UInt32(lengths[index]), level, 0, 0)
        }

        func free() {
            produced.deallocate()
            statuses.deallocate()
        }
    }
}
