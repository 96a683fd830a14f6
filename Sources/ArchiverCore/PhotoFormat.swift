/// The format of a compressed photo. Here rather than in PhotoEngine because the `photo-format` setting
/// (SettingKeys.swift) holds one.
public enum PhotoFormat: String, CaseIterable, Sendable {
    case jpeg, webp, avif, heic

    /// The extension a copy gets, without the dot.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .webp: "webp"
        case .avif: "avif"
        case .heic: "heic"
        }
    }

    /// Whether the format can hold transparency; JPEG cannot, so transparent parts are flattened onto white.
    public var hasAlpha: Bool { self != .jpeg }
}
