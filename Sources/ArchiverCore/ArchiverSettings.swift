/// The user's defaults for the jobs, as the GSettings schema `io.github.archiver` holds them. The built-in
/// values are the schema's defaults (SettingKeys.swift), used when the schema is missing; flags override both.
public struct ArchiverSettings: SettingsGroup, Equatable {
    public var defaultFormat = Setting.defaultFormat.defaultValue
    public var compressionLevel = Setting.compressionLevel.defaultValue
    /// The format last chosen in the Compress… window; nil until one was (the window then starts from
    /// `defaultFormat`). One-click jobs never read it.
    public var lastFormat: ArchiveFormat?
    /// The level last chosen in the Compress… window; nil until one was.
    public var lastLevel: CompressionLevel?
    /// Where archives from temporary or read-only places go; empty means the XDG Downloads folder.
    public var extractLocation = Setting.extractLocation.defaultValue
    public var openFolderAfter = Setting.openFolderAfter.defaultValue
    public var trashArchiveAfterExtract = Setting.trashArchiveAfterExtract.defaultValue
    public var skipJunk = Setting.skipJunk.defaultValue
    /// Also extract the archives inside an extracted archive.
    public var extractNested = Setting.extractNested.defaultValue
    /// Test each new archive before it takes its name.
    public var verifyAfterCompress = Setting.verifyAfterCompress.defaultValue
    public var excludeVCS = Setting.excludeVCS.defaultValue
    public var excludeJunk = Setting.excludeJunk.defaultValue
    public var excludeCaches = Setting.excludeCaches.defaultValue
    public var excludeNodeModules = Setting.excludeNodeModules.defaultValue
    public var followGitignore = Setting.followGitignore.defaultValue
    /// Seconds; 0 means no limit.
    public var timeBudget = Double(Setting.timeBudget.defaultValue)
    public var notifications = Setting.notifications.defaultValue
    public var rememberRecent = Setting.rememberRecent.defaultValue
    /// Split new archives into parts of this many bytes; nil: one file (the default, an empty `split-size`).
    public var splitSize: Int64?
    /// The step of "Compress PDF"'s quality ladder used when no --quality is given.
    public var pdfQuality = Setting.pdfQuality.defaultValue
    /// Seconds an archive opened as a folder stays mounted with nothing open and nothing asked (0 = until unmounted).
    public var mountIdleTimeout = Double(Setting.mountIdleTimeout.defaultValue)
    /// Seconds a writable folder's changes rest, with no file open, before they are committed.
    public var mountCommitDelay = Double(Setting.mountCommitDelay.defaultValue)
    /// Archives open as folders read-only, even those that could be changed.
    public var mountReadOnly = Setting.mountReadOnly.defaultValue

    public init() {}

    /// The keys these settings are read from; their names are the table's.
    public enum Key: SettingKeySubset {
        case defaultFormat, compressionLevel, lastFormat, lastLevel, extractLocation, openFolderAfter
        case trashArchiveAfterExtract, skipJunk, timeBudget, notifications, rememberRecent, splitSize, pdfQuality
        case mountIdleTimeout, mountCommitDelay, mountReadOnly, verifyAfterCompress, extractNested
        case excludeVCS, excludeJunk, excludeCaches, followGitignore
        // Last: the fuzz seeds pick a key by its index.
        case excludeNodeModules

        public var setting: SettingKey {
            switch self {
            case .defaultFormat: Setting.defaultFormat.key
            case .compressionLevel: Setting.compressionLevel.key
            case .lastFormat: Setting.lastFormat.key
            case .lastLevel: Setting.lastLevel.key
            case .extractLocation: Setting.extractLocation.key
            case .openFolderAfter: Setting.openFolderAfter.key
            case .trashArchiveAfterExtract: Setting.trashArchiveAfterExtract.key
            case .skipJunk: Setting.skipJunk.key
            case .timeBudget: Setting.timeBudget.key
            case .notifications: Setting.notifications.key
            case .rememberRecent: Setting.rememberRecent.key
            case .splitSize: Setting.splitSize.key
            case .pdfQuality: Setting.pdfQuality.key
            case .mountIdleTimeout: Setting.mountIdleTimeout.key
            case .mountCommitDelay: Setting.mountCommitDelay.key
            case .mountReadOnly: Setting.mountReadOnly.key
            case .verifyAfterCompress: Setting.verifyAfterCompress.key
            case .extractNested: Setting.extractNested.key
            case .excludeVCS: Setting.excludeVCS.key
            case .excludeJunk: Setting.excludeJunk.key
            case .excludeCaches: Setting.excludeCaches.key
            case .followGitignore: Setting.followGitignore.key
            case .excludeNodeModules: Setting.excludeNodeModules.key
            }
        }
    }

    /// A stored value, typed as GSettings hands it over.
    public typealias Value = SettingValue

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
        case (.verifyAfterCompress, .bool(let flag)): verifyAfterCompress = flag
        case (.extractNested, .bool(let flag)): extractNested = flag
        case (.excludeVCS, .bool(let flag)): excludeVCS = flag
        case (.excludeJunk, .bool(let flag)): excludeJunk = flag
        case (.excludeCaches, .bool(let flag)): excludeCaches = flag
        case (.excludeNodeModules, .bool(let flag)): excludeNodeModules = flag
        case (.followGitignore, .bool(let flag)): followGitignore = flag
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
        case (.mountCommitDelay, .number(let seconds)):
            guard seconds.isFinite, seconds >= 0 else { return false }
            mountCommitDelay = seconds
        case (.mountReadOnly, .bool(let flag)): mountReadOnly = flag
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
