/// What the Extract… window may show of an entry without extracting it: a thumbnail in the tree for an image,
/// and a quick look (Space) at an image, a text or a PDF's first page. Pure decisions; the window reads the
/// bytes through the engine and decodes them.
public enum EntryPreview {
    public enum Kind: Sendable, Equatable { case image, text, pdf }

    /// The most a thumbnail reads: a larger image gets none (decoding it would take seconds and its memory).
    public static let thumbnailLimit: Int64 = 8 << 20
    /// The most a quick look reads of an image or a PDF.
    public static let lookLimit: Int64 = 64 << 20
    /// How much of a text a quick look shows.
    public static let textLimit = 64 << 10
    /// Enough of the start to tell the kind by its bytes.
    public static let sniffLength = 64

    /// Kinds GdkPixbuf reads here, by name.
    private static let imageExtensions: Set<String> = ["png", "jpg", "jpeg", "jpe", "gif", "bmp", "tif", "tiff", "webp", "ico"]

    /// The kind a name says (its extension, any case); nil when it says none of these.
    public static func kind(ofName name: String) -> Kind? {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        let suffix = name[name.index(after: dot)...].lowercased()
        if imageExtensions.contains(suffix) { return .image }
        if suffix == "pdf" { return .pdf }
        return nil
    }

    /// Whether a tree row gets a thumbnail: an image by name, small enough to read whole, and readable now
    /// (an encrypted entry only once the archive was unlocked with its password).
    public static func wantsThumbnail(name: String, size: Int64, encrypted: Bool, unlocked: Bool) -> Bool {
        kind(ofName: name) == .image && size > 0 && size <= thumbnailLimit && (!encrypted || unlocked)
    }

    /// The kind the bytes are, by their start: an image or PDF by its signature, else text when `text(_:)`
    /// can read it; nil for anything else (binary). The name does not decide: a `.png` that is not one is no
    /// image.
    public static func kind(of bytes: [UInt8]) -> Kind? {
        if isImage(bytes) { return .image }
        if bytes.starts(with: Array("%PDF-".utf8)) { return .pdf }
        return text(bytes) == nil ? nil : .text
    }

    /// Whether the bytes start as an image GdkPixbuf reads (PNG, JPEG, GIF, BMP, TIFF, WebP, ICO).
    public static func isImage(_ bytes: [UInt8]) -> Bool {
        let signatures: [[UInt8]] = [
            [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A],  // PNG
            [0xFF, 0xD8, 0xFF],  // JPEG
            Array("GIF87a".utf8), Array("GIF89a".utf8),
            Array("BM".utf8),
            [0x49, 0x49, 0x2A, 0x00], [0x4D, 0x4D, 0x00, 0x2A],  // TIFF, both byte orders
            [0x00, 0x00, 0x01, 0x00],  // ICO
        ]
        if signatures.contains(where: { bytes.starts(with: $0) }) { return true }
        return bytes.count >= 12 && bytes[0..<4].elementsEqual("RIFF".utf8) && bytes[8..<12].elementsEqual("WEBP".utf8)
    }

    /// The first `textLimit` bytes as text: UTF-8 (a character cut at the limit is dropped), else Latin-1;
    /// nil when they hold a NUL or other control characters a text does not (binary data).
    public static func text(_ bytes: [UInt8]) -> String? {
        var start = bytes.prefix(textLimit)
        if start.starts(with: [0xEF, 0xBB, 0xBF]) { start = start.dropFirst(3) }  // a byte-order mark
        // Tab, newline, form feed, carriage return and escape (ANSI colours) are text; other C0 codes are not.
        let allowed: Set<UInt8> = [0x09, 0x0A, 0x0C, 0x0D, 0x1B]
        guard !start.contains(where: { ($0 < 0x20 && !allowed.contains($0)) || $0 == 0x7F }) else { return nil }
        // A multi-byte character cut by the limit: up to 3 bytes at the end may be its start.
        let cutShort = bytes.count >= textLimit
        for cut in 0...(cutShort ? min(3, start.count) : 0) {
            if let text = String(validating: start.dropLast(cut), as: UTF8.self) { return text }
        }
        // Latin-1: every byte is a character; C1 controls (0x80–0x9F) mean it is neither.
        guard !start.contains(where: { (0x80...0x9F).contains($0) }) else { return nil }
        return String(String.UnicodeScalarView(start.map { Unicode.Scalar($0) }))
    }
}
