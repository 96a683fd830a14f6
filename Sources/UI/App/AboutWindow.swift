import ArchiverCore
import CGtk
import Glibc

/// The main menu's About Archiver: libadwaita's About window with the release, who made it, the licence,
/// the libraries it stands on and the translators of the language shown.
@MainActor
enum AboutWindow {
    static func present(over parent: UnsafeMutablePointer<GtkWindow>) {
        let about = adw_about_window_new()!
        let window: OpaquePointer = cast(about)
        gtk_window_set_transient_for(cast(about), parent)
        gtk_window_set_modal(cast(about), 1)
        adw_about_window_set_application_name(window, tr("Archiver").localized)
        adw_about_window_set_application_icon(window, ArchiverApp.id)
        adw_about_window_set_version(window, Release.version)
        adw_about_window_set_developer_name(window, tr("The Archiver developers").localized)
        adw_about_window_set_comments(window, tr("Right-click compression for the Linux desktop.").localized)
        adw_about_window_set_copyright(window, "© 2026 " + tr("The Archiver developers").localized)
        adw_about_window_set_license_type(window, GTK_LICENSE_MIT_X11)
        // TRANSLATORS: your names, one per line, as the About window's Translated by shows them.
        let translators = tr("translator-credits").localized
        if translators != "translator-credits" { adw_about_window_set_translator_credits(window, translators) }
        withStrings(["The Archiver developers"]) { adw_about_window_set_developers(window, $0) }
        withStrings(["libarchive", "7-Zip", "GTK", "libadwaita", "GLib", "qpdf", "libvips", "libfuse"]) {
            adw_about_window_add_credit_section(window, tr("Built on").localized, $0)
        }
        gtk_window_present(cast(about))
    }

    /// A NULL-terminated C array of `strings` for the duration of `body`.
    private static func withStrings(_ strings: [String], _ body: (UnsafeMutablePointer<UnsafePointer<CChar>?>) -> Void) {
        var pointers: [UnsafePointer<CChar>?] = strings.map { UnsafePointer(strdup($0)) } + [nil]
        defer { for pointer in pointers { free(UnsafeMutableRawPointer(mutating: pointer)) } }
        pointers.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
    }
}
