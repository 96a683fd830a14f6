internal import CArchive
import ArchiverCore
import Glibc
import SystemPackage

/// Bytes our own code hands to libarchive (parts of a split archive, a stream we inflate), instead of a
/// file libarchive reads itself.
protocol ArchiveSource: AnyObject {
    /// The archive's size in bytes, for progress.
    var total: Int64 { get }
    /// The next block: 0 bytes at the end, -1 on failure, with `lastErrno` and `lastMessage` set.
    func read() -> (UnsafeRawPointer?, Int)
    var lastErrno: Int32 { get }
    var lastMessage: String { get }
    /// Bytes of the file consumed so far, for progress; nil: libarchive counts them.
    var consumed: Int64? { get }
    /// The compression we undo, for `ArchiveReader.formatName`; nil when there is none.
    var filterName: String? { get }
    /// The format when the source makes the tar libarchive reads from something else (a SquashFS image);
    /// nil otherwise.
    var formatName: String? { get }
    /// Where decoding can start again, noted while reading (a tar.gz's points, a tar.zst's frames).
    var seekPlan: SeekPlan? { get }
    /// Opens `handle` over this source (`archive_read_open1`); the caller keeps the source alive as long
    /// as the handle.
    func attach(to handle: OpaquePointer) -> Int32
}

extension ArchiveSource {
    var consumed: Int64? { nil }
    var filterName: String? { nil }
    var formatName: String? { nil }
    var seekPlan: SeekPlan? { nil }

    func attach(to handle: OpaquePointer) -> Int32 {
        setReadCallback(handle)
        return archive_read_open1(handle)
    }

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

/// A decoder of a compressed tar (`GzipStream`, `XzStream`, `ZstdStream`): it fills `output` block by
/// block from where its seek point starts, and hands libarchive the bytes from `handOutFrom` on.
protocol TarDecoder: ArchiveSource {
    /// Where `read()` decodes to.
    var output: UnsafeMutableRawBufferPointer { get }
    /// The uncompressed offset of the next byte decoded.
    var position: Int64 { get set }
    /// Output before this offset is decoded but not handed out.
    var handOutFrom: Int64 { get }
    var lastErrno: Int32 { get set }
    var lastMessage: String { get set }
    /// Fills `buffer` as far as the data goes: how many bytes, 0 at the end, nil on failure (`fail`).
    func decode(into buffer: UnsafeMutableRawBufferPointer) -> Int?
}

extension TarDecoder {
    func read() -> (UnsafeRawPointer?, Int) {
        while true {
            guard let produced = decode(into: output) else { return (nil, -1) }
            if produced == 0 { return (UnsafeRawPointer(output.baseAddress), 0) }
            let start = position
            position += Int64(produced)
            guard position > handOutFrom else { continue }
            let skip = Int(max(0, handOutFrom - start))
            return (UnsafeRawPointer(output.baseAddress! + skip), produced - skip)
        }
    }

    /// The next bytes decoded straight into `buffer`, the reader's own (`ReadAhead`'s slots), instead of
    /// into `output` and copied from there: how many, 0 at the end, nil on failure. Only once `handOutFrom`
    /// is reached, when everything decoded is handed out.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        guard let produced = decode(into: buffer) else { return nil }
        position += Int64(produced)
        return produced
    }

    /// Notes why decoding stopped, for libarchive's message; always nil.
    func fail(_ code: Int32, _ message: String) -> Int? {
        lastErrno = code
        lastMessage = message
        return nil
    }
}

extension RandomAccessCollection where Index == Int {
    /// The last element whose `key` is at or before `offset`, for places sorted by it; nil: none is.
    func last(atOrBefore offset: Int64, by key: (Element) -> Int64) -> Element? {
        var low = startIndex, high = endIndex
        while low < high {
            let middle = (low + high) / 2
            if key(self[middle]) <= offset { low = middle + 1 } else { high = middle }
        }
        return low == startIndex ? nil : self[low - 1]
    }
}
