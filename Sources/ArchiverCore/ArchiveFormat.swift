/// An output format of `compress-with-archiver`, named as on the command line.
public enum ArchiveFormat: String, CaseIterable, Sendable {
    case zip
    case sevenZip = "7z"
    case tar
    case tarGz = "tar.gz"
    case tarBz2 = "tar.bz2"
    case tarXz = "tar.xz"
    case tarZst = "tar.zst"
    case gz, bz2, xz, zst

    /// The compression applied on top of the container, for tar and single-stream formats.
    public enum Filter: Sendable {
        case none, gzip, bzip2, xz, zstd
    }

    /// How entries are packed.
    public enum Container: Sendable {
        case zip, sevenZip, tar
        /// One file compressed as one stream, no container.
        case raw
    }

    public var container: Container {
        switch self {
        case .zip: .zip
        case .sevenZip: .sevenZip
        case .tar, .tarGz, .tarBz2, .tarXz, .tarZst: .tar
        case .gz, .bz2, .xz, .zst: .raw
        }
    }

    public var filter: Filter {
        switch self {
        case .zip, .sevenZip, .tar: .none
        case .tarGz, .gz: .gzip
        case .tarBz2, .bz2: .bzip2
        case .tarXz, .xz: .xz
        case .tarZst, .zst: .zstd
        }
    }

    /// The suffix an output of this format gets, including the dot.
    public var fileExtension: String { "." + rawValue }

    /// Single-stream formats compress exactly one regular file.
    public var isSingleStream: Bool { container == .raw }

    /// The tar form of a single-stream format, suggested when it is given a folder or several files.
    public var tarEquivalent: ArchiveFormat {
        switch self {
        case .gz: .tarGz
        case .bz2: .tarBz2
        case .xz: .tarXz
        case .zst: .tarZst
        default: self
        }
    }

    /// Whether this compression runs on all cores.
    public var usesThreads: Bool { filter == .xz || filter == .zstd }
}

/// The `--level` choices. `normal` is each library's own default; see `ArchiveFormat.settings(for:)`.
public enum CompressionLevel: String, CaseIterable, Sendable {
    case store, fast, normal, maximum
}

/// What a format and level mean for the compressor, decided here so the engine only applies it.
public struct CompressionSettings: Equatable, Sendable {
    public enum Method: String, Sendable {
        case store, deflate, lzma2, copy
    }
    /// The container's own method (zip, 7z); nil for tar and raw streams.
    public var method: Method?
    /// The numeric level for the method or the filter; nil where the level means nothing (plain tar).
    public var level: Int?

    public init(method: Method?, level: Int?) {
        self.method = method
        self.level = level
    }
}

extension ArchiveFormat {
    /// The method and numeric level that `level` stands for in this format (the README's table).
    public func settings(for level: CompressionLevel) -> CompressionSettings {
        switch container {
        case .zip:
            switch level {
            case .store: return CompressionSettings(method: .store, level: nil)
            case .fast: return CompressionSettings(method: .deflate, level: 1)
            case .normal: return CompressionSettings(method: .deflate, level: 6)
            case .maximum: return CompressionSettings(method: .deflate, level: 9)
            }
        case .sevenZip:
            switch level {
            case .store: return CompressionSettings(method: .copy, level: nil)
            case .fast: return CompressionSettings(method: .lzma2, level: 1)
            case .normal: return CompressionSettings(method: .lzma2, level: 5)
            case .maximum: return CompressionSettings(method: .lzma2, level: 9)
            }
        case .tar, .raw:
            return CompressionSettings(method: nil, level: filterLevel(level))
        }
    }

    private func filterLevel(_ level: CompressionLevel) -> Int? {
        // Formats without a stored mode use their fastest setting for `store`.
        let table: [Filter: (store: Int, fast: Int, normal: Int, maximum: Int)] = [
            .gzip: (0, 1, 6, 9),
            .bzip2: (1, 1, 9, 9),
            .xz: (0, 1, 6, 9),
            .zstd: (1, 1, 3, 19),
        ]
        guard let levels = table[filter] else { return nil }
        switch level {
        case .store: return levels.store
        case .fast: return levels.fast
        case .normal: return levels.normal
        case .maximum: return levels.maximum
        }
    }
}
