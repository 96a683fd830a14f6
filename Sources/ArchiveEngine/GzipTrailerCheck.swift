internal import CZlib
import ArchiverCore
import Glibc
import Platform
import SystemPackage

/// libarchive's gzip filter never compares a member's CRC-32 with the data it inflated, so a damaged
/// `notes.txt.gz` would extract as if whole. The extractor passes the data it writes through this check and
/// asks at the end: a file of one member (nearly all) is checked against its trailer for the cost of a CRC;
/// one whose trailer does not match (several members, outer layers, or damage) is read once more by our own
/// decoder, which checks every member.
struct GzipTrailerCheck {
    private let archive: FilePath
    private var crc: uLong = 0
    /// The data's length modulo 2³², as the trailer keeps it.
    private var size: UInt32 = 0

    /// nil unless `reader` reads one gzip file as a single stream.
    init?(_ reader: borrowing ArchiveReader) {
        guard reader.isRawStream, !reader.volumes.isMultiPart, reader.filterNames == ["gzip"],
            let archive = reader.volumes.parts.first
        else { return nil }
        self.archive = archive
    }

    mutating func add(_ buffer: UnsafeRawBufferPointer) {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
        crc = crc32(crc, base.assumingMemoryBound(to: Bytef.self), uInt(buffer.count))
        size &+= UInt32(truncatingIfNeeded: buffer.count)
    }

    /// Throws `.corrupt`, naming `entry`, when a member's data does not match its checksum.
    func verify(entry: String, displayName: String, control: JobControl) throws(ArchiverError) {
        if let (stored, length) = trailer(), stored == UInt32(truncatingIfNeeded: crc), length == size { return }
        let result = try ArchiveTester.testGzip(archive, entry: entry, format: "gzip", control: control) { _, _ in }
        if let damaged = result.damaged.first {
            throw FailureClassifier.describeReadFailure(message: damaged.detail, archive: displayName, place: .at(entry))
        }
    }

    /// The last member's CRC-32 and length, little-endian in the file's last 8 bytes.
    private func trailer() -> (UInt32, UInt32)? {
        let descriptor = archive.withPlatformString { open($0, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var end = stat()
        guard fstat(descriptor, &end) == 0, end.st_size >= 18 else { return nil }
        var bytes = [UInt8](repeating: 0, count: 8)
        guard pread(descriptor, &bytes, 8, off_t(end.st_size) - 8) == 8 else { return nil }
        func word(_ at: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(bytes[at + $1]) << (8 * $1) } }
        return (word(0), word(4))
    }
}
