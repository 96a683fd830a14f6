internal import CZstd
import ArchiverCore
import Glibc
import Platform
import SystemPackage

/// Where the frames of a zstd file start, as far apart as `spacing` allows. Frames are independent, so an
/// entry of a tar.zst made of several (ours, pzstd, t2sz) is reached by decoding from the frame holding it.
/// A file of one frame (plain `zstd`, multi-threaded or not) has nothing to seek by.
public struct ZstdFrames: Sendable, Equatable {
    struct Frame: Sendable, Equatable {
        /// Where the frame starts in the file, and where its output starts.
        let input: Int64
        let output: Int64
    }

    /// Output between recorded frames: zstd decodes 8 MiB in about 10 ms here.
    static let spacing: Int64 = 8 << 20

    let frames: [Frame]

    /// The last recorded frame starting at or before `offset`; nil: decode from the file's start.
    func frame(before offset: Int64) -> Frame? { frames.last(atOrBefore: offset, by: \.output) }

    func start(for offset: Int64) -> Int64 { frame(before: offset)?.output ?? 0 }
}

/// A zstd file decoded by us and handed to libarchive as a plain tar stream: from the start, noting where
/// frames begin, or from a frame on, handing out nothing before a given offset. Each frame's checksum,
/// when it has one, is verified by zstd.
final class ZstdStream: TarDecoder {
    private let context: OpaquePointer
    private let input = UnsafeMutableRawBufferPointer.allocate(byteCount: 128 * 1024, alignment: 16)
    let output = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 16)
    private var source = ZSTD_inBuffer(src: nil, size: 0, pos: 0)
    private let descriptor: Int32
    let total: Int64
    private var filePosition: Int64
    private var atFileEnd = false
    /// zstd's last answer: 0 when the frame read so far has ended, so the input may stop there.
    private var betweenFrames = true
    var position: Int64
    let handOutFrom: Int64
    private var recorded: [ZstdFrames.Frame]?
    var lastErrno: Int32 = 0
    var lastMessage = ""

    var consumed: Int64? { filePosition - Int64(source.size - source.pos) }
    var filterName: String? { "zstd" }
    /// The frames noted, when asked for; nil for a file of one frame, which has nothing to seek by.
    var seekPlan: SeekPlan? { recorded.flatMap { $0.isEmpty ? nil : .zstd(ZstdFrames(frames: $0)) } }

    /// Decodes `path` from its start, noting frame starts if asked.
    convenience init(_ path: FilePath, recordingFrames: Bool) throws(ArchiverError) {
        try self.init(path, frame: nil, handOutFrom: 0)
        if recordingFrames { recorded = [] }
    }

    /// Decodes `path` from the frame before `offset`, handing out output from `offset` on.
    convenience init(_ path: FilePath, frames: ZstdFrames, from offset: Int64) throws(ArchiverError) {
        try self.init(path, frame: frames.frame(before: offset), handOutFrom: offset)
    }

    private init(_ path: FilePath, frame: ZstdFrames.Frame?, handOutFrom offset: Int64) throws(ArchiverError) {
        let opened = FileSystem.openForReading(path)
        (descriptor, total) = (opened.descriptor, opened.size)
        guard let context = ZSTD_createDCtx() else { fatalError("zstd: out of memory") }
        self.context = context
        handOutFrom = offset
        filePosition = frame?.input ?? 0
        position = frame?.output ?? 0
        if let failure = opened.failure { throw failure }
    }

    deinit {
        ZSTD_freeDCtx(context)
        input.deallocate()
        output.deallocate()
        if descriptor >= 0 { close(descriptor) }
    }

    func decode(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        var target = ZSTD_outBuffer(dst: buffer.baseAddress, size: buffer.count, pos: 0)
        while target.pos < target.size {
            if source.pos == source.size {
                guard !atFileEnd else { break }
                let count = pread(descriptor, input.baseAddress, input.count, off_t(filePosition))
                if count < 0, errno == EINTR { continue }
                guard count >= 0 else { return fail(errno, "Read error: \(String(cString: strerror(errno)))") }
                filePosition += Int64(count)
                source = ZSTD_inBuffer(src: input.baseAddress, size: count, pos: 0)
                atFileEnd = count == 0
                continue
            }
            if betweenFrames { note(position + Int64(target.pos)) }
            let answer = ZSTD_decompressStream(context, &target, &source)
            if ZSTD_isError(answer) != 0 {
                return fail(EIO, "Damaged zstd data: \(String(cString: ZSTD_getErrorName(answer)))")
            }
            betweenFrames = answer == 0
        }
        if target.pos == 0, atFileEnd, !betweenFrames { return fail(EIO, "Truncated input file: the zstd data ends early") }
        return target.pos
    }

    /// A frame starts at the input's current place, `output` bytes into the stream.
    private func note(_ output: Int64) {
        guard recorded != nil, output - (recorded?.last?.output ?? 0) >= ZstdFrames.spacing else { return }
        recorded?.append(.init(input: filePosition - Int64(source.size - source.pos), output: output))
    }
}
