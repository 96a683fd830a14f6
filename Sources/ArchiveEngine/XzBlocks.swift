internal import CLzma
import ArchiverCore
import Glibc
import Platform
import SystemPackage

/// The Blocks of an xz file, from its own index: each can be decoded on its own, so an entry of a tar.xz
/// made with several Blocks (`xz -T0`, or any multi-threaded xz) is reached by decoding from the Block
/// that holds it. A file of one Block (plain `xz`) has nothing to seek by, and gives nil.
public struct XzBlocks: Sendable {
    struct Block: Sendable {
        /// Where the Block starts in the file, and where its output starts.
        let input: Int64
        let output: Int64
        /// The Stream's integrity check (`lzma_check`), which the Block Header does not repeat.
        let check: UInt32
    }

    let blocks: [Block]

    /// The Blocks of `path` when it is an xz file of more than one; nil otherwise.
    init?(_ path: FilePath) {
        let descriptor = path.withPlatformString { open($0, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var magic = [UInt8](repeating: 0, count: 6)
        guard pread(descriptor, &magic, 6, 0) == 6, magic == [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00] else { return nil }
        guard let index = Self.readIndex(descriptor) else { return nil }
        defer { lzma_index_end(index, nil) }
        var iterator = lzma_index_iter()
        lzma_index_iter_init(&iterator, index)
        var blocks: [Block] = []
        while lzma_index_iter_next(&iterator, LZMA_INDEX_ITER_NONEMPTY_BLOCK) == 0 {
            guard let flags = iterator.stream.flags else { return nil }
            blocks.append(Block(
                input: Int64(iterator.block.compressed_file_offset), output: Int64(iterator.block.uncompressed_file_offset),
                check: flags.pointee.check.rawValue))
        }
        guard blocks.count > 1 else { return nil }
        self.blocks = blocks
    }

    /// The index of every Stream in the file, read by liblzma's file-info decoder, which asks for the
    /// places it needs (the footers and indexes at the end).
    private static func readIndex(_ descriptor: Int32) -> OpaquePointer? {
        let size = lseek(descriptor, 0, SEEK_END)
        let stream = UnsafeMutablePointer<lzma_stream>.allocate(capacity: 1)
        stream.initialize(to: lzma_stream())
        defer {
            lzma_end(stream)
            stream.deallocate()
        }
        var index: OpaquePointer?
        guard size > 0, lzma_file_info_decoder(stream, &index, UInt64.max, UInt64(size)) == LZMA_OK else { return nil }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        defer { buffer.deallocate() }
        var position: Int64 = 0
        while true {
            if stream.pointee.avail_in == 0 {
                let count = pread(descriptor, buffer.baseAddress, buffer.count, off_t(position))
                guard count >= 0 else { return nil }
                position += Int64(count)
                stream.pointee.next_in = UnsafePointer(buffer.baseAddress!.assumingMemoryBound(to: UInt8.self))
                stream.pointee.avail_in = count
            }
            switch lzma_code(stream, stream.pointee.avail_in == 0 ? LZMA_FINISH : LZMA_RUN) {
            case LZMA_OK: continue
            case LZMA_SEEK_NEEDED:
                position = Int64(stream.pointee.seek_pos)
                stream.pointee.avail_in = 0
            case LZMA_STREAM_END: return index
            default:
                if let index { lzma_index_end(index, nil) }
                return nil
            }
        }
    }

    /// The last Block starting at or before `offset`.
    func block(before offset: Int64) -> Int { blocks.indices.last(atOrBefore: offset) { blocks[$0].output } ?? 0 }

    func start(for offset: Int64) -> Int64 { blocks[block(before: offset)].output }
}

/// An xz file handed to libarchive as a plain tar stream: either whole from its start (extraction,
/// listing), by liblzma's threaded decoder where the Blocks and the memory allow; or Block by Block from
/// the one holding `offset`, from `offset` on. Each Block's check is verified as it ends.
final class XzStream: TarDecoder {
    /// Memory the threaded decoder may take before it decodes in one thread, without buffering whole
    /// Blocks: extraction stays within 64 MiB (at 40 MiB, one thread buffering `xz -T0`'s 24 MiB Blocks
    /// at -6 made it 65 MiB). Files with small Blocks still get two threads.
    private static let threadingMemory: UInt64 = 16 << 20

    private let stream = UnsafeMutablePointer<lzma_stream>.allocate(capacity: 1)
    private let filters = UnsafeMutablePointer<lzma_filter>.allocate(capacity: Int(CL_FILTERS_MAX) + 1)
    /// The current Block's options: liblzma writes its sizes here when the Block ends.
    private let options = UnsafeMutablePointer<lzma_block>.allocate(capacity: 1)
    private let input = UnsafeMutableRawBufferPointer.allocate(byteCount: 128 * 1024, alignment: 16)
    let output = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 16)
    private let descriptor: Int32
    /// Nil: the whole file, from its start.
    private let blocks: XzBlocks?
    private var atFileEnd = false
    private var finished = false
    private var next: Int
    private var inBlock = false
    private var filePosition: Int64 = 0
    var position: Int64
    let handOutFrom: Int64
    let total: Int64
    var lastErrno: Int32 = 0
    var lastMessage = ""

    init(_ path: FilePath, blocks: XzBlocks, from offset: Int64) throws(ArchiverError) {
        let opened = FileSystem.openForReading(path)
        (descriptor, total) = (opened.descriptor, opened.size)
        stream.initialize(to: lzma_stream())
        filters.initialize(repeating: lzma_filter(id: CL_VLI_UNKNOWN, options: nil), count: Int(CL_FILTERS_MAX) + 1)
        options.initialize(to: lzma_block())
        self.blocks = blocks
        next = blocks.block(before: offset)
        position = blocks.blocks[next].output
        handOutFrom = offset
        if let failure = opened.failure { throw failure }
    }

    /// Decodes `path` whole; nil when liblzma cannot start (no memory).
    init?(_ path: FilePath) {
        let opened = FileSystem.openForReading(path)
        (descriptor, total) = (opened.descriptor, opened.size)
        stream.initialize(to: lzma_stream())
        filters.initialize(repeating: lzma_filter(id: CL_VLI_UNKNOWN, options: nil), count: Int(CL_FILTERS_MAX) + 1)
        options.initialize(to: lzma_block())
        (blocks, next, position, handOutFrom) = (nil, 0, 0, 0)
        var threading = lzma_mt()
        threading.threads = 2
        threading.flags = CL_CONCATENATED
        threading.memlimit_threading = Self.threadingMemory
        threading.memlimit_stop = UInt64.max
        guard opened.failure == nil, lzma_stream_decoder_mt(stream, &threading) == LZMA_OK else { return nil }
    }

    var consumed: Int64? { filePosition - Int64(stream.pointee.avail_in) }
    var filterName: String? { "xz" }

    deinit {
        lzma_end(stream)
        lzma_filters_free(filters, nil)
        stream.deallocate()
        filters.deallocate()
        options.deallocate()
        input.deallocate()
        output.deallocate()
        if descriptor >= 0 { close(descriptor) }
    }

    func decode(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        stream.pointee.next_out = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
        stream.pointee.avail_out = buffer.count
        return blocks == nil ? decodeWhole(buffer.count) : decodeBlocks(buffer.count)
    }

    /// Fills the `capacity` bytes of output set up from the file; 0 after its end.
    private func decodeWhole(_ capacity: Int) -> Int? {
        while stream.pointee.avail_out > 0, !finished {
            if stream.pointee.avail_in == 0, !atFileEnd {
                let count = pread(descriptor, input.baseAddress, input.count, off_t(filePosition))
                if count < 0, errno == EINTR { continue }
                guard count >= 0 else { return fail(errno, "Read error: \(String(cString: strerror(errno)))") }
                filePosition += Int64(count)
                stream.pointee.next_in = UnsafePointer(input.baseAddress!.assumingMemoryBound(to: UInt8.self))
                stream.pointee.avail_in = count
                atFileEnd = count == 0
            }
            switch lzma_code(stream, atFileEnd ? LZMA_FINISH : LZMA_RUN) {
            case LZMA_OK: continue
            case LZMA_STREAM_END: finished = true
            case LZMA_BUF_ERROR: return fail(EIO, "Truncated input file: the xz data ends early")
            case let status: return fail(EIO, "Damaged xz data (liblzma error \(status.rawValue))")
            }
        }
        return capacity - stream.pointee.avail_out
    }

    /// Fills the `capacity` bytes of output set up from the current Block, starting the next one as each
    /// ends; 0 after the last.
    private func decodeBlocks(_ capacity: Int) -> Int? {
        guard let blocks else { return nil }
        while stream.pointee.avail_out > 0 {
            if !inBlock {
                guard next < blocks.blocks.count else { break }
                guard startBlock(blocks.blocks[next]) else { return nil }
                next += 1
            }
            if stream.pointee.avail_in == 0 {
                let count = pread(descriptor, input.baseAddress, input.count, off_t(filePosition))
                guard count > 0 else { return fail(count < 0 ? errno : EIO, "Truncated input file: the xz data ends early") }
                filePosition += Int64(count)
                stream.pointee.next_in = UnsafePointer(input.baseAddress!.assumingMemoryBound(to: UInt8.self))
                stream.pointee.avail_in = count
            }
            switch lzma_code(stream, LZMA_RUN) {
            case LZMA_OK: continue
            case LZMA_STREAM_END:
                inBlock = false
                lzma_filters_free(filters, nil)
            case let status: return fail(EIO, "Damaged xz data (liblzma error \(status.rawValue))")
            }
        }
        return capacity - stream.pointee.avail_out
    }

    /// Reads the Block Header at `block` and sets the decoder up for the Block's data behind it.
    private func startBlock(_ block: XzBlocks.Block) -> Bool {
        var first: UInt8 = 0
        guard pread(descriptor, &first, 1, off_t(block.input)) == 1, first != 0 else {
            return fail(EIO, "Damaged xz data: no Block where the index says") != nil
        }
        let size = (Int(first) + 1) * 4
        var header = [UInt8](repeating: 0, count: size)
        guard pread(descriptor, &header, size, off_t(block.input)) == size else {
            return fail(EIO, "Truncated input file: the xz data ends early") != nil
        }
        options.initialize(to: lzma_block())
        options.pointee.version = 1
        options.pointee.check = lzma_check(rawValue: block.check)
        options.pointee.header_size = UInt32(size)
        options.pointee.filters = filters
        guard lzma_block_header_decode(options, nil, header) == LZMA_OK, lzma_block_decoder(stream, options) == LZMA_OK else {
            return fail(EIO, "Damaged xz data: an unreadable Block Header") != nil
        }
        filePosition = block.input + Int64(size)
        stream.pointee.avail_in = 0
        inBlock = true
        return true
    }
}
