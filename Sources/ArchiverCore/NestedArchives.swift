/// `--nested`: which files inside an extracted archive are extracted in their turn, and the limits that
/// stop an archive made to nest without end.
public enum NestedArchives {
    /// How deep archives inside archives are followed (the outer archive's contents are level 1).
    public static let maxDepth = 8
    /// Everything extracted, the outer archive's own contents included, may be at most this many times the
    /// outer archive's size.
    public static let ratioCap: Int64 = 100

    /// Documents, packages and apps that happen to be zips (or ar, cpio): they are files to keep, never
    /// archives to open.
    static let neverOpened: Set<String> = [
        "docx", "xlsx", "pptx", "docm", "xlsm", "odt", "ods", "odp", "odg", "epub", "jar", "war", "ear", "apk", "aab",
        "xpi", "whl", "ipa", "cbz", "cbr", "cb7", "cbt", "deb", "rpm", "iso", "a", "ar", "cpio", "warc", "shar", "snap", "appimage",
    ]

    /// Whether a file of this name, found in an extracted archive, is extracted in its place: its name is
    /// an archive type Extract claims (`x.zip`, `x.tar.gz`, `notes.txt.gz`) and not a document or package.
    /// A split set's parts (`x.7z.002`) are not: they are read as one from their first part only when
    /// a person asks.
    public static func opens(_ name: [UInt8]) -> Bool {
        guard let last = ArchiveNaming.lastSuffix(name)?.lowercased(), !neverOpened.contains(last) else { return false }
        return ArchiveNaming.hasArchiveExtension(name)
    }

    /// The most bytes everything extracted may add up to, for an outer archive of `archiveBytes`.
    public static func byteLimit(archiveBytes: Int64) -> Int64 {
        let (limit, overflow) = max(archiveBytes, 1).multipliedReportingOverflow(by: ratioCap)
        return overflow ? Int64.max : limit
    }
}
