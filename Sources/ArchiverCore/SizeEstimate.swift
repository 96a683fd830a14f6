/// A rough size of the archive before it is written, shown beside the Compress… window's leave-out total
/// (issue 31): the bytes to compress times what deflate made of a small sample of them, adjusted for the
/// format's and level's usual gain over deflate. Meant as "about"; never more than the bytes themselves.
public enum SizeEstimate {
    /// - Parameters:
    ///   - bytes: what goes into the archive.
    ///   - sampled: the bytes of the sample that were compressed.
    ///   - deflated: what raw deflate at level 6 made of them.
    /// - Returns: nil when nothing was sampled (and the format compresses).
    public static func archive(bytes: Int64, sampled: Int64, deflated: Int64, format: ArchiveFormat, level: CompressionLevel) -> Int64? {
        if level == .store || format.filter == .none && format.container == .tar { return bytes }
        guard sampled > 0, deflated >= 0 else { return nil }
        let ratio = min(1, Double(deflated) / Double(sampled)) * gain(format) * gain(level)
        return Int64((Double(bytes) * min(1, ratio)).rounded())
    }

    /// The size against deflate's, as xz, zstd and bzip2 usually do on mixed files (text, code, documents).
    private static func gain(_ format: ArchiveFormat) -> Double {
        if format.container == .sevenZip { return 0.8 }
        return switch format.filter {
        case .xz: 0.8
        case .bzip2: 0.9
        case .zstd: 0.95
        case .gzip, .none: 1
        }
    }

    private static func gain(_ level: CompressionLevel) -> Double {
        switch level {
        case .fast: 1.1
        case .maximum: 0.95
        case .store, .normal: 1
        }
    }
}
