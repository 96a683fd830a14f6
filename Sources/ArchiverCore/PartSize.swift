/// Part sizes for split archives, written as 7-Zip's `-v` takes them: `700k`, `100M`, `4G` (k, M and G
/// are KiB, MiB and GiB; a bare number or a trailing `b` is bytes).
public enum PartSize {
    /// The smallest part: smaller ones make thousands of files for no one's benefit.
    public static let minimum: Int64 = 1024

    /// The byte count `text` names; nil when it is not a size or is below the minimum.
    public static func parse(_ text: String) -> Int64? {
        var digits = Substring(text).drop { $0 == " " }
        while digits.last == " " { digits = digits.dropLast() }
        var unit: Int64 = 1
        if let last = digits.last, !last.isNumber {
            switch last {
            case "b", "B": unit = 1
            case "k", "K": unit = 1 << 10
            case "m", "M": unit = 1 << 20
            case "g", "G": unit = 1 << 30
            default: return nil
            }
            digits = digits.dropLast()
        }
        guard !digits.isEmpty, digits.allSatisfy({ ("0"..."9").contains($0) }), let count = Int64(digits) else { return nil }
        let (bytes, overflow) = count.multipliedReportingOverflow(by: unit)
        return !overflow && bytes >= minimum ? bytes : nil
    }

    /// The sizes offered by "Compress in parts…", as `--split` values with what each is for.
    public static var presets: [(size: String, use: Text)] {
        [
            // Mail limits count the encoded message, about 37 % larger than the attachment.
            ("15M", tr("Mail attachments (fits a 20–25 MB limit)")),
            ("100M", tr("100 MB parts (upload forms)")),
            ("700M", tr("CD (700 MB)")),
            // FAT32 files stop one byte short of 4 GiB; 7-Zip offers 4092M for the same reason.
            ("4092M", tr("FAT32 USB stick (4 GB limit)")),
        ]
    }

    /// More parts than this is a mistake in the size, not a plan.
    public static let maximumParts: Int64 = 10_000

    /// Refuses a size that would cut `bytes` of input into absurdly many parts (the archive is rarely
    /// larger than its input, so the input's size bounds the count).
    public static func check(_ size: Int64, inputBytes: Int64) -> ArchiverError? {
        guard inputBytes / size > maximumParts else { return nil }
        return ArchiverError(
            .usage, tr("Parts of %1$@ would cut %2$@ into more than %3$ld files.", .bytes(size), .bytes(inputBytes), maximumParts),
            hint: tr("Choose a larger --split size."))
    }
}
