import ArchiverCore

/// The Compress Photos defaults, as the GSettings schema `io.github.archiver` holds them (`photo-*` keys).
/// The built-in values are the schema's defaults, used when the schema is missing; flags override both.
public struct PhotoSettings: Equatable, Sendable {
    /// Longest side in pixels; 0 means keep the size.
    public var maxSize = 1500
    public var quality = 75
    public var format = PhotoFormat.jpeg
    public var stripLocation = false

    public init() {}

    public enum Key: String, CaseIterable, Sendable {
        case maxSize = "photo-max-size"
        case quality = "photo-quality"
        case format = "photo-format"
        case stripLocation = "photo-strip-location"
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
