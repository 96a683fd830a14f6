import ArchiverCore
import JobProtocol
public import CGtk
import Desktop
import Dispatch
import Glibc
import SystemPackage

/// The start of every window executable: the catalog and locale formats, the main-queue bridge, and one
/// `AdwApplication` (non-unique: each menu click is its own process) whose `activate` builds the window.
public enum WindowApp {
    /// Runs the application until its last window closes; returns the process's exit status.
    /// - Parameters:
    ///   - id: the application id (also the Wayland app id).
    ///   - activate: builds and presents the window; runs on the main thread with GTK initialised.
    @MainActor
    public static func run(id: String, activate: @escaping @MainActor (UnsafeMutablePointer<GtkApplication>) -> Void) -> Int32 {
        // Our own arguments are files; GApplication must not parse them (or try to open them).
        run(id: id, flags: G_APPLICATION_NON_UNIQUE, arguments: [], activate: activate)
    }

    /// Runs an application with `flags` (the Archiver app: unique, opening files); `arguments` go to
    /// `g_application_run` (the program name first), `configure` may connect more signals (`open`) first.
    @MainActor
    public static func run(
        id: String, flags: GApplicationFlags, arguments: [[UInt8]],
        configure: (UnsafeMutablePointer<GtkApplication>) -> Void = { _ in },
        activate: @escaping @MainActor (UnsafeMutablePointer<GtkApplication>) -> Void
    ) -> Int32 {
        Catalog.bootstrap()
        LocaleFormats.install()
        MainLoop.useCallersLoop()
        let app = adw_application_new(id, flags)!
        let gtkApp: UnsafeMutablePointer<GtkApplication> = cast(app)
        let appObj = Obj(gtkApp)
        // Every window, in this process only (a second start of a unique app just forwards its files).
        on(app, "startup") { Appearance.follow() }
        on(app, "activate") { activate(appObj.p) }
        configure(gtkApp)
        MainQueueBridge.install()
        LayoutCheck.startIfAsked()
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map(CString.duplicate) + [nil]
        defer { for p in argv { free(p) } }
        let status = argv.withUnsafeMutableBufferPointer {
            g_application_run(cast(app), Int32(arguments.count), arguments.isEmpty ? nil : $0.baseAddress)
        }
        g_object_unref(app)
        return status
    }

    /// Runs an application with one window for each file named on the command line (Extract…, Compress
    /// PDF…); with none, prints `usage` and returns 2.
    /// - Parameter window: builds one file's window and presents it; the result lives as long as the process
    ///   (GTK holds only C pointers to its closures' boxes).
    @MainActor
    public static func runOnePerFile(
        id: String, usage: String, window: @escaping @MainActor (UnsafeMutablePointer<GtkApplication>, FilePath) -> AnyObject
    ) -> Int32 {
        let paths = arguments
        guard !paths.isEmpty else {
            let line = "usage: \(usage)\n"
            _ = line.withCString { write(2, $0, strlen($0)) }
            return 2
        }
        return run(id: id) { app in
            for path in paths { windows.append(window(app, path)) }
        }
    }

    @MainActor private static var windows: [AnyObject] = []

    /// A window executable's whole `main`: its window built from the command line's files, kept for the
    /// process's life (GTK holds only C pointers to the window's closures' boxes), then shown.
    @MainActor
    public static func main(id: String, window: @escaping @MainActor (UnsafeMutablePointer<GtkApplication>, [FilePath]) -> any AppWindow) -> Int32 {
        let paths = arguments
        return run(id: id) { app in
            let made = window(app, paths)
            retained.append(made)
            made.present()
        }
    }

    @MainActor private static var retained: [any AppWindow] = []

    /// `paths` as given on the command line (absolute or relative to the current folder), absolute and
    /// normalized, each with whether it is a folder.
    public static func inputs(_ paths: [FilePath]) -> [(path: FilePath, isDirectory: Bool)] {
        paths.map { given in
            let path = absolute(given)
            var info = stat()
            return (path, path.withPlatformString { stat($0, &info) } == 0 && (info.st_mode & S_IFMT) == S_IFDIR)
        }
    }

    /// `path` made absolute against the current folder and normalized, its bytes kept.
    public static func absolute(_ path: FilePath) -> FilePath {
        guard !path.isAbsolute else { return path.lexicallyNormalized() }
        var cwd = [CChar](repeating: 0, count: 4096)
        let here = getcwd(&cwd, cwd.count).map { FilePath(bytes: CString.bytes($0)) } ?? FilePath("/")
        return here.pushing(path).lexicallyNormalized()
    }

    /// The files named on the command line as the file manager passed them, byte for byte (a name in
    /// Latin-1 stays one). The menus end options with "--" (a name may start with "-"), which is not a file.
    public static var arguments: [FilePath] {
        let arguments = rawArguments.dropFirst()
        return (arguments.first == Array("--".utf8) ? arguments.dropFirst() : arguments).map(FilePath.init(bytes:))
    }

    /// argv as bytes, the program name first.
    static var rawArguments: [[UInt8]] {
        (0..<Int(CommandLine.argc)).compactMap { CommandLine.unsafeArgv[$0].map { CString.bytes(UnsafePointer($0)) } }
    }
}

/// A window that `WindowApp.main` builds and shows.
@MainActor
public protocol AppWindow: AnyObject {
    func present()
}

/// Lets GLib's main loop run libdispatch's main queue, so that `Task { @MainActor … }` and
/// `DispatchQueue.main.async` work while `g_application_run` owns the main thread (../shared/notes/gtk-from-swift.md §4: without it
/// they never run).
enum MainQueueBridge {
    @MainActor static func install() {
        let fd = _dispatch_get_main_queue_handle_4CF()
        g_unix_fd_add(fd, G_IO_IN, { fd, _, _ in
            var value: eventfd_t = 0
            _ = eventfd_read(fd, &value)  // clear the eventfd first, or GLib polls it forever
            _dispatch_main_queue_callback_4CF(nil)
            return 1  // G_SOURCE_CONTINUE
        }, nil)
    }
}
