import ArchiverCore
internal import CGLib
import Platform
import SystemPackage

/// The result notification's "Open folder" and "Email…" buttons.
public enum Reveal {
    /// Shows `item` selected in the file manager (`org.freedesktop.FileManager1.ShowItems` on the session
    /// bus), or, when no file manager answers, opens its folder (the folder itself for a folder) with
    /// `xdg-open`.
    /// - Returns: whether a file manager was asked or a program started.
    @discardableResult
    public static func show(_ item: FilePath) -> Bool {
        show(item, sessionBus: sessionBusAddress(), opener: "xdg-open")
    }

    /// Opens `folder` in the file manager (`org.freedesktop.FileManager1.ShowFolders`), else with `xdg-open`.
    @discardableResult
    public static func open(_ folder: FilePath) -> Bool {
        let folder = folder.absolute
        if let sessionBus = sessionBusAddress(), let uri = fileURI(folder), call("ShowFolders", uri, address: sessionBus, timeout: 5) {
            return true
        }
        return Spawn.detached([Array("xdg-open".utf8), folder.bytes])
    }

    /// Starts the mail program with `file` attached (`xdg-email --attach`), without waiting for it.
    /// - Returns: whether the program started.
    @discardableResult
    public static func email(_ file: FilePath) -> Bool {
        email(file, mailer: "xdg-email")
    }

    static func show(_ item: FilePath, sessionBus: String?, opener: String, timeout: Double = 5) -> Bool {
        let item = item.absolute
        if let sessionBus, let uri = fileURI(item), call("ShowItems", uri, address: sessionBus, timeout: timeout) {
            return true
        }
        let isFolder = item.withPlatformString { g_file_test($0, G_FILE_TEST_IS_DIR) } != 0
        let folder = isFolder ? item : item.removingLastComponent()
        return Spawn.detached([Array(opener.utf8), folder.bytes])
    }

    static func email(_ file: FilePath, mailer: String) -> Bool {
        Spawn.detached([Array(mailer.utf8), Array("--attach".utf8), file.absolute.bytes])
    }

    /// Asks the file manager to show `uri` (`ShowItems`: selected in its folder; `ShowFolders`: opened). A file manager that is installed but not running is started by
    /// the bus; `timeout` bounds that, and a name nobody provides fails at once.
    private static func call(_ method: String, _ uri: String, address: String, timeout: Double) -> Bool {
        let uris = uri.withCString { text in
            var one: [UnsafePointer<gchar>?] = [text]
            return g_variant_new_strv(&one, 1)
        }
        let found: Bool? = BusCall.call(
            address: address, destination: "org.freedesktop.FileManager1", path: "/org/freedesktop/FileManager1",
            interface: "org.freedesktop.FileManager1", method: method,
            arguments: [uris, g_variant_new_string("")],
            replyType: nil, timeout: timeout
        ) { _, _ in true }
        return found ?? false
    }
}
