import Foundation

/// recently-used.xbel as other programs see it, for tests of what we add to it and remove from it.
public enum RecentList {
    /// One bookmark as another process's GLib reads it back.
    public struct Entry: Decodable, Equatable, Sendable {
        public var mime: String?
        public var apps: [String: String]
        public init(mime: String?, apps: [String: String]) {
            self.mime = mime
            self.apps = apps
        }
    }

    /// Reads `file` with libglib in a separate Python process (PyGObject cannot construct a
    /// GBookmarkFile on GLib 2.74, so through ctypes), keyed by URI.
    public static func read(_ file: String) throws -> [String: Entry] {
        let script = #"""
            import ctypes, json, sys
            g = ctypes.CDLL("libglib-2.0.so.0")
            g.g_bookmark_file_new.restype = ctypes.c_void_p
            g.g_bookmark_file_load_from_file.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
            g.g_bookmark_file_get_uris.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)]
            g.g_bookmark_file_get_uris.restype = ctypes.POINTER(ctypes.c_char_p)
            g.g_bookmark_file_get_mime_type.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
            g.g_bookmark_file_get_mime_type.restype = ctypes.c_char_p
            g.g_bookmark_file_get_applications.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_size_t), ctypes.c_void_p]
            g.g_bookmark_file_get_applications.restype = ctypes.POINTER(ctypes.c_char_p)
            g.g_bookmark_file_get_application_info.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p,
                ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_uint), ctypes.c_void_p, ctypes.c_void_p]
            b = g.g_bookmark_file_new()
            if not g.g_bookmark_file_load_from_file(b, sys.argv[1].encode(), None):
                sys.exit("GLib could not load the file")
            n = ctypes.c_size_t()
            uris = g.g_bookmark_file_get_uris(b, ctypes.byref(n))
            out = {}
            for i in range(n.value):
                uri = uris[i]
                mime = g.g_bookmark_file_get_mime_type(b, uri, None)
                m = ctypes.c_size_t()
                names = g.g_bookmark_file_get_applications(b, uri, ctypes.byref(m), None)
                apps = {}
                for j in range(m.value):
                    exec_ = ctypes.c_char_p()
                    g.g_bookmark_file_get_application_info(b, uri, names[j], ctypes.byref(exec_), None, None, None)
                    apps[names[j].decode()] = exec_.value.decode()
                out[uri.decode()] = {"mime": mime and mime.decode(), "apps": apps}
            print(json.dumps(out))
            """#
        let read = try Tool.start(["/usr/bin/python3", "-c", script, file]).wait()
        guard read.status == 0 else { throw BusFailure("GLib could not read \(file)") }
        return try JSONDecoder().decode([String: Entry].self, from: Data(read.stdout.utf8))
    }

    /// Writes a list as GTK does, with one text file (`uri`) that gedit used.
    public static func writeOthers(at file: String, uri: String) throws {
        try """
        <?xml version="1.0" encoding="UTF-8"?>
        <xbel version="1.0" xmlns:bookmark="http://www.freedesktop.org/standards/desktop-bookmarks"
              xmlns:mime="http://www.freedesktop.org/standards/shared-mime-info">
          <bookmark href="\(uri)" added="2024-05-01T10:00:00.000000Z" modified="2024-05-01T10:00:00.000000Z"
                    visited="2024-05-01T10:00:00.000000Z">
            <info><metadata owner="http://freedesktop.org">
              <mime:mime-type type="text/plain"/>
              <bookmark:applications>
                <bookmark:application name="gedit" exec="&apos;gedit %u&apos;" modified="2024-05-01T10:00:00.000000Z" count="3"/>
              </bookmark:applications>
            </metadata></info>
          </bookmark>
        </xbel>
        """.write(toFile: file, atomically: true, encoding: .utf8)
    }
}
