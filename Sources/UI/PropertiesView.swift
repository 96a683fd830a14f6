import ArchiverCore
import CGtk
import Desktop
import Dispatch
import JobProtocol
import SystemPackage

/// The Extract… window's Properties, in the tree's place: the archive's facts from its listing (format,
/// filters, files, sizes, ratio, encryption, comment), every value selectable, and its SHA-256, computed only
/// when asked (it reads the whole file) and then copyable.
@MainActor
final class PropertiesView {
    let root: UnsafeMutablePointer<GtkWidget>
    /// Whether the listing gave the facts (not for an archive that could not be read).
    private(set) var known = false
    /// The archive file whose checksum Compute reads.
    var onChecksum: () -> FilePath? = { nil }

    private let grid: UnsafeMutablePointer<GtkWidget>
    private let checksum: OpaquePointer
    private let compute: UnsafeMutablePointer<GtkWidget>
    private let copy: UnsafeMutablePointer<GtkWidget>
    private var rows: Int32 = 0

    init() {
        let box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12)!
        Widgets.margins(box, 12)
        grid = gtk_grid_new()
        gtk_grid_set_row_spacing(cast(grid), 6)
        gtk_grid_set_column_spacing(cast(grid), 18)
        gtk_box_append(cast(box), grid)

        // SHA-256: a line of its own, the value wrapping (64 characters), Compute then Copy.
        let shaTitle = gtk_label_new("SHA-256")!
        gtk_label_set_xalign(cast(shaTitle), 0)
        gtk_widget_add_css_class(shaTitle, "dim-label")
        checksum = OpaquePointer(gtk_label_new(""))
        gtk_label_set_xalign(checksum, 0)
        gtk_label_set_wrap(checksum, 1)
        gtk_label_set_wrap_mode(checksum, PANGO_WRAP_CHAR)
        gtk_label_set_selectable(checksum, 1)
        gtk_widget_add_css_class(cast(checksum), "monospace")
        gtk_widget_set_visible(cast(checksum), 0)
        // TRANSLATORS: Properties: reads the whole archive to compute its SHA-256.
        compute = Names.button(tr("C_ompute SHA-256").localized)
        // TRANSLATORS: Properties: puts the SHA-256 on the clipboard.
        copy = Names.button(tr("Cop_y SHA-256").localized)
        gtk_widget_set_visible(copy, 0)
        let buttons = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6)!
        gtk_box_append(cast(buttons), compute)
        gtk_box_append(cast(buttons), copy)
        for child in [shaTitle, widget(checksum), buttons] { gtk_box_append(cast(box), child) }

        root = gtk_scrolled_window_new()
        gtk_scrolled_window_set_child(cast(root), box)
        gtk_scrolled_window_set_policy(cast(root), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC)
        gtk_widget_set_vexpand(root, 1)
        gtk_widget_add_css_class(root, "card")

        on(compute, "clicked") { [unowned self] in computeChecksum() }
        on(copy, "clicked") { [unowned self] in
            let text = String(cString: gtk_label_get_text(checksum))
            guard !text.isEmpty else { return }
            Clipboard.copy(text: text, from: copy)
        }
    }

    /// Fills the view from the listing's facts (nil: unknown, the view stays empty).
    func show(_ listed: ListOutcome.Archive?) {
        while let child = gtk_widget_get_first_child(grid) { gtk_grid_remove(cast(grid), child) }
        rows = 0
        guard let listed, let facts = listed.properties else {
            known = false
            return
        }
        known = true
        for line in facts.lines { add(line.label.localized, line.value.localized) }
    }

    private func add(_ label: String, _ value: String) {
        let title = gtk_label_new(label)!
        gtk_label_set_xalign(cast(title), 0)
        gtk_label_set_yalign(cast(title), 0)
        gtk_widget_add_css_class(title, "dim-label")
        let text = gtk_label_new(value)!
        gtk_label_set_xalign(cast(text), 0)
        gtk_label_set_wrap(cast(text), 1)
        gtk_label_set_wrap_mode(cast(text), PANGO_WRAP_WORD_CHAR)
        gtk_label_set_selectable(cast(text), 1)
        gtk_widget_set_hexpand(text, 1)
        // A screen reader reads the value with what it is.
        cgtk_accessible_set_description(cast(text), label)
        gtk_grid_attach(cast(grid), title, 0, rows, 1, 1)
        gtk_grid_attach(cast(grid), text, 1, rows, 1, 1)
        rows += 1
    }

    /// Reads the file off the main thread; the window stays responsive and says it is working.
    private func computeChecksum() {
        guard let file = onChecksum() else { return }
        gtk_widget_set_sensitive(compute, 0)
        gtk_label_set_text(checksum, tr("Computing…").localized)
        gtk_widget_set_visible(cast(checksum), 1)
        DispatchQueue.global().async {
            let sum = (try? FileChecksum.sha256(of: file)) ?? nil
            DispatchQueue.main.async {
                MainActor.assumeIsolated {
                    gtk_widget_set_sensitive(self.compute, 1)
                    guard let sum else {
                        gtk_label_set_text(self.checksum, tr("“%@” could not be read.", file.lastComponent?.string ?? file.string).localized)
                        return
                    }
                    gtk_label_set_text(self.checksum, sum)
                    gtk_widget_set_visible(self.compute, 0)
                    gtk_widget_set_visible(self.copy, 1)
                    gtk_widget_grab_focus(self.copy)
                }
            }
        }
    }
}
