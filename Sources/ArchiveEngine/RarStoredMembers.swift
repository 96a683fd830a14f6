internal import CZlib
import ArchiverCore
import Glibc
import Platform
import SystemPackage

/// The CRC-32 of each stored (uncompressed) member of a one-part rar, read from its headers. libarchive
/// never compares a stored member's data with its CRC-32 (it checks only what it unpacks), so a flipped
/// byte there tested intact; `--test` compares these with the data it reads. Compressed members are left
/// to libarchive, encrypted ones to unrar, and members split over volumes are not looked at.
struct RarStoredMembers {
    struct Member: Equatable {
        let size: Int64
        let crc: UInt32
    }

    /// By the member's place among the archive's file headers, which is libarchive's order of entries.
    let members: [Int: Member]

    /// The stored member that is entry `index` of libarchive's listing, when its size agrees (so that an
    /// entry libarchive counts differently is never compared with another member's CRC).
    func member(at index: Int, size: Int64?) -> Member? {
        guard let member = members[index], member.size == size else { return nil }
        return member
    }

    /// `crc` carried on over `data`, as each member's CRC-32 is computed block by block.
    static func crc32(_ crc: UInt32, _ data: UnsafeRawBufferPointer) -> UInt32 {
        guard let start = data.baseAddress, !data.isEmpty else { return crc }
        return UInt32(truncatingIfNeeded: CZlib.crc32(UInt(crc), start.assumingMemoryBound(to: UInt8.self), uInt(data.count)))
    }

    /// The stored members of the rar (RAR5, or RAR 2.9–4.x) at `path`; nil when it is none, when its headers
    /// are encrypted, or when it is one volume of several. Headers are read up to the first damaged one:
    /// what comes after is libarchive's to report.
    init?(_ path: FilePath) {
        let (descriptor, size, failure) = FileSystem.openForReading(path)
        guard failure == nil else { return nil }
        defer { close(descriptor) }
        guard let signature = FileSystem.bytes(descriptor, at: 0, count: 8) else { return nil }
        let found: [Int: Member]?
        if signature == [0x52, 0x61, 0x72, 0x21, 0x1A, 0x07, 0x01, 0x00] {
            found = Self.rar5(descriptor, size: size)
        } else if signature.prefix(7) == [0x52, 0x61, 0x72, 0x21, 0x1A, 0x07, 0x00] {
            found = Self.rar4(descriptor, size: size)
        } else {
            found = nil
        }
        guard let found, !found.isEmpty else { return nil }
        members = found
    }

    // MARK: - RAR5

    private static func rar5(_ descriptor: Int32, size: Int64) -> [Int: Member]? {
        var members: [Int: Member] = [:]
        var offset: Int64 = 8
        var index = 0
        while offset < size, let header = Rar5Header(descriptor, at: offset), header.end > offset {
            switch header.type {
            case 1:
                // Archive flags: 0x1 a volume of a set.
                var fields = header.fields
                guard let flags = fields.vint(), flags & 0x1 == 0 else { return nil }
            case 2:
                if let member = rar5Stored(header) { members[index] = member }
                index += 1
            case 4:
                return nil  // The headers after it are encrypted.
            case 5:
                return members
            default:
                break
            }
            offset = header.end
        }
        return members
    }

    /// A file header's member when it is stored, whole and unencrypted, with a CRC-32.
    private static func rar5Stored(_ header: Rar5Header) -> Member? {
        var fields = header.fields
        // File flags (0x1 a folder, 0x2 an mtime, 0x4 a CRC-32, 0x8 the size unknown), unpacked size, attributes.
        guard let flags = fields.vint(), let size = fields.vint(), fields.vint() != nil else { return nil }
        if flags & 0x2 != 0, fields.take(4) == nil { return nil }
        guard flags & 0x1 == 0, flags & 0x8 == 0, flags & 0x4 != 0, let crc = fields.u32(), let compression = fields.vint()
        else { return nil }
        // Method 0 is stored; an extra record of type 1 says the data is encrypted.
        guard (compression >> 7) & 7 == 0, size == header.dataSize, !header.isSplit, !header.extraRecordTypes.contains(1)
        else { return nil }
        return Member(size: Int64(size), crc: crc)
    }

    // MARK: - RAR 2.9–4.x

    private static func rar4(_ descriptor: Int32, size: Int64) -> [Int: Member]? {
        var members: [Int: Member] = [:]
        var offset: Int64 = 7
        var index = 0
        while offset < size, let head = FileSystem.bytes(descriptor, at: offset, count: 7) {
            let type = head[2], flags = RarComment.u16(head, 3), headerSize = RarComment.u16(head, 5)
            guard headerSize >= 7 else { return members }
            var dataSize: Int64 = 0
            switch type {
            case 0x73:
                // MHD_VOLUME: one part of a set; MHD_PASSWORD: the headers are encrypted.
                guard flags & 0x0001 == 0, flags & 0x0080 == 0 else { return nil }
            case 0x74, 0x7A:
                guard headerSize >= 32, let header = FileSystem.bytes(descriptor, at: offset, count: headerSize),
                    UInt32(truncatingIfNeeded: RarComment.crc32(header[2...])) & 0xFFFF == UInt32(RarComment.u16(header, 0))
                else { return members }
                let large = flags & 0x100 != 0
                guard !large || headerSize >= 40 else { return members }
                dataSize = Int64(RarComment.u32(header, 7)) | (large ? Int64(RarComment.u32(header, 32)) << 32 : 0)
                guard type == 0x74 else { break }
                let unpacked = Int64(RarComment.u32(header, 11)) | (large ? Int64(RarComment.u32(header, 36)) << 32 : 0)
                // Method 0x30 is stored; flags 0x1 and 0x2 split over volumes, 0x4 encrypted, 0xE0 a folder.
                if header[25] == 0x30, unpacked == dataSize, flags & 0x7 == 0, flags & 0xE0 != 0xE0 {
                    members[index] = Member(size: unpacked, crc: RarComment.u32(header, 16))
                }
                index += 1
            case 0x7B:
                return members
            default:
                // LONG_BLOCK: a data area whose size follows the header's first fields.
                if flags & 0x8000 != 0 {
                    guard let more = FileSystem.bytes(descriptor, at: offset + 7, count: 4) else { return members }
                    dataSize = Int64(RarComment.u32(more, 0))
                }
            }
            offset += Int64(headerSize) + dataSize
        }
        return members
    }
}
