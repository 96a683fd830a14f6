internal import CGLib
import SystemPackage

/// Content types from GIO and the shared-mime-info database, the way the file managers read them.
public enum ContentType {
    /// The content type GIO gives the file (from its name and first bytes; `inode/directory` for a folder),
    /// which Nemo and Caja match their menu entries against; nil when the file cannot be read.
    /// The corresponding C function is `g_file_query_info`.
    public static func of(_ path: FilePath) -> String? {
        guard let file = path.withPlatformString({ g_file_new_for_path($0) }) else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(file)) }
        guard let info = g_file_query_info(file, G_FILE_ATTRIBUTE_STANDARD_CONTENT_TYPE, G_FILE_QUERY_INFO_NONE, nil, nil)
        else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(info)) }
        return g_file_info_get_content_type(info).map { String(cString: $0) }
    }

    /// Whether `type` is `supertype` or a subclass of it (an `.odt` is a zip).
    /// The corresponding C function is `g_content_type_is_a`.
    public static func isA(_ type: String, _ supertype: String) -> Bool { g_content_type_is_a(type, supertype) != 0 }
}
