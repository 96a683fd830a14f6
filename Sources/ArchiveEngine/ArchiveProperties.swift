import ArchiverCore
import SystemPackage

/// An archive's facts beside its entries, for `--list --json` and the Properties view.
public struct ArchiveProperties: Sendable, Equatable {
    /// Compression filters around the archive, outermost first (`gzip` for a tar.gz).
    public var filters: [String] = []
    public var files = 0
    /// The archive's own size on disk, every part of a set together.
    public var packedSize: Int64 = 0
    /// The files' sizes added up.
    public var size: Int64 = 0
    /// Whether even the names need the password (7z `-mhe`, rar `-hp`).
    public var encryptedNames = false
    /// Whether any entry's data is encrypted.
    public var encryptedData = false
    /// The archive comment (zip; rar through unrar); 7z has none.
    public var comment: String?

    public init() {}

    /// The counts over `entries`.
    init(entries: [ArchiveEntryInfo], packedSize: Int64) {
        self.packedSize = packedSize
        for entry in entries {
            if entry.encrypted { encryptedData = true }
            guard entry.kind == .file else { continue }
            files += 1
            let (sum, overflow) = size.addingReportingOverflow(max(0, entry.size ?? 0))
            size = overflow ? Int64.max : sum
        }
    }
}

extension Extractor {
    /// Adds what libarchive does not give to a listing of `archive` read by it: the stored CRC-32 of
    /// each member (a zip's central directory; 7-Zip's listing of a 7z, when 7-Zip is installed) and the
    /// zip comment.
    static func completeListing(
        _ entries: inout [ArchiveEntryInfo], properties: inout ArchiveProperties, archive: FilePath,
        family: EncryptionSupport.Family, control: JobControl
    ) {
        switch family {
        case .zip:
            properties.comment = ZipComment.read(archive)
            // The directory's records are in libarchive's order, one for one when the counts agree.
            if let directory = ZipDirectory(archive) {
                let crcs = directory.crcs
                guard crcs.count == entries.count else { return }
                for index in entries.indices where entries[index].kind == .file { entries[index].crc32 = crcs[index] }
            }
        case .sevenZip:
            guard SevenZip.executable != nil, let listed = try? SevenZip.list(archive, password: nil) else { return }
            var crcs: [[UInt8]: UInt32] = [:]
            for entry in listed { if let crc = entry.crc32 { crcs[entry.path] = crc } }
            for index in entries.indices where entries[index].kind == .file { entries[index].crc32 = crcs[entries[index].path] }
        default:
            return
        }
    }
}
