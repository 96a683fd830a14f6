import CGtk
import SystemPackage

/// Share… → Copy: the file on the clipboard, so that it pastes into a file manager (as a copy of the file),
/// a chat or a mail composer (as an attachment).
@MainActor
enum Clipboard {
    /// How long the process keeps serving the clipboard after its window closed.
    static let keepSeconds: UInt32 = 600
    private static var holding = false

    /// Offers `file` as `text/uri-list` and `x-special/gnome-copied-files` (what Nautilus and Nemo paste).
    /// The application stays alive until another program takes the clipboard or `keepSeconds` pass.
    static func copy(_ file: FilePath, from widget: UnsafeMutablePointer<GtkWidget>) {
        let gfile = file.string.withCString { g_file_new_for_path($0) }
        defer { g_object_unref(gfile.map { UnsafeMutableRawPointer($0) }) }
        guard let uri = takeString(g_file_get_uri(gfile)) else { return }
        let offers = [("text/uri-list", uri + "\r\n"), ("x-special/gnome-copied-files", "copy\n" + uri)]
        var providers: [UnsafeMutablePointer<GdkContentProvider>?] = offers.map { mime, text in
            let bytes = Array(text.utf8).withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
            defer { g_bytes_unref(bytes) }
            return gdk_content_provider_new_for_bytes(mime, bytes)
        }
        // new_union takes the providers (transfer full).
        let union = providers.withUnsafeMutableBufferPointer { gdk_content_provider_new_union($0.baseAddress, gsize($0.count)) }
        let clipboard = gtk_widget_get_clipboard(widget)
        gdk_clipboard_set_content(clipboard, union)
        g_object_unref(union.map { UnsafeMutableRawPointer($0) })
        hold(clipboard)
    }

    /// Puts `text` on the clipboard (a checksum, to paste anywhere).
    static func copy(text: String, from widget: UnsafeMutablePointer<GtkWidget>) {
        let clipboard = gtk_widget_get_clipboard(widget)
        gdk_clipboard_set_text(clipboard, text)
        hold(clipboard)
    }

    /// Keeps the process (and so the clipboard's content) alive after the last window closes.
    private static func hold(_ clipboard: OpaquePointer?) {
        guard !holding, let clipboard, let app = g_application_get_default() else { return }
        holding = true
        g_application_hold(app)
        let appObj = Obj(UnsafeMutableRawPointer(app))
        let release: @MainActor () -> Void = {
            guard holding else { return }
            holding = false
            g_application_release(cast(appObj.p))
        }
        let clip = Obj(clipboard)
        on(clipboard, "changed") {
            if gdk_clipboard_is_local(clip.p) == 0 { release() }
        }
        Timeout.after(seconds: keepSeconds, release)
    }
}

/// A one-shot GLib timeout running a main-actor closure.
@MainActor
enum Timeout {
    private final class Box { let body: @MainActor () -> Void; init(_ b: @escaping @MainActor () -> Void) { body = b } }

    static func after(seconds: UInt32, _ body: @escaping @MainActor () -> Void) {
        after(milliseconds: seconds * 1000, body)
    }

    static func after(milliseconds: UInt32, _ body: @escaping @MainActor () -> Void) {
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        g_timeout_add(milliseconds, { data in
            let box = Unmanaged<Box>.fromOpaque(data!).takeRetainedValue()
            MainActor.assumeIsolated { box.body() }
            return 0
        }, box)
    }
}

/// A main-actor closure run once the main loop is idle: after the widget tree settled (a dialog finished
/// closing), which GTK 4.8's AT-SPI needs before rows are torn down (it crashed on a NULL object path when
/// the Recent list was emptied inside the dialog's `response`).
@MainActor
enum Idle {
    private final class Box { let body: @MainActor () -> Void; init(_ b: @escaping @MainActor () -> Void) { body = b } }

    static func run(_ body: @escaping @MainActor () -> Void) {
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        g_idle_add({ data in
            let box = Unmanaged<Box>.fromOpaque(data!).takeRetainedValue()
            MainActor.assumeIsolated { box.body() }
            return 0
        }, box)
    }
}
