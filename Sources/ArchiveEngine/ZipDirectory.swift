import ArchiverCore
import Glibc
import Platform
import SystemPackage

/// A zip's central directory, read whole: where each member's local header is, in the order libarchive's
/// seekable zip reader returns the entries (by local header offset), and the entries themselves as that
/// reader gives them, for a listing that never reads the members. A zip with bytes in front of it (a
/// self-extractor) has its offsets moved as libarchive moves them.
struct ZipDirectory {
    /// Names one after another, as one order-sensitive hash and a count: two lists match one for one
    /// when these do. The hash is Swift's, keyed afresh in each process, so that no zip can be made for
    /// two different lists to match.
    struct NameSequence: Equatable {
        private var hasher = Hasher()
        private var count = 0

        mutating func add(_ name: some Collection<UInt8>) {
            hasher.combine(name.count)
            if name.withContiguousStorageIfAvailable({ hasher.combine(bytes: UnsafeRawBufferPointer($0)) }) == nil {
                Array(name).withUnsafeBytes { hasher.combine(bytes: $0) }
            }
            count += 1
        }

        static func == (a: Self, b: Self) -> Bool { a.count == b.count && a.hasher.finalize() == b.hasher.finalize() }
    }

    private let bytes: [UInt8]
    /// Where each record starts in `bytes`, and its member's local header in the file, by the latter.
    private let records: [(at: Int, offset: Int64)]
    /// Whether the first member starts the file: nothing is in front of the zip.
    private let startsFile: Bool

    /// Nil when there is no readable central directory in `path` (then libarchive reads every member).
    init?(_ path: FilePath) {
        let (descriptor, size, failure) = FileSystem.openForReading(path)
        guard failure == nil else { return nil }
        defer { close(descriptor) }
        guard let end = ZipEndRecord(descriptor, size: size), let directory = end.directory(descriptor) else { return nil }
        let (count, shift) = (end.count, end.shift)
        var records: [(at: Int, offset: Int64)] = []
        records.reserveCapacity(Int(count))
        guard let walked = Self.records(directory) else { return nil }
        for record in walked {
            var offset = Int64(Self.u32(directory, record.at + 42))
            if offset == 0xFFFF_FFFF {
                guard let wide = Self.zip64Field(directory, record: record.at)?.offset else { return nil }
                offset = wide
            }
            records.append((record.at, offset + shift))
        }
        guard Int64(records.count) == count else { return nil }
        records.sort { $0.offset < $1.offset }
        bytes = directory
        self.records = records
        startsFile = records.first?.offset == 0 && shift == 0
    }

    /// The local header offsets in the order libarchive reads the members, and their names.
    var offsets: [Int64] { records.map(\.offset) }

    /// Each member's stored CRC-32, in the order libarchive reads the members.
    var crcs: [UInt32] { records.map { Self.u32(bytes, $0.at + 16) } }

    var names: NameSequence {
        var names = NameSequence()
        for record in records { names.add(name(record.at)) }
        return names
    }

    /// Each entry as libarchive's seekable reader gives it, in its order, read from the directory alone
    /// (a symlink's target from its member); false when one needs libarchive, and then the entries given
    /// so far are to be dropped: an encrypted member, a Unicode path field, a malformed field, two entries
    /// on one member, a zip that does not start the file. The names come from the directory, where
    /// libarchive takes each member's local header: in a sound zip they are the same.
    func eachEntry(of archive: FilePath, control: JobControl, _ body: (ArchiveEntryInfo) -> Void) throws(ArchiverError) -> Bool {
        guard startsFile, zip(records.dropFirst(), records).allSatisfy({ $0.offset != $1.offset }) else { return false }
        let descriptor = archive.withPlatformString { open($0, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var times = DOSTimes()
        for (number, record) in records.enumerated() {
            if number % 4096 == 0 { try control.check() }
            guard var entry = entry(record.at, times: &times) else { return false }
            if entry.kind == .symlink {
                guard let target = target(record, of: archive, in: descriptor, name: entry.path) else { return false }
                entry.linkTarget = target
            }
            body(entry)
        }
        return true
    }

    private func name(_ at: Int) -> ArraySlice<UInt8> {
        bytes[(at + 46)..<(at + 46 + Self.u16(bytes, at + 28))]
    }

    /// The record at `at` as libarchive makes an entry of it (`slurp_central_directory`, then
    /// `zip_read_local_file_header`); nil when only libarchive can.
    private func entry(_ at: Int, times: inout DOSTimes) -> ArchiveEntryInfo? {
        let flags = Self.u16(bytes, at + 8)
        // Encrypted (traditional or strong): the password chain needs libarchive's reader.
        guard flags & 0x41 == 0 else { return nil }
        var path = Array(name(at))
        let isUTF8 = path.allSatisfy { $0 < 0x80 } || String(validating: path, as: UTF8.self) != nil
        // A NUL ends libarchive's name; a name flagged UTF-8 that is not fails its conversion.
        guard !path.contains(0), flags & 0x800 == 0 || isUTF8 else { return nil }
        var size = Int64(Self.u32(bytes, at + 24))
        var modified = times.seconds(date: Self.u16(bytes, at + 14), time: Self.u16(bytes, at + 12))
        let external = Self.u32(bytes, at + 38)
        var mode: UInt32
        switch bytes[at + 5] {
        case 3: mode = external >> 16
        case 0:
            mode = external & 0x10 != 0 ? Kind.directory | 0o775 : Kind.file | 0o664
            // libarchive's mask drops the type too: a read-only folder stays one only by its slash.
            if external & 0x01 != 0 { mode &= 0o555 }
        default: mode = 0
        }
        var needsLibarchive = false
        let fieldsRead = Self.eachExtraField(bytes, record: at) { id, data in
            switch id {
            case 0x0001:
                guard size == 0xFFFF_FFFF else { return }
                let wide = data.count >= 8 ? Self.u64(bytes, data.lowerBound) : .max
                if wide <= UInt64(Int64.max) { size = Int64(wide) } else { needsLibarchive = true }
            case 0x5455:
                if data.isEmpty { needsLibarchive = true }
                if !data.isEmpty, bytes[data.lowerBound] & 1 != 0, data.count >= 5 { modified = Int64(Self.u32(bytes, data.lowerBound + 1)) }
            case 0x5855:
                if data.count >= 8 { modified = Int64(Self.u32(bytes, data.lowerBound + 4)) }
            // A Unicode path, libarchive's own mode field, AES: what libarchive does with them is its own.
            case 0x7075, 0x6C78, 0x9901: needsLibarchive = true
            default: return
            }
        }
        guard fieldsRead, !needsLibarchive else { return nil }
        if mode & Kind.mask == Kind.fifo { mode = mode & ~Kind.mask | Kind.file }
        if mode == 0 { mode = 0o664 }
        // Windows archivers' backslashes become slashes, in a name libarchive can read as text.
        if isUTF8, !path.contains(UInt8(ascii: "/")), path.contains(UInt8(ascii: "\\")) {
            path = path.map { $0 == UInt8(ascii: "\\") ? UInt8(ascii: "/") : $0 }
        }
        if mode & Kind.mask != Kind.directory {
            if path.last == UInt8(ascii: "/") {
                mode = mode & ~Kind.mask | Kind.directory | 0o111
            } else if mode & Kind.mask == 0 {
                mode |= Kind.file
            }
        }
        if mode & Kind.mask == Kind.directory, let last = path.last, last != UInt8(ascii: "/") { path.append(UInt8(ascii: "/")) }
        let kind: ArchiveEntryInfo.Kind
        switch mode & Kind.mask {
        case Kind.directory: kind = .directory
        case Kind.symlink: kind = .symlink
        case Kind.character: kind = .characterDevice
        case Kind.block: kind = .blockDevice
        case Kind.socket: kind = .socket
        default: kind = .file
        }
        return ArchiveEntryInfo(
            path: path, kind: kind, size: kind == .symlink ? 0 : size, packedSize: nil, modified: modified, encrypted: false,
            linkTarget: nil, permissions: mode & 0o7777)
    }

    /// A symlink's target: its member's data, at most 64 KiB as libarchive allows.
    private func target(_ record: (at: Int, offset: Int64), of archive: FilePath, in descriptor: Int32, name: [UInt8]) -> [UInt8]? {
        var size = Int64(Self.u32(bytes, record.at + 24))
        if size == 0xFFFF_FFFF, let wide = Self.zip64Field(bytes, record: record.at)?.size { size = wide }
        guard Self.u32(bytes, record.at + 20) <= 64 * 1024, size <= 1024 * 1024,
            let member = ZipMember(archive, descriptor: descriptor, headerAt: record.offset, size: size, entryName: name.displayName)
        else { return nil }
        var target = [UInt8](repeating: 0, count: Int(size) + 1)
        var count = 0
        do {
            while true {
                let got = try target.withUnsafeMutableBytes { try member.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[count...])) }
                if got == 0 { break }
                count += got
                guard count < target.count else { return nil }
            }
        } catch { return nil }
        return Array(target[..<count])
    }

    /// Where a central directory record's parts are in the directory's bytes.
    struct Record {
        /// Where the record starts.
        let at: Int
        let nameLength: Int
        let extraLength: Int
        let commentLength: Int

        var name: Range<Int> { (at + 46)..<(at + 46 + nameLength) }
        var extra: Range<Int> { name.upperBound..<(name.upperBound + extraLength) }
        var comment: Range<Int> { extra.upperBound..<(extra.upperBound + commentLength) }
    }

    /// The records of the central directory `directory`, one after another while they start with the
    /// record's signature: the one walk behind the listing and the editor (`ZipMembers`); nil when a
    /// record's name or extra fields overrun the directory (its comment may: each reader decides).
    static func records(_ directory: [UInt8]) -> [Record]? {
        var records: [Record] = []
        var at = 0
        while at + 46 <= directory.count, u32(directory, at) == 0x0201_4B50 {
            let record = Record(at: at, nameLength: u16(directory, at + 28), extraLength: u16(directory, at + 30), commentLength: u16(directory, at + 32))
            guard record.extra.upperBound <= directory.count else { return nil }
            records.append(record)
            at = record.comment.upperBound
        }
        return records
    }

    /// Gives `body` each extra field of the record at `at`, as its id and where its data is in `data`;
    /// false when they overrun, as libarchive refuses them.
    private static func eachExtraField(_ data: [UInt8], record at: Int, _ body: (_ id: Int, _ data: Range<Int>) -> Void) -> Bool {
        let start = at + 46 + u16(data, at + 28), length = u16(data, at + 30)
        if length < 4 { return data[start..<(start + length)].allSatisfy { $0 == 0 } }
        var offset = 0
        while offset + 4 <= length {
            let id = u16(data, start + offset), size = u16(data, start + offset + 2)
            offset += 4
            guard offset + size <= length else { return false }
            body(id, (start + offset)..<(start + offset + size))
            offset += size
        }
        return true
    }

    /// The Zip64 field's values for the record at `at`: in order, those of the sizes and the offset that
    /// overflowed; nil when there is no such field or the extra fields overrun.
    static func zip64Field(_ data: [UInt8], record at: Int) -> (size: Int64?, compressedSize: Int64?, offset: Int64?)? {
        var found: Range<Int>?
        guard eachExtraField(data, record: at, { id, data in if id == 1, found == nil { found = data } }), let field = found else { return nil }
        var value = field.lowerBound
        func next() -> Int64? {
            guard value + 8 <= field.upperBound else { return nil }
            defer { value += 8 }
            return Int64(bitPattern: u64(data, value))
        }
        let size = u32(data, at + 24) == 0xFFFF_FFFF ? next() : nil
        let compressedSize = u32(data, at + 20) == 0xFFFF_FFFF ? next() : nil
        let offset = u32(data, at + 42) == 0xFFFF_FFFF ? next() : nil
        return (size, compressedSize, offset)
    }

    static func u16(_ data: [UInt8], _ at: Int) -> Int { Int(data[at]) | Int(data[at + 1]) << 8 }
    static func u32(_ data: [UInt8], _ at: Int) -> UInt32 { UInt32(u16(data, at)) | UInt32(u16(data, at + 2)) << 16 }
    static func u64(_ data: [UInt8], _ at: Int) -> UInt64 { UInt64(u32(data, at)) | UInt64(u32(data, at + 4)) << 32 }
}

/// The file type bits of a mode, as constants: Glibc's are functions.
private enum Kind {
    static let mask: UInt32 = 0o170000
    static let directory: UInt32 = 0o040000
    static let file: UInt32 = 0o100000
    static let symlink: UInt32 = 0o120000
    static let character: UInt32 = 0o020000
    static let block: UInt32 = 0o060000
    static let fifo: UInt32 = 0o010000
    static let socket: UInt32 = 0o140000
}

/// MS-DOS dates and times as seconds since 1970, read in the local time zone as libarchive reads them;
/// the last one kept, as neighbouring entries mostly share it.
private struct DOSTimes {
    private var last: (key: Int, seconds: Int64) = (-1, 0)

    mutating func seconds(date: Int, time: Int) -> Int64 {
        let key = date << 16 | time
        if key == last.key { return last.seconds }
        var parts = tm()
        parts.tm_year = Int32((date >> 9) & 0x7F) + 80
        parts.tm_mon = Int32((date >> 5) & 0x0F) - 1
        parts.tm_mday = Int32(date & 0x1F)
        parts.tm_hour = Int32((time >> 11) & 0x1F)
        parts.tm_min = Int32((time >> 5) & 0x3F)
        parts.tm_sec = Int32((time << 1) & 0x3E)
        parts.tm_isdst = -1
        last = (key, Int64(mktime(&parts)))
        return last.seconds
    }
}
