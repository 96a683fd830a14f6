internal import CBzip2
import ArchiverCore
import Dispatch
import Glibc
import Platform
import Synchronization
import SystemPackage

/// The blocks of a bzip2 file, found while it is first read: each can be decoded on its own, so an entry
/// deep in a tar.bz2 is reached by decoding from the block that holds it. Blocks start at any bit, so each
/// is kept as the bits it spans; a file of one block has nothing to seek by, and gives nil.
public struct BzipBlocks: Sendable {
    struct Block: Sendable, Equatable {
        /// The bit where the block's magic starts, and the bit where its data ends (the next magic).
        let start: Int64
        let end: Int64
        /// Where its output starts.
        let output: Int64
        /// Its stream's block size (the digit of "BZh9"), which libbz2 checks the block against.
        let level: UInt8

        var span: BzipSpan { BzipSpan(start: start, end: end, level: level) }
    }

    let blocks: [Block]

    init?(_ blocks: [Block]) {
        guard blocks.count > 1 else { return nil }
        self.blocks = blocks
    }

    /// The last block starting at or before `offset`.
    func block(before offset: Int64) -> Int { blocks.indices.last(atOrBefore: offset) { blocks[$0].output } ?? 0 }

    func start(for offset: Int64) -> Int64 { blocks[block(before: offset)].output }
}

/// The bits of one block and its stream's block size.
struct BzipSpan: Sendable, Equatable {
    let start: Int64
    let end: Int64
    let level: UInt8

    /// More bits than bzip2 ever makes of a block of this level (its input, a quarter more, and headers):
    /// a span past this is no block, and is not read into memory.
    var isPossible: Bool { end - start > 80 && end - start <= Int64(level) * 100_000 * 10 + 8192 }
}

/// A bzip2 file open for reading at any offset from any thread.
final class BzipFile: Sendable {
    let descriptor: Int32
    let size: Int64

    init(_ path: FilePath) throws(ArchiverError) {
        let opened = FileSystem.openForReading(path)
        if let failure = opened.failure { throw failure }
        (descriptor, size) = (opened.descriptor, opened.size)
    }

    deinit { close(descriptor) }

    /// Reads up to `count` bytes at `offset`, fewer only at the file's end; nil on a read error.
    func read(into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int64) -> Int? {
        FileSystem.readFully(descriptor, into: buffer, count: count, at: offset)
    }

    /// `count` bytes at `offset`, or nil when the file has fewer there.
    func bytes(at offset: Int64, count: Int) -> [UInt8]? { FileSystem.bytes(descriptor, at: offset, count: count) }
}

/// Finds bzip2's 48-bit block and end-of-stream magic numbers at any bit of a file, in order. Compressed
/// data can hold them by chance: a find is a candidate, which decoding confirms.
final class BzipMagicFinder {
    enum Kind: Sendable { case block, end }

    static let blockMagic: UInt64 = 0x3141_5926_5359
    static let endMagic: UInt64 = 0x1772_4538_5090
    /// For each value of the byte 16 bits before the newest, the shifts at which either magic could end in
    /// the newest byte (block: bits 0–7, end: bits 8–15), so that most bytes need one look-up only.
    private static let filter: [UInt16] = {
        var table = [UInt16](repeating: 0, count: 256)
        for shift in 0..<8 {
            table[Int((blockMagic >> (16 - shift)) & 0xFF)] |= 1 << shift
            table[Int((endMagic >> (16 - shift)) & 0xFF)] |= 1 << (8 + shift)
        }
        return table
    }()

    private let file: BzipFile
    private let from: Int64
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 16)
    /// The file offset of `buffer`'s first byte, how much of it holds data and how much was looked at.
    private var bufferStart: Int64
    private var filled = 0
    private var scanned = 0
    /// The last 8 bytes looked at, the newest in the low bits.
    private var window: UInt64 = 0
    private var found: [(bit: Int64, kind: Kind)] = []

    /// Finds magic numbers starting at bit `from` or later.
    init(_ file: BzipFile, from bit: Int64) {
        self.file = file
        from = bit
        // A magic starting at `from` or later lies in the byte holding `from` and those after it.
        bufferStart = max(0, bit / 8)
    }

    deinit { buffer.deallocate() }

    /// The next magic number, or nil at the file's end.
    func next() -> (bit: Int64, kind: Kind)? {
        while found.isEmpty {
            if scanned == filled {
                bufferStart += Int64(filled)
                guard let count = file.read(into: buffer.baseAddress!, count: buffer.count, at: bufferStart), count > 0 else {
                    return nil
                }
                (filled, scanned) = (count, 0)
            }
            scan()
        }
        return found.removeFirst()
    }

    /// Looks at bytes until one completes a magic number.
    private func scan() {
        let bytes = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let mask: UInt64 = (1 << 48) - 1
        // Locals: a class's stored properties are checked for exclusive access at each use.
        var window = self.window
        var index = scanned
        let filled = self.filled
        Self.filter.withUnsafeBufferPointer { filter in
            while index < filled {
                window = (window << 8) | UInt64(bytes[index])
                index += 1
                let shifts = filter[Int((window >> 16) & 0xFF)]
                guard shifts != 0 else { continue }
                // A larger shift starts earlier: the finds stay in order.
                for shift in (0..<8).reversed() {
                    let kind: Kind
                    if shifts & (1 << shift) != 0, (window >> shift) & mask == Self.blockMagic {
                        kind = .block
                    } else if shifts & (1 << (8 + shift)) != 0, (window >> shift) & mask == Self.endMagic {
                        kind = .end
                    } else {
                        continue
                    }
                    let bit = (bufferStart + Int64(index)) * 8 - Int64(shift) - 48
                    if bit >= from { found.append((bit, kind)) }
                }
                if !found.isEmpty { break }
            }
        }
        scanned = index
        self.window = window
    }
}

/// One block decoded on its own: libbz2 cannot start at a bit, so the block's bits are moved to a byte
/// boundary and framed as a stream of one block ("BZh" and the level, the block, the end-of-stream magic
/// and the block's CRC, which is a one-block stream's combined CRC). libbz2 checks both CRCs.
final class BzipBlockDecoder {
    private let stream = UnsafeMutablePointer<bz_stream>.allocate(capacity: 1)
    private let packed: UnsafeMutableBufferPointer<UInt8>
    private var state: State
    /// The block's CRC, from its header.
    private(set) var crc: UInt32 = 0
    private(set) var message = ""

    private enum State { case decoding, finished, failed }

    init(_ file: BzipFile, _ span: BzipSpan) {
        let bits = span.isPossible ? span.end - span.start : 0
        // Room for the header, the block, 80 bits of trailer and the shifted copy's spare byte.
        packed = .allocate(capacity: 4 + Int((bits + 80 + 7) / 8) + 1)
        packed.initialize(repeating: 0)
        stream.initialize(to: bz_stream())
        state = .failed
        guard span.isPossible, span.level >= 1, span.level <= 9 else {
            message = "Damaged bzip2 data: no block of a possible size"
            return
        }
        let shift = Int(span.start % 8)
        let count = Int((Int64(shift) + bits + 7) / 8)
        guard let source = file.bytes(at: span.start / 8, count: count) else {
            message = "Truncated input file: the bzip2 data ends early"
            return
        }
        for (index, byte) in Array("BZh".utf8).enumerated() { packed[index] = byte }
        packed[3] = UInt8(ascii: "0") + span.level
        let whole = Int(bits / 8)
        for index in 0...whole where index < count {
            let next = index + 1 < count ? source[index + 1] : 0
            packed[4 + index] = shift == 0 ? source[index] : source[index] << shift | next >> (8 - shift)
        }
        // The bits past the block's end are replaced by the trailer.
        let spare = Int(bits % 8)
        packed[4 + whole] &= spare == 0 ? 0 : ~UInt8(0) << (8 - spare)
        crc = (10..<14).reduce(0) { $0 << 8 | UInt32(packed[$1]) }
        var position = 32 + Int(bits)
        for (value, width) in [(BzipMagicFinder.endMagic, 48), (UInt64(crc), 32)] {
            for bit in (0..<width).reversed() where (value >> bit) & 1 == 1 {
                packed[(position + width - 1 - bit) / 8] |= 0x80 >> UInt8((position + width - 1 - bit) % 8)
            }
            position += width
        }
        guard BZ2_bzDecompressInit(stream, 0, 0) == BZ_OK else {
            message = "Out of memory for the bzip2 decoder"
            return
        }
        stream.pointee.next_in = UnsafeMutableRawPointer(packed.baseAddress!).assumingMemoryBound(to: CChar.self)
        stream.pointee.avail_in = UInt32((position + 7) / 8)
        state = .decoding
    }

    deinit {
        if stream.pointee.state != nil { BZ2_bzDecompressEnd(stream) }
        stream.deallocate()
        packed.deallocate()
    }

    /// Fills `output` with the block's next bytes; 0 once the block is whole and its CRC right, nil on
    /// failure (`message`).
    func decode(into output: UnsafeMutableRawBufferPointer) -> Int? {
        switch state {
        case .failed: return nil
        case .finished: return 0
        case .decoding: break
        }
        stream.pointee.next_out = output.baseAddress!.assumingMemoryBound(to: CChar.self)
        stream.pointee.avail_out = UInt32(output.count)
        while stream.pointee.avail_out > 0 {
            let status = BZ2_bzDecompress(stream)
            let produced = output.count - Int(stream.pointee.avail_out)
            if status == BZ_STREAM_END {
                state = .finished
                return produced
            }
            if status != BZ_OK {
                state = .failed
                message = status == BZ_DATA_ERROR
                    ? "Damaged bzip2 data: CRC mismatch or bad block" : "Damaged bzip2 data (libbz2 error \(status))"
                return nil
            }
            if stream.pointee.avail_in == 0, produced == 0 {
                state = .failed
                message = "Damaged bzip2 data: a block ends early"
                return nil
            }
        }
        return output.count
    }

    /// Decodes the whole block, handing each piece to `take`; false on failure (`message`) or when `take`
    /// says to stop.
    func decodeAll(_ take: (UnsafeRawBufferPointer) -> Bool) -> Bool {
        let output = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 16)
        defer { output.deallocate() }
        while let count = decode(into: output) {
            if count == 0 { return true }
            guard take(UnsafeRawBufferPointer(rebasing: output[..<count])) else { return false }
        }
        return false
    }
}

/// A bzip2 file decoded block by block and handed to libarchive as a plain tar stream: either from the
/// start, finding the blocks by their magic numbers and recording them, or from the block holding a given
/// offset, handing out nothing before it. Blocks ahead are decoded on other threads while libarchive reads
/// the current one, so every core decodes. Concatenated streams (pbzip2, lbzip2, `cat`) are read
/// one after another, as bzip2 does; anything that is not another stream after the last is ignored.
final class BzipStream: ArchiveSource {
    /// Where a block lies, and what follows it: another block, a stream's end, or (nil) the file's end.
    struct Plan: Sendable {
        let span: BzipSpan
        let next: BzipMagicFinder.Kind?
    }

    /// What a block decoded ahead may hold before its thread waits for the reader.
    static let aheadLimit = 4 << 20

    private let file: BzipFile
    let total: Int64
    /// From the start: where the blocks seem to lie, by their magic numbers. From an offset: the blocks.
    private let planner: BzipPlanner?
    private let known: [BzipBlocks.Block]
    private var nextKnown: Int
    private let depth: Int
    private var ahead: [BzipJob] = []
    /// The block being handed out: from its job, a piece at a time (`held`), or after a retry from a
    /// decoder of its own (`decoder`, with the bytes of it handed out before to skip).
    private var plan: Plan?
    private var job: BzipJob?
    private var held: [UInt8] = []
    private var heldOffset = 0
    private var decoder: BzipBlockDecoder?
    private var decoderSkip: Int64 = 0
    private let output: UnsafeMutableRawBufferPointer
    /// The uncompressed offset of the current block's start and of the next byte handed out.
    private var blockOutput: Int64 = 0
    private var position: Int64
    private let handOutFrom: Int64
    private var streamCRC: UInt32 = 0
    private var failed = false
    private(set) var recorded: [BzipBlocks.Block] = []
    /// Blocks started so far.
    private var blocksStarted = 0
    private(set) var lastErrno: Int32 = 0
    private(set) var lastMessage = ""

    /// Bytes of the file consumed, for progress.
    var consumed: Int64? { min(total, (plan?.span.end ?? 0) / 8) }
    var filterName: String? { "bzip2" }

    /// The blocks found, when read from the start; nil for a file of one block.
    var seekPlan: SeekPlan? { planner == nil ? nil : BzipBlocks(recorded).map(SeekPlan.bzip2) }

    /// Decodes `path` from its start; nil when it does not start as a bzip2 stream.
    init?(_ path: FilePath) throws(ArchiverError) {
        file = try BzipFile(path)
        total = file.size
        guard let planner = BzipPlanner(file) else { return nil }
        self.planner = planner
        // One decoder a core, the reader's block's included: more only take turns and evict each other's
        // tables from the cache (a third on 2 cores cost 15 % more CPU time and no speed).
        let cores = ProcessState.usableProcessors
        (known, nextKnown, depth, position, handOutFrom) = ([], 0, min(3, max(1, cores - 1)), 0, 0)
        output = .allocate(byteCount: 256 * 1024, alignment: 16)
    }

    /// Decodes `path` from the block holding `offset`, handing out output from `offset` on.
    init(_ path: FilePath, blocks: BzipBlocks, from offset: Int64) throws(ArchiverError) {
        file = try BzipFile(path)
        total = file.size
        planner = nil
        known = blocks.blocks
        nextKnown = blocks.block(before: offset)
        position = known[nextKnown].output
        handOutFrom = offset
        // One block ahead: an open file's reader keeps little, and sequential reads still use two cores.
        depth = 1
        output = .allocate(byteCount: 256 * 1024, alignment: 16)
    }

    deinit {
        job?.cancel()
        for job in ahead { job.cancel() }
        output.deallocate()
    }

    func read() -> (UnsafeRawPointer?, Int) {
        while !failed {
            if heldOffset < held.count {
                // Copied out in pieces: libarchive keeps the pointer until the next call.
                let count = min(output.count, held.count - heldOffset)
                held.withUnsafeBytes { output.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[heldOffset..<(heldOffset + count)])) }
                heldOffset += count
                if let piece = handOut(UnsafeRawPointer(output.baseAddress!), count) { return piece }
                continue
            }
            if let decoder {
                guard let count = decoder.decode(into: output) else {
                    if !retry(decoder.message) { return (nil, -1) }
                    continue
                }
                if count == 0 {
                    self.decoder = nil
                    if !finishBlock(crc: decoder.crc) { return (nil, -1) }
                    continue
                }
                let skip = Int(min(Int64(count), decoderSkip))
                decoderSkip -= Int64(skip)
                if skip < count, let piece = handOut(UnsafeRawPointer(output.baseAddress! + skip), count - skip) { return piece }
                continue
            }
            if let job {
                switch job.next() {
                case .piece(let bytes): (held, heldOffset) = (bytes, 0)
                case .end(let crc):
                    self.job = nil
                    if !finishBlock(crc: crc) { return (nil, -1) }
                case .failed(let message):
                    self.job = nil
                    if !retry(message) { return (nil, -1) }
                }
                continue
            }
            guard let next = nextJob() else { break }
            startBlock(next.plan)
            job = next
        }
        return failed ? (nil, -1) : (UnsafeRawPointer(output.baseAddress), 0)
    }

    /// The next block's job, with those after it started so that `depth` run ahead; nil after the last.
    /// An open file's first block goes alone: a small read (a thumbnail, a header) decodes no other.
    private func nextJob() -> BzipJob? {
        let depth = planner == nil && blocksStarted == 0 ? 0 : self.depth
        while ahead.count <= depth, let plan = nextPlan() {
            ahead.append(BzipJob(plan, file: file, limit: Self.aheadLimit))
        }
        return ahead.isEmpty ? nil : ahead.removeFirst()
    }

    private func nextPlan() -> Plan? {
        if let planner { return planner.next() }
        guard nextKnown < known.count else { return nil }
        defer { nextKnown += 1 }
        return Plan(span: known[nextKnown].span, next: .block)
    }

    private func startBlock(_ plan: Plan) {
        blocksStarted += 1
        self.plan = plan
        blockOutput = position
        (held, heldOffset, decoderSkip) = ([], 0, 0)
        if planner != nil {
            recorded.append(.init(start: plan.span.start, end: plan.span.end, output: position, level: plan.span.level))
        }
    }

    /// Hands out `count` bytes at `start` past what is not to be handed out; nil when all of it is.
    private func handOut(_ start: UnsafeRawPointer, _ count: Int) -> (UnsafeRawPointer?, Int)? {
        let first = position
        position += Int64(count)
        guard position > handOutFrom else { return nil }
        let skip = Int(max(0, handOutFrom - first))
        return (start + skip, count - skip)
    }

    /// After a block whose CRC libbz2 confirmed: its CRC joins the stream's, which is checked at its end.
    private func finishBlock(crc: UInt32) -> Bool {
        guard let plan, planner != nil else { return true }
        guard let next = plan.next else { return fail("Truncated input file: the bzip2 data ends early") }
        streamCRC = (streamCRC << 1 | streamCRC >> 31) ^ crc
        guard next == .end else { return true }
        let shift = (plan.span.end + 48) % 8
        let stored = file.bytes(at: (plan.span.end + 48) / 8, count: Int(shift + 39) / 8).map { bytes in
            let word = (bytes + [0]).prefix(5).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            return UInt32(truncatingIfNeeded: word >> (8 - shift))
        }
        guard stored == streamCRC else { return fail("Damaged bzip2 data: stream CRC mismatch") }
        streamCRC = 0
        return true
    }

    /// A block that would not decode, from the start: its end may have been a magic number that the data
    /// held by chance, so the next ones are tried. The blocks decoded ahead started at the wrong place.
    private func retry(_ message: String) -> Bool {
        guard let planner, let plan, plan.next != nil, let fixed = planner.extend(plan) else {
            return fail(plan?.next == nil && planner != nil ? "Truncated input file: the bzip2 data ends early" : message)
        }
        for job in ahead { job.cancel() }
        ahead = []
        self.plan = fixed
        recorded[recorded.count - 1] = .init(start: fixed.span.start, end: fixed.span.end, output: blockOutput, level: fixed.span.level)
        // What was handed out of the block stays; the rest follows from the block decoded again.
        decoderSkip = position - blockOutput
        (held, heldOffset) = ([], 0)
        decoder = BzipBlockDecoder(file, fixed.span)
        return true
    }

    private func fail(_ message: String) -> Bool {
        failed = true
        lastErrno = EIO
        lastMessage = message
        return false
    }
}

/// Where the blocks of a bzip2 file read from its start seem to lie: each runs from its magic number to
/// the next one. Streams follow one another, each starting on a byte with its own header.
final class BzipPlanner {
    private let file: BzipFile
    private var finder: BzipMagicFinder
    private var level: UInt8 = 9
    /// Where the next block starts; nil: no more.
    private var start: Int64?

    /// Nil when the file does not start with a stream header.
    init?(_ file: BzipFile) {
        self.file = file
        finder = BzipMagicFinder(file, from: 0)
        guard enterStream(at: 0) else { return nil }
    }

    func next() -> BzipStream.Plan? {
        guard let start else { return nil }
        let found = finder.next()
        let plan = BzipStream.Plan(span: BzipSpan(start: start, end: found?.bit ?? file.size * 8, level: level), next: found?.kind)
        advance(past: plan)
        return plan
    }

    /// The same block running to one of the next magic numbers, the first with which it decodes; from
    /// there the blocks follow that one. Nil when none does within a block's largest size.
    func extend(_ plan: BzipStream.Plan) -> BzipStream.Plan? {
        let search = BzipMagicFinder(file, from: plan.span.end + 1)
        // A few candidates are plenty: bzip2 never makes a block much larger than its input.
        for _ in 0..<16 {
            let found = search.next()
            let end = found?.bit ?? file.size * 8
            let tried = BzipStream.Plan(span: BzipSpan(start: plan.span.start, end: end, level: plan.span.level), next: found?.kind)
            guard tried.span.isPossible || end - plan.span.start <= 80 else { return nil }
            if BzipBlockDecoder(file, tried.span).decodeAll({ _ in true }) {
                finder = BzipMagicFinder(file, from: end)
                if found != nil { _ = finder.next() }
                advance(past: tried)
                return found == nil ? nil : tried
            }
            if found == nil { return nil }
        }
        return nil
    }

    private func advance(past plan: BzipStream.Plan) {
        switch plan.next {
        case .block: start = plan.span.end
        case .end: start = nil; _ = enterStream(at: (plan.span.end + 80 + 7) / 8)
        case nil: start = nil
        }
    }

    /// Reads a stream header at byte `offset` and finds its first block (skipping empty streams); false
    /// when there is no stream there.
    private func enterStream(at offset: Int64) -> Bool {
        var offset = offset
        while true {
            guard let header = file.bytes(at: offset, count: 4), header[0...2] == [0x42, 0x5A, 0x68],
                (0x31...0x39).contains(header[3])
            else { return false }
            level = header[3] - 0x30
            let first = (offset + 4) * 8
            guard let magic = file.bytes(at: offset + 4, count: 6)?.reduce(UInt64(0), { $0 << 8 | UInt64($1) }),
                magic == BzipMagicFinder.blockMagic || magic == BzipMagicFinder.endMagic
            else { return false }
            finder = BzipMagicFinder(file, from: first)
            _ = finder.next()
            if magic == BzipMagicFinder.blockMagic {
                start = first
                return true
            }
            // An empty stream: its end follows its header.
            offset = (first + 80 + 7) / 8
        }
    }
}

/// One block decoded on a thread of its own, its output handed over in pieces. A job ahead of the reader
/// holds at most `limit` bytes and then waits: a block of 900 kB can hold 45 MB of runs.
final class BzipJob: Sendable {
    enum Item: Sendable {
        case piece([UInt8])
        /// The block is whole and libbz2 found its CRC right.
        case end(crc: UInt32)
        case failed(String)
    }

    private struct Queue {
        var items: [Item] = []
        var bytes = 0
        var limit: Int
        var producerWaits = false
        var cancelled = false
    }

    let plan: BzipStream.Plan
    private let queue: Mutex<Queue>
    /// Signalled once for each item queued, and for room when the decoding thread waits for it.
    private let ready = DispatchSemaphore(value: 0)
    private let room = DispatchSemaphore(value: 0)

    init(_ plan: BzipStream.Plan, file: BzipFile, limit: Int) {
        self.plan = plan
        queue = Mutex(Queue(limit: limit))
        let started = Self.detach { [self] in decode(file) }
        if !started {
            // Decoded here, before the reader takes anything, so all of it is held.
            queue.withLock { $0.limit = .max }
            decode(file)
        }
    }

    private func decode(_ file: BzipFile) {
        let decoder = BzipBlockDecoder(file, plan.span)
        let whole = decoder.decodeAll { piece in
            let (wait, cancelled) = queue.withLock { queue in
                queue.items.append(.piece(Array(piece)))
                queue.bytes += piece.count
                queue.producerWaits = queue.bytes > queue.limit && !queue.cancelled
                return (queue.producerWaits, queue.cancelled)
            }
            ready.signal()
            if wait { room.wait() }
            return !cancelled && !queue.withLock { $0.cancelled }
        }
        let last: Item = whole ? .end(crc: decoder.crc) : .failed(decoder.message)
        queue.withLock { $0.items.append(last) }
        ready.signal()
    }

    /// The block's next piece, its end or its failure, waiting for it; nothing is asked after the last.
    func next() -> Item {
        ready.wait()
        let (item, wake) = queue.withLock { queue in
            let item = queue.items.removeFirst()
            if case .piece(let bytes) = item { queue.bytes -= bytes.count }
            let wake = queue.producerWaits && queue.bytes <= queue.limit
            if wake { queue.producerWaits = false }
            return (item, wake)
        }
        if wake { room.signal() }
        return item
    }

    /// Stops the decoding thread at its next piece.
    func cancel() {
        let wake = queue.withLock { queue in
            queue.cancelled = true
            defer { queue.producerWaits = false }
            return queue.producerWaits
        }
        if wake { room.signal() }
    }

    /// Runs `work` on a thread of its own, not a shared pool's: a reader waiting for its block may itself
    /// be on a pool thread, and the pool's threads may all be waiting so. A thread costs little next to
    /// a block's 30 ms. False when none could be made.
    private static func detach(_ work: @escaping @Sendable () -> Void) -> Bool {
        final class Work {
            let run: @Sendable () -> Void
            init(_ run: @escaping @Sendable () -> Void) { self.run = run }
        }
        let context = Unmanaged.passRetained(Work(work)).toOpaque()
        var thread = pthread_t()
        let made = pthread_create(&thread, nil, { context in
            Unmanaged<Work>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context)
        guard made == 0 else {
            Unmanaged<Work>.fromOpaque(context).release()
            return false
        }
        pthread_detach(thread)
        return true
    }
}
