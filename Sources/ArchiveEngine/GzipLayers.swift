internal import CZlib
import ArchiverCore
import Glibc
import SystemPackage

/// A gzip compressed many times over (gzip run on its own output, again and again): libarchive undoes at
/// most 25 filters and then calls the file damaged. The outer layers are undone here, each by zlib from
/// the output of the one around it, and libarchive is handed the innermost gzip, which it reads as any
/// other. Bounded: at most `StreamContent.maximumGzipLayers` layers (about 100 KB of memory
/// each), and a layer undone here must not expand (`expansionLimit`).
final class GzipLayers: ArchiveSource {
    /// Layers libarchive undoes well itself: fewer than this are left to it.
    static let leftToLibarchive = 20

    let total: Int64
    private let descriptor: Int32
    private let file: FileBlocks
    /// The outermost first; the last one's output is handed to libarchive.
    private let layers: [Layer]
    // A layer's failure is passed on to the layers inside it: the innermost one says it.
    var lastErrno: Int32 { layers.last?.failure?.code ?? 0 }
    var lastMessage: String { layers.last?.failure?.message ?? "" }
    var consumed: Int64? { file.position }
    /// Why a layer stopped, once one did.
    var failure: String? { layers.last?.failure?.message }

    /// Nil unless `path` is a gzip whose content is a gzip, and so on, at least `leftToLibarchive` times
    /// and at most `StreamContent.maximumGzipLayers` times.
    init?(_ path: FilePath) {
        let depth = Self.depth(path)
        guard depth >= Self.leftToLibarchive, depth <= StreamContent.maximumGzipLayers else { return nil }
        guard let (descriptor, size) = Self.open(path) else { return nil }
        self.descriptor = descriptor
        total = size
        file = FileBlocks(descriptor)
        var layers: [Layer] = []
        var below: any BlockSource = file
        // All but the innermost, which libarchive undoes (and names the content by).
        for number in 1..<depth {
            let layer = Layer(below: below, number: number, depth: depth, limit: Self.expansionLimit(fileSize: size))
            layers.append(layer)
            below = layer
        }
        self.layers = layers
    }

    deinit { close(descriptor) }

    func read() -> (UnsafeRawPointer?, Int) {
        guard let top = layers.last else { return (nil, 0) }
        return top.next()
    }

    /// A layer undone here holds the gzip of the layer inside it, which compressed data does not make
    /// smaller: each is about the file's size. One that expands far beyond is a decompression bomb.
    static func expansionLimit(fileSize: Int64) -> Int64 { 4 * fileSize + (1 << 20) }

    /// How many gzip layers `path` has, one inside the other, up to one more than the maximum: only the
    /// start of each is undone.
    static func depth(_ path: FilePath) -> Int {
        guard let (descriptor, _) = open(path) else { return 0 }
        defer { close(descriptor) }
        let file = FileBlocks(descriptor)
        guard Layer.startsGzip(file.peek()) else { return 0 }
        var below: any BlockSource = file
        var depth = 1
        while depth <= StreamContent.maximumGzipLayers {
            let layer = Layer(below: below, number: depth, depth: depth, limit: .max)
            guard Layer.startsGzip(layer.peek()) else { break }
            below = layer
            depth += 1
        }
        return depth
    }

    private static func open(_ path: FilePath) -> (Int32, Int64)? {
        let descriptor = path.withPlatformString { Glibc.open($0, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { return nil }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            close(descriptor)
            return nil
        }
        return (descriptor, Int64(info.st_size))
    }
}

/// Blocks of bytes one after another: a block stays valid until the next call.
private protocol BlockSource: AnyObject {
    /// The next block: 0 bytes at the end, -1 on failure (`failure`).
    func next() -> (UnsafeRawPointer?, Int)
    var failure: (code: Int32, message: String)? { get }
}

/// The file, block by block.
private final class FileBlocks: BlockSource {
    private let descriptor: Int32
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 128 * 1024, alignment: 16)
    private(set) var position: Int64 = 0
    private(set) var failure: (code: Int32, message: String)?
    private var peeked: Int?

    init(_ descriptor: Int32) { self.descriptor = descriptor }

    deinit { buffer.deallocate() }

    func next() -> (UnsafeRawPointer?, Int) {
        if let peeked {
            self.peeked = nil
            return (UnsafeRawPointer(buffer.baseAddress), peeked)
        }
        let count = pread(descriptor, buffer.baseAddress, buffer.count, off_t(position))
        guard count >= 0 else {
            failure = (errno, "Read error")
            return (nil, -1)
        }
        position += Int64(count)
        return (UnsafeRawPointer(buffer.baseAddress), count)
    }

    func peek() -> [UInt8] {
        let (start, count) = next()
        guard count >= 0 else { return [] }
        peeked = count
        return Array(UnsafeRawBufferPointer(start: start, count: count))
    }
}

/// One gzip layer undone by zlib from the blocks of the one around it. Members one after another are one
/// stream, as gzip reads them; anything after the last member that is not another is left, as gzip
/// leaves trailing zeros.
private final class Layer: BlockSource {
    private let below: any BlockSource
    private var stream = z_stream()
    private let output = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    private let number: Int
    private let depth: Int
    private let limit: Int64
    private var produced: Int64 = 0
    private var belowEnded = false
    private var finished = false
    private var peeked: Int?
    private(set) var failure: (code: Int32, message: String)?

    init(below: any BlockSource, number: Int, depth: Int, limit: Int64) {
        self.below = below
        self.number = number
        self.depth = depth
        self.limit = limit
        // 15 + 16: a gzip header and trailer (its CRC and size are checked).
        if cz_inflate_init(&stream, 15 + 16) != Z_OK { failure = (ENOMEM, "Out of memory") }
    }

    deinit {
        inflateEnd(&stream)
        output.deallocate()
    }

    static func startsGzip(_ bytes: [UInt8]) -> Bool { bytes.starts(with: [0x1F, 0x8B, 0x08]) }

    /// The first block without consuming it: the next `next()` gives it again.
    func peek() -> [UInt8] {
        let (start, count) = next()
        guard count >= 0 else { return [] }
        peeked = count
        return Array(UnsafeRawBufferPointer(start: start, count: count))
    }

    func next() -> (UnsafeRawPointer?, Int) {
        if let peeked {
            self.peeked = nil
            return (UnsafeRawPointer(output.baseAddress), peeked)
        }
        guard failure == nil else { return (nil, -1) }
        while !finished {
            if stream.avail_in == 0, !belowEnded, !pull() { return (nil, -1) }
            stream.next_out = output.baseAddress!.assumingMemoryBound(to: Bytef.self)
            stream.avail_out = uInt(output.count)
            let status = inflate(&stream, Z_NO_FLUSH)
            let count = output.count - Int(stream.avail_out)
            switch status {
            case Z_STREAM_END:
                // Another member may follow, in this block or the next.
                if stream.avail_in == 0, !belowEnded, !pull() { return (nil, -1) }
                if stream.avail_in >= 2, stream.next_in[0] == 0x1F, stream.next_in[1] == 0x8B {
                    inflateReset(&stream)
                } else {
                    finished = true
                }
            case Z_OK, Z_BUF_ERROR:
                if count == 0, belowEnded, stream.avail_in == 0 {
                    return fail(EINVAL, "Truncated input file (gzip layer \(number) of \(depth) ends early)")
                }
            default:
                return fail(EINVAL, "Invalid gzip data in layer \(number) of \(depth)")
            }
            produced += Int64(count)
            if produced > limit {
                return fail(EINVAL, "Unsupported gzip nesting: layer \(number) of \(depth) expands more than compressed data can (a decompression bomb)")
            }
            if count > 0 { return (UnsafeRawPointer(output.baseAddress), count) }
        }
        return (UnsafeRawPointer(output.baseAddress), 0)
    }

    /// The next block from the layer around this one into zlib's input; false on its failure.
    private func pull() -> Bool {
        let (start, count) = below.next()
        guard count >= 0 else {
            failure = below.failure ?? (EIO, "Read error")
            return false
        }
        if count == 0 { belowEnded = true }
        stream.next_in = UnsafeMutablePointer(mutating: start?.assumingMemoryBound(to: Bytef.self))
        stream.avail_in = uInt(count)
        return true
    }

    private func fail(_ code: Int32, _ message: String) -> (UnsafeRawPointer?, Int) {
        failure = (code, message)
        return (nil, -1)
    }
}
