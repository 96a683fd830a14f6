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

/// The CRC-32s an archive stores, which libarchive reads but does not give: from a zip's central directory
/// (its records in libarchive's order), or from 7-Zip's listing of a 7z when 7-Zip is installed.
struct StoredCRCs {
    private var byIndex: [UInt32] = []
    private var byPath: [[UInt8]: UInt32] = [:]

    init(_ archive: FilePath, family: EncryptionSupport.Family) {
        switch family {
        case .zip:
            byIndex = ZipDirectory(archive)?.crcs ?? []
        case .sevenZip:
            guard SevenZip.executable != nil, let listed = try? SevenZip.list(archive, password: nil) else { return }
            for entry in listed { if let crc = entry.crc32 { byPath[entry.path] = crc } }
        default:
            return
        }
    }

    /// `entry`, number `index` in libarchive's order, with its stored CRC when it is a file.
    func adding(to entry: ArchiveEntryInfo, at index: Int) -> ArchiveEntryInfo {
        guard entry.kind == .file else { return entry }
        var entry = entry
        entry.crc32 = byIndex.indices.contains(index) ? byIndex[index] : byPath[entry.path]
        return entry
    }
}
