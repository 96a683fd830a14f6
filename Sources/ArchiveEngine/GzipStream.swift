internal import CArchive
internal import CZlib
import ArchiverCore
import Glibc
import SystemPackage

/// Places in a gzip file where inflating can start again without inflating what comes before: the
/// input position (down to the bit) at the end of a deflate block, and the 32 KiB of output before it,
/// which later blocks may copy from. Recorded while the archive is first read, so that an entry deep in
/// a tar.gz is reached by inflating at most `spacing` bytes.
public final class GzipSeekPoints: Sendable {
    struct Point: Sendable, Equatable {
        /// Bytes of the file consumed up to the point; with `bits`, the last of them is shared.
        let input: Int64
        /// How many high bits of the byte at `input - 1` belong to what comes after the point (0–7).
        let bits: UInt8
        /// The uncompressed offset of the point.
        let output: Int64
        /// The output before the point (at most 32 KiB), zlib-compressed: points cost memory and cache space.
        let window: [UInt8]
    }

    /// Output between points: inflating one spacing takes about 15 ms here, the window costs ≈ 1 % of it.
    static let spacing: Int64 = 4 << 20

    let points: [Point]

    init(_ points: [Point]) { self.points = points }

    /// The last point at or before `offset`; nil: start from the file's beginning.
    func point(before offset: Int64) -> Point? {
        var low = 0, high = points.count
        while low < high {
            let middle = (low + high) / 2
            if points[middle].output <= offset { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? nil : points[low - 1]
    }

    /// Where inflating for `offset` would start: the point's output offset, or 0.
    func start(for offset: Int64) -> Int64 { point(before: offset)?.output ?? 0 }

    /// Bytes the points take, kept and cached.
    var size: Int { points.reduce(0) { $0 + $1.window.count + 24 } }
}

/// A gzip file inflated with zlib, handed to libarchive as a plain tar stream: either from the start,
/// recording seek points, or from a seek point on, handing out nothing before a given offset.
/// Several gzip members one after another (pigz, `cat a.gz b.gz`) are one stream, as gzip reads them.
final class GzipStream: ArchiveSource {
    private let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    private let input = UnsafeMutableRawBufferPointer.allocate(byteCount: 128 * 1024, alignment: 16)
    private let output = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 16)
    private let descriptor: Int32
    let total: Int64
    /// The file offset of the next read.
    private var filePosition: Int64
    /// The uncompressed offset of the next byte inflated.
    private var position: Int64
    /// Output before this offset is inflated but not handed out.
    private let handOutFrom: Int64
    /// Deflate without a gzip header: resumed at a point. A later member's header is read as gzip again.
    private var raw: Bool
    /// A member's 8-byte trailer left to skip after resuming in raw mode.
    private var trailer = 0
    private var finished = false
    /// Set while scanning: the points recorded so far.
    private var recorded: [GzipSeekPoints.Point]?
    private(set) var lastErrno: Int32 = 0
    private(set) var lastMessage = ""

    /// Bytes of the file consumed, for progress.
    var consumed: Int64 { filePosition - Int64(stream.pointee.avail_in) }

    /// The points recorded while scanning from the start.
    var seekPoints: GzipSeekPoints { GzipSeekPoints(recorded ?? []) }

    /// Inflates `path` from its start, recording seek points.
    convenience init(scanning path: FilePath) throws(ArchiverError) {
        try self.init(path, point: nil, handOutFrom: 0)
        recorded = []
    }

    /// Inflates `path` from the point before `offset`, handing out output from `offset` on.
    convenience init(_ path: FilePath, points: GzipSeekPoints, from offset: Int64) throws(ArchiverError) {
        try self.init(path, point: points.point(before: offset), handOutFrom: offset)
    }

    private init(_ path: FilePath, point: GzipSeekPoints.Point?, handOutFrom offset: Int64) throws(ArchiverError) {
        descriptor = path.withPlatformString { open($0, O_RDONLY | O_CLOEXEC) }
        let failure = errno
        stream.initialize(to: z_stream())
        handOutFrom = offset
        filePosition = point?.input ?? 0
        position = point?.output ?? 0
        raw = point != nil
        total = descriptor >= 0 ? Int64(lseek(descriptor, 0, SEEK_END)) : 0
        // raw deflate (-15) at a point; gzip only (31) from the start, which checks each member's CRC.
        let status = cz_inflate_init(stream, raw ? -15 : 31)
        guard descriptor >= 0, status == Z_OK else {
            throw ArchiverError(
                .inputUnreadable,
                tr("Cannot open “%1$@”: %2$@.", path, TextValue.systemError(descriptor < 0 ? failure : ENOMEM)),
                path: path.string)
        }
        guard let point else { return }
        if point.bits > 0 {
            var byte: UInt8 = 0
            guard pread(descriptor, &byte, 1, off_t(point.input - 1)) == 1 else { throw damaged(path) }
            inflatePrime(stream, Int32(point.bits), Int32(byte >> (8 - point.bits)))
        }
        var window = [UInt8](repeating: 0, count: 32 * 1024)
        var length = uLongf(window.count)
        guard uncompress(&window, &length, point.window, uLong(point.window.count)) == Z_OK,
            inflateSetDictionary(stream, window, uInt(length)) == Z_OK
        else { throw damaged(path) }
    }

    private func damaged(_ path: FilePath) -> ArchiverError {
        ArchiverError(
            .corrupt, tr("“%@” changed while it was open as a folder.", path.lastComponent?.string ?? path.string),
            hint: tr("Unmount it and open it again."), path: path.string)
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
        input.deallocate()
        output.deallocate()
        if descriptor >= 0 { close(descriptor) }
    }

    /// The next block of output; 0 bytes at the end, -1 on failure (`lastMessage`).
    func read() -> (UnsafeRawPointer?, Int) {
        while !finished {
            guard let produced = inflateBlock() else { return (nil, -1) }
            let start = position
            position += Int64(produced)
            guard position > handOutFrom else { continue }
            let skip = Int(max(0, handOutFrom - start))
            return (UnsafeRawPointer(output.baseAddress! + skip), produced - skip)
        }
        return (UnsafeRawPointer(output.baseAddress), 0)
    }

    /// Fills `output` as far as the data goes; nil on failure.
    private func inflateBlock() -> Int? {
        let z = stream
        z.pointee.next_out = output.baseAddress!.assumingMemoryBound(to: Bytef.self)
        z.pointee.avail_out = uInt(output.count)
        while z.pointee.avail_out > 0, !finished {
            if z.pointee.avail_in == 0 {
                guard let count = refill() else { return nil }
                if count == 0 { return fail(EIO, "Truncated input file: the gzip stream ends early") }
            }
            if trailer > 0 {
                let skipped = min(trailer, Int(z.pointee.avail_in))
                z.pointee.next_in += skipped
                z.pointee.avail_in -= uInt(skipped)
                trailer -= skipped
                if trailer == 0, !nextMember() { finished = true }
                continue
            }
            let status = inflate(z, Z_BLOCK)
            switch status {
            case Z_OK, Z_BUF_ERROR:
                recordPoint()
            case Z_STREAM_END:
                if raw {
                    trailer = 8
                } else if !nextMember() {
                    finished = true
                }
            default:
                let message = z.pointee.msg.map { String(cString: $0) } ?? "error \(status)"
                return fail(EIO, "Damaged gzip data: \(message)")
            }
        }
        return output.count - Int(z.pointee.avail_out)
    }

    /// After a member: whether another follows (gzip's magic bytes), set up to read its header.
    /// Anything else after the last member is ignored, as gzip does.
    private func nextMember() -> Bool {
        let z = stream
        while z.pointee.avail_in < 2 {
            let left = Int(z.pointee.avail_in)
            if left == 1 { input[0] = z.pointee.next_in[0] }
            guard let count = refill(keeping: left), count > 0 else { return false }
        }
        guard z.pointee.next_in[0] == 0x1F, z.pointee.next_in[1] == 0x8B else { return false }
        raw = false
        return inflateReset2(z, 31) == Z_OK
    }

    /// At the end of a deflate block, far enough from the last point: one more. Not in a member's last
    /// block, whose end is followed by the trailer rather than another block.
    private func recordPoint() {
        let z = stream
        guard recorded != nil, z.pointee.data_type & 128 != 0, z.pointee.data_type & 64 == 0 else { return }
        let here = position + Int64(output.count - Int(z.pointee.avail_out))
        guard here - (recorded?.last?.output ?? 0) >= GzipSeekPoints.spacing else { return }
        var window = [UInt8](repeating: 0, count: 32 * 1024)
        var length = uInt(0)
        guard inflateGetDictionary(z, &window, &length) == Z_OK else { return }
        var packed = [UInt8](repeating: 0, count: Int(compressBound(uLong(length))))
        var packedLength = uLongf(packed.count)
        guard compress2(&packed, &packedLength, window, uLong(length), 1) == Z_OK else { return }
        packed.removeSubrange(Int(packedLength)...)
        recorded?.append(.init(input: consumed, bits: UInt8(z.pointee.data_type & 7), output: here, window: packed))
    }

    /// Reads more of the file behind `keeping` bytes already at the buffer's start; nil on failure.
    private func refill(keeping kept: Int = 0) -> Int? {
        while true {
            let count = pread(descriptor, input.baseAddress! + kept, input.count - kept, off_t(filePosition))
            if count < 0, errno == EINTR { continue }
            if count < 0 { return fail(errno, "Read error: \(String(cString: strerror(errno)))") }
            filePosition += Int64(count)
            stream.pointee.next_in = input.baseAddress!.assumingMemoryBound(to: Bytef.self)
            stream.pointee.avail_in = uInt(kept + count)
            return count
        }
    }

    private func fail(_ code: Int32, _ message: String) -> Int? {
        lastErrno = code
        lastMessage = message
        return nil
    }
}

/// Bytes our own code hands to libarchive (parts of a split archive, a stream we inflate), instead of a
/// file libarchive reads itself.
protocol ArchiveSource: AnyObject {
    /// The archive's size in bytes, for progress.
    var total: Int64 { get }
    /// The next block: 0 bytes at the end, -1 on failure, with `lastErrno` and `lastMessage` set.
    func read() -> (UnsafeRawPointer?, Int)
    var lastErrno: Int32 { get }
    var lastMessage: String { get }
}

extension ArchiveSource {
    /// Sets libarchive's read callback to this source; the caller keeps the source alive as long as the
    /// handle. Call `archive_read_open1` after setting any other callbacks.
    func setReadCallback(_ handle: OpaquePointer) {
        archive_read_set_callback_data(handle, Unmanaged.passUnretained(self as AnyObject).toOpaque())
        archive_read_set_read_callback(handle) { archive, context, block in
            guard let context, let block,
                let source = Unmanaged<AnyObject>.fromOpaque(context).takeUnretainedValue() as? any ArchiveSource
            else { return -1 }
            let (start, count) = source.read()
            block.pointee = start
            if count < 0 { ca_set_error(archive, source.lastErrno, source.lastMessage) }
            return count
        }
    }
}
