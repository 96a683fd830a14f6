/// What the Archiver app does with files dropped on it, passed on its command line (a dock's `%F`) or sent
/// to it over D-Bus: one decision for all three ways in.
public enum DropRoute: Equatable, Sendable {
    /// The Compress… window with every file.
    case compress
    /// One Extract… window per archive.
    case extract
    /// Offer "Compress PDF" (the one-click tool), or the Compress… window.
    case compressPDFs
    /// Offer "Compress Photos", or the Compress… window.
    case compressPhotos

    /// What one dropped item is, as far as the route cares.
    public enum Kind: Equatable, Sendable {
        case archive, pdf, photo, folder, other
    }

    /// The kind of an item from its name, its MIME type (shared-mime-info's guess) and whether it is a folder.
    public static func kind(name: [UInt8], mimeType: String, isFolder: Bool) -> Kind {
        if isFolder { return .folder }
        if mimeType == "application/pdf" { return .pdf }
        if mimeType.hasPrefix("image/") { return .photo }
        // The name decides, not the type: an office document or an .apk is a zip inside, but only the
        // names made for archives are opened as one.
        if !ArchiveNaming.splitArchiveExtension(name).extension.isEmpty { return .archive }
        return .other
    }

    /// The route for items of these kinds; nil for none. Only when every item is an archive are they
    /// extracted; PDFs and photos alone get their own tool; any mix is compressed together.
    public static func route(for kinds: [Kind]) -> DropRoute? {
        guard let first = kinds.first else { return nil }
        guard kinds.allSatisfy({ $0 == first }) else { return .compress }
        switch first {
        case .archive: return .extract
        case .pdf: return .compressPDFs
        case .photo: return .compressPhotos
        case .folder, .other: return .compress
        }
    }
}
