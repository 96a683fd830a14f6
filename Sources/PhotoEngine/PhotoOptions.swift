import ArchiverCore

/// What a compressed copy should be.
public struct PhotoOptions: Equatable, Sendable {
    /// Longest side at most this many pixels (never enlarged); nil keeps the size (`--keep-size`).
    public var maxSize: Int?
    /// Encoder quality, 1–100.
    public var quality: Int
    public var format: PhotoFormat
    /// Remove the GPS position (and nothing else), for sharing.
    public var stripLocation: Bool

    public init(maxSize: Int? = 1500, quality: Int = 75, format: PhotoFormat = .jpeg, stripLocation: Bool = false) {
        self.maxSize = maxSize
        self.quality = quality
        self.format = format
        self.stripLocation = stripLocation
    }

    /// The quality the encoder gets. `quality` is on JPEG's scale, the one people know; libheif's HEVC and
    /// AV1 encoders reach the same look about 25 lower (their own defaults are 50, where JPEG's are 75–80),
    /// and at JPEG's number their files come out larger than the JPEG.
    public var encoderQuality: Int {
        switch format {
        case .jpeg, .webp: quality
        case .avif, .heic: max(1, quality - 25)
        }
    }

    /// The accepted range of `--max-size`: below 16 px nothing is recognisable, above 65 500 no format here writes.
    public static let sizeRange = 16...65_500
    /// The accepted range of `--quality`, the encoders' own.
    public static let qualityRange = 1...100
}
