/// Sorts a libarchive failure into one of the exit codes, from its message and errno, and words it for a
/// person. Pure text decisions, so they are tested without archives.
public enum FailureClassifier {
    /// The code for a failure while reading an archive.
    public static func readFailure(message: String) -> ArchiverError.Code {
        let text = message.lowercased()
        // libarchive 3.6 does not flag rar5 encryption; reading an encrypted entry fails with this instead.
        if text.contains("passphrase") || text.contains("encrypted") || text.contains("encryption")
            || text.contains("unsupported block header size")
        {
            return .password
        }
        if text.contains("unrecognized archive format") || text.contains("unsupported")
            || text.contains("not supported") || text.contains("unknown compression")
            || text.contains("unexpected codec")
        {
            return .notAnArchive
        }
        return .corrupt
    }

    /// A sentence and hint for a failure reading `archive` (a display name), optionally at `entry`.
    public static func describeReadFailure(message: String, archive: String, entry: String?) -> ArchiverError {
        let code = readFailure(message: message)
        let at = entry.map { " at “\($0)”" } ?? ""
        let text = message.lowercased()
        switch code {
        case .password where text.contains("unsupported block header size"):
            return ArchiverError(
                code, "“\(archive)” is probably password-protected\(at): libarchive cannot read that entry.",
                hint: "Encrypted rar archives can only be opened by unrar: install Debian's non-free “unrar” package.", path: archive)
        case .password:
            return ArchiverError(
                code, "“\(archive)” is password-protected\(at) (\(message)).",
                hint: "Encrypted 7z and rar archives need 7-Zip (the 7zip package) or unrar.", path: archive)
        case .notAnArchive where text.contains("unrecognized archive format"):
            return ArchiverError(
                code, "“\(archive)” is not an archive Archiver can read.",
                hint: "Check that the file is complete and really an archive.", path: archive)
        case .notAnArchive where text.contains("deflation-64") || text.contains("deflate64"):
            return ArchiverError(
                code, "“\(archive)” uses Deflate64 compression\(at), which libarchive cannot read.",
                hint: "7-Zip can extract it: 7zz x “\(archive)”.", path: archive)
        case .notAnArchive:
            return ArchiverError(
                code, "“\(archive)” uses a feature Archiver cannot read\(at): \(message).",
                hint: "7-Zip (7zz x) may be able to extract it.", path: archive)
        default:
            return ArchiverError(
                .corrupt, "“\(archive)” is damaged or incomplete\(at): \(message).",
                hint: "Download or copy it again; nothing was extracted.", path: archive)
        }
    }
}
