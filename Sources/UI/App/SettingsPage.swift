import ArchiverCore
import JobProtocol
import CGtk
import Desktop
import SystemPackage

/// Settings: every key of the schema in plain words, grouped, each change stored at once (the menus and
/// executables read the same GSettings), "Reset to Defaults" per group, and Appearance.
@MainActor
final class SettingsPage {
    let root: UnsafeMutablePointer<GtkWidget>
    private let settings = SettingsStore.shared
    private unowned let owner: MainWindow

    init(owner: MainWindow) {
        self.owner = owner
        root = adw_preferences_page_new()!
        let minutes: (UInt32) -> Double = { Double($0) / 60 }

        // First: the one setting of the app itself rather than of the jobs.
        group(tr("Appearance").localized, rows: [
            choiceRow(.colorScheme, tr("Style").localized, [
                (.system, tr("System").localized), (.light, tr("Light").localized), (.dark, tr("Dark").localized),
            ]),
        ])
        var splitItems: [(String, String)] = [("", tr("No, one file").localized)]
        splitItems += PartSize.presets.map { ($0.size, $0.use.localized) }
        // The window's memory goes with its group's reset: a reset means "start from the defaults".
        group(ptr("settings group", "Compressing").localized, extraKeys: [Setting.lastFormat.key, Setting.lastLevel.key], rows: [
            choiceRow(.defaultFormat, tr("Archive format").localized,
                      CompressWindow.formats(singleFile: false).map { ($0.0, $0.1.localized) }),
            choiceRow(.compressionLevel, tr("Compression level").localized,
                      CompressWindow.levels.map { ($0.0, $0.1.localized) }),
            choiceRow(.splitSize, tr("Split into parts").localized, splitItems),
            numberRow(.timeBudget, tr("Time limit in minutes").localized,
                      subtitle: tr("A job that runs longer stops and leaves nothing half-done; 0 means no limit").localized,
                      shown: minutes, stored: { UInt32(($0 * 60).rounded()) }),
            switchRow(.verifyAfterCompress, tr("Test each new archive").localized,
                      subtitle: tr("Before it takes its name; one that does not read back is removed").localized),
        ])
        // The defaults of --exclude-junk, --exclude-vcs, --exclude-node-modules, --exclude-caches and --gitignore
        // (LeaveOutChoice); the Compress… window writes its switches back to them.
        group(ptr("settings group", "Left out of new archives").localized, rows: [
            switchRow(.excludeJunk, tr("System leftovers").localized,
                      subtitle: tr(".DS_Store, ._ files, Thumbs.db, desktop.ini, .Trash folders").localized),
            switchRow(.excludeVCS, tr("Version-control folders").localized, subtitle: tr(".git, .hg, .svn and the like").localized),
            switchRow(.excludeNodeModules, tr("node__modules folders").localized,
                      subtitle: tr("A project’s JavaScript packages; npm install brings them back").localized),
            switchRow(.excludeCaches, tr("Dependency, build and cache folders").localized,
                      subtitle: tr("__pycache__, a venv, target beside a Cargo.toml, editor leftovers").localized),
            switchRow(.followGitignore, tr("What git ignores").localized,
                      subtitle: tr("Inside a git work tree: what its .gitignore files name, and .git").localized),
        ])
        group(ptr("settings group", "Extracting").localized, rows: [
            locationRow(),
            switchRow(.skipJunk, tr("Skip macOS extras").localized,
                      subtitle: tr("__MACOSX folders, ._ files and .DS_Store are left out").localized),
            switchRow(.trashArchiveAfterExtract, tr("Move the archive to the trash afterwards").localized,
                      subtitle: tr("Only when everything was extracted").localized),
            switchRow(.extractNested, tr("Also extract the archives inside").localized,
                      subtitle: tr("Each in its place, up to 8 levels deep; never documents or packages such as .docx").localized),
        ])
        group(tr("Open as Folder").localized, rows: [
            numberRow(.mountIdleTimeout, tr("Seconds unused before unmounting").localized,
                      subtitle: tr("An archive opened as a folder closes once nothing in it was open or read for this long; 0 means never").localized),
        ])
        group(tr("PDFs").localized, rows: [
            choiceRow(.pdfQuality, tr("PDF quality").localized, PDFQuality.allCases.map { ($0, $0.label.localized) }),
        ])
        group(tr("Photos").localized, rows: [
            numberRow(.photoMaxSize, tr("Longest side in pixels").localized,
                      subtitle: tr("Larger photos are made this size; 0 keeps every size").localized),
            numberRow(.photoQuality, tr("Photo quality").localized,
                      subtitle: tr("1 to 100; 60 to 90 suits most photos").localized),
            choiceRow(.photoFormat, tr("Photo format").localized, [
                (.jpeg, tr("JPEG — opens everywhere").localized), (.webp, tr("WebP").localized),
                (.avif, tr("AVIF — smallest").localized), (.heic, tr("HEIC").localized),
            ]),
            switchRow(.photoStripLocation, tr("Remove the location").localized,
                      subtitle: tr("The GPS position goes; camera, dates and the rest stay").localized),
        ])
        group(tr("Notifications and history").localized, rows: [
            switchRow(.notifications, tr("Show progress and results as notifications").localized),
            switchRow(.openFolderAfter, tr("Show the result in the file manager").localized),
            switchRow(.rememberRecent, tr("Add results to the Recent files list").localized),
        ])
    }

    // MARK: - Groups

    private struct Row {
        let widget: UnsafeMutablePointer<GtkWidget>
        let key: SettingKey
    }

    private func group(_ title: String, extraKeys: [SettingKey] = [], rows: [Row]) {
        let group = adw_preferences_group_new()!
        adw_preferences_group_set_title(cast(group), title)
        let reset = Names.button(tr("_Reset to Defaults").localized)
        gtk_widget_add_css_class(reset, "flat")
        // Under the group's rows, at its end: as the title's neighbour it took the room first, and at a phone's
        // width with 1.5× text the titles read "Appe…" and "Comp…" (issue 33).
        gtk_widget_set_halign(reset, GTK_ALIGN_END)
        gtk_widget_set_margin_top(reset, 6)
        if let words = gtk_button_get_child(cast(reset)) {
            gtk_label_set_wrap(cast(words), 1)
            gtk_label_set_justify(cast(words), GTK_JUSTIFY_CENTER)
        }
        accessibleLabel(reset, tr("Reset %@ to defaults", Text.verbatim(title)).localized)
        let keys = rows.map(\.key) + extraKeys
        on(reset, "clicked") { [unowned self] in
            for key in keys { settings.reset(key) }
        }
        for row in rows where settings.has(row.key) { adw_preferences_group_add(cast(group), row.widget) }
        // Not a row: the group puts it below its list.
        adw_preferences_group_add(cast(group), reset)
        adw_preferences_page_add(cast(root), cast(group))
    }

    // MARK: - Rows, each bound to its key both ways

    private func choiceRow<Value>(_ key: Setting<Value>, _ title: String, _ items: [(value: Value, label: String)]) -> Row {
        var items = items
        // A value set elsewhere that the list does not offer (a split size typed in a terminal) is shown as is.
        let current = settings.value(key)
        if !items.contains(where: { $0.value == current }) { items.append((current, String(describing: current))) }
        let row = Widgets.comboRow(title: title, items: items.map(\.label))
        accessibleLabel(row, title)
        let values = items.map(\.value)
        let show: @MainActor () -> Void = { [unowned self] in
            guard let index = values.firstIndex(of: settings.value(key)) else { return }
            adw_combo_row_set_selected(row, guint(index))
        }
        show()
        // Setting the same selection emits nothing, and an equal value is not written: no loop either way.
        onNotify(row, "selected") { [unowned self] in
            let index = Int(adw_combo_row_get_selected(row))
            guard values.indices.contains(index), settings.value(key) != values[index] else { return }
            settings.set(key, values[index])
        }
        settings.watch(key.key, show)
        return Row(widget: cast(row), key: key.key)
    }

    private func switchRow(_ key: Setting<Bool>, _ title: String, subtitle: String? = nil) -> Row {
        let (row, toggle) = Widgets.switchRow(title: title, on: settings.value(key))
        if let subtitle { adw_action_row_set_subtitle(cast(row), subtitle) }
        onNotify(toggle, "active") { [unowned self] in
            let on = gtk_switch_get_active(cast(toggle)) != 0
            if settings.value(key) != on { settings.set(key, on) }
        }
        settings.watch(key.key) { [unowned self] in
            gtk_switch_set_active(cast(toggle), settings.value(key) ? 1 : 0)
        }
        return Row(widget: row, key: key.key)
    }

    /// A number key (`u` with a range) as a spin button; `shown`/`stored` convert units (seconds ↔ minutes).
    private func numberRow(_ key: Setting<UInt32>, _ title: String, subtitle: String,
                           shown: @escaping (UInt32) -> Double = { Double($0) },
                           stored: @escaping (Double) -> UInt32 = { UInt32($0.rounded()) }) -> Row
    {
        let row = adw_action_row_new()!
        adw_preferences_row_set_title(cast(row), title)
        adw_action_row_set_subtitle(cast(row), subtitle)
        let range = key.range ?? 0...UInt32.max
        let spin = gtk_spin_button_new_with_range(shown(range.lowerBound), shown(range.upperBound), 1)!
        gtk_spin_button_set_digits(cast(spin), 0)
        gtk_widget_set_valign(spin, GTK_ALIGN_CENTER)
        gtk_spin_button_set_value(cast(spin), shown(settings.value(key)))
        adw_action_row_add_suffix(cast(row), spin)
        adw_action_row_set_activatable_widget(cast(row), spin)
        accessibleLabel(spin, title)  // after: the row's relation would make GTK 4.8 say the title twice
        on(spin, "value-changed") { [unowned self] in
            let value = min(max(stored(gtk_spin_button_get_value(cast(spin))), range.lowerBound), range.upperBound)
            if settings.value(key) != value { settings.set(key, value) }
        }
        settings.watch(key.key) { [unowned self] in
            let value = shown(settings.value(key))
            if gtk_spin_button_get_value(cast(spin)) != value { gtk_spin_button_set_value(cast(spin), value) }
        }
        return Row(widget: row, key: key.key)
    }

    /// extract-location: the folder as the subtitle (the Downloads folder when empty), Change… to pick one.
    private func locationRow() -> Row {
        let key = Setting.extractLocation
        let (row, change) = Widgets.folderRow(title: tr("Extract downloads and attachments to").localized)
        let show: @MainActor () -> Void = { [unowned self] in
            let value = settings.value(key)
            adw_action_row_set_subtitle(cast(row), value.isEmpty ? tr("The Downloads folder").localized : markupEscaped(value))
        }
        show()
        settings.watch(key.key, show)
        on(change, "clicked") { [unowned self] in
            let current = settings.value(key)
            let start = current.isEmpty ? FilePath(String(cString: g_get_user_special_dir(G_USER_DIRECTORY_DOWNLOAD) ?? g_get_home_dir()))
                : FilePath(current)
            FolderPicker.pick(title: tr("Extract Downloads and Attachments To").localized, parent: owner.window, startingAt: start) {
                [unowned self] folder in settings.set(key, folder.string)
            }
        }
        return Row(widget: row, key: key.key)
    }
}
