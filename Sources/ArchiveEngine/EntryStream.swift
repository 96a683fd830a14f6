import ArchiverCore
import Synchronization

/// One open file of an `ArchiveIndex`, read at any offset: its entry's data comes forward through a
/// libarchive reader of its own, and the last few MiB stay in memory so that a read a little behind the
/// last one needs no restart. A read before that restarts from the entry's start (for a zip, the entry
/// alone; for a compressed tar, the stream up to it).
public final class EntryStream: @unchecked Sendable {
    /// Guards `state`: the kernel may send two reads of one open file at once.
    private let lock = Mutex(())
    private var state: State

    /// - Throws: `ArchiverError` when the node is not a file.
    public init(_ index: ArchiveIndex, node: Int) throws(ArchiverError) {
        let file = index.nodes[node]
        let name = Array(index.name(of: node)).displayName
        guard file.kind == .file, let entry = file.entry else {
            throw ArchiverError(.inputUnreadable, tr("“%@” is not a file.", name))
        }
        state = (State(index: index, entry: entry, size: file.size, name: name))
    }

    deinit { state.giveBack() }

    /// Copies the bytes at `offset` into `buffer`.
    /// - Returns: how many; fewer than asked only at the end of the file.
    /// - Throws: `ArchiverError` when the entry cannot be read (damaged, truncated).
    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(ArchiverError) -> Int {
        try lock.withLock { _ throws(ArchiverError) in try state.read(into: buffer, at: offset) }
    }

    /// The entry's bytes from its start, in order, a chunk at a time, up to `limit` bytes (all of them when
    /// nil): what a thumbnail or a preview reads (its first few MiB), and what the writable mount copies into
    /// its layer (all). `each` returns false to stop there.
    /// - Throws: `ArchiverError` when the entry cannot be read (damaged, truncated), or `control` stops.
    public func readFromStart(
        limit: Int64? = nil, chunk: Int = 1 << 20, control: JobControl? = nil, _ each: (UnsafeRawBufferPointer) -> Bool
    ) throws(ArchiverError) {
        let end = limit ?? .max
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, chunk), alignment: 16)
        defer { buffer.deallocate() }
        var offset: Int64 = 0
        while offset < end {
            try control?.check()
            let wanted = Int(min(Int64(buffer.count), end - offset))
            let count = try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<wanted]), at: offset)
            if count == 0 { return }
            guard each(UnsafeRawBufferPointer(rebasing: buffer[..<count])) else { return }
            offset += Int64(count)
        }
    }

    /// The entry's first `limit` bytes, or all of them when it is smaller.
    public func prefix(_ limit: Int, control: JobControl? = nil) throws(ArchiverError) -> [UInt8] {
        var bytes: [UInt8] = []
        try readFromStart(limit: Int64(limit), chunk: min(limit, 1 << 20), control: control) { chunk in
            bytes.append(contentsOf: chunk)
            return true
        }
        return bytes
    }

    private struct State: ~Copyable {
        let index: ArchiveIndex
        let entry: Int
        let size: Int64
        let name: String
        var reader: ArchiveReader?
        /// The entry's data from 7-Zip (an encrypted 7z) or straight from a zip's local header.
        var chunks: (any EntryChunks)?
        /// Decompressed bytes from `windowStart` on, up to where the reader stands.
        var window: [UInt8] = []
        var windowStart: Int64 = 0
        var atEnd = false
        /// Why the entry could not be read: a retry must not get the damaged data read before the check failed.
        var failure: ArchiverError?
        /// What is kept behind the current read, and how far the window may grow before it is cut.
        static let behind: Int64 = 1 << 20
        static let limit = 2 << 20

        var windowEnd: Int64 { windowStart + Int64(window.count) }

        mutating func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(ArchiverError) -> Int {
            let end = min(size, offset + Int64(buffer.count))
            guard offset < end else { return 0 }
            if let failure { throw failure }
            if offset < windowStart { restart() }
            do throws(ArchiverError) {
                try fill(to: end, keepingFrom: offset - Self.behind)
            } catch {
                failure = error
                throw error
            }
            let available = min(end, windowEnd)
            guard available > offset else { return 0 }
            let from = Int(offset - windowStart), to = Int(available - windowStart)
            window.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + from, byteCount: to - from) }
            return to - from
        }

        /// Keeps the reader for a later file further on (a copy of the whole folder reads the archive once);
        /// a read before the window then starts again with another.
        mutating func giveBack() {
            if atEnd, failure == nil, windowStart == 0, window.count == size { index.cache?.keep(window, for: entry) }
            guard failure == nil, let kept = reader.take() else { return }
            index.readers.put(kept, next: entry + 1)
        }

        private mutating func restart() {
            reader = nil
            chunks = nil
            window = []
            windowStart = 0
            atEnd = false
        }

        private mutating func fill(to end: Int64, keepingFrom keep: Int64) throws(ArchiverError) {
            if chunks == nil, reader == nil, !atEnd, let cached = index.cache?.data(for: entry) {
                (window, windowStart, atEnd) = (cached, 0, true)
            }
            if chunks == nil, reader == nil, !atEnd {
                chunks = try index.chunks(for: entry, size: size, name: name)
            }
            if chunks == nil, reader == nil, !atEnd {
                var opened = try index.reader(for: entry, name: name)
                guard try opened.next() != nil else {
                    throw ArchiverError(.corrupt, tr("“%@” ended before this entry.", index.archive.lastComponent?.string ?? ""))
                }
                reader = consume opened
            }
            // One buffer for this fill's pieces from `chunks`.
            let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: chunks == nil ? 0 : 128 * 1024, alignment: 16)
            defer { chunk.deallocate() }
            // A read up to the end goes on to libarchive's end of the entry, where it checks the CRC or MAC.
            while windowEnd < end || (end == size && !atEnd), !atEnd {
                if let chunks {
                    let count = try chunks.read(into: chunk)
                    if count == 0 {
                        atEnd = true
                        break
                    }
                    window.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[..<count]))
                    trim(keepingFrom: keep)
                    continue
                }
                guard let block = try reader?.readBlock(entryName: name) else {
                    atEnd = true
                    // At once, not when the file is closed: the kernel says so only after the next file
                    // may already be opened.
                    giveBack()
                    break
                }
                // A block past the end so far follows a hole of a sparse file.
                if block.offset > windowEnd { appendZeros(Int(block.offset - windowEnd), keepingFrom: keep) }
                let skip = Int(max(0, windowEnd - block.offset))
                if skip < block.buffer.count { window.append(contentsOf: block.buffer[skip...]) }
                trim(keepingFrom: keep)
            }
            // A sparse file may end in a hole.
            if atEnd, windowEnd < end { appendZeros(Int(end - windowEnd), keepingFrom: keep) }
        }

        private mutating func appendZeros(_ count: Int, keepingFrom keep: Int64) {
            let skipped = Int(min(Int64(count), max(0, keep - windowEnd)))
            if skipped > 0 {
                windowStart = windowEnd + Int64(skipped)
                window = []
            }
            window.append(contentsOf: repeatElement(0, count: count - skipped))
        }

        private mutating func trim(keepingFrom keep: Int64) {
            guard window.count > Self.limit, keep > windowStart else { return }
            let drop = Int(min(keep - windowStart, Int64(window.count)))
            window.removeFirst(drop)
            windowStart += Int64(drop)
        }
    }
}

/// A few readers left where a closed file ended, keyed by the entry each would read next: opening a file
/// further on continues from the nearest one instead of decompressing the stream from its start again.
final class ReaderPool: @unchecked Sendable {
    /// Only touched under the pool's lock, or by the one stream that took it out.
    final class Pooled: @unchecked Sendable {
        var reader: ArchiveReader?
        let next: Int
        init(_ reader: consuming ArchiveReader, next: Int) {
            self.reader = consume reader
            self.next = next
        }
    }

    private let pooled = Mutex<[Pooled]>([])

    /// How many readers are kept now.
    var count: Int { pooled.withLock { $0.count } }
    /// Each holds a decompressor's buffers; more would rarely be used.
    private static let limit = 4

    /// The reader furthest on that has not passed entry `entry`, taken out of the pool, if `worth` says
    /// going on from its next entry beats starting afresh.
    func take(before entry: Int, worth: (_ next: Int) -> Bool) -> Pooled? {
        pooled.withLock { pooled -> Pooled? in
            guard let index = pooled.indices.filter({ pooled[$0].next <= entry }).max(by: { pooled[$0].next < pooled[$1].next }),
                worth(pooled[index].next)
            else {
                return nil
            }
            return pooled.remove(at: index)
        }
    }

    func put(_ reader: consuming ArchiveReader, next: Int) {
        let item = Pooled(reader, next: next)
        pooled.withLock { pooled in
            pooled.append(item)
            if pooled.count > Self.limit, let oldest = pooled.indices.min(by: { pooled[$0].next < pooled[$1].next }) {
                pooled.remove(at: oldest)
            }
        }
    }
}

/// The data of small files already decoded, for archives where reaching a file means decoding everything
/// before it (a solid 7z or rar, a tar.xz or tar.zst of one block): a thumbnailer reading forty images in
/// its own order then decodes the stream about once, not once per image going back. Files are kept as
/// they are read or passed on the way to another, least recently used first out, within `budget`.
final class EntryCache: Sendable {
    static let budget = 32 << 20
    /// Larger files are rarely read whole and would push out many small ones.
    static let largest = 4 << 20

    private struct Kept {
        var data: [Int: [UInt8]] = [:]
        /// Entries from least to most recently used.
        var order: [Int] = []
        var bytes = 0
    }

    private let kept = Mutex(Kept())

    /// Bytes held now.
    var bytes: Int { kept.withLock { $0.bytes } }

    func data(for entry: Int) -> [UInt8]? {
        kept.withLock { kept in
            guard let data = kept.data[entry] else { return nil }
            kept.order.removeAll { $0 == entry }
            kept.order.append(entry)
            return data
        }
    }

    func keep(_ data: [UInt8], for entry: Int) {
        guard data.count <= Self.largest else { return }
        kept.withLock { kept in
            guard kept.data[entry] == nil else { return }
            while kept.bytes + data.count > Self.budget, !kept.order.isEmpty {
                let oldest = kept.order.removeFirst()
                kept.bytes -= kept.data.removeValue(forKey: oldest)?.count ?? 0
            }
            kept.data[entry] = data
            kept.order.append(entry)
            kept.bytes += data.count
        }
    }
}
