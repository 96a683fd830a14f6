internal import CGLib
import ArchiverCore
import SystemPackage

/// Takes ownership of a `g_malloc`ed C string.
func takeString(_ pointer: UnsafeMutablePointer<gchar>?) -> String? {
    guard let pointer else { return nil }
    defer { g_free(pointer) }
    return String(cString: pointer)
}

/// The session bus's address, or nil when there is none. GLib would otherwise fall back to
/// `dbus-launch --autolaunch`, which hangs or fails noisily on a machine without X.
func sessionBusAddress() -> String? {
    if let address = g_getenv("DBUS_SESSION_BUS_ADDRESS"), address.pointee != 0 { return String(cString: address) }
    guard let runtime = g_getenv("XDG_RUNTIME_DIR") else { return nil }
    let socket = FilePath(bytes: CString.bytes(runtime)).appending("bus")
    guard socket.withPlatformString({ g_file_test($0, G_FILE_TEST_EXISTS) }) != 0 else { return nil }
    return takeString(g_dbus_address_escape_value(socket.string)).map { "unix:path=" + $0 }
}
