import ArchiverCore

/// The Compress Photos defaults, as the GSettings schema `io.github.archiver` holds them (`photo-*` keys).
/// The built-in values are the schema's defaults (SettingKeys.swift), used when the schema is missing;
/// flags override both.
public struct PhotoSettings: SettingsGroup, Equatable {
    /// Longest side in pixels; 0 means keep the size.
    public var maxSize = Int(Setting.photoMaxSize.defaultValue)
    public var quality = Int(Setting.photoQuality.defaultValue)
    public var format = Setting.photoFormat.defaultValue
    public var stripLocation = Setting.photoStripLocation.defaultValue

    public init() {}

    /// The keys these settings are read from; their names are the table's.
    public enum Key: SettingKeySubset {
        case maxSize, quality, format, stripLocation

        public var setting: SettingKey {
            switch self {
            case .maxSize: Setting.photoMaxSize.key
            case .quality: Setting.photoQuality.key
            case .format: Setting.photoFormat.key
            case .stripLocation: Setting.photoStripLocation.key
            }
        }
    }

    /// Applies one stored value; a value of the wrong type or out of range leaves the default.
    /// - Returns: false when the value was not usable.
    @discardableResult
    public mutating func apply(_ key: Key, _ value: ArchiverSettings.Value) -> Bool {
        switch (key, value) {
        case (.maxSize, .number(let pixels)):
            guard pixels == 0 || PhotoOptions.sizeRange.contains(Int(exactly: pixels) ?? -1) else { return false }
            maxSize = Int(pixels)
        case (.quality, .number(let quality)):
            guard PhotoOptions.qualityRange.contains(Int(exactly: quality) ?? -1) else { return false }
            self.quality = Int(quality)
        case (.format, .string(let nick)):
            guard let format = PhotoFormat(rawValue: nick) else { return false }
            self.format = format
        case (.stripLocation, .bool(let flag)): stripLocation = flag
        default: return false
        }
        return true
    }
}
