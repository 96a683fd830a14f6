import ArchiverCore
internal import CZlib
import Glibc
import Platform
import SystemPackage

/// The archive comment of a rar, which libarchive skips. RAR5 keeps it stored, as UTF-8, in a service
/// header named "CMT" right after the main header, and so is read here as the zip comment is; RAR 2.9–4.x
/// compress theirs (a "CMT" subblock, or inside the main header before 2.9), which only unrar unpacks,
/// when it is installed. Nil for headers encrypted with the names (`-hp`) or damaged.
enum RarComment {
    /// What the headers say about the comment.
    enum Found: Equatable {
        case none
        case text(String)
        /// There is one, compressed: unrar can read it.
        case compressed
    }

    /// The comment of the rar whose first (or only) part is `path`.
    static func read(_ path: FilePath, control: JobControl?) -> String? {
        let (descriptor, _, failure) = FileSystem.openForReading(path)
        guard failure == nil else { return nil }
        let found = find(descriptor)
        close(descriptor)
        switch found {
        case .none: return nil
        case .text(let text): return text
        case .compressed: return UnRAR.executable == nil ? nil : try? UnRAR.comment(path, control: control)
        }
    }

    /// The longest comment read: RAR's own limit, as 7-Zip keeps it.
    static let maximumSize = 1 << 16

    /// The comment in the headers of the rar open at `descriptor`.
    static func find(_ descriptor: Int32) -> Found {
        guard let signature = FileSystem.bytes(descriptor, at: 0, count: 8) else { return .none }
        if signature == rar5Signature { return rar5(descriptor) }
        if Array(signature.prefix(7)) == rar4Signature { return rar4(descriptor) }
        return .none
    }

    private static let rar5Signature: [UInt8] = [0x52, 0x61, 0x72, 0x21, 0x1A, 0x07, 0x01, 0x00]
    private static let rar4Signature: [UInt8] = [0x52, 0x61, 0x72, 0x21, 0x1A, 0x07, 0x00]

    // MARK: - RAR5

    /// The main header, then the header after it: the comment when it is a "CMT" service header.
    private static func rar5(_ descriptor: Int32) -> Found {
        guard let main = Rar5Header(descriptor, at: 8), main.type == 1,
            let next = Rar5Header(descriptor, at: main.end), next.type == 3
        else { return .none }
        var fields = next.fields
        // File flags, unpacked size, attributes, then the mtime and CRC-32 when the flags say so.
        guard let flags = fields.vint(), let size = fields.vint(), fields.vint() != nil else { return .none }
        if flags & 0x2 != 0, fields.take(4) == nil { return .none }
        let crc = flags & 0x4 != 0 ? fields.u32() : nil
        guard let compression = fields.vint(), fields.vint() != nil, let nameLength = fields.vint(),
            let name = fields.take(nameLength), name == Array("CMT".utf8)
        else { return .none }
        // Method 0 is stored; an encrypted comment (an extra record of type 1) cannot be read without the password.
        guard (compression >> 7) & 7 == 0, size == next.dataSize, !next.isSplit, !next.extraRecordTypes.contains(1) else {
            return .compressed
        }
        return text(descriptor, at: next.end - Int64(next.dataSize), count: next.dataSize, crc: crc)
    }

    // MARK: - RAR 2.9–4.x

    /// The main header, then the block after it: the comment when it is a stored "CMT" subblock.
    private static func rar4(_ descriptor: Int32) -> Found {
        guard let main = FileSystem.bytes(descriptor, at: 7, count: 7), main[2] == 0x73 else { return .none }
        let mainFlags = u16(main, 3)
        // MHD_PASSWORD: the headers are encrypted. MHD_COMMENT: a comment of RAR before 2.9, compressed.
        if mainFlags & 0x0080 != 0 { return .none }
        if mainFlags & 0x0002 != 0 { return .compressed }
        let at = 7 + Int64(u16(main, 5))
        guard let head = FileSystem.bytes(descriptor, at: at, count: 32), head[2] == 0x7A else { return .none }
        let flags = u16(head, 3), headerSize = u16(head, 5), nameLength = u16(head, 26)
        let large = flags & 0x100 != 0
        let nameAt = 32 + (large ? 8 : 0)
        guard headerSize >= nameAt + nameLength, let header = FileSystem.bytes(descriptor, at: at, count: headerSize),
            UInt32(crc32(header[2...])) & 0xFFFF == UInt32(u16(header, 0)),
            Array(header[nameAt..<(nameAt + nameLength)]) == Array("CMT".utf8)
        else { return .none }
        let packed = Int64(u32(header, 7)) | (large ? Int64(u32(header, 32)) << 32 : 0)
        let size = Int64(u32(header, 11)) | (large ? Int64(u32(header, 36)) << 32 : 0)
        // Method 0x30 is stored; LHD_PASSWORD (4) an encrypted one.
        guard header[25] == 0x30, packed == size, flags & 0x4 == 0 else { return .compressed }
        return text(descriptor, at: at + Int64(headerSize), count: Int(packed), crc: u32(header, 16))
    }

    // MARK: - Reading

    /// The stored comment's bytes as text (UTF-8, else CP437 as DOS-era comments are), up to RAR's
    /// 0x1A end mark, once its CRC-32 matches.
    private static func text(_ descriptor: Int32, at offset: Int64, count: Int, crc: UInt32?) -> Found {
        guard count > 0, count <= maximumSize, let bytes = FileSystem.bytes(descriptor, at: offset, count: count) else {
            return .none
        }
        if let crc, UInt32(crc32(bytes[...])) != crc { return .none }
        let comment = bytes.prefix { $0 != 0x1A && $0 != 0 }
        guard !comment.isEmpty else { return .none }
        if let text = String(validating: comment, as: UTF8.self) { return .text(text) }
        return .text(NameDecoder.decode(Array(comment), from: "CP437") ?? String(decoding: comment, as: UTF8.self))
    }

    static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt {
        bytes.withUnsafeBufferPointer { CZlib.crc32(0, $0.baseAddress, uInt($0.count)) }
    }

    static func u16(_ bytes: [UInt8], _ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
    static func u32(_ bytes: [UInt8], _ at: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(bytes[at + $1]) << (8 * $1) } }
}

/// One RAR5 header: its CRC-32 (checked), size, type and flags as vints, then its fields; the extra
/// area and data area sizes when the flags say they are there.
struct Rar5Header {
    let type: Int
    let flags: Int
    /// The header's own fields, after the common ones and before the extra area.
    let fields: Fields
    let extraRecordTypes: [Int]
    let dataSize: Int
    /// Where the next header starts, after this one's data.
    let end: Int64

    /// A header as long as the archive's headers are (a RAR5 header is at most 2 MiB).
    init?(_ descriptor: Int32, at offset: Int64) {
        guard let start = FileSystem.bytes(descriptor, at: offset, count: 7) else { return nil }
        var sizeField = Fields(start[4...])
        guard let size = sizeField.vint(), size > 0, size <= 2 << 20 else { return nil }
        let sizeLength = 3 - sizeField.remaining
        guard let header = FileSystem.bytes(descriptor, at: offset + 4, count: sizeLength + size),
            header.withUnsafeBufferPointer({ CZlib.crc32(0, $0.baseAddress, uInt($0.count)) }) == UInt(RarComment.u32(start, 0))
        else { return nil }
        var fields = Fields(header[sizeLength...])
        guard let type = fields.vint(), let flags = fields.vint() else { return nil }
        let extraSize = flags & 0x1 != 0 ? fields.vint() : 0
        let dataSize = flags & 0x2 != 0 ? fields.vint() : 0
        // A data size near Int64.max (a vint holds 63 bits, the header's CRC is no protection) would overflow `end`.
        guard let extraSize, let dataSize, extraSize <= fields.remaining, dataSize < 1 << 62 else { return nil }
        var extra = Fields(fields.bytes.suffix(extraSize))
        var types: [Int] = []
        while extra.remaining > 0, let length = extra.vint(), length > 0, let record = extra.take(length) {
            var inside = Fields(record[...])
            if let type = inside.vint() { types.append(type) }
        }
        self.type = type
        self.flags = flags
        self.fields = Fields(fields.bytes.dropLast(extraSize))
        extraRecordTypes = types
        self.dataSize = dataSize
        end = offset + 4 + Int64(sizeLength + size) + Int64(dataSize)
    }

    /// Continues in the previous volume, or in the next.
    var isSplit: Bool { flags & 0x18 != 0 }

    /// Fields read one after another.
    struct Fields {
        private(set) var bytes: ArraySlice<UInt8>

        init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

        var remaining: Int { bytes.count }

        /// A variable-length integer: 7 bits a byte, lowest first, the high bit saying that more follow.
        mutating func vint() -> Int? {
            var value = 0
            for shift in stride(from: 0, to: 63, by: 7) {
                guard let byte = bytes.popFirst() else { return nil }
                value |= Int(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return value }
            }
            return nil
        }

        mutating func u32() -> UInt32? {
            guard let four = take(4) else { return nil }
            return RarComment.u32(four, 0)
        }

        mutating func take(_ count: Int) -> [UInt8]? {
            guard count >= 0, count <= bytes.count else { return nil }
            defer { bytes = bytes.dropFirst(count) }
            return Array(bytes.prefix(count))
        }
    }
}
