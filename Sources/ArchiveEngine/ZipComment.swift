import ArchiverCore
import Glibc
import Platform
import SystemPackage

/// The archive comment at the end of a zip (its end-of-central-directory record), which libarchive does not
/// read; our container writer writes it (`ZipContainerWriter.finish`).
enum ZipComment {
    /// The comment of the zip at `path` as text (UTF-8 as Info-ZIP writes it, else CP437 as old DOS tools
    /// did); nil when there is none or no end record.
    static func read(_ path: FilePath) -> String? {
        let (descriptor, size, failure) = FileSystem.openForReading(path)
        guard failure == nil else { return nil }
        defer { close(descriptor) }
        guard let comment = ZipEndRecord(descriptor, size: size, commentReachesEnd: true)?.comment else { return nil }
        guard !comment.isEmpty else { return nil }
        if let text = String(validating: comment, as: UTF8.self) { return text }
        return NameDecoder.decode(comment, from: "CP437") ?? String(decoding: comment, as: UTF8.self)
    }

    /// Puts `comment` (UTF-8) into the zip at `path`, which has none yet: its end record's length field is
    /// set and the bytes appended. The file is the writer's own, not yet published.
    /// - Throws: `ArchiverError` (`.destination`) when it cannot be written.
    static func write(_ comment: String, into path: FilePath) throws(ArchiverError) {
        let bytes = Array(comment.utf8)
        let descriptor = path.withPlatformString { open($0, O_RDWR | O_CLOEXEC) }
        guard descriptor >= 0 else { throw FileSystem.destinationError(errno, path.removingLastComponent()) }
        defer { close(descriptor) }
        let size = Int64(lseek(descriptor, 0, SEEK_END))
        guard size >= Int64(ZipEndRecord.size), let end = FileSystem.bytes(descriptor, at: size - Int64(ZipEndRecord.size), count: ZipEndRecord.size),
            ZipDirectory.u32(end, 0) == 0x0605_4B50, ZipDirectory.u16(end, 20) == 0, bytes.count <= 0xFFFF
        else {
            throw ArchiverError(.destination, tr("The zip comment could not be written: the archive does not end as expected."), path: path.string)
        }
        let length = [UInt8(bytes.count & 0xFF), UInt8(bytes.count >> 8)]
        let written = pwrite(descriptor, length, 2, off_t(size - 2)) == 2
            && (bytes.isEmpty || pwrite(descriptor, bytes, bytes.count, off_t(size)) == bytes.count)
        guard written else { throw FileSystem.destinationError(errno, path.removingLastComponent()) }
    }
}
