/// The user's defaults, as the GSettings schema `io.github.archiver` holds them. The built-in values
/// here are the schema's defaults, used when the schema is missing; flags override both.
public struct ArchiverSettings: Equatable, Sendable {
    public var defaultFormat: ArchiveFormat = .zip
    public var compressionLevel: CompressionLevel = .normal
    /// The format last chosen in the Compress… window; nil until one was (the window then starts from
    /// `defaultFormat`). One-click jobs never read it.
    public var lastFormat: ArchiveFormat?
    /// The level last chosen in the Compress… window; nil until one was.
    public var lastLevel: CompressionLevel?
    /// Where archives from temporary or read-only places go; empty means the XDG Downloads folder.
    public var extractLocation: String = ""
    public var openFolderAfter = false
    public var trashArchiveAfterExtract = false
    public var skipJunk = true
    /// Seconds; 0 means no limit.
    public var timeBudget: Double = 1800
    public var notifications = true
    public var rememberRecent = true
    /// Split new archives into parts of this many bytes; nil: one file.
    public var splitSize: Int64?
    /// The step of "Compress PDF"'s quality ladder used when no --quality is given.
    public var pdfQuality = PDFQuality.standard
    /// Seconds an archive opened as a folder stays mounted with nothing open and nothing asked (0 = until unmounted).
    public var mountIdleTimeout: Double = 300

    public init() {}

    /// The schema's id and the key names, in one place for the store and the tests.
    public static let schemaID = "io.github.archiver"

    public enum Key: String, CaseIterable, Sendable {
        case defaultFormat = "default-format"
        case compressionLevel = "compression-level"
        case lastFormat = "last-format"
        case lastLevel = "last-level"
        case extractLocation = "extract-location"
        case openFolderAfter = "open-folder-after"
        case trashArchiveAfterExtract = "trash-archive-after-extract"
        case skipJunk = "skip-junk"
        case timeBudget = "time-budget"
        case notifications
        case rememberRecent = "remember-recent"
        case splitSize = "split-size"
        case pdfQuality = "pdf-quality"
        case mountIdleTimeout = "mount-idle-timeout"
    }

    /// A stored value, typed as GSettings hands it over.
    public enum Value: Equatable, Sendable {
        case string(String), bool(Bool), number(Double)
    }

    /// Applies one stored value. A value of the wrong type, or an enum nick this version does not
    /// know, leaves the default in place and is reported as a problem.
    /// - Returns: false when the value was not usable.
    @discardableResult
    public mutating func apply(_ key: Key, _ value: Value) -> Bool {
        switch (key, value) {
        case (.defaultFormat, .string(let nick)):
            guard let format = ArchiveFormat(rawValue: nick), !format.isSingleStream else { return false }
            defaultFormat = format
        case (.compressionLevel, .string(let nick)):
            guard let level = CompressionLevel(rawValue: nick) else { return false }
            compressionLevel = level
        case (.lastFormat, .string(let nick)):
            guard let format = ArchiveFormat(rawValue: nick), !format.isSingleStream else { return false }
            lastFormat = format
        case (.lastLevel, .string(let nick)):
            guard let level = CompressionLevel(rawValue: nick) else { return false }
            lastLevel = level
        case (.extractLocation, .string(let text)): extractLocation = text
        case (.openFolderAfter, .bool(let flag)): openFolderAfter = flag
        case (.trashArchiveAfterExtract, .bool(let flag)): trashArchiveAfterExtract = flag
        case (.skipJunk, .bool(let flag)): skipJunk = flag
        case (.timeBudget, .number(let seconds)):
            guard seconds.isFinite, seconds >= 0 else { return false }
            timeBudget = seconds
        case (.notifications, .bool(let flag)): notifications = flag
        case (.rememberRecent, .bool(let flag)): rememberRecent = flag
        case (.splitSize, .string(let text)):
            if text.isEmpty { splitSize = nil } else {
                guard let size = PartSize.parse(text) else { return false }
                splitSize = size
            }
        case (.pdfQuality, .string(let nick)):
            guard let quality = PDFQuality(rawValue: nick) else { return false }
            pdfQuality = quality
        case (.mountIdleTimeout, .number(let seconds)):
            guard seconds.isFinite, seconds >= 0 else { return false }
            mountIdleTimeout = seconds
        default: return false
        }
        return true
    }

    /// What the Compress… window starts from: the last choice made there, else the one-click defaults.
    public var windowFormat: ArchiveFormat { lastFormat ?? defaultFormat }
    public var windowLevel: CompressionLevel { lastLevel ?? compressionLevel }

    /// Whether a key holds what the Compress… window remembers, read only when it was ever written (the
    /// schema's default would hide `defaultFormat` and `compressionLevel`).
    public static func isRemembered(_ key: Key) -> Bool { key == .lastFormat || key == .lastLevel }

    /// The budget a job runs under: the flag if given, else the setting; nil means no limit.
    public func budget(flag: Double?) -> Double? {
        let seconds = flag ?? timeBudget
        return seconds > 0 ? seconds : nil
    }
}
