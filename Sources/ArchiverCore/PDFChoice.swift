/// What the Compress PDF… window says about each level and about the copy it made: pure wording and
/// choices, unit-tested; the window only shows them.
public enum PDFChoice {
    /// What a level does, in a person's words, below its name.
    public static func summary(of quality: PDFQuality) -> Text {
        switch quality {
        // TRANSLATORS: Compress PDF…, below the level's name: what it is for and what it does to images.
        case .best: tr("For printing: images kept at 300 dpi")
        case .high: tr("For high-quality screens and home printing: 200 dpi")
        case .medium: tr("For reading on screens and sharing: 150 dpi")
        case .low: tr("For email: 100 dpi, images softer")
        case .veryLow: tr("For the smallest readable copy: 72 dpi")
        case .minimum: tr("Smallest file: images barely legible")
        }
    }

    /// The next level that makes smaller files than `quality` (Try a Smaller Level); nil after Minimum.
    public static func smaller(than quality: PDFQuality) -> PDFQuality? {
        let all = PDFQuality.allCases
        guard let index = all.firstIndex(of: quality), index + 1 < all.count else { return nil }
        return all[index + 1]
    }

    /// A level's estimate for this file: "about 1.4 MB, 96 % smaller", or "no smaller" when the level would
    /// not make it meaningfully smaller (`helps` is the estimate's verdict).
    public static func estimate(original: Int64, estimated: Int64, helps: Bool) -> Text {
        // TRANSLATORS: Compress PDF…, at the end of a level's row: this level would not make the file smaller.
        guard helps, estimated < original else { return tr("no smaller") }
        // TRANSLATORS: Compress PDF…, a level's estimated size: "about 1.4 MB, 96 % smaller".
        return tr("about %1$@, %2$@", .bytes(estimated), PDFNaming.saving(before: original, after: estimated))
    }

    /// The header line: "8 pages, 31.8 MB"; just the size before the page count is known.
    public static func header(size: Int64, pages: Int?) -> Text {
        guard let pages else { return Text.verbatim(Formatters.bytes(size)) }
        // TRANSLATORS: Compress PDF…, below the PDF's name: its page count and size.
        return ntr("%1$ld page, %2$@", "%1$ld pages, %2$@", pages, .bytes(size))
    }

    /// The result's size line: "31.8 MB → 1.4 MB, 96 % smaller".
    public static func sizes(before: Int64, after: Int64) -> Text {
        // TRANSLATORS: Compress PDF…'s result: the size before → after, and how much smaller.
        tr("%1$@ → %2$@, %3$@", .bytes(before), .bytes(after), PDFNaming.saving(before: before, after: after))
    }

    /// The result's second line: "8 pages, text kept" (or "text not kept" when the copy lost it).
    public static func pages(_ pages: Int, textKept: Bool?) -> Text {
        switch textKept {
        // TRANSLATORS: Compress PDF…'s result: the copy's page count, and that its text can still be selected and searched.
        case true?: ntr("%ld page, text kept", "%ld pages, text kept", pages)
        // TRANSLATORS: Compress PDF…'s result: the copy's page count, and that its text is lost (flattened).
        case false?: ntr("%ld page, text not kept", "%ld pages, text not kept", pages)
        case nil: ntr("%ld page", "%ld pages", pages)
        }
    }
}
