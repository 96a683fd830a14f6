import ArchiverCore
import JobProtocol
import CGtk
import Desktop
import SystemPackage

/// Share…: a menu button whose popover offers "Send by Email…" (the mail program, file attached) and
/// "Copy" (the file on the clipboard), for the result page and the app's Recent list.
@MainActor
enum Share {
    /// - Parameters:
    ///   - label: the button's text (mnemonic), or nil for an icon-only button.
    ///   - name: the accessible name; "Share…" when nil.
    static func button(_ file: FilePath, label: String?, name: String? = nil) -> UnsafeMutablePointer<GtkWidget> {
        let menu = gtk_menu_button_new()!
        if let label {
            gtk_menu_button_set_label(cast(menu), label)
            gtk_menu_button_set_use_underline(cast(menu), 1)
            gtk_menu_button_set_always_show_arrow(cast(menu), 0)
        } else {
            gtk_menu_button_set_icon_name(cast(menu), "send-to-symbolic")
            gtk_widget_set_tooltip_text(menu, tr("Share…").localized)
        }
        accessibleLabel(menu, name ?? tr("Share…").localized)
        let popover = gtk_popover_new()!
        let box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 2)!
        let email = Names.button(tr("Send by _Email…").localized)
        let copy = Names.button(tr("_Copy").localized)
        for button in [email, copy] {
            gtk_widget_add_css_class(button, "flat")
            gtk_box_append(cast(box), button)
        }
        gtk_popover_set_child(cast(popover), box)
        gtk_menu_button_set_popover(cast(menu), popover)
        Widgets.saysWhetherOpen(menu)
        let pop = Obj(popover)
        let anchor = Obj(menu)
        on(email, "clicked") {
            gtk_popover_popdown(cast(pop.p))
            Reveal.email(file)
        }
        on(copy, "clicked") {
            gtk_popover_popdown(cast(pop.p))
            Clipboard.copy(file, from: anchor.p)
        }
        return menu
    }
}
