import ArchiverCore
internal import CGLib
import Glibc
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

    /// Puts back the newest item the home trash holds from `original` (the undo of `move`): the trash's
    /// `info/*.trashinfo` say where each item came from (freedesktop Trash spec).
    /// - Returns: false when no such item is in the home trash, or `original` is taken again.
    @discardableResult
    public static func restore(_ original: FilePath) -> Bool {
        let trash = FilePath(bytes: CString.bytes(g_get_user_data_dir())).appending("Trash")
        let info = trash.appending("info")
        guard let folder = info.withPlatformString({ g_dir_open($0, 0, nil) }) else { return false }
        defer { g_dir_close(folder) }
        let wanted = original.lexicallyNormalized()
        var newest: (name: String, date: String)?
        while let entry = g_dir_read_name(folder) {
            let name = String(cString: entry)
            guard name.hasSuffix(".trashinfo") else { continue }
            let keys = g_key_file_new()
            defer { g_key_file_free(keys) }
            guard info.appending(name).withPlatformString({ g_key_file_load_from_file(keys, $0, G_KEY_FILE_NONE, nil) }) != 0,
                let escaped = takeString(g_key_file_get_string(keys, "Trash Info", "Path", nil)),
                let path = takeString(g_uri_unescape_string(escaped, nil)), FilePath(path).lexicallyNormalized() == wanted
            else { continue }
            // ISO 8601 local times compare as text.
            let date = takeString(g_key_file_get_string(keys, "Trash Info", "DeletionDate", nil)) ?? ""
            if newest.map({ date >= $0.date }) ?? true { newest = (name, date) }
        }
        guard let newest, access(original.string, F_OK) != 0 else { return false }
        let item = trash.appending("files").appending(String(newest.name.dropLast(".trashinfo".count)))
        guard rename(item.string, original.string) == 0 else { return false }
        _ = unlink(info.appending(newest.name).string)
        return true
    }
}
