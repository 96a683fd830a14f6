import ArchiverCore
import JobProtocol
import CGtk
import Glibc
import SystemPackage

// Small builders over GTK/libadwaita calls that every window makes.

@MainActor
enum Widgets {
    /// A GtkStringList holding `items` (gtk_string_list_new wants a NULL-terminated C array).
    static func stringList(_ items: [String]) -> OpaquePointer {
        let list = gtk_string_list_new(nil)!
        for item in items { gtk_string_list_append(list, item) }
        return list
    }

    /// One answer of `ask`: its id, its label (with a mnemonic), how it looks.
    struct Answer {
        let id: String
        let label: String
        var appearance = ADW_RESPONSE_DEFAULT
    }

    /// A modal question over `parent`; `answered` gets the chosen answer's id, or `close`'s when it is closed
    /// (Escape). Enter picks `preferred`.
    static func ask(
        _ parent: UnsafeMutablePointer<GtkWindow>, heading: String, body: String, answers: [Answer], preferred: String,
        close: String, answered: @escaping @MainActor (String) -> Void
    ) {
        let dialog = adw_message_dialog_new(parent, heading, body)!
        for answer in answers {
            adw_message_dialog_add_response(cast(dialog), answer.id, answer.label)
            adw_message_dialog_set_response_appearance(cast(dialog), answer.id, answer.appearance)
        }
        adw_message_dialog_set_default_response(cast(dialog), preferred)
        adw_message_dialog_set_close_response(cast(dialog), close)
        onPointer(dialog, "response") { response in answered(String(cString: response.assumingMemoryBound(to: CChar.self))) }
        gtk_window_present(cast(dialog))
    }

    /// An AdwComboRow over `items`.
    static func comboRow(title: String, items: [String]) -> UnsafeMutablePointer<AdwComboRow> {
        let row: UnsafeMutablePointer<AdwComboRow> = cast(adw_combo_row_new()!)
        adw_preferences_row_set_title(cast(row), title)
        adw_preferences_row_set_use_underline(cast(row), 1)
        adw_combo_row_set_model(row, stringList(items))
        // The choice as the subtitle, full width: the formats' descriptions would be cut at the row's end.
        adw_combo_row_set_use_subtitle(row, 1)
        return row
    }

    /// An AdwEntryRow whose Enter presses the window's default button.
    static func entryRow(title: String) -> UnsafeMutablePointer<GtkWidget> {
        let row = adw_entry_row_new()!
        adw_preferences_row_set_title(cast(row), title)
        adw_preferences_row_set_use_underline(cast(row), 1)
        adw_entry_row_set_activates_default(cast(row), 1)
        accessibleLabel(row, title.withoutMnemonic)
        return row
    }

    /// An entry row that hides what is typed, with the visibility switchable from outside (AdwPasswordEntryRow
    /// has only its own peek icon; the window's "Show password" toggle needs both fields at once).
    static func passwordRow(title: String) -> UnsafeMutablePointer<GtkWidget> {
        let row = entryRow(title: title)
        setVisible(row, false)
        if let text = gtk_editable_get_delegate(cast(row)) {
            gtk_text_set_input_purpose(cast(text), GTK_INPUT_PURPOSE_PASSWORD)
        }
        return row
    }

    static func setVisible(_ entry: UnsafeMutablePointer<GtkWidget>, _ visible: Bool) {
        guard let text = gtk_editable_get_delegate(cast(entry)) else { return }
        gtk_text_set_visibility(cast(text), visible ? 1 : 0)
    }

    static func text(_ editable: some GPtr) -> String {
        String(cString: gtk_editable_get_text(cast(editable)))
    }

    /// An expander row with its own on/off switch, named for assistive technology (GTK 4.8 calls the
    /// switch "GtkSwitch": ../shared/notes/gtk-from-swift.md §7).
    static func switchExpander(title: String, subtitle: String) -> UnsafeMutablePointer<AdwExpanderRow> {
        let row: UnsafeMutablePointer<AdwExpanderRow> = cast(adw_expander_row_new()!)
        adw_preferences_row_set_title(cast(row), title)
        adw_preferences_row_set_use_underline(cast(row), 1)
        adw_expander_row_set_subtitle(row, subtitle)
        adw_expander_row_set_show_enable_switch(row, 1)
        adw_expander_row_set_enable_expansion(row, 0)
        if let toggle = descendant(of: cast(row), named: "GtkSwitch") {
            accessibleLabel(toggle, title.withoutMnemonic)
        }
        // Turning the switch on opens the row, so the fields it governs show at once.
        let obj = Obj(row)
        onNotify(row, "enable-expansion") {
            adw_expander_row_set_expanded(obj.p, adw_expander_row_get_enable_expansion(obj.p))
        }
        return row
    }

    /// An action row with a switch at its end, the switch named after the row (GTK 4.8 would call it "GtkSwitch").
    static func switchRow(title: String, on: Bool) -> (row: UnsafeMutablePointer<GtkWidget>, toggle: UnsafeMutablePointer<GtkWidget>) {
        let row = adw_action_row_new()!
        adw_preferences_row_set_title(cast(row), title)
        adw_preferences_row_set_use_underline(cast(row), 1)
        let toggle = gtk_switch_new()!
        gtk_widget_set_valign(toggle, GTK_ALIGN_CENTER)
        gtk_switch_set_active(cast(toggle), on ? 1 : 0)
        accessibleLabel(toggle, title.withoutMnemonic)
        adw_action_row_add_suffix(cast(row), toggle)
        adw_action_row_set_activatable_widget(cast(row), toggle)
        return (row, toggle)
    }

    /// An action row for a folder (shown as its subtitle) with a Change… button that the row activates.
    static func folderRow(title: String) -> (row: UnsafeMutablePointer<GtkWidget>, change: UnsafeMutablePointer<GtkWidget>) {
        let row = adw_action_row_new()!
        adw_preferences_row_set_title(cast(row), title)
        let change = gtk_button_new_with_mnemonic(tr("C_hange…").localized)!
        gtk_widget_set_valign(change, GTK_ALIGN_CENTER)
        accessibleLabel(change, tr("Change the folder").localized)
        adw_action_row_add_suffix(cast(row), change)
        adw_action_row_set_activatable_widget(cast(row), change)
        return (row, change)
    }

    /// A page of the app: `content` at most `width` wide, centred, scrolling vertically.
    static func page(_ content: UnsafeMutablePointer<GtkWidget>, width: Int32) -> UnsafeMutablePointer<GtkWidget> {
        let clamp = adw_clamp_new()!
        adw_clamp_set_maximum_size(cast(clamp), width)
        adw_clamp_set_child(cast(clamp), content)
        let scroller = gtk_scrolled_window_new()!
        gtk_scrolled_window_set_policy(cast(scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC)
        gtk_scrolled_window_set_child(cast(scroller), clamp)
        return scroller
    }

    static func margins(_ w: UnsafeMutablePointer<GtkWidget>, _ value: Int32) {
        gtk_widget_set_margin_top(w, value)
        gtk_widget_set_margin_bottom(w, value)
        gtk_widget_set_margin_start(w, value)
        gtk_widget_set_margin_end(w, value)
    }
}

/// Asks for a folder with the desktop's chooser (the portal's when there is one).
@MainActor
enum FolderPicker {
    static func pick(title: String, parent: UnsafeMutablePointer<GtkWindow>, startingAt folder: FilePath,
                     _ chosen: @escaping @MainActor (FilePath) -> Void)
    {
        let dialog = gtk_file_chooser_native_new(
            title, parent, GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER, tr("_Select").localized, tr("_Cancel").localized)!
        let start = folder.string.withCString { g_file_new_for_path($0) }
        gtk_file_chooser_set_current_folder(cast(dialog), start, nil)
        g_object_unref(start.map { UnsafeMutableRawPointer($0) })
        gtk_native_dialog_set_modal(cast(dialog), 1)
        let obj = Obj(dialog)
        onInt(dialog, "response") { response in
            if response == GTK_RESPONSE_ACCEPT.rawValue, let file = gtk_file_chooser_get_file(cast(obj.p)) {
                if let path = takeString(g_file_get_path(file)) { chosen(FilePath(path)) }
                g_object_unref(UnsafeMutableRawPointer(file))
            }
            gtk_native_dialog_destroy(cast(obj.p))
            g_object_unref(obj.p.raw)
        }
        gtk_native_dialog_show(cast(dialog))
    }
}

extension String {
    /// A mnemonic label without its underscore, for accessible names ("_Archive name" → "Archive name").
    var withoutMnemonic: String { String(filter { $0 != "_" }) }
}
