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
                    .usage, tr("Encrypting 7z needs 7-Zip, which is not installed; no archive was made."),
                    hint: tr("Install the 7zip package, or use --format zip (AES-256)."))
            }
        case .tar, .raw:
            throw ArchiverError(
                .usage, tr("%@ has no standard encryption; no archive was made.", format.rawValue),
                hint: tr("Use --format zip (AES-256, opens almost everywhere) or --format 7z (also hides the file names)."))
        }
    }

    /// Which program can decrypt an archive of this kind.
    public enum Family: Sendable {
        case zip, sevenZip, rar, other
    }

    /// The refusal for an encrypted archive that cannot be opened here, saying what would open it.
    public static func cannotDecrypt(_ archive: String, family: Family) -> ArchiverError {
        switch family {
        case .rar:
            ArchiverError(
                .password, tr("“%@” is password-protected, and encrypted rar archives can only be opened by unrar; nothing was extracted.", archive),
                hint: tr("Install unrar (Debian's non-free “unrar” package), then try again."), path: archive)
        case .sevenZip:
            ArchiverError(
                .password, tr("“%@” is password-protected, and encrypted 7z archives are opened by 7-Zip, which is not installed; nothing was extracted.", archive),
                hint: tr("Install the 7zip package, then try again."), path: archive)
        case .zip, .other:
            ArchiverError(
                .password, tr("“%@” is password-protected; nothing was extracted.", archive),
                hint: tr("Run it from a terminal, install zenity for a password dialog, or give the password with --password-stdin."),
                path: archive)
        }
    }
}

extension ArchiveFormat {
    /// Whether the format has a standard encryption (zip and 7z; tar and single streams have none).
    public var canEncrypt: Bool { container == .zip || container == .sevenZip }
}
