/// An archive's facts beside its entries: the one record that the engine's listing fills, `--list --json`
/// carries (JobProtocol reads and writes its keys) and the Extract… window's Properties view shows as the
/// lines a person reads, label and value, in the order they are shown and copied.
public struct ArchiveFacts: Sendable, Equatable {
    /// The format's name, as the listing says it.
    public var format: String?
    /// Compression filters around the archive, outermost first (`["gzip"]` for a tar.gz).
    public var filters: [String] = []
    /// How many files (not folders or links) it holds.
    public var files: Int64 = 0
    /// The archive's own size (every part of a set).
    public var packedSize: Int64 = 0
    /// The files' sizes added up.
    public var size: Int64 = 0
    /// Whether even the names need the password (7z `-mhe`, rar `-hp`).
    public var encryptedNames = false
    /// Whether any entry's data is encrypted.
    public var encryptedData = false
    /// The archive comment (zip, rar); 7z has none.
    public var comment: String?
    /// SHA-256 of the archive file, lowercase hex; computed only when asked (`--checksum`, the view's button).
    public var sha256: String?

    public init() {}

    /// One line of the view.
    public struct Line: Sendable {
        public let label: Text
        public let value: Text
    }

    public var lines: [Line] {
        var lines = [
            Line(label: tr("Format"), value: .verbatim(format ?? "?")),
            // TRANSLATORS: Properties: the compression around the archive ("gzip" for a tar.gz); "none" when there is none.
            Line(label: tr("Compression filters"), value: filters.isEmpty ? tr("none") : .verbatim(filters.joined(separator: ", "))),
            Line(label: tr("Files"), value: Text(.verbatim("%@"), [.count(files)])),
            Line(label: tr("Packed size"), value: Text(.verbatim("%@"), [.fileSize(packedSize)])),
            Line(label: tr("Size"), value: Text(.verbatim("%@"), [.fileSize(size)])),
            Line(label: tr("Ratio"), value: ratio),
            Line(label: tr("Encrypted names"), value: encryptedNames ? tr("yes") : tr("no")),
            Line(label: tr("Encrypted data"), value: encryptedData ? tr("yes") : tr("no")),
        ]
        if let comment, !comment.isEmpty { lines.append(Line(label: tr("Comment"), value: .verbatim(comment))) }
        return lines
    }

    /// "42 % of the size (58 % saved)"; the packed size over the files' sizes.
    private var ratio: Text {
        guard size > 0 else { return .verbatim("—") }
        let percent = Int((Double(packedSize) * 100 / Double(size)).rounded())
        guard let saved = Saving.visible(before: size, after: packedSize) else {
            // TRANSLATORS: Properties' ratio: the archive is %ld percent of its files' size (nothing saved).
            return tr("%ld%% of the size", percent)
        }
        // TRANSLATORS: Properties' ratio: the archive is %1$ld percent of its files' size, %2$ld percent saved.
        return tr("%1$ld%% of the size (%2$ld%% saved)", percent, saved)
    }
}
