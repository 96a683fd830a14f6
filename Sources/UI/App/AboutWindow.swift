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
        // Our icon when it is installed, else the desktop's archive icon (not a broken image).
        let theme = gtk_icon_theme_get_for_display(gdk_display_get_default())
        let installed = theme.map { gtk_icon_theme_has_icon($0, ArchiverApp.id) != 0 } ?? false
        adw_about_window_set_application_icon(window, installed ? ArchiverApp.id : "package-x-generic")
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
        nameIconButtons(cast(about))
        gtk_window_present(cast(about))
    }

    /// libadwaita 1.2's About window has buttons GTK 4.8 calls "GtkButton": the icon-only Back and the version
    /// (a button holding a label).
    private static func nameIconButtons(_ widget: UnsafeMutablePointer<GtkWidget>) {
        var child = gtk_widget_get_first_child(widget)
        while let current = child {
            if String(cString: gtk_widget_get_name(current)) == "GtkButton" {
                if let icon = gtk_button_get_icon_name(cast(current)), String(cString: icon) == "go-previous-symbolic" {
                    Names.set(current, tr("_Back").localized)
                } else if let inner = gtk_button_get_child(cast(current)), String(cString: gtk_widget_get_name(inner)) == "GtkLabel" {
                    let text = String(cString: gtk_label_get_text(cast(inner)))
                    // TRANSLATORS: the About window's version button, as a screen reader says it.
                    accessibleLabel(current, text == Release.version ? tr("Version %@", Release.version).localized : text)
                }
            }
            nameIconButtons(current)
            child = gtk_widget_get_next_sibling(current)
        }
    }

    /// A NULL-terminated C array of `strings` for the duration of `body`.
    private static func withStrings(_ strings: [String], _ body: (UnsafeMutablePointer<UnsafePointer<CChar>?>) -> Void) {
        var pointers: [UnsafePointer<CChar>?] = strings.map { UnsafePointer(strdup($0)) } + [nil]
        defer { for pointer in pointers { free(UnsafeMutableRawPointer(mutating: pointer)) } }
        pointers.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
    }
}
