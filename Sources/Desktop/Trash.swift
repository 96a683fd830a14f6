import ArchiverCore
internal import CGLib
import Glibc
import Platform
import SystemPackage

/// The desktop trash (GIO's `g_file_trash`: `$XDG_DATA_HOME/Trash`, or the `.Trash-UID` of another disk),
/// where the file can be restored from; never a permanent delete.
public enum Trash {
    /// Moves `file` to the trash.
    /// - Throws: `ArchiverError` when the trash refuses it (no trash on that disk, permissions); the
    ///   file is then where it was.
    public static func move(_ file: FilePath) throws(ArchiverError) {
        let handle = file.withPlatformString { g_file_new_for_path($0) }
        defer { g_object_unref(UnsafeMutableRawPointer(handle)) }
        var error: UnsafeMutablePointer<GError>?
        guard g_file_trash(handle, nil, &error) == 0 else { return }
        // GLib's own message, already in the user's language.
        let reason = error.map { Text.verbatim(String(cString: $0.pointee.message)) } ?? tr("unknown error")
        g_clear_error(&error)
        throw ArchiverError(
            .destination, tr("Could not move “%1$@” to the trash: %2$@.", file.lastComponent?.string ?? file.string, reason),
            hint: tr("The files were extracted; delete the archive yourself if you no longer need it."), path: file.string)
    }

    /// Puts back the newest item the trash holds from `original` (the undo of `move`).
    /// - Returns: false when no such item is in the trash, or `original` is taken again.
    @discardableResult
    public static func restore(_ original: FilePath) -> Bool {
        guard let newest = items(from: original).max(by: { $0.date < $1.date }) else { return false }
        return putBack(newest.file, at: original)
    }

    /// The items of the trash that came from `original`: the home trash's, and those of the trash GIO uses
    /// on another disk (a USB stick), `.Trash/UID` or `.Trash-UID` at the top of that disk. Their
    /// `info/*.trashinfo` say where each item came from (on another disk, relative to its top) and when it
    /// was trashed (freedesktop Trash spec).
    public static func items(from original: FilePath) -> [(file: FilePath, date: String)] {
        let wanted = original.lexicallyNormalized()
        let home = FilePath(bytes: CString.bytes(g_get_user_data_dir())).appending("Trash")
        var found = items(in: home, top: nil, from: wanted)
        if let top = topOfDisk(holding: wanted), top != topOfDisk(holding: home) {
            let uid = String(getuid())
            for trash in [top.appending(".Trash").appending(uid), top.appending(".Trash-" + uid)] {
                found += items(in: trash, top: top, from: wanted)
            }
        }
        return found
    }

    private static func items(in trash: FilePath, top: FilePath?, from wanted: FilePath) -> [(file: FilePath, date: String)] {
        let info = trash.appending("info")
        guard let folder = info.withPlatformString({ g_dir_open($0, 0, nil) }) else { return [] }
        defer { g_dir_close(folder) }
        var found: [(file: FilePath, date: String)] = []
        while let entry = g_dir_read_name(folder) {
            let name = String(cString: entry)
            guard name.hasSuffix(".trashinfo") else { continue }
            let keys = g_key_file_new()
            defer { g_key_file_free(keys) }
            guard info.appending(name).withPlatformString({ g_key_file_load_from_file(keys, $0, G_KEY_FILE_NONE, nil) }) != 0,
                let escaped = takeString(g_key_file_get_string(keys, "Trash Info", "Path", nil)),
                let unescaped = takeString(g_uri_unescape_string(escaped, nil))
            else { continue }
            let path = FilePath(unescaped)
            guard (path.isAbsolute ? path : top.map { $0.pushing(path) } ?? path).lexicallyNormalized() == wanted else { continue }
            // ISO 8601 local times compare as text.
            let date = takeString(g_key_file_get_string(keys, "Trash Info", "DeletionDate", nil)) ?? ""
            found.append((trash.appending("files").appending(String(name.dropLast(".trashinfo".count))), date))
        }
        return found
    }

    /// The folder at the top of the disk that holds `path` (its mount point): the highest folder above it on
    /// the same device. Nil when the folder above `path` cannot be read.
    private static func topOfDisk(holding path: FilePath) -> FilePath? {
        var folder = path.removingLastComponent()
        var status = stat()
        guard stat(folder.string, &status) == 0 else { return nil }
        let device = status.st_dev
        while !folder.removingLastComponent().isEmpty, folder.removingLastComponent() != folder,
            stat(folder.removingLastComponent().string, &status) == 0, status.st_dev == device
        {
            folder.removeLastComponent()
        }
        return folder
    }

    /// Moves the trash's `item` (one of `items(from:)`) back to `original`, and forgets its info.
    /// - Returns: false when `original` is taken or the move fails.
    public static func putBack(_ item: FilePath, at original: FilePath) -> Bool {
        // Claimed as outputs are, never over a file another program made there meanwhile.
        guard (try? FileSystem.claim(item, at: original, isDirectory: false)) == true else { return false }
        let trash = item.removingLastComponent().removingLastComponent()
        _ = unlink(trash.appending("info").appending((item.lastComponent?.string ?? "") + ".trashinfo").string)
        return true
    }
}
