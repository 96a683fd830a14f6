internal import CZstd
import ArchiverCore
import Glibc
import Platform
import SystemPackage

/// Indexes of archives opened as folders, kept so that opening one again lists at once without reading
/// it: one file per archive in `$XDG_CACHE_HOME/io.github.archiver/indexes/` (never beside the archive),
/// named by the archive's device and inode and valid while its size and modification time stay the same.
/// A stale or unreadable file is removed when met; the folder is kept under `limit`, least recently used
/// first out. Indexes of encrypted archives are not kept.
public enum IndexCache {
    /// The whole folder's bound; a single index larger than a quarter of it is not kept.
    static let limit: Int64 = 256 << 20
    private static let magic = Array("ARCHIVER-INDEX\n".utf8)

    /// The archive's identity: what must match for a kept index to be its own.
    struct Identity: Equatable {
        let device: UInt64, inode: UInt64, size: Int64, seconds: Int64, nanoseconds: Int64

        init?(_ archive: FilePath) {
            var info = stat()
            guard archive.withPlatformString({ stat($0, &info) }) == 0 else { return nil }
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            size = Int64(info.st_size)
            seconds = Int64(info.st_mtim.tv_sec)
            nanoseconds = Int64(info.st_mtim.tv_nsec)
        }

        init(device: UInt64, inode: UInt64, size: Int64, seconds: Int64, nanoseconds: Int64) {
            (self.device, self.inode, self.size, self.seconds, self.nanoseconds) = (device, inode, size, seconds, nanoseconds)
        }

        var fileName: String { "\(device)-\(inode).index" }
    }

    /// `$XDG_CACHE_HOME/io.github.archiver/indexes`, or under `~/.cache` (`BaseFolders`).
    static func folder() -> FilePath {
        BaseFolders.current.cache.appending("io.github.archiver/indexes")
    }

    /// The kept index of `archive`, if it is still the same file.
    public static func load(_ archive: FilePath) -> ArchiveIndex? {
        guard let identity = Identity(archive) else { return nil }
        let file = folder().appending(identity.fileName)
        guard let data = FileSystem.wholeFile(file, limit: Int(limit)) else { return nil }
        guard let (kept, _, body) = header(data), kept == identity,
            let index = ArchiveIndex.decoded(from: IndexBytes.Reader(decompressing: body), archive: archive)
        else {
            _ = file.withPlatformString { unlink($0) }
            return nil
        }
        // Used now: the last to go when the folder is trimmed.
        _ = file.withPlatformString { utimensat(AT_FDCWD, $0, nil, 0) }
        return index
    }

    /// Keeps `index` for the next opening of its archive, then trims the folder.
    public static func store(_ index: ArchiveIndex) {
        guard index.password == nil, let identity = Identity(index.archive) else { return }
        let folder = Self.folder()
        var fields = IndexBytes.Writer()
        fields.u64(identity.device)
        fields.u64(identity.inode)
        fields.i64(identity.size)
        fields.i64(identity.seconds)
        fields.i64(identity.nanoseconds)
        fields.bytes(index.archive.madeAbsolute.bytes)
        guard (try? FileSystem.makeDirectories(folder)) != nil else { return }
        // Our temporary name: a writer killed half-way leaves a file the next trim removes.
        let temporary = folder.appending(TemporaryName.make(pid: getpid(), token: FileSystem.randomToken(), isDirectory: false))
        let descriptor = temporary.withPlatformString { open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
        guard descriptor >= 0 else { return }
        // Compressed as it is encoded: a million entries' index is never held twice, and names and
        // offsets shrink to about a third.
        var written: Int64 = 0
        let put = { (piece: ArraySlice<UInt8>) -> Bool in
            written += Int64(piece.count)
            return written <= limit / 4 && FileSystem.writeAll(descriptor, piece)
        }
        let compressor = IndexBytes.Compressor(put)
        let complete = put(magic[...]) && put(fields.data[...]) && compressor != nil
            && index.encode(to: { compressor!.add($0) }) && compressor!.finish()
        close(descriptor)
        guard complete, temporary.withPlatformString({ from in
            folder.appending(identity.fileName).withPlatformString { rename(from, $0) }
        }) == 0 else {
            _ = temporary.withPlatformString { unlink($0) }
            return
        }
        trim(folder)
    }

    /// Removes dead writers' temporaries, the indexes whose archive is gone or changed, then the least recently
    /// used beyond `limit`.
    static func trim(_ folder: FilePath) {
        FileSystem.removeStaleTemporaries(in: folder)
        var kept: [(file: FilePath, used: Int64, size: Int64)] = []
        for name in (try? FileSystem.entries(of: folder)) ?? [] where name.reversed().starts(with: ".index".utf8.reversed()) {
            let file = folder.appending(bytes: name)
            guard let info = FileSystem.status(file) else { continue }
            if let head = FileSystem.wholeFile(file, limit: 4096), let (identity, archive, _) = header(head),
                Identity(FilePath(bytes: archive)) == identity
            {
                kept.append((file, Int64(info.st_mtim.tv_sec), Int64(info.st_size)))
            } else {
                _ = file.withPlatformString { unlink($0) }
            }
        }
        var total = kept.reduce(0) { $0 + $1.size }
        for item in kept.sorted(by: { $0.used < $1.used }) where total > limit {
            _ = item.file.withPlatformString { unlink($0) }
            total -= item.size
        }
    }

    /// The identity, archive path and body of a kept file's bytes; nil when they are not one.
    private static func header(_ data: [UInt8]) -> (Identity, [UInt8], ArraySlice<UInt8>)? {
        guard data.starts(with: magic) else { return nil }
        var input = IndexBytes.Reader(data[magic.count...])
        guard let device = input.u64(), let inode = input.u64(), let size = input.i64(), let seconds = input.i64(),
            let nanoseconds = input.i64(), let archive = input.bytes()
        else { return nil }
        let identity = Identity(device: device, inode: inode, size: size, seconds: seconds, nanoseconds: nanoseconds)
        return (identity, archive, data[(magic.count + input.position)...])
    }
}

/// Little-endian fields with lengths in front, for `IndexCache`.
enum IndexBytes {
    struct Writer {
        private(set) var data: [UInt8] = []
        /// Takes what was written so far at each `spill` past a MiB, and at `finish`; nil keeps it all in `data`.
        private let sink: ((ArraySlice<UInt8>) -> Bool)?
        private var failed = false

        init(sink: ((ArraySlice<UInt8>) -> Bool)? = nil) { self.sink = sink }

        mutating func spill() {
            guard let sink, data.count >= 1 << 20 else { return }
            if !failed { failed = !sink(data[...]) }
            data.removeAll(keepingCapacity: true)
        }

        /// Hands the rest to the sink; false if any piece could not be taken.
        mutating func finish() -> Bool {
            guard let sink else { return true }
            if !failed, !data.isEmpty { failed = !sink(data[...]) }
            data.removeAll()
            return !failed
        }

        mutating func u8(_ value: UInt8) { data.append(value) }
        mutating func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { data += $0 } }
        mutating func u64(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { data += $0 } }
        mutating func i64(_ value: Int64) { u64(UInt64(bitPattern: value)) }
        mutating func bytes(_ value: [UInt8]) {
            u32(UInt32(value.count))
            data += value
        }
        mutating func optionalBytes(_ value: [UInt8]?) {
            guard let value else { return u32(UInt32.max) }
            bytes(value)
        }
    }

    struct Reader {
        private var data: ArraySlice<UInt8>
        /// Bytes read so far of `data`.
        private(set) var position = 0
        /// Gives what follows `data` when it runs out; nil at the end.
        private let more: (() -> [UInt8]?)?
        init(_ data: ArraySlice<UInt8>) { (self.data, more) = (data, nil) }
        init(_ data: [UInt8]) { (self.data, more) = (data[...], nil) }

        /// Reads the zstd frame `compressed` piece by piece as it is wanted.
        init(decompressing compressed: ArraySlice<UInt8>) {
            let decompressor = Decompressor(compressed)
            (data, more) = ([], { decompressor?.next() })
        }

        var isAtEnd: Bool {
            mutating get { !available(1) }
        }

        /// Whether `count` more bytes can be read, fetching more when there are fewer.
        private mutating func available(_ count: Int) -> Bool {
            while data.count - position < count {
                guard let more, let next = more() else { return false }
                data = data[(data.startIndex + position)...] + next
                position = 0
            }
            return true
        }

        mutating func u8() -> UInt8? {
            guard available(1) else { return nil }
            defer { position += 1 }
            return data[data.startIndex + position]
        }
        mutating func u32() -> UInt32? { fixed(4).map { UInt32(truncatingIfNeeded: $0) } }
        mutating func u64() -> UInt64? { fixed(8) }
        mutating func i64() -> Int64? { u64().map { Int64(bitPattern: $0) } }
        mutating func bytes() -> [UInt8]? {
            guard let count = u32(), count != UInt32.max else { return nil }
            var result: [UInt8] = []
            // Piece by piece: a long run (the name arena) is not copied again with each refill.
            while result.count < Int(count) {
                guard available(1) else { return nil }
                let take = min(Int(count) - result.count, data.count - position)
                let start = data.startIndex + position
                result += data[start..<(start + take)]
                position += take
            }
            return result
        }
        /// Nil inside: absent; nil outside: unreadable.
        mutating func optionalBytes() -> [UInt8]?? {
            guard available(4) else { return nil }
            let start = data.startIndex + position
            if data[start..<(start + 4)].allSatisfy({ $0 == 0xFF }) {
                position += 4
                return .some(nil)
            }
            guard let value = bytes() else { return nil }
            return .some(value)
        }

        private mutating func fixed(_ width: Int) -> UInt64? {
            guard available(width) else { return nil }
            var value: UInt64 = 0
            let start = data.startIndex + position
            for offset in 0..<width { value |= UInt64(data[start + offset]) << (8 * UInt64(offset)) }
            position += width
            return value
        }
    }
}

extension IndexBytes {
    /// A zstd frame written piece by piece (level 1: the index is written once per archive).
    final class Compressor {
        private let context: OpaquePointer
        private let output = UnsafeMutableRawBufferPointer.allocate(byteCount: ZSTD_CStreamOutSize(), alignment: 16)
        private let sink: (ArraySlice<UInt8>) -> Bool

        init?(_ sink: @escaping (ArraySlice<UInt8>) -> Bool) {
            guard let context = ZSTD_createCCtx() else { return nil }
            self.context = context
            self.sink = sink
            _ = ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, 1)
        }

        deinit {
            ZSTD_freeCCtx(context)
            output.deallocate()
        }

        func add(_ piece: ArraySlice<UInt8>) -> Bool { run(piece, ZSTD_e_continue) }
        func finish() -> Bool { run([], ZSTD_e_end) }

        private func run(_ piece: ArraySlice<UInt8>, _ directive: ZSTD_EndDirective) -> Bool {
            piece.withUnsafeBytes { bytes in
                var input = ZSTD_inBuffer(src: bytes.baseAddress, size: bytes.count, pos: 0)
                while true {
                    var target = ZSTD_outBuffer(dst: output.baseAddress, size: output.count, pos: 0)
                    let left = ZSTD_compressStream2(context, &target, &input, directive)
                    guard ZSTD_isError(left) == 0 else { return false }
                    if target.pos > 0 {
                        let made = Array(UnsafeRawBufferPointer(start: output.baseAddress, count: target.pos))
                        guard sink(made[...]) else { return false }
                    }
                    if directive == ZSTD_e_end ? left == 0 : input.pos == input.size { return true }
                }
            }
        }
    }

    /// A zstd frame read back in pieces of about 128 KiB; nil pieces at its end or on damage.
    final class Decompressor {
        private let context: OpaquePointer
        private let compressed: [UInt8]
        private var consumed = 0

        init?(_ compressed: ArraySlice<UInt8>) {
            guard let context = ZSTD_createDCtx() else { return nil }
            self.context = context
            self.compressed = Array(compressed)
        }

        deinit { ZSTD_freeDCtx(context) }

        func next() -> [UInt8]? {
            var piece = [UInt8](repeating: 0, count: ZSTD_DStreamOutSize())
            let made: Int? = compressed.withUnsafeBytes { source in
                piece.withUnsafeMutableBytes { target in
                    var input = ZSTD_inBuffer(src: source.baseAddress, size: source.count, pos: consumed)
                    var output = ZSTD_outBuffer(dst: target.baseAddress, size: target.count, pos: 0)
                    while output.pos == 0, input.pos < input.size {
                        guard ZSTD_isError(ZSTD_decompressStream(context, &output, &input)) == 0 else { return nil }
                    }
                    consumed = input.pos
                    return output.pos
                }
            }
            guard let made, made > 0 else { return nil }
            piece.removeSubrange(made...)
            return piece
        }
    }
}
