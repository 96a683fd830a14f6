import ArchiverCore
import SystemPackage

extension ArchiveFacts {
    /// The counts over `entries`, and the archive's own size.
    init(entries: [ArchiveEntryInfo], packedSize: Int64) {
        self.init()
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
