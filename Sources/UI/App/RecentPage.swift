import ArchiverCore
import JobProtocol
import CGtk
import Desktop
import Glibc
import SystemPackage

/// Recent: Archiver's entries of the desktop's recently-used.xbel (so the list stays in step with the file
/// managers' Recent view), newest first, with Open, Show in Folder, Share… and Move to Trash; a search by
/// name; Clear History (ours only), each undoable from a toast.
@MainActor
final class RecentPage {
    let root: UnsafeMutablePointer<GtkWidget>
    private unowned let owner: MainWindow
    private let search: UnsafeMutablePointer<GtkWidget>
    private let list: UnsafeMutablePointer<GtkWidget>
    private let clear: UnsafeMutablePointer<GtkWidget>
    private let content: OpaquePointer
    private let emptyPage: UnsafeMutablePointer<GtkWidget>
    private var entries: [RecentFiles.Entry] = []

    init(owner: MainWindow) {
        self.owner = owner
        let box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12)!
        Widgets.margins(box, 24)

        search = gtk_search_entry_new()!
        gtk_widget_set_hexpand(search, 1)
        cgtk_set_string_property(search.raw, "placeholder-text", tr("Search by name").localized)
        accessibleLabel(search, tr("Search by name").localized)
        clear = Names.button(tr("C_lear History…").localized)
        gtk_widget_add_css_class(clear, "destructive-action")
        accessibleLabel(clear, tr("Clear History…").localized)
        // The search has the line to itself, Clear History… comes under the list: side by side at a phone's
        // width and 1.5× text, the field kept room for "…" only (issue 33).
        gtk_widget_set_halign(clear, GTK_ALIGN_END)
        gtk_box_append(cast(box), search)

        list = gtk_list_box_new()!
        gtk_list_box_set_selection_mode(cast(list), GTK_SELECTION_NONE)
        gtk_widget_add_css_class(list, "boxed-list")
        gtk_widget_set_valign(list, GTK_ALIGN_START)
        accessibleLabel(list, tr("Recent archives and folders").localized)

        emptyPage = adw_status_page_new()!
        adw_status_page_set_icon_name(cast(emptyPage), "document-open-recent-symbolic")
        // Its own scrolled window took the focus, unnamed: nothing there to use.
        if let scroller = descendant(of: emptyPage, named: "GtkScrolledWindow") { gtk_widget_set_focusable(scroller, 0) }
        gtk_widget_set_vexpand(emptyPage, 1)

        content = OpaquePointer(gtk_stack_new())
        gtk_stack_add_named(content, list, "list")
        gtk_stack_add_named(content, emptyPage, "empty")
        gtk_box_append(cast(box), cast(content))
        gtk_box_append(cast(box), clear)

        root = Widgets.page(box, width: 720)

        on(search, "search-changed") { [unowned self] in fill() }
        on(clear, "clicked") { [unowned self] in askToClear() }
        // Ctrl+F: the search field.
        let shortcuts = gtk_shortcut_controller_new()!
        gtk_shortcut_controller_set_scope(cast(shortcuts), GTK_SHORTCUT_SCOPE_MANAGED)
        let searchObj = Obj(search)
        let focus = gtk_callback_action_new({ _, _, data in
            gtk_widget_grab_focus(data?.assumingMemoryBound(to: GtkWidget.self))
            return 1
        }, searchObj.p.raw, nil)
        gtk_shortcut_controller_add_shortcut(
            cast(shortcuts), gtk_shortcut_new(gtk_shortcut_trigger_parse_string("<Primary>f"), focus))
        gtk_widget_add_controller(root, shortcuts)
        reload()
    }

    /// Reads the list again (jobs add to it while the app runs).
    func reload() {
        entries = (try? RecentFiles.entries()) ?? []
        fill()
    }

    private func fill() {
        while let child = gtk_widget_get_first_child(list) { gtk_list_box_remove(cast(list), child) }
        let query = Widgets.text(search).lowercased()
        let shown = entries.filter { query.isEmpty || ($0.path.lastComponent?.string ?? "").lowercased().contains(query) }
        for entry in shown { gtk_list_box_append(cast(list), row(entry)) }
        gtk_widget_set_sensitive(clear, entries.isEmpty ? 0 : 1)
        if shown.isEmpty {
            adw_status_page_set_title(cast(emptyPage), (entries.isEmpty ? tr("Nothing Yet") : tr("No Matches")).localized)
            adw_status_page_set_description(cast(emptyPage), (entries.isEmpty
                ? tr("Archives you make and folders you extract appear here.")
                : tr("No archive or folder in the history has that in its name.")).localized)
            gtk_stack_set_visible_child_name(content, "empty")
        } else {
            gtk_stack_set_visible_child_name(content, "list")
        }
    }

    /// One entry: name; kind, date and size (or "missing"); the actions as icon buttons named after it.
    private func row(_ entry: RecentFiles.Entry) -> UnsafeMutablePointer<GtkWidget> {
        let name = entry.path.lastComponent?.string ?? entry.path.string
        let row = adw_action_row_new()!
        adw_preferences_row_set_title(cast(row), markupEscaped(name))
        var info = stat()
        let exists = stat(entry.path.string, &info) == 0
        let kind = takeString(g_content_type_get_description(entry.mimeType)) ?? entry.mimeType
        let date = LocalDate.text(unix: entry.modified)
        let details: Text
        if !exists {
            details = tr("%1$@ · %2$@ · missing (moved or deleted)", Text.verbatim(kind), Text.verbatim(date))
        } else if (info.st_mode & S_IFMT) == S_IFDIR {
            details = tr("%1$@ · %2$@", Text.verbatim(kind), Text.verbatim(date))
        } else if let original = entry.originalSize {
            // A smaller copy (Compress PDF…, Compress Photos…): its size and the saving.
            let size = Int64(info.st_size)
            // TRANSLATORS: a Recent row's details: kind · date · size, how much smaller than the original (“96 % smaller”).
            details = tr("%1$@ · %2$@ · %3$@, %4$@", Text.verbatim(kind), Text.verbatim(date), Unbroken.bytes(size),
                         PDFNaming.saving(before: original, after: size))
        } else {
            details = tr("%1$@ · %2$@ · %3$@", Text.verbatim(kind), Text.verbatim(date), Unbroken.bytes(Int64(info.st_size)))
        }
        adw_action_row_set_subtitle(cast(row), markupEscaped(details.localized))
        let icon = gtk_image_new_from_gicon(g_content_type_get_symbolic_icon(entry.mimeType))!
        adw_action_row_add_prefix(cast(row), icon)
        if !exists {
            gtk_widget_add_css_class(row, "dim-label")
            return row
        }
        let path = entry.path
        addButton(row, icon: "document-open-symbolic", name: tr("Open “%@”", name).localized) { JobPanel.open(path) }
        addButton(row, icon: "find-location-symbolic", name: tr("Show “%@” in Folder", name).localized) { Reveal.show(path) }
        addButton(row, icon: "user-trash-symbolic", name: tr("Move “%@” to the Trash", name).localized) { [unowned self] in
            moveToTrash(path, name: name)
        }
        // Share last, and for a folder (nothing to share) an empty place as wide: Open, Show and Trash stay in
        // the same columns on every row.
        let share = Share.button(path, label: nil, name: tr("Share “%@”…", name).localized)
        gtk_widget_add_css_class(share, "flat")
        gtk_widget_set_valign(share, GTK_ALIGN_CENTER)
        if (info.st_mode & S_IFMT) != S_IFDIR {
            adw_action_row_add_suffix(cast(row), share)
        } else {
            var width: Int32 = 0
            gtk_widget_measure(share, GTK_ORIENTATION_HORIZONTAL, -1, nil, &width, nil, nil)
            let place = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 0)!
            gtk_widget_set_size_request(place, width, -1)
            adw_action_row_add_suffix(cast(row), place)
            g_object_ref_sink(share.raw)
            g_object_unref(share.raw)
        }
        return row
    }

    private func addButton(_ row: UnsafeMutablePointer<GtkWidget>, icon: String, name: String,
                           _ action: @escaping @MainActor () -> Void)
    {
        let button = gtk_button_new_from_icon_name(icon)!
        gtk_widget_add_css_class(button, "flat")
        gtk_widget_set_valign(button, GTK_ALIGN_CENTER)
        gtk_widget_set_tooltip_text(button, name)
        accessibleLabel(button, name)
        adw_action_row_add_suffix(cast(row), button)
        on(button, "clicked", action)
    }

    // MARK: - Actions

    private func moveToTrash(_ path: FilePath, name: String) {
        do {
            try Trash.move(path)
        } catch {
            owner.toast(Self.words(error))
            return
        }
        fill()
        owner.toast(tr("“%@” moved to the trash", name).localized) { [unowned self] in
            if !Trash.restore(path) { owner.toast(tr("“%@” could not be put back; it is still in the trash.", name).localized) }
            fill()
        }
    }

    private static func words(_ error: any Error) -> String {
        (error as? ArchiverError)?.message.localized ?? String(describing: error)
    }

    private func askToClear() {
        let answers = [
            Widgets.Answer(id: "cancel", label: tr("_Cancel").localized),
            Widgets.Answer(id: "clear", label: tr("C_lear History").localized, appearance: ADW_RESPONSE_DESTRUCTIVE),
            Widgets.Answer(id: "clear-all", label: tr("Clear History and _Statistics").localized, appearance: ADW_RESPONSE_DESTRUCTIVE),
        ]
        Widgets.ask(
            owner.window, heading: tr("Clear the History?").localized,
            body: tr("Archiver’s entries leave the Recent list here and in the file managers; other applications’ entries stay. The files themselves stay where they are.").localized,
            answers: answers, preferred: "cancel", close: "cancel"
        ) { [unowned self] answer in
            switch answer {
            case "clear": Idle.run { [unowned self] in clearHistory(statistics: false) }
            case "clear-all": Idle.run { [unowned self] in clearHistory(statistics: true) }
            default: break
            }
        }
    }

    /// Forgets our Recent entries (and the statistics); Undo puts back what was there.
    private func clearHistory(statistics: Bool) {
        let removed = (try? RecentFiles.entries()) ?? []
        let store = StatisticsStore()
        var cleared: StatisticsSnapshot?
        do {
            _ = try RecentFiles.forget()
            if statistics { cleared = try store.clear() }
        } catch {
            owner.toast(Self.words(error))
            reload()
            return
        }
        reload()
        owner.refreshStatistics()
        let figures = cleared
        let done = statistics ? tr("History and statistics cleared") : tr("History cleared")
        owner.toast(done.localized) { [unowned self] in
            do { try RecentFiles.restore(removed) } catch { owner.toast(Self.words(error)) }
            if let figures, !store.restore(figures) {
                owner.toast(tr("The statistics could not be put back: a job has counted since.").localized)
            }
            reload()
            owner.refreshStatistics()
        }
    }
}

/// A date and time in the person's locale (GLib's `%c`-like "%x %X" would show seconds).
enum LocalDate {
    static func text(unix: Int64) -> String {
        guard let date = g_date_time_new_from_unix_local(gint64(unix)) else { return "" }
        defer { g_date_time_unref(date) }
        // TRANSLATORS: how Recent shows when an archive was made: a g_date_time_format string.
        let text = takeString(g_date_time_format(date, tr("%e %b %Y, %H:%M").localized)) ?? ""
        return String(text.drop { $0 == " " })
    }
}

/// A size whose number and unit a wrapping label never parts: the locale's size with no-break spaces
/// (issue 33: German Recent rows wrapped "122 / Bytes"). Only the app's pages: other windows' tests read sizes
/// split at a plain space.
enum Unbroken {
    static func bytes(_ count: Int64) -> Text {
        .verbatim(String(Formatters.bytes(count).map { $0 == " " ? "\u{00A0}" : $0 }))
    }
}
