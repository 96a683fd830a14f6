/// The quality ladder of "Compress PDF": the resolution images are resampled to (at the size they are
/// drawn) and the JPEG quality they are re-encoded at. The same six steps PDF tools on phones offer.
public enum PDFQuality: String, CaseIterable, Sendable {
    case best, high, medium, low
    case veryLow = "very-low"
    case minimum

    /// The default when neither the flag nor the `pdf-quality` setting says otherwise.
    public static let standard = Setting.pdfQuality.defaultValue

    /// Pixels per inch of an image as drawn on the page; images already at or below it are left alone.
    public var dpi: Int {
        switch self {
        case .best: 300
        case .high: 200
        case .medium: 150
        case .low: 100
        case .veryLow: 72
        case .minimum: 50
        }
    }

    /// JPEG quality (1…100) of the images that are re-encoded.
    public var jpegQuality: Int {
        switch self {
        case .best: 90
        case .high: 70
        case .medium: 50
        case .low: 30
        case .veryLow: 15
        case .minimum: 5
        }
    }

    /// The level's name for a person: `Medium`.
    public var name: Text {
        switch self {
        case .best: ptr("PDF quality", "Best")
        case .high: ptr("PDF quality", "High")
        case .medium: ptr("PDF quality", "Medium")
        case .low: ptr("PDF quality", "Low")
        case .veryLow: ptr("PDF quality", "Very low")
        case .minimum: ptr("PDF quality", "Minimum")
        }
    }

    /// `Medium (150 dpi, JPEG 50)`, for help texts and results.
    public var label: Text {
        // TRANSLATORS: a PDF quality level: its name, the resolution images get, and their JPEG quality.
        tr("%1$@ (%2$ld dpi, JPEG %3$ld)", name, dpi, jpegQuality)
    }
}

/// Names and verdicts of "Compress PDF".
public enum PDFNaming {
    /// The copy's name beside the input: `report.pdf` → `report (compressed).pdf`; a name without the
    /// `.pdf` extension keeps its whole self before the suffix. Conflicts are numbered by the publisher:
    /// `report (compressed) (2).pdf`.
    public static func compressedName(for input: [UInt8]) -> [UInt8] {
        let suffix = Array(".pdf".utf8)
        var stem = input
        if input.count > suffix.count, input.suffix(suffix.count).map(lowercased) == suffix {
            stem = Array(input.dropLast(suffix.count))
        }
        return stem + Array(" (compressed).pdf".utf8)
    }

    /// Whether the first bytes of a file are a PDF's: `%PDF-` within the first kilobyte (as readers
    /// accept; some generators put junk before it).
    public static func looksLikePDF(_ head: [UInt8]) -> Bool {
        let marker = Array("%PDF-".utf8)
        let window = head.prefix(1024)
        guard window.count >= marker.count else { return false }
        return (0...(window.count - marker.count)).contains { window[$0..<($0 + marker.count)].elementsEqual(marker) }
    }

    /// `report.pdf: 31.8 MB → 612 kB (98 % smaller)`.
    public static func summary(name: String, before: Int64, after: Int64) -> Text {
        // TRANSLATORS: a PDF's name, its size before → after, and how much smaller it got ("98 % smaller").
        tr("%1$@: %2$@ → %3$@ (%4$@)", name, .bytes(before), .bytes(after), saving(before: before, after: after))
    }

    /// `98 % smaller`; a saving under half a percent is `less than 1 % smaller`, and anything left is
    /// never `100 %`.
    public static func saving(before: Int64, after: Int64) -> Text {
        guard let percent = Saving.percent(before: before, after: after) else { return tr("not smaller") }
        return percent < 1 ? tr("less than 1 %% smaller") : tr("%ld %% smaller", percent)
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }
}
