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
        if text.contains("unrecognized archive format") || text.contains("unsupported") || missingProgram(message) != nil
            || text.contains("too many filters")
            || text.contains("not supported") || text.contains("unknown compression")
            || text.contains("unexpected codec")
        {
            return .notAnArchive
        }
        return .corrupt
    }

    /// The program libarchive runs for a compression it has no library for (lrzip, lzop, grzip) when it
    /// is not installed: its message is `Can't initialize filter; unable to run program "lrzip -d -q"`.
    /// Debian's package has the program's name.
    public static func missingProgram(_ message: String) -> String? {
        let parts = message.split(separator: "unable to run program \"", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let command = parts[1].prefix { $0 != "\"" && $0 != " " }
        return command.isEmpty ? nil : String(command)
    }

    /// The hint for a damaged archive.
    static var downloadAgain: Text { tr("Download or copy it again; nothing was extracted.") }

    /// Where in the archive reading failed: at an entry, or after one (the next header was unreadable).
    public enum Place: Sendable {
        case at(String)
        case after(String)

        var text: Text {
            switch self {
            // TRANSLATORS: where a damaged archive failed, inserted in a sentence: "“x.zip” is damaged at “a.txt”".
            case .at(let entry): tr("at “%@”", entry)
            // TRANSLATORS: where a damaged archive failed: the entry before the unreadable one.
            case .after(let entry): tr("after “%@”", entry)
            }
        }
    }

    /// A sentence and hint for a failure reading `archive` (a display name), optionally at a `place`.
    /// `message` is libarchive's own English text: it decides the words, and is kept as the error's `detail`,
    /// never put in the sentence (which would then be half English in every other language).
    public static func describeReadFailure(message: String, archive: String, place: Place?) -> ArchiverError {
        let code = readFailure(message: message)
        let text = message.lowercased()
        let at = place?.text
        switch code {
        case .password where text.contains("unsupported block header size"):
            return ArchiverError(
                code,
                // TRANSLATORS: %2$@ is where: "at “a.txt”" or "after “a.txt”".
                at.map { tr("“%1$@” is probably password-protected %2$@: libarchive cannot read that entry.", archive, $0) }
                    ?? tr("“%@” is probably password-protected: libarchive cannot read that entry.", archive),
                hint: tr("Encrypted rar archives can only be opened by unrar: install Debian's non-free “unrar” package."), path: archive,
                detail: message)
        case .password:
            return ArchiverError(
                code,
                at.map { tr("“%1$@” is password-protected %2$@.", archive, $0) } ?? tr("“%@” is password-protected.", archive),
                hint: tr("Encrypted 7z and rar archives need 7-Zip (the 7zip package) or unrar."), path: archive, detail: message)
        case .notAnArchive where missingProgram(message) != nil:
            let program = missingProgram(message) ?? ""
            return ArchiverError(
                // TRANSLATORS: %2$@ is a program such as lrzip or lzop.
                code, tr("“%1$@” needs the program “%2$@” to be decompressed, and it is not installed.", archive, program),
                // TRANSLATORS: %@ is a Debian package such as lrzip or lzop.
                hint: tr("Install the “%@” package and try again.", program), path: archive)
        case .notAnArchive where text.contains("too many filters"):
            // libarchive undoes at most 25 layers of compression; gzip layers beyond are undone before it,
            // up to a bound.
            return ArchiverError(
                code, tr("“%1$@” is compressed more times over than Archiver can undo (%2$ld times).", archive, StreamContent.maximumGzipLayers),
                hint: tr("Decompress it a few times with its own program first (such as gzip -d), then try again."), path: archive)
        case .notAnArchive where text.contains("decompression bomb"):
            return ArchiverError(
                code, tr("“%@” expands more than compressed data can, as a decompression bomb does, so Archiver stops reading it.", archive),
                hint: tr("If you trust the file, decompress it with its own program (such as gzip -d) and look at what comes out."),
                path: archive, detail: message)
        case .notAnArchive where text.contains("unrecognized archive format"):
            return ArchiverError(
                code, tr("“%@” is not an archive Archiver can read.", archive),
                hint: tr("Check that the file is complete and really an archive."), path: archive)
        case .notAnArchive where text.contains("deflation-64") || text.contains("deflate64"):
            return ArchiverError(
                code,
                at.map { tr("“%1$@” uses Deflate64 compression %2$@, which libarchive cannot read.", archive, $0) }
                    ?? tr("“%@” uses Deflate64 compression, which libarchive cannot read.", archive),
                hint: tr("7-Zip can extract it: 7zz x “%@”.", archive), path: archive)
        case .notAnArchive:
            return ArchiverError(
                code,
                at.map { tr("“%1$@” uses a feature Archiver cannot read %2$@.", archive, $0) }
                    ?? tr("“%@” uses a feature Archiver cannot read.", archive),
                hint: tr("7-Zip (7zz x) may be able to extract it."), path: archive, detail: message)
        default:
            return ArchiverError(
                .corrupt,
                at.map { tr("“%1$@” is damaged or incomplete %2$@.", archive, $0) } ?? tr("“%@” is damaged or incomplete.", archive),
                hint: downloadAgain, path: archive, detail: message)
        }
    }
}
