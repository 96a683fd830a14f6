internal import CIsal
internal import CZlib
import Dispatch
import Glibc

/// One raw deflate stream made on several cores, as pigz makes it: the input is cut into blocks of
/// `blockSize`, each compressed on its own with the 32 KiB before it as a preset dictionary and ended on a
/// byte boundary (a sync flush), so that the blocks' outputs, one after another, are a single deflate
/// stream that every inflater reads. The cut never depends on the number of workers, so neither do the
/// bytes. The CRC-32 of each block is computed with it and combined in order.
///
/// Blocks are written in order through `emit` as they come back; at most two a worker are held at once
/// (`slotsPerWorker`), a few hundred KiB each.
final class ParallelDeflate {
    /// Input per block: pigz's size; the dictionary and the flush cost about 0.1 % of size at level 6.
    static let blockSize = 128 << 10
    /// Deflate's window: what a block can refer back to.
    static let dictionarySize = 32 << 10
    static let slotsPerWorker = 2
    /// More workers hold more memory and gain nothing on any desktop machine.
    static let maximumWorkers = 16

    private let level: Int32
    private let workers: Int
    private let slots: [Block]
    /// Bounds the blocks being compressed to `workers`: more would only take turns.
    private let running: DispatchSemaphore
    /// The slot being filled, and how many blocks were handed out and written.
    private var current = 0
    private var handedOut = 0
    private var written = 0
    private(set) var crc: UInt32 = 0
    /// Bytes taken and bytes of deflate made.
    private(set) var inputSize: Int64 = 0
    private(set) var outputSize: Int64 = 0
    private var ended = false
    /// Set once anything failed: the stream is broken, and every later call fails at once (libarchive still
    /// ends a failed archive, which must not hand out a block that a worker may still have).
    private var failed = false

    /// - Parameters:
    ///   - level: zlib's 0–9; 0 stores.
    ///   - workers: blocks compressed at once; 1 compresses on the calling thread.
    init(level: Int32, workers: Int) {
        let (level, workers) = (min(9, max(0, level)), min(Self.maximumWorkers, max(1, workers)))
        (self.level, self.workers) = (level, workers)
        slots = (0..<(workers == 1 ? 1 : workers * Self.slotsPerWorker)).map { _ in Block(level: level) }
        running = DispatchSemaphore(value: workers)
    }

    deinit {
        // A failed write leaves blocks being compressed: their buffers are freed only once they are done.
        for slot in slots where slot.busy { slot.done.wait() }
    }

    /// Takes all of `input`, writing out through `emit` the blocks that are done; false as soon as `emit`
    /// fails (or zlib does, out of memory).
    func write(_ input: UnsafeRawBufferPointer, emit: (UnsafeRawBufferPointer) -> Bool) -> Bool {
        precondition(!ended, "written after the end")
        guard !failed else { return false }
        var taken = 0
        while taken < input.count {
            var slot = slots[current]
            // A full block is handed out only when more input comes, so that the last one can end the stream.
            if slot.length == Self.blockSize {
                guard handOut(last: false, emit: emit) else { return stop() }
                slot = slots[current]
            }
            let count = min(Self.blockSize - slot.length, input.count - taken)
            slot.append(UnsafeRawBufferPointer(rebasing: input[taken..<(taken + count)]))
            taken += count
        }
        inputSize += Int64(input.count)
        return true
    }

    /// Compresses what is left as the stream's last block and writes out every block; false on failure.
    func finish(emit: (UnsafeRawBufferPointer) -> Bool) -> Bool {
        precondition(!ended, "ended twice")
        ended = true
        guard !failed, handOut(last: true, emit: emit) else { return stop() }
        while written < handedOut {
            guard writeOldest(emit: emit) else { return stop() }
        }
        return true
    }

    /// Makes it ready for another stream, keeping its blocks and deflate states: a zip's small members
    /// each are a stream, and making these afresh for each (zlib's state and the blocks' buffers, about
    /// 600 KiB to allocate and fault in) cost more than deflating a small member.
    func reset() {
        for slot in slots where slot.busy {
            slot.done.wait()
            slot.busy = false
        }
        (current, handedOut, written, crc, inputSize, outputSize, ended, failed) = (0, 0, 0, 0, 0, 0, false, false)
        slots[0].clear()
    }

    private func stop() -> Bool {
        failed = true
        return false
    }

    /// Starts compressing the current slot and moves on to the next one, primed with the last 32 KiB.
    private func handOut(last: Bool, emit: (UnsafeRawBufferPointer) -> Bool) -> Bool {
        let slot = slots[current]
        slot.isLast = last
        handedOut += 1
        if workers == 1 {
            slot.compress()
            guard writeOldest(emit: emit) else { return false }
        } else {
            running.wait()
            slot.busy = true
            let running = running
            DispatchQueue.global().async {
                slot.compress()
                running.signal()
                slot.done.signal()
            }
        }
        guard !last else { return true }
        let next = slots[(current + 1) % slots.count]
        // The next slot's last block must be out before it is filled again.
        if next !== slot, handedOut - written == slots.count {
            guard writeOldest(emit: emit) else { return false }
        }
        next.start(after: slot)
        current = (current + 1) % slots.count
        return true
    }

    /// Waits for the oldest block handed out and writes its output.
    private func writeOldest(emit: (UnsafeRawBufferPointer) -> Bool) -> Bool {
        let slot = slots[written % slots.count]
        if slot.busy {
            slot.done.wait()
            slot.busy = false
        }
        written += 1
        guard slot.succeeded else { return false }
        crc = UInt32(crc32_combine(UInt(crc), UInt(slot.crc), Int(slot.length)))
        outputSize += Int64(slot.produced)
        return emit(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(slot.output)[..<slot.produced]))
    }

    /// One block's input (after up to 32 KiB of dictionary), its output and its deflate state. A block is
    /// touched by one thread at a time: the producer fills it, a worker compresses it, and the producer
    /// reads it only after `done`.
    private final class Block: @unchecked Sendable {
        let input: UnsafeMutableRawBufferPointer
        private(set) var output: UnsafeMutableRawBufferPointer
        private let deflater: Deflater?
        /// The dictionary's length at the start of `input`, and the block's own after it.
        private var dictionary = 0
        private(set) var length = 0
        var isLast = false
        private(set) var produced = 0
        private(set) var crc: UInt32 = 0
        private(set) var succeeded = true
        /// Set while a worker has it; `done` is signalled when the worker is through.
        var busy = false
        let done = DispatchSemaphore(value: 0)

        init(level: Int32) {
            input = .allocate(byteCount: ParallelDeflate.dictionarySize + ParallelDeflate.blockSize, alignment: 16)
            output = .allocate(byteCount: Int(compressBound(UInt(ParallelDeflate.blockSize))) + 64, alignment: 16)
            deflater = Deflater(level: level)
        }

        deinit {
            input.deallocate()
            output.deallocate()
        }

        /// Empties the block, its dictionary the last 32 KiB of `previous`'s input (dictionary included,
        /// for blocks shorter than that).
        func start(after previous: Block) {
            let end = previous.dictionary + previous.length
            let count = min(ParallelDeflate.dictionarySize, end)
            // With one slot the block is its own previous one: memmove, which allows that.
            memmove(input.baseAddress!, previous.input.baseAddress! + (end - count), count)
            (dictionary, length, produced, isLast) = (count, 0, 0, false)
        }

        /// Empties the block, with no dictionary: a stream's first.
        func clear() { (dictionary, length, produced, isLast) = (0, 0, 0, false) }

        func append(_ bytes: UnsafeRawBufferPointer) {
            (input.baseAddress! + dictionary + length).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
            length += bytes.count
        }

        /// Deflates the block; the last ends the stream, the others end on a byte boundary.
        func compress() {
            let base = input.baseAddress!.assumingMemoryBound(to: UInt8.self)
            crc = UInt32(crc32(0, base + dictionary, UInt32(length)))
            produced = 0
            guard let deflater, deflater.start(dictionary: UnsafeBufferPointer(start: base, count: dictionary), input: base + dictionary, count: length)
            else { return fail() }
            while true {
                if produced == output.count { grow() }
                let room = UnsafeMutableRawBufferPointer(rebasing: output[produced...])
                guard let step = deflater.step(into: room, last: isLast) else { return fail() }
                produced += step.made
                if step.complete { break }
            }
            succeeded = true
        }

        /// Room for output that did not fit (only incompressible input with a large flush ever needs it).
        private func grow() {
            let larger = UnsafeMutableRawBufferPointer.allocate(byteCount: output.count * 2, alignment: 16)
            larger.copyMemory(from: UnsafeRawBufferPointer(output))
            output.deallocate()
            output = larger
        }

        private func fail() { succeeded = false }
    }
}

/// The deflate library a level is made with: the fastest whose output stays within 0.5 % of zlib's at the
/// same level, on 128 KiB blocks of the mixed corpus (bench/RESULTS.md, "Deflate libraries"). For level 1,
/// ISA-L's level 3: twice as fast as zlib's level 1 and 0.7 % smaller (its levels 1 and 2, 4–5 times as
/// fast, are 2 % and 1 % larger). zlib for the others: ISA-L's best is 12 % larger than zlib's level 6.
/// libdeflate is faster still, but it can neither take a dictionary nor leave a block open, which a
/// stream cut into blocks needs.
enum DeflateLibrary: Equatable {
    case zlib(level: Int32)
    case isal(level: UInt32)

    init(level: Int32) {
        self = level == 1 ? .isal(level: 3) : .zlib(level: level)
    }
}

/// One block's deflate state, kept and reset from block to block.
private final class Deflater {
    private enum State {
        case zlib(UnsafeMutablePointer<z_stream>)
        case isal(UnsafeMutablePointer<isal_zstream>, levelBuffer: UnsafeMutableRawBufferPointer)
    }

    private let state: State

    init?(level: Int32) {
        switch DeflateLibrary(level: level) {
        case .zlib(let level):
            let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
            stream.initialize(to: z_stream())
            guard cz_deflate_init(stream, level, -15) == Z_OK else {
                stream.deallocate()
                return nil
            }
            state = .zlib(stream)
        case .isal(let level):
            let stream = UnsafeMutablePointer<isal_zstream>.allocate(capacity: 1)
            isal_deflate_init(stream)
            let size = Int(ci_level_buffer_size(level))
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 64)
            stream.pointee.level = level
            stream.pointee.level_buf = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
            stream.pointee.level_buf_size = UInt32(size)
            stream.pointee.gzip_flag = UInt16(IGZIP_DEFLATE)
            state = .isal(stream, levelBuffer: buffer)
        }
    }

    deinit {
        switch state {
        case .zlib(let stream):
            deflateEnd(stream)
            stream.deallocate()
        case .isal(let stream, let buffer):
            stream.deallocate()
            buffer.deallocate()
        }
    }

    /// Begins a new block of `count` bytes at `input`, after `dictionary`.
    func start(dictionary: UnsafeBufferPointer<UInt8>, input: UnsafeMutablePointer<UInt8>, count: Int) -> Bool {
        switch state {
        case .zlib(let stream):
            guard deflateReset(stream) == Z_OK else { return false }
            if dictionary.count > 0, deflateSetDictionary(stream, dictionary.baseAddress, UInt32(dictionary.count)) != Z_OK {
                return false
            }
            stream.pointee.next_in = input
            stream.pointee.avail_in = UInt32(count)
        case .isal(let stream, _):
            isal_deflate_reset(stream)
            if dictionary.count > 0,
                isal_deflate_set_dict(stream, UnsafeMutablePointer(mutating: dictionary.baseAddress!), UInt32(dictionary.count)) != COMP_OK
            {
                return false
            }
            stream.pointee.next_in = input
            stream.pointee.avail_in = UInt32(count)
        }
        return true
    }

    /// Deflates into `room`: the bytes made, and whether the block is complete (the stream ended when
    /// `last`, else flushed to a byte boundary); nil on failure.
    func step(into room: UnsafeMutableRawBufferPointer, last: Bool) -> (made: Int, complete: Bool)? {
        let out = room.baseAddress!.assumingMemoryBound(to: UInt8.self)
        switch state {
        case .zlib(let stream):
            stream.pointee.next_out = out
            stream.pointee.avail_out = UInt32(room.count)
            let status = deflate(stream, last ? Z_FINISH : Z_SYNC_FLUSH)
            let made = room.count - Int(stream.pointee.avail_out)
            // Z_BUF_ERROR: no room to go on, which the next turn gives.
            guard status == Z_OK || status == Z_STREAM_END || (status == Z_BUF_ERROR && stream.pointee.avail_out == 0) else {
                return nil
            }
            // A flush is complete when it left room to spare.
            return (made, status == Z_STREAM_END || (!last && stream.pointee.avail_out > 0))
        case .isal(let stream, _):
            stream.pointee.next_out = out
            stream.pointee.avail_out = UInt32(room.count)
            stream.pointee.end_of_stream = last ? 1 : 0
            stream.pointee.flush = UInt16(last ? NO_FLUSH : SYNC_FLUSH)
            guard isal_deflate(stream) == COMP_OK else { return nil }
            let made = room.count - Int(stream.pointee.avail_out)
            let phase = stream.pointee.internal_state.state
            // ISA-L's own test of a flush: its output left room, or it waits for a new block's header.
            let complete =
                last
                ? phase == ZSTATE_END
                : stream.pointee.avail_in == 0 && (stream.pointee.avail_out > 0 || phase == ZSTATE_NEW_HDR)
            return (made, complete)
        }
    }
}
