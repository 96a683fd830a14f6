import Glibc
import Platform

/// The end of a zip: its end-of-central-directory record (and Zip64's, when a count or offset overflows),
/// found from the file's tail. The one reading of it for the listing (ZipDirectory), the editor (ZipMembers)
/// and the comment (ZipComment).
struct ZipEndRecord {
    static let size = 22
    /// The record is at most its 22 bytes and a 65,535-byte comment from the end; Zip64's locator is 20 more.
    private static let tailLimit = size + 0xFFFF + 20

    var count: Int64
    var directorySize: Int64
    /// Where the central directory starts in the file.
    var directoryStart: Int64
    /// Bytes in front of the zip (a self-extractor's stub): every offset the zip records moves by this much.
    var shift: Int64
    /// Where the end record itself starts in the file.
    var position: Int64
    var comment: [UInt8]

    /// The last end record in the file open as `descriptor`; nil when there is none, or its numbers cannot be
    /// those of a central directory in this file.
    /// - Parameter commentReachesEnd: only a record whose comment ends exactly at the file's end (bytes
    ///   after a record that says otherwise mean it is not the end of this file).
    init?(_ descriptor: Int32, size fileSize: Int64, commentReachesEnd: Bool = false) {
        let tailSize = Int(min(fileSize, Int64(Self.tailLimit)))
        guard tailSize >= Self.size, let tail = FileSystem.bytes(descriptor, at: fileSize - Int64(tailSize), count: tailSize),
            let end = (0...(tailSize - Self.size)).reversed().first(where: {
                ZipDirectory.u32(tail, $0) == 0x0605_4B50
                    && (!commentReachesEnd || $0 + Self.size + ZipDirectory.u16(tail, $0 + 20) == tailSize)
            })
        else { return nil }
        position = fileSize - Int64(tailSize) + Int64(end)
        let commentLength = ZipDirectory.u16(tail, end + 20)
        comment = Array(tail[(end + Self.size)..<min(tailSize, end + Self.size + commentLength)])
        count = Int64(ZipDirectory.u16(tail, end + 10))
        directorySize = Int64(ZipDirectory.u32(tail, end + 12))
        var directoryOffset = Int64(ZipDirectory.u32(tail, end + 16))
        var directoryEnd = position
        if count == 0xFFFF || directorySize == 0xFFFF_FFFF || directoryOffset == 0xFFFF_FFFF {
            // Zip64: the locator just before the end record points at the Zip64 end record.
            guard end >= 20, ZipDirectory.u32(tail, end - 20) == 0x0706_4B50 else { return nil }
            let recordAt = Int64(ZipDirectory.u64(tail, end - 12))
            guard let record = FileSystem.bytes(descriptor, at: recordAt, count: 56), ZipDirectory.u32(record, 0) == 0x0606_4B50
            else { return nil }
            (count, directorySize, directoryOffset) =
                (Int64(ZipDirectory.u64(record, 32)), Int64(ZipDirectory.u64(record, 40)), Int64(ZipDirectory.u64(record, 48)))
            directoryEnd = recordAt
        }
        shift = directoryEnd - directorySize - directoryOffset
        directoryStart = directoryOffset + shift
        guard shift >= 0, directorySize >= 0, directorySize <= fileSize, count <= directorySize / 46 + 1 else { return nil }
    }

    /// The central directory's bytes.
    func directory(_ descriptor: Int32) -> [UInt8]? {
        FileSystem.bytes(descriptor, at: directoryStart, count: Int(directorySize))
    }
}
