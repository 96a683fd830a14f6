import ArchiverCore
internal import CGLib
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
}
