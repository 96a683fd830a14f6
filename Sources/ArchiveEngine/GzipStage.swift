import Glibc

/// Our own gzip compression between libarchive's tar stream (or a single file) and the output, in place of
/// libarchive's gzip filter, which deflates on one core: one gzip member as pigz writes it, its deflate
/// stream made on every core by `ParallelDeflate`, which gzip, Python, bsdtar and 7-Zip read as any other.
///
/// The header holds no name and no time (MTIME 0, "none"), so that the same input makes the same bytes;
/// the tar inside keeps every file's time. The extra-flags byte says "fastest" for level 1 and "maximum"
/// for 9, as gzip sets it.
final class GzipStage: CompressionStage {
    private let deflate: ParallelDeflate
    private let level: Int32
    private let sink: OutputSink
    private var startedMember = false
    private(set) var lastErrno: Int32 = 0

    init(level: Int32, workers: Int, sink: OutputSink) {
        self.level = min(9, max(0, level))
        self.sink = sink
        deflate = ParallelDeflate(level: self.level, workers: workers)
    }

    /// The member's first ten bytes (RFC 1952): magic, deflate, no flags, no time, extra flags, Unix.
    static func header(level: Int32) -> [UInt8] {
        let extra: UInt8 = level == 9 ? 2 : level == 1 ? 4 : 0
        return [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, extra, 3]
    }

    /// The member's last eight bytes: the input's CRC-32 and its size modulo 2³², little-endian.
    static func trailer(crc: UInt32, size: Int64) -> [UInt8] {
        let length = UInt32(truncatingIfNeeded: size)
        return (0..<4).map { UInt8(truncatingIfNeeded: crc >> (8 * $0)) } + (0..<4).map { UInt8(truncatingIfNeeded: length >> (8 * $0)) }
    }

    func write(_ input: UnsafeRawBufferPointer) -> Int {
        guard startMember(), deflate.write(input, emit: send) else { return fail() }
        return input.count
    }

    func end() -> Bool {
        let ended =
            startMember() && deflate.finish(emit: send)
            && Self.trailer(crc: deflate.crc, size: deflate.inputSize).withUnsafeBytes(send)
        if !ended { _ = fail() }
        return ended
    }

    private func startMember() -> Bool {
        if startedMember { return true }
        startedMember = true
        return Self.header(level: level).withUnsafeBytes(send)
    }

    /// Hands bytes to the sink, which writes all of them or fails.
    private func send(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.isEmpty || sink.write(bytes) >= 0
    }

    /// -1, with the sink's errno, or ENOMEM when deflate itself failed.
    private func fail() -> Int {
        lastErrno = sink.lastErrno != 0 ? sink.lastErrno : ENOMEM
        return -1
    }
}
