import ArchiverCore
import JobProtocol
import CGtk

/// The keyboard shortcuts window (Ctrl+?): GtkShortcutsWindow can only be filled from GtkBuilder, so its
/// description is built here with the words already translated.
@MainActor
enum ShortcutsWindow {
    static func make() -> OpaquePointer {
        let general: [(String, String)] = [
            ("<Primary>o", tr("Compress files").localized),
            ("<Primary><Shift>o", tr("Extract an archive").localized),
            ("<Primary>h", tr("Show Home").localized),
            ("<Primary>r", tr("Show Recent").localized),
            ("<Primary>comma", tr("Show Settings").localized),
            ("<Primary>question", tr("Keyboard shortcuts").localized),
            ("<Primary>q", tr("Quit").localized),
        ]
        let recent: [(String, String)] = [
            ("<Primary>f", tr("Search the history").localized),
        ]
        func property(_ name: String, _ value: String) -> String {
            "<property name=\"\(name)\">\(markupEscaped(value))</property>"
        }
        func group(_ title: String, _ items: [(String, String)]) -> String {
            let shortcuts = items.map { accel, title in
                "<child><object class=\"GtkShortcutsShortcut\">" + property("accelerator", accel) + property("title", title)
                    + "</object></child>"
            }
            return "<child><object class=\"GtkShortcutsGroup\">" + property("title", title) + shortcuts.joined()
                + "</object></child>"
        }
        let xml = "<interface><object class=\"GtkShortcutsWindow\" id=\"shortcuts\">" + property("modal", "1")
            + "<child><object class=\"GtkShortcutsSection\">" + property("section-name", "shortcuts")
            + group(tr("General").localized, general) + group(tr("Recent").localized, recent)
            + "</object></child></object></interface>"
        let builder = gtk_builder_new_from_string(xml, -1)!
        defer { g_object_unref(builder.raw) }
        let window = gtk_builder_get_object(builder, "shortcuts")!
        // The builder drops its reference; the application window holds the one this keeps.
        g_object_ref(window)
        return cast(window)
    }
}
