internal import CArchive
import ArchiverCore
import Glibc
import SystemPackage

/// A libarchive return code. The C names are `ARCHIVE_OK`, `ARCHIVE_EOF`, `ARCHIVE_RETRY`, `ARCHIVE_WARN`,
/// `ARCHIVE_FAILED` and `ARCHIVE_FATAL`.
struct ArchiveStatus: RawRepresentable, Hashable {
    var rawValue: Int32
    static let ok = ArchiveStatus(rawValue: ARCHIVE_OK)
    static let eof = ArchiveStatus(rawValue: ARCHIVE_EOF)
    static let retry = ArchiveStatus(rawValue: ARCHIVE_RETRY)
    static let warn = ArchiveStatus(rawValue: ARCHIVE_WARN)
    static let failed = ArchiveStatus(rawValue: ARCHIVE_FAILED)
    static let fatal = ArchiveStatus(rawValue: ARCHIVE_FATAL)

    /// OK or WARN: the call did its work. RETRY is not: tar returns it for a damaged header.
    var succeeded: Bool { self == .ok || self == .warn }
}

/// The last error of a handle, copied, because the string belongs to the handle.
/// The corresponding C functions are `archive_error_string` and `archive_errno`.
func lastError(_ handle: OpaquePointer) -> (message: String, errno: Int32) {
    let message = archive_error_string(handle).map { String(cString: $0) } ?? "unknown error"
    return (message, archive_errno(handle))
}

/// Process-wide set-up that every executable does first.
public enum ArchiveEngineSetup {
    /// Prepares the locale once (`Catalog.bootstrap`), for callers that did not: tests, other front ends.
    static func ensureLocale() { _ = localePrepared }

    private static let localePrepared: Bool = {
        Catalog.bootstrap()
        return true
    }()

    /// libarchive's version line, for `--version` and bug reports.
    public static var libarchiveVersion: String { String(cString: archive_version_details()) }
}

/// The bytes of a C string, or nil for NULL.
func bytes(_ pointer: UnsafePointer<CChar>?) -> [UInt8]? {
    pointer.map(CString.bytes)
}
