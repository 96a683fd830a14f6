internal import CArchive
internal import CIsal
internal import CZlib
import ArchiverCore
import Glibc
import Platform
import SystemPackage

/// Places in a gzip file where inflating can start again without inflating what comes before: a copy of
/// ISA-L's decoder state between two calls (its Huffman tables, the bits it holds and the 32 KiB of output
/// later data may copy from) and the input and output offsets there. Recorded while the archive is first
/// read, so that an entry deep in a tar.gz is reached by inflating at most `spacing` bytes.
///
/// ISA-L inflates about twice as fast as zlib here, and unlike zlib its whole state is one public struct
/// that can be kept; zlib could only resume at deflate block ends, which ISA-L does not stop at.
public final class GzipSeekPoints: Sendable {
    struct Point: Sendable, Equatable {
        /// Bytes of the file consumed up to the point (the decoder holds some of their bits).
        let input: Int64
        /// The uncompressed offset of the point.
        let output: Int64
        /// The decoder's state there, zlib-compressed: points cost memory and cache space.
        let state: [UInt8]
    }

    /// Output between points: ISA-L inflates 8 MiB in about 10 ms here; a point costs ≈ 40 kB.
    static let spacing: Int64 = 8 << 20
    /// Which decoder the states belong to: kept points of another ISA-L version or layout are not used.
    static let decoderTag = UInt32(CI_STATE_TAG)

    let points: [Point]

    init(_ points: [Point]) { self.points = points }

    /// The last point at or before `offset`; nil: start from the file's beginning.
    func point(before offset: Int64) -> Point? { points.last(atOrBefore: offset, by: \.output) }

    /// Where inflating for `offset` would start: the point's output offset, or 0.
    func start(for offset: Int64) -> Int64 { point(before: offset)?.output ?? 0 }
}

/// A gzip file inflated with ISA-L, handed to libarchive as a plain tar stream: either from the start,
/// recording seek points, or from a seek point on, handing out nothing before a given offset.
/// Several gzip members one after another (pigz, `cat a.gz b.gz`) are one stream, as gzip reads them;
/// each member's CRC is checked at its end.
final class GzipStream: TarDecoder {
    private let state = UnsafeMutablePointer<inflate_state>.allocate(capacity: 1)
    private let input = UnsafeMutableRawBufferPointer.allocate(byteCount: 128 * 1024, alignment: 16)
    let output = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 16)
    private let descriptor: Int32
    let total: Int64
    /// The file offset of the next read.
    private var filePosition: Int64
    private var atFileEnd = false
    var position: Int64
    let handOutFrom: Int64
    private var finished = false
    /// Set while scanning: the points recorded so far.
    private var recorded: [GzipSeekPoints.Point]?
    var lastErrno: Int32 = 0
    var lastMessage = ""

    var consumed: Int64? { filePosition - Int64(state.pointee.avail_in) }
    var filterName: String? { "gzip" }
    /// The points recorded, when asked for.
    var seekPlan: SeekPlan? { recorded.map { .gzip(GzipSeekPoints($0)) } }

    /// Inflates `path` from its start, recording seek points if asked.
    convenience init(_ path: FilePath, recordingPoints: Bool) throws(ArchiverError) {
        try self.init(path, point: nil, handOutFrom: 0)
        if recordingPoints { recorded = [] }
    }

    /// Inflates `path` from the point before `offset`, handing out output from `offset` on.
    convenience init(_ path: FilePath, points: GzipSeekPoints, from offset: Int64) throws(ArchiverError) {
        try self.init(path, point: points.point(before: offset), handOutFrom: offset)
    }

    private init(_ path: FilePath, point: GzipSeekPoints.Point?, handOutFrom offset: Int64) throws(ArchiverError) {
        let opened = FileSystem.openForReading(path)
        (descriptor, total) = (opened.descriptor, opened.size)
        isal_inflate_init(state)
        state.pointee.crc_flag = UInt32(ISAL_GZIP)
        handOutFrom = offset
        filePosition = point?.input ?? 0
        position = point?.output ?? 0
        if let failure = opened.failure { throw failure }
        guard let point else { return }
        var length = uLongf(CI_STATE_SIZE)
        let restored = UnsafeMutableRawPointer(state).withMemoryRebound(to: Bytef.self, capacity: Int(CI_STATE_SIZE)) {
            uncompress($0, &length, point.state, uLong(point.state.count))
        }
        guard restored == Z_OK, length == uLongf(CI_STATE_SIZE) else {
            throw ArchiverError(
                .corrupt, tr("“%@” changed while it was open as a folder.", path.lastComponent?.string ?? path.string),
                hint: tr("Unmount it and open it again."), path: path.string)
        }
    }

    deinit {
        state.deallocate()
        input.deallocate()
        output.deallocate()
        if descriptor >= 0 { close(descriptor) }
    }

    func decode(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        let s = state
        s.pointee.next_out = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
        s.pointee.avail_out = UInt32(buffer.count)
        while s.pointee.avail_out > 0, !finished {
            if s.pointee.avail_in == 0, !atFileEnd {
                guard let count = refill() else { return nil }
                atFileEnd = count == 0
            }
            let room = s.pointee.avail_out, left = s.pointee.avail_in
            let status = isal_inflate(s)
            if status < 0 {
                let reason = status == ISAL_INCORRECT_CHECKSUM ? "CRC mismatch" : "invalid deflate data (\(status))"
                return fail(EIO, "Damaged gzip data: \(reason)")
            }
            if s.pointee.block_state == ISAL_BLOCK_FINISH {
                if !nextMember() { finished = true }
            } else if atFileEnd, s.pointee.avail_out == room, s.pointee.avail_in == left {
                return fail(EIO, "Truncated input file: the gzip stream ends early")
            } else {
                recordPoint(at: position + Int64(buffer.count - Int(s.pointee.avail_out)))
            }
        }
        return buffer.count - Int(s.pointee.avail_out)
    }

    /// After a member: whether another follows (gzip's magic bytes), set up to read its header.
    /// Anything else after the last member is ignored, as gzip does.
    private func nextMember() -> Bool {
        let s = state
        while s.pointee.avail_in < 2 {
            let left = Int(s.pointee.avail_in)
            if left == 1 { input[0] = s.pointee.next_in[0] }
            guard let count = refill(keeping: left), count > 0 else { return false }
        }
        guard s.pointee.next_in[0] == 0x1F, s.pointee.next_in[1] == 0x8B else { return false }
        let (next, available) = (s.pointee.next_in, s.pointee.avail_in)
        isal_inflate_reset(s)
        s.pointee.crc_flag = UInt32(ISAL_GZIP)
        (s.pointee.next_in, s.pointee.avail_in) = (next, available)
        return true
    }

    /// Far enough from the last point: one more at `here` (the uncompressed offset reached), a compressed
    /// copy of the decoder's state.
    private func recordPoint(at here: Int64) {
        guard recorded != nil else { return }
        guard here - (recorded?.last?.output ?? 0) >= GzipSeekPoints.spacing else { return }
        let copy = UnsafeMutablePointer<inflate_state>.allocate(capacity: 1)
        defer { copy.deallocate() }
        UnsafeMutableRawPointer(copy).copyMemory(from: state, byteCount: Int(CI_STATE_SIZE))
        ci_clear_unused(copy)
        var packed = [UInt8](repeating: 0, count: Int(compressBound(uLong(CI_STATE_SIZE))))
        var length = uLongf(packed.count)
        let status = UnsafeRawPointer(copy).withMemoryRebound(to: Bytef.self, capacity: Int(CI_STATE_SIZE)) {
            compress2(&packed, &length, $0, uLong(CI_STATE_SIZE), 1)
        }
        guard status == Z_OK else { return }
        // A copy of its length: the buffer keeps the capacity of the bound, twice what it holds.
        recorded?.append(.init(input: filePosition - Int64(state.pointee.avail_in), output: here, state: Array(packed[..<Int(length)])))
    }

    /// Reads more of the file behind `keeping` bytes already at the buffer's start; nil on failure.
    private func refill(keeping kept: Int = 0) -> Int? {
        while true {
            let count = pread(descriptor, input.baseAddress! + kept, input.count - kept, off_t(filePosition))
            if count < 0, errno == EINTR { continue }
            if count < 0 { return fail(errno, "Read error: \(String(cString: strerror(errno)))") }
            filePosition += Int64(count)
            state.pointee.next_in = input.baseAddress!.assumingMemoryBound(to: UInt8.self)
            state.pointee.avail_in = UInt32(kept + count)
            return count
        }
    }
}
