import ArchiverCore
import JobProtocol
import CGtk
import Glibc

/// Home: the drop zone (the whole window takes drops), Compress Files…, Extract Archive…, Compress PDF… and
/// Compress Photos…, and the statistics of what Archiver made.
@MainActor
final class HomePage {
    let root: UnsafeMutablePointer<GtkWidget>
    private let statistics: StatisticsPanel
    private unowned let owner: MainWindow

    init(owner: MainWindow) {
        self.owner = owner
        // Compact enough that the Statistics heading is whole at the window's default size (issue 33: the
        // window's bottom edge cut it in half).
        let box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 18)!
        Widgets.margins(box, 24)

        // The drop zone.
        let zone = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6)!
        gtk_widget_add_css_class(zone, "card")
        gtk_widget_add_css_class(zone, "drop-zone")
        for set in [gtk_widget_set_margin_top, gtk_widget_set_margin_bottom] { set(zone, 0) }
        // The app's own symbolic icon once installed (make install), else the theme's.
        let theme = gtk_icon_theme_get_for_display(gdk_display_get_default())
        let own = ArchiverApp.id + "-symbolic"
        let icon = gtk_image_new_from_icon_name(gtk_icon_theme_has_icon(theme, own) != 0 ? own : "folder-download-symbolic")!
        gtk_image_set_pixel_size(cast(icon), 48)
        gtk_widget_add_css_class(icon, "dim-label")
        gtk_widget_set_margin_top(icon, 18)
        let heading = Self.label(tr("Drop Files Here").localized, css: "title-2")
        let hint = Self.label(
            tr("Files and folders become an archive, an archive is extracted; PDFs and photos can be made smaller.").localized,
            css: "dim-label")
        gtk_widget_set_margin_bottom(hint, 18)
        for child in [icon, heading, hint] { gtk_box_append(cast(zone), child) }
        gtk_box_append(cast(box), zone)

        // The four large actions, two by two: archives above, smaller PDFs and photos below; one above the
        // other when two do not fit (issue 33: two columns of large text held the window at 478 px).
        let actions = gtk_flow_box_new()!
        gtk_flow_box_set_homogeneous(cast(actions), 1)
        gtk_flow_box_set_min_children_per_line(cast(actions), 1)
        gtk_flow_box_set_max_children_per_line(cast(actions), 2)
        gtk_flow_box_set_selection_mode(cast(actions), GTK_SELECTION_NONE)
        gtk_flow_box_set_column_spacing(cast(actions), 12)
        gtk_flow_box_set_row_spacing(cast(actions), 12)
        gtk_widget_set_focusable(actions, 0)
        let buttons: [(title: Text, detail: Text, icon: String, action: String)] = [
            (tr("Compress Files…"), tr("Put files and folders into an archive"), "package-x-generic-symbolic", "app.compress"),
            (tr("Extract Archive…"), tr("Take the files out of an archive"), "folder-open-symbolic", "app.extract"),
            // TRANSLATORS: a large button of the app's Home; it asks for PDFs, then opens the Compress PDF… window.
            (tr("Compress PDF…"), tr("A smaller copy, text kept searchable"), "x-office-document-symbolic", "app.compress-pdf"),
            // TRANSLATORS: a large button of the app's Home; it opens the Compress Photos… window.
            (tr("Compress Photos…"), tr("Smaller copies, or find the large ones"), "image-x-generic-symbolic", "app.compress-photos"),
        ]
        for button in buttons {
            let widget = Self.bigButton(title: button.title.localized, detail: button.detail.localized, icon: button.icon, action: button.action)
            // A narrow wish, so that two cards share a line wherever two fit: the flow box counts by the
            // cards' natural widths (one line of text each) and the children's 3 px padding.
            let clamp = adw_clamp_new()!
            adw_clamp_set_maximum_size(cast(clamp), 250)
            adw_clamp_set_tightening_threshold(cast(clamp), 250)
            adw_clamp_set_child(cast(clamp), widget)
            gtk_flow_box_append(cast(actions), clamp)
            // The button takes the focus, not the box's unnamed child around it.
            if let child = gtk_widget_get_parent(clamp) { gtk_widget_set_focusable(child, 0) }
        }
        gtk_box_append(cast(box), actions)

        statistics = StatisticsPanel()
        gtk_box_append(cast(box), statistics.root)

        root = Widgets.page(box, width: 640)

        // Drops anywhere on the window take the same way as files sent over D-Bus or given on the command
        // line: GApplication's `open`.
        let target = gtk_drop_target_new(gdk_file_list_get_type(), GDK_ACTION_COPY)!
        let app = Obj(owner.app)
        onDropFiles(target) { paths in
            guard !paths.isEmpty else { return false }
            Self.open(paths, in: app.p)
            return true
        }
        gtk_widget_add_controller(cast(owner.window), cast(target))
    }

    /// Hands `paths` to the application's `open`, exactly as a second start or a D-Bus `Open` does.
    static func open(_ paths: [String], in app: UnsafeMutablePointer<GtkApplication>) {
        var files: [OpaquePointer?] = paths.map { g_file_new_for_path($0) }
        defer { for file in files { g_object_unref(file.map { UnsafeMutableRawPointer($0) }) } }
        files.withUnsafeMutableBufferPointer { g_application_open(cast(app), $0.baseAddress, gint($0.count), "") }
    }

    func reloadStatistics() { statistics.reload() }

    private static func label(_ text: String, css: String) -> UnsafeMutablePointer<GtkWidget> {
        let label = gtk_label_new(text)!
        gtk_label_set_wrap(cast(label), 1)
        gtk_label_set_justify(cast(label), GTK_JUSTIFY_CENTER)
        gtk_widget_add_css_class(label, css)
        Widgets.margins(label, 0)
        gtk_widget_set_margin_start(label, 18)
        gtk_widget_set_margin_end(label, 18)
        return label
    }

    /// A large card-like button: icon, title, one line of detail; it runs `action`.
    private static func bigButton(title: String, detail: String, icon: String, action: String) -> UnsafeMutablePointer<GtkWidget> {
        let button = gtk_button_new()!
        gtk_widget_add_css_class(button, "card")
        let inner = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6)!
        Widgets.margins(inner, 12)
        let image = gtk_image_new_from_icon_name(icon)!
        gtk_image_set_pixel_size(cast(image), 48)
        gtk_widget_add_css_class(image, "accent")
        gtk_box_append(cast(inner), image)
        // The ellipsis stays with its word (German's "Fotos komprimieren …" left a lone "…" on a line).
        let heading = label(title.hasSuffix(" …") ? title.dropLast(2) + "\u{00A0}…" : title, css: "title-4")
        gtk_box_append(cast(inner), heading)
        gtk_box_append(cast(inner), label(detail, css: "dim-label"))
        gtk_button_set_child(cast(button), inner)
        gtk_actionable_set_action_name(cast(button), action)
        accessibleLabel(button, title)
        return button
    }
}
