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
        adw_combo_row_set_list_factory(row, listFactory(row))
        return row
    }

    /// The items of a combo row's list: whole (wrapped, never cut off), the chosen one ticked, and named for
    /// assistive technology (GTK 4.8 leaves a list item unnamed, whatever its label says).
    private static func listFactory(_ combo: UnsafeMutablePointer<AdwComboRow>) -> OpaquePointer {
        @MainActor final class Bound { var ticks: [UnsafeMutableRawPointer: UInt32] = [:] }
        let bound = Bound()
        let comboObj = Obj(combo)
        let factory = gtk_signal_list_item_factory_new()!
        onPointer(factory, "setup") { item in
            let box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6)!
            let label = gtk_label_new(nil)!
            gtk_label_set_xalign(cast(label), 0)
            gtk_label_set_wrap(cast(label), 1)
            gtk_label_set_wrap_mode(cast(label), PANGO_WRAP_WORD_CHAR)
            gtk_label_set_max_width_chars(cast(label), 40)
            gtk_widget_set_hexpand(label, 1)
            let tick = gtk_image_new_from_icon_name("object-select-symbolic")!
            gtk_box_append(cast(box), label)
            gtk_box_append(cast(box), tick)
            gtk_list_item_set_child(OpaquePointer(item), box)
        }
        onPointer(factory, "bind") { item in
            guard let box = gtk_list_item_get_child(OpaquePointer(item)), let object = gtk_list_item_get_item(OpaquePointer(item)),
                let label = gtk_widget_get_first_child(box), let tick = gtk_widget_get_next_sibling(label)
            else { return }
            let text = String(cString: gtk_string_object_get_string(OpaquePointer(object)))
            gtk_label_set_text(cast(label), text)
            if let row = gtk_widget_get_parent(box) { accessibleLabel(row, text) }
            let position = gtk_list_item_get_position(OpaquePointer(item))
            bound.ticks[tick.raw] = position
            gtk_widget_set_opacity(tick, adw_combo_row_get_selected(comboObj.p) == position ? 1 : 0)
        }
        onPointer(factory, "unbind") { item in
            guard let box = gtk_list_item_get_child(OpaquePointer(item)), let label = gtk_widget_get_first_child(box),
                let tick = gtk_widget_get_next_sibling(label)
            else { return }
            bound.ticks.removeValue(forKey: tick.raw)
        }
        onNotify(combo, "selected") {
            let selected = adw_combo_row_get_selected(comboObj.p)
            for (tick, position) in bound.ticks { gtk_widget_set_opacity(cast(tick), selected == position ? 1 : 0) }
        }
        return cast(factory)
    }

    /// A text field in a row: GtkEntry (or GtkPasswordEntry) beside the title. Not AdwEntryRow: on GTK 4.8
    /// its text never reports the focus over AT-SPI, so a screen reader says nothing while the person types.
    static func fieldRow(title: String, password: Bool = false) -> FieldRow {
        FieldRow(title: title, password: password)
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
        adw_action_row_add_suffix(cast(row), toggle)
        adw_action_row_set_activatable_widget(cast(row), toggle)
        // After: libadwaita relates the widget to the row's title, which GTK 4.8 would say a second time.
        accessibleLabel(toggle, title.withoutMnemonic)
        return (row, toggle)
    }

    /// Makes a menu button say whether its menu is open, on the button inside it, which is what takes the focus:
    /// GTK 4.8 sets "expanded" on the menu button itself and only while open, so a screen reader on the button
    /// never hears that it opens a menu (issue 33).
    static func saysWhetherOpen(_ menuButton: UnsafeMutablePointer<GtkWidget>) {
        guard let toggle = descendant(of: menuButton, named: "GtkToggleButton") else { return }
        let toggleObj = Obj(toggle)
        cgtk_accessible_set_expanded(cast(toggle), 0)
        onNotify(toggle, "active") {
            cgtk_accessible_set_expanded(cast(toggleObj.p), gtk_toggle_button_get_active(cast(toggleObj.p)))
        }
    }

    /// An action row for a folder (shown as its subtitle) with a Change… button that the row activates.
    static func folderRow(title: String) -> (row: UnsafeMutablePointer<GtkWidget>, change: UnsafeMutablePointer<GtkWidget>) {
        let row = adw_action_row_new()!
        adw_preferences_row_set_title(cast(row), title)
        let change = Names.button(tr("C_hange…").localized)
        gtk_widget_set_valign(change, GTK_ALIGN_CENTER)
        adw_action_row_add_suffix(cast(row), change)
        adw_action_row_set_activatable_widget(cast(row), change)
        accessibleLabel(change, tr("Change the folder").localized)
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

/// A titled row holding one text field; Enter in the field presses the window's default button. Its problem
/// (a wrong password, passwords that differ) shows under the title and is the field's accessible description,
/// so a screen reader says it with the field.
@MainActor
struct FieldRow {
    let row: UnsafeMutablePointer<GtkWidget>
    /// The GtkEntry or GtkPasswordEntry (a GtkEditable: `changed`, `gtk_editable_get_text`).
    let entry: UnsafeMutablePointer<GtkWidget>

    init(title: String, password: Bool) {
        row = adw_action_row_new()!
        entry = password ? gtk_password_entry_new()! : gtk_entry_new()!
        gtk_widget_set_valign(entry, GTK_ALIGN_CENTER)
        gtk_widget_set_hexpand(entry, 1)
        if let text = gtk_editable_get_delegate(cast(entry)) {
            gtk_text_set_activates_default(cast(text), 1)
            if password { gtk_text_set_input_purpose(cast(text), GTK_INPUT_PURPOSE_PASSWORD) }
        }
        adw_action_row_add_suffix(cast(row), entry)
        // A click on the row's title, or its mnemonic, puts the cursor in the field.
        adw_action_row_set_activatable_widget(cast(row), entry)
        adw_preferences_row_set_use_underline(cast(row), 1)
        setTitle(title)
    }

    var text: String { Widgets.text(entry) }

    func setText(_ text: String) { gtk_editable_set_text(cast(entry), text) }

    func setTitle(_ title: String) {
        adw_preferences_row_set_title(cast(row), title)
        Names.set(entry, title.withoutMnemonic)
    }

    /// Shows `problem` under the title, marks the field as wrong and says it with the field; nil clears it.
    func setProblem(_ problem: String?) {
        adw_action_row_set_subtitle(cast(row), problem.map(markupEscaped) ?? "")
        cgtk_accessible_set_description(cast(entry), problem ?? "")
        if problem == nil {
            gtk_widget_remove_css_class(entry, "error")
            gtk_widget_remove_css_class(row, "error")
        } else {
            gtk_widget_add_css_class(entry, "error")
            gtk_widget_add_css_class(row, "error")
        }
    }

    var hasProblem: Bool { gtk_widget_has_css_class(entry, "error") != 0 }
}

/// "Details", closed: the libraries' own words about a failure (English, as they said it), apart from our
/// sentence; hidden when there are none.
@MainActor
struct DetailsExpander {
    let root: UnsafeMutablePointer<GtkWidget>
    private let label: OpaquePointer

    init() {
        root = gtk_expander_new_with_mnemonic(tr("_Details").localized)!
        Names.set(root, tr("_Details").localized)
        label = OpaquePointer(gtk_label_new(nil)!)
        gtk_label_set_xalign(label, 0)
        gtk_label_set_wrap(label, 1)
        gtk_label_set_wrap_mode(label, PANGO_WRAP_WORD_CHAR)
        gtk_label_set_selectable(label, 1)
        gtk_widget_add_css_class(cast(label), "dim-label")
        gtk_expander_set_child(cast(root), cast(label))
        gtk_widget_set_visible(root, 0)
    }

    func show(_ details: [String]) {
        gtk_label_set_text(label, details.joined(separator: "\n"))
        gtk_expander_set_expanded(cast(root), 0)
        gtk_widget_set_visible(root, details.isEmpty ? 0 : 1)
    }
}

/// Buttons whose accessible name is their words, said once (see `accessibleLabel`).
@MainActor
enum Names {
    /// The name of a mnemonic label ("C_ompress" → "Compress").
    static func set(_ widget: some GPtr, _ label: String) { accessibleLabel(widget, label.withoutMnemonic) }

    /// A button with a mnemonic label ("C_ompress") whose name is its words ("Compress").
    static func button(_ label: String) -> UnsafeMutablePointer<GtkWidget> {
        let button = gtk_button_new_with_mnemonic(label)!
        set(button, label)
        return button
    }

    /// A button's label changed: its mnemonic label and its name.
    static func relabel(_ button: UnsafeMutablePointer<GtkWidget>, _ label: String) {
        gtk_button_set_label(cast(button), label)
        set(button, label)
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
    /// A mnemonic label without its underscore, for accessible names ("_Archive name" → "Archive name");
    /// a doubled one is a plain underscore, as GTK reads it ("node__modules" → "node_modules").
    var withoutMnemonic: String {
        var result = ""
        var underscore = false
        for character in self {
            if character == "_", !underscore {
                underscore = true
                continue
            }
            if underscore, character == "_" { result.append("_") } else { result.append(character) }
            underscore = false
        }
        return result
    }
}
