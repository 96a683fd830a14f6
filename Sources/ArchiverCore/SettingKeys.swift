/// A value as GSettings hands it over: strings and enum nicks as text, numbers (`u`, `i`) as a `Double`.
public enum SettingValue: Hashable, Sendable {
    case string(String), bool(Bool), number(Double)
}

/// A Swift type a key of the schema holds, and its stored form.
public protocol SettingType: Equatable, Sendable {
    /// The value `stored` stands for; nil when it is of another type.
    init?(stored: SettingValue)
    var stored: SettingValue { get }
}

extension String: SettingType {
    public init?(stored: SettingValue) {
        guard case .string(let text) = stored else { return nil }
        self = text
    }
    public var stored: SettingValue { .string(self) }
}

extension Bool: SettingType {
    public init?(stored: SettingValue) {
        guard case .bool(let flag) = stored else { return nil }
        self = flag
    }
    public var stored: SettingValue { .bool(self) }
}

extension UInt32: SettingType {
    public init?(stored: SettingValue) {
        guard case .number(let number) = stored, let value = UInt32(exactly: number) else { return nil }
        self = value
    }
    public var stored: SettingValue { .number(Double(self)) }
}

/// The type of an enum key: its cases' raw values are the schema's nicks.
public protocol SettingChoice: SettingType, RawRepresentable<String>, CaseIterable {}

extension SettingChoice {
    public init?(stored: SettingValue) {
        guard case .string(let nick) = stored else { return nil }
        self.init(rawValue: nick)
    }
    public var stored: SettingValue { .string(rawValue) }
}

extension ArchiveFormat: SettingChoice {}
extension CompressionLevel: SettingChoice {}
extension PDFQuality: SettingChoice {}
extension PhotoFormat: SettingChoice {}

/// The look of Archiver's windows (`color-scheme`): follow the desktop, or force one.
public enum ColorScheme: String, SettingChoice {
    case system, light, dark
}

/// A key of the schema `io.github.archiver`, typed: its name, default, and the values it takes. The keys
/// below are the one place where names and defaults are written; the schema file
/// (desktop-files/io.github.archiver.gschema.xml) must say the same, which SettingsSchemaTests checks.
public struct Setting<Value: SettingType>: Sendable {
    public let name: String
    public let defaultValue: Value
    /// An enum key's values, in the schema's order; nil for other keys.
    public let choices: [Value]?
    /// A number key's `<range>`.
    public let range: ClosedRange<UInt32>?

    init(_ name: String, _ defaultValue: Value, choices: [Value]? = nil, range: ClosedRange<UInt32>? = nil) {
        self.name = name
        self.defaultValue = defaultValue
        self.choices = choices
        self.range = range
    }

    /// The value `stored` stands for; nil when it is of another type, out of range or no choice of this key.
    public func value(_ stored: SettingValue) -> Value? {
        guard let value = Value(stored: stored), choices?.contains(value) ?? true else { return nil }
        if let range, case .number(let number) = stored, UInt32(exactly: number).map(range.contains) != true { return nil }
        return value
    }

    /// The key without its Swift type, for lists of keys.
    public var key: SettingKey {
        let kind: SettingKey.Kind =
            if let choices { .choice(choices.map(\.stored.text)) } else {
                switch defaultValue.stored {
                case .string: .string
                case .bool: .bool
                case .number: .number(range ?? 0...UInt32.max)
                }
            }
        return SettingKey(name: name, kind: kind, defaultValue: defaultValue.stored)
    }
}

extension Setting where Value: SettingChoice {
    init(_ name: String, _ defaultValue: Value) { self.init(name, defaultValue, choices: Array(Value.allCases)) }
}

/// A key without its Swift type: what the schema file says of it.
public struct SettingKey: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        /// `s`
        case string
        /// `b`
        case bool
        /// `u` with a `<range>`
        case number(ClosedRange<UInt32>)
        /// An enum: its nicks in the schema's order.
        case choice([String])
    }

    public let name: String
    public let kind: Kind
    public let defaultValue: SettingValue

    /// The schema's id.
    public static let schemaID = "io.github.archiver"

    /// Every key, in the schema's order.
    public static let all: [SettingKey] = [
        Setting.defaultFormat.key, Setting.compressionLevel.key, Setting.lastFormat.key, Setting.lastLevel.key,
        Setting.extractLocation.key, Setting.openFolderAfter.key, Setting.trashArchiveAfterExtract.key,
        Setting.skipJunk.key, Setting.extractNested.key, Setting.excludeVCS.key, Setting.excludeJunk.key, Setting.excludeCaches.key,
        Setting.excludeNodeModules.key, Setting.followGitignore.key, Setting.splitSize.key, Setting.verifyAfterCompress.key, Setting.timeBudget.key,
        Setting.mountIdleTimeout.key, Setting.mountCommitDelay.key, Setting.mountReadOnly.key,
        Setting.notifications.key, Setting.rememberRecent.key, Setting.photoMaxSize.key, Setting.photoQuality.key,
        Setting.photoFormat.key, Setting.photoStripLocation.key, Setting.pdfQuality.key, Setting.colorScheme.key,
    ]
}

/// The keys one settings struct reads (ArchiverSettings, PhotoSettings): a part of the table, named by it.
public protocol SettingKeySubset: CaseIterable, Sendable, RawRepresentable<String> {
    var setting: SettingKey { get }
}

/// Typed settings over some keys of the schema, built from their defaults (`init()`) and the stored values:
/// `SettingsStore.load` reads any such group the one way.
public protocol SettingsGroup: Sendable {
    associatedtype Key: SettingKeySubset
    init()
    /// Applies one stored value; false (the default kept) when it is of the wrong type or out of range.
    mutating func apply(_ key: Key, _ value: SettingValue) -> Bool
}

extension SettingKeySubset {
    /// The key's name in the schema.
    public var rawValue: String { setting.name }
    public init?(rawValue: String) {
        guard let key = Self.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = key
    }
}

extension SettingValue {
    /// A string's or nick's text; other values as Swift prints them.
    var text: String {
        switch self {
        case .string(let text): text
        case .bool(let flag): String(flag)
        case .number(let number): String(number)
        }
    }
}

// MARK: - The keys

extension Setting where Value == ArchiveFormat {
    /// A default must hold a folder and several files: no single-stream format (gz, xz, …).
    private static let archiveFormats = ArchiveFormat.allCases.filter { !$0.isSingleStream }

    /// The format one-click "Compress" uses when no --format is given.
    public static var defaultFormat: Self { .init("default-format", .zip, choices: archiveFormats) }
    /// The format last chosen in the Compress… window (read only once written there).
    public static var lastFormat: Self { .init("last-format", .zip, choices: archiveFormats) }
}

extension Setting where Value == CompressionLevel {
    public static var compressionLevel: Self { .init("compression-level", .normal) }
    /// The level last chosen in the Compress… window (read only once written there).
    public static var lastLevel: Self { .init("last-level", .normal) }
}

extension Setting where Value == String {
    /// Where archives from temporary or read-only places are extracted; empty: the XDG Downloads folder.
    public static var extractLocation: Self { .init("extract-location", "") }
    /// As 7-Zip's -v takes it (`PartSize`); empty: one file.
    public static var splitSize: Self { .init("split-size", "") }
}

extension Setting where Value == Bool {
    public static var openFolderAfter: Self { .init("open-folder-after", false) }
    public static var trashArchiveAfterExtract: Self { .init("trash-archive-after-extract", false) }
    public static var skipJunk: Self { .init("skip-junk", true) }
    /// Also extract the archives found inside an extracted one (`--nested`).
    public static var extractNested: Self { .init("extract-nested", false) }
    /// Test each new archive before it takes its name (`--verify`).
    public static var verifyAfterCompress: Self { .init("verify-after-compress", false) }
    /// What new archives leave out (LeaveOutChoice): the defaults `--exclude-vcs` and the others turn on or off.
    public static var excludeVCS: Self { .init("exclude-vcs", false) }
    public static var excludeJunk: Self { .init("exclude-junk", true) }
    public static var excludeCaches: Self { .init("exclude-caches", false) }
    /// node_modules on its own (a project's packages are often most of its size, and come back with `npm install`).
    public static var excludeNodeModules: Self { .init("exclude-node-modules", false) }
    public static var followGitignore: Self { .init("follow-gitignore", false) }
    public static var notifications: Self { .init("notifications", true) }
    /// Also whether jobs are counted in the statistics.
    public static var rememberRecent: Self { .init("remember-recent", true) }
    public static var photoStripLocation: Self { .init("photo-strip-location", false) }
    /// Archives open as folders only to read, even those Archiver could change.
    public static var mountReadOnly: Self { .init("mount-read-only", false) }
}

extension Setting where Value == UInt32 {
    /// A year: the longest a schema range here allows.
    private static let year: UInt32 = 31_536_000

    /// Seconds; 0 means no limit.
    public static var timeBudget: Self { .init("time-budget", 1800, range: 0...year) }
    /// Seconds an archive opened as a folder stays mounted unused; 0 keeps it until unmounted by hand.
    public static var mountIdleTimeout: Self { .init("mount-idle-timeout", 300, range: 0...year) }
    /// Seconds a writable folder's changes rest, with no file open, before they are committed to the archive.
    public static var mountCommitDelay: Self { .init("mount-commit-delay", 3, range: 0...year) }
    /// Pixels; 0 keeps the size.
    public static var photoMaxSize: Self { .init("photo-max-size", 1500, range: 0...65_500) }
    public static var photoQuality: Self { .init("photo-quality", 75, range: 1...100) }
}

extension Setting where Value == PhotoFormat {
    public static var photoFormat: Self { .init("photo-format", .jpeg) }
}

extension Setting where Value == PDFQuality {
    public static var pdfQuality: Self { .init("pdf-quality", .medium) }
}

extension Setting where Value == ColorScheme {
    public static var colorScheme: Self { .init("color-scheme", .system) }
}
