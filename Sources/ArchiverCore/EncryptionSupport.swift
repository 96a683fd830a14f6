/// Which formats can carry a password, and how to say so when one cannot.
public enum EncryptionSupport {
    /// - Parameter sevenZipInstalled: 7z is encrypted by 7-Zip (`7zz`), which libarchive cannot replace.
    public static func checkCanEncrypt(_ format: ArchiveFormat, sevenZipInstalled: Bool) throws(ArchiverError) {
        switch format.container {
        case .zip:
            return
        case .sevenZip:
            guard sevenZipInstalled else {
                throw ArchiverError(
                    .usage, "Encrypting 7z needs 7-Zip, which is not installed; no archive was made.",
                    hint: "Install the 7zip package, or use --format zip (AES-256).")
            }
        case .tar, .raw:
            throw ArchiverError(
                .usage, "\(format.rawValue) has no standard encryption; no archive was made.",
                hint: "Use --format zip (AES-256, opens almost everywhere) or --format 7z (also hides the file names).")
        }
    }
}
