internal import CArchive
import ArchiverCore
import Glibc
import Platform
import SystemPackage

/// A libarchive disk writer with every safety flag on, writing entries whose paths the caller has
/// already checked and rewritten under a staging folder.
struct DiskWriter: ~Copyable {
    private let handle: OpaquePointer
    /// The folder the process worked in before, while entries are written from inside `workingFolder`.
    private let previousFolder: Int32?
    /// The bytes `local(_:)` strips: the working folder and its slash.
    private let prefixLength: Int

    /// The outcome of one entry.
    enum Outcome {
        case written
        /// The entry failed alone (name too long, missing hard link target…); the rest goes on.
        case skipped(String)
    }

    /// With `workingFolder`, the calling thread works inside it until the writer is gone, and `local(_:)`
    /// gives libarchive paths relative to it. Its symlink check opens and stats every component of a path,
    /// so an absolute staging path costs each entry as many system calls again as the destination is deep
    /// (bsdtar works relative to `-C` for the same reason). The thread first takes a current folder of its
    /// own, so no other thread's relative path moves; where it can't, or has no way back, paths stay absolute.
    init(workingFolder: FilePath? = nil) throws(ArchiverError) {
        var previous: Int32?
        if let workingFolder, ProcessState.takeOwnWorkingFolder() {
            // O_PATH (not in Swift's Glibc): a way back even from a folder we may enter but not list.
            let here = open(".", 0o10000000 | O_DIRECTORY | O_CLOEXEC)
            if here >= 0, workingFolder.withPlatformString({ chdir($0) }) == 0 {
                previous = here
            } else if here >= 0 {
                Glibc.close(here)
            }
        }
        previousFolder = previous
        prefixLength = previous == nil ? 0 : (workingFolder?.bytes.count ?? 0) + 1
        guard let handle = archive_write_disk_new() else {
            Self.leave(previous)
            throw ArchiverError(.destination, tr("Out of memory while starting extraction."))
        }
        // PERM so that a folder's mode applies even when its entry comes after its files (libarchive's 7z
        // writer puts folders last); `EntryRewrite.limitPermissions` has already dropped the special bits
        // and applied the umask. No OWNER: files belong to the user extracting.
        let flags =
            ARCHIVE_EXTRACT_TIME | ARCHIVE_EXTRACT_PERM | ARCHIVE_EXTRACT_SECURE_SYMLINKS
            | ARCHIVE_EXTRACT_SECURE_NODOTDOT
        archive_write_disk_set_options(handle, flags)
        self.handle = handle
    }

    /// Whether the calling thread works inside the working folder with a current folder and umask of its own.
    var ownsWorkingFolder: Bool { previousFolder != nil }

    // Freeing closes the writer, which applies the deferred folder fixups by their relative paths: only
    // then may the process leave the working folder.
    deinit {
        archive_write_free(handle)
        Self.leave(previousFolder)
    }

    private static func leave(_ previous: Int32?) {
        guard let previous else { return }
        _ = fchdir(previous)
        Glibc.close(previous)
    }

    /// `path` (absolute, inside the working folder) as this writer wants it.
    func local(_ path: [UInt8]) -> [UInt8] {
        prefixLength == 0 ? path : Array(path.dropFirst(prefixLength))
    }

    /// Creates the entry on disk. The corresponding C function is `archive_write_header`.
    func writeHeader(_ entry: OpaquePointer, folder: String) throws(ArchiverError) -> Outcome {
        try outcome(archive_write_header(handle, entry), folder: folder)
    }

    /// Writes a block of the current entry at `offset` (sparse files leave holes).
    /// The corresponding C function is `archive_write_data_block`.
    func writeBlock(_ buffer: UnsafeRawBufferPointer, offset: Int64, folder: String) throws(ArchiverError) -> Outcome {
        let status = archive_write_data_block(handle, buffer.baseAddress, buffer.count, offset)
        // A failed write(2) comes back as ARCHIVE_WARN ("Write failed"), so a warning here is a failure.
        return try outcome(Int32(truncatingIfNeeded: status), folder: folder, warningFails: true)
    }

    /// Completes the current entry. The corresponding C function is `archive_write_finish_entry`.
    func finishEntry(folder: String) throws(ArchiverError) -> Outcome {
        try outcome(archive_write_finish_entry(handle), folder: folder)
    }

    /// Applies the deferred folder times and modes. The corresponding C function is `archive_write_close`.
    func close(folder: String) throws(ArchiverError) {
        if case .skipped(let message) = try outcome(archive_write_close(handle), folder: folder) {
            // TRANSLATORS: %@ is libarchive's own message (English).
            throw ArchiverError(.destination, tr("Finishing the extraction failed: %@.", message), path: folder)
        }
    }

    private func outcome(_ status: Int32, folder: String, warningFails: Bool = false) throws(ArchiverError) -> Outcome {
        let status = ArchiveStatus(rawValue: status)
        if status == .ok || (status == .warn && !warningFails) { return .written }
        let (message, code) = lastError(handle)
        if FileSystem.diskFailures.contains(code) {
            throw FileSystem.destinationError(code, .init(folder))
        }
        if status == .fatal {
            // TRANSLATORS: %@ is libarchive's own message (English).
            throw ArchiverError(.destination, tr("Extraction failed: %@.", message), path: folder)
        }
        return .skipped(message)
    }
}

/// Rewrites a borrowed entry before it goes to disk.
enum EntryRewrite {
    static func setPath(_ entry: OpaquePointer, _ path: [UInt8]) {
        withCString(path) { archive_entry_copy_pathname(entry, $0) }
    }

    static func setSymlink(_ entry: OpaquePointer, _ target: [UInt8]) {
        withCString(target) { archive_entry_copy_symlink(entry, $0) }
    }

    static func setHardlink(_ entry: OpaquePointer, _ path: [UInt8]) {
        withCString(path) { archive_entry_copy_hardlink(entry, $0) }
    }

    /// Lets the data decide the file's length: the disk writer would otherwise cut it at the recorded size.
    static func unsetSize(_ entry: OpaquePointer) {
        archive_entry_unset_size(entry)
    }

    /// Drops setuid, setgid and sticky bits and applies the umask, as any program creating files does.
    static func limitPermissions(_ entry: OpaquePointer, umask mask: mode_t) {
        archive_entry_set_perm(entry, archive_entry_perm(entry) & 0o777 & ~mask)
    }
}
