import ArchiverCore
import JobProtocol
public import CGtk
import Glibc

/// The Archiver app: one instance on the session bus (`io.github.archiver`); a second start hands its files
/// to the first through GApplication's `open` and ends. Home, Recent and Settings are pages of one window.
@MainActor
public enum ArchiverApp {
    public static let id = "io.github.archiver"
    private static var window: MainWindow?

    /// Runs the app; returns the exit status.
    public static func main() -> Int32 {
        WindowApp.run(
            id: id, flags: G_APPLICATION_HANDLES_OPEN, arguments: Array(WindowApp.rawArguments.prefix(1)) + WindowApp.arguments.map(\.bytes),
            configure: { app in
                let appObj = Obj(app)
                onOpen(app) { paths in
                    let window = present(appObj.p)
                    window.open(paths)
                }
                installActions(app)
            },
            activate: { app in _ = present(app) })
    }

    /// The window, made on first use.
    private static func present(_ app: UnsafeMutablePointer<GtkApplication>) -> MainWindow {
        let main = window ?? MainWindow(app: app)
        window = main
        gtk_window_present(main.window)
        return main
    }

    /// The application's actions and their shortcuts (the shortcuts window lists the same).
    private static func installActions(_ app: UnsafeMutablePointer<GtkApplication>) {
        let appObj = Obj(app)
        action(app, "quit", accels: ["<Primary>q"]) { g_application_quit(cast(appObj.p)) }
        action(app, "compress", accels: ["<Primary>o"]) { present(appObj.p).chooseFilesToCompress() }
        action(app, "extract", accels: ["<Primary><Shift>o"]) { present(appObj.p).chooseArchives() }
        action(app, "compress-pdf", accels: []) { present(appObj.p).choosePDFs() }
        // No files: the Compress Photos… window starts on its suggestions (the Pictures folder's large photos).
        action(app, "compress-photos", accels: []) { Launch.sibling("archiver-compress-photos", []) }
        action(app, "settings", accels: ["<Primary>comma"]) { present(appObj.p).show(page: .settings) }
        action(app, "recent", accels: ["<Primary>r"]) { present(appObj.p).show(page: .recent) }
        action(app, "home", accels: ["<Primary>h"]) { present(appObj.p).show(page: .home) }
        action(app, "about", accels: []) { AboutWindow.present(over: present(appObj.p).window) }
        accels(app, "win.show-help-overlay", ["<Primary>question"])
    }

    /// Adds `app.NAME` running `body`, with its keyboard shortcuts.
    static func action(_ app: UnsafeMutablePointer<GtkApplication>, _ name: String, accels list: [String],
                       _ body: @escaping @MainActor () -> Void)
    {
        let action = g_simple_action_new(name, nil)!
        onActivate(action, body)
        g_action_map_add_action(cast(app), cast(action))
        g_object_unref(action.raw)
        accels(app, "app." + name, list)
    }

    static func accels(_ app: UnsafeMutablePointer<GtkApplication>, _ action: String, _ list: [String]) {
        var pointers: [UnsafePointer<CChar>?] = list.map { UnsafePointer(strdup($0)) } + [nil]
        defer { for p in pointers { free(UnsafeMutableRawPointer(mutating: p)) } }
        pointers.withUnsafeMutableBufferPointer { gtk_application_set_accels_for_action(app, action, $0.baseAddress) }
    }
}
