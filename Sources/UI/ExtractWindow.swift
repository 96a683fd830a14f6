import ArchiverCore
import JobProtocol
public import CGtk
import Desktop
import Glibc
import SystemPackage

/// The Extract… window: what the archive holds as a tree with checkboxes (filled as the listing streams in),
/// the destination, the options and the password when one is needed; then the job's progress and its result
/// in the same window. The listing and the extraction are `extract-with-archiver` children.
@MainActor
public final class ExtractWindow {
    /// `damaged`: the listing broke off; what was read is shown, and nothing can be extracted (the whole
    /// archive is read to extract any of it, and a failure writes nothing).
    private enum Phase { case listing, locked, listed, damaged, failed, extracting, testing, editing }

    private let archive: FilePath
    private let name: String
    private var destination: FilePath
    private var phase = Phase.listing

    private let chrome: JobWindow
    private let tree = EntryTreeView()
    private let extractButton: UnsafeMutablePointer<GtkWidget>
    private let summary: OpaquePointer
    private let message: OpaquePointer
    private let details = DetailsExpander()
    private let passwordGroup: UnsafeMutablePointer<GtkWidget>
    private let passwordRow: FieldRow
    private let destinationRow: UnsafeMutablePointer<GtkWidget>
    private let trashSwitch: UnsafeMutablePointer<GtkWidget>
    private let junkSwitch: UnsafeMutablePointer<GtkWidget>
    private let nestedSwitch: UnsafeMutablePointer<GtkWidget>
    private let testButton: UnsafeMutablePointer<GtkWidget>
    /// "⋮" at the header line's end: Test, Properties, Add Files…, Rename…, Delete….
    private let menuButton: UnsafeMutablePointer<GtkWidget>
    private let addButton: UnsafeMutablePointer<GtkWidget>
    private let renameButton: UnsafeMutablePointer<GtkWidget>
    private let deleteButton: UnsafeMutablePointer<GtkWidget>
    private let editing: ExtractEditing
    /// The row that last had the focus: the menu's Rename… and Delete… act on it (the menu has the focus then).
    private var lastFocused: Int?
    /// The phase a test returns to (a damaged listing can be tested too).
    private var beforeTest = Phase.listed
    private let searchToggle: UnsafeMutablePointer<GtkWidget>
    private let searchBar: UnsafeMutablePointer<GtkWidget>
    private let searchEntry: UnsafeMutablePointer<GtkWidget>
    private let propertiesToggle: UnsafeMutablePointer<GtkWidget>
    /// The tree, or the Properties view in its place.
    private let views: OpaquePointer
    private let properties = PropertiesView()
    /// Entries' bytes in memory, for the thumbnails and the quick look.
    private let entryBytes: EntryBytes
    private var quickLook: QuickLookWindow?

    /// Builds the window for `path` (absolute, or relative to the current folder) and starts listing it.
    public init(app: UnsafeMutablePointer<GtkApplication>, path: FilePath) {
        archive = WindowApp.absolute(path)
        name = archive.lastComponent?.string ?? path.string
        let settings = SettingsStore.shared.load().settings
        destination = Self.defaultDestination(for: self.archive, settings: settings)
        entryBytes = EntryBytes(archive: archive)
        tree.thumbnails = EntryThumbnails(bytes: entryBytes)

        // The total selected, what went wrong, the tree.
        let form = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12)!
        Widgets.margins(form, 18)
        summary = OpaquePointer(gtk_label_new(""))
        gtk_label_set_xalign(summary, 0)
        gtk_widget_add_css_class(cast(summary), "heading")
        message = OpaquePointer(gtk_label_new(""))
        gtk_label_set_xalign(message, 0)
        gtk_label_set_wrap(message, 1)
        gtk_label_set_wrap_mode(message, PANGO_WRAP_WORD_CHAR)
        gtk_widget_set_visible(cast(message), 0)

        // Beside the header line: Search (Ctrl+F) and a menu with Test, Properties (in the tree's place) and
        // the changes, so that the line fits a phone's 360 px at large text (the summary wraps).
        // TRANSLATORS: the Extract… window's button that reads the whole archive and checks it, writing nothing.
        testButton = Names.button(tr("Te_st").localized)
        propertiesToggle = gtk_toggle_button_new_with_mnemonic(tr("P_roperties").localized)
        Names.set(propertiesToggle, tr("P_roperties").localized)
        // TRANSLATORS: the Extract… window's menu item that adds files from the disk to the archive.
        addButton = Names.button(tr("_Add Files…").localized)
        // TRANSLATORS: the Extract… window's menu item that renames the focused entry (F2).
        renameButton = Names.button(tr("Re_name…").localized)
        // TRANSLATORS: the Extract… window's menu item that deletes entries from the archive (Delete).
        deleteButton = Names.button(tr("_Delete…").localized)
        let items = gtk_box_new(GTK_ORIENTATION_VERTICAL, 2)!
        for item in [testButton, propertiesToggle, addButton, renameButton, deleteButton] {
            gtk_widget_add_css_class(item, "flat")
            if let label = gtk_button_get_child(cast(item)) { gtk_label_set_xalign(cast(label), 0) }
            // Looking at the archive above the line, changing it below.
            if item == addButton { gtk_box_append(cast(items), gtk_separator_new(GTK_ORIENTATION_HORIZONTAL)) }
            gtk_box_append(cast(items), item)
        }
        let popover = gtk_popover_new()!
        gtk_popover_set_child(cast(popover), items)
        menuButton = gtk_menu_button_new()!
        gtk_menu_button_set_icon_name(cast(menuButton), "view-more-symbolic")
        gtk_menu_button_set_popover(cast(menuButton), popover)
        Widgets.saysWhetherOpen(menuButton)
        // TRANSLATORS: the Extract… window's menu button (⋮) holding Test, Properties, Add Files…, Rename… and Delete….
        accessibleLabel(menuButton, tr("Archive actions").localized)
        gtk_widget_set_tooltip_text(menuButton, tr("Archive actions").localized)
        searchToggle = gtk_toggle_button_new()
        gtk_button_set_icon_name(cast(searchToggle), "edit-find-symbolic")
        accessibleLabel(searchToggle, tr("Search").localized)
        gtk_widget_set_tooltip_text(searchToggle, tr("Search (Ctrl+F)").localized)
        let top = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6)!
        gtk_widget_set_hexpand(cast(summary), 1)
        gtk_label_set_wrap(summary, 1)
        gtk_label_set_wrap_mode(summary, PANGO_WRAP_WORD_CHAR)
        for child in [searchToggle, menuButton] { gtk_widget_set_valign(child, GTK_ALIGN_START) }
        for child in [widget(summary), searchToggle, menuButton] { gtk_box_append(cast(top), child) }
        searchEntry = gtk_search_entry_new()
        accessibleLabel(searchEntry, tr("Search the names").localized)
        searchBar = gtk_search_bar_new()
        gtk_search_bar_set_child(cast(searchBar), searchEntry)
        gtk_search_bar_connect_entry(cast(searchBar), cast(searchEntry))
        gtk_search_bar_set_show_close_button(cast(searchBar), 1)
        if let close = descendant(of: searchBar, named: "GtkButton") { accessibleLabel(close, tr("Close the search").localized) }
        g_object_bind_property(searchToggle.raw, "active", searchBar.raw, "search-mode-enabled", GBindingFlags(rawValue: 3))  // both ways, synced
        views = OpaquePointer(gtk_stack_new())
        JobWindow.measureShownPageOnly(views)  // Properties, filled once listed, is laid out only when shown
        gtk_stack_add_named(views, tree.root, "tree")
        gtk_stack_add_named(views, properties.root, "properties")
        gtk_widget_set_vexpand(cast(views), 1)

        // The message under the list: it speaks of the entries listed above it.
        gtk_box_append(cast(form), top)
        gtk_box_append(cast(form), searchBar)
        gtk_box_append(cast(form), cast(views))
        gtk_box_append(cast(form), cast(message))
        gtk_box_append(cast(form), details.root)

        // Password (only when needed), destination, options.
        passwordGroup = adw_preferences_group_new()
        passwordRow = Widgets.fieldRow(title: tr("_Password").localized, password: true)
        adw_preferences_group_add(cast(passwordGroup), passwordRow.row)
        gtk_widget_set_visible(passwordGroup, 0)

        let options = adw_preferences_group_new()!
        let change: UnsafeMutablePointer<GtkWidget>
        (destinationRow, change) = Widgets.folderRow(title: tr("Extract to").localized)
        let trash = Widgets.switchRow(title: tr("Move the archive to the _trash afterwards").localized, on: settings.trashArchiveAfterExtract)
        trashSwitch = trash.toggle
        let junk = Widgets.switchRow(title: tr("Skip macOS _junk").localized, on: settings.skipJunk)
        adw_action_row_set_subtitle(cast(junk.row), markupEscaped("__MACOSX, ._*, .DS_Store"))
        junkSwitch = junk.toggle
        let nested = Widgets.switchRow(title: tr("Also extract archives _inside").localized, on: settings.extractNested)
        // TRANSLATORS: under "Also extract archives inside": what is never unpacked although it is a zip inside.
        adw_action_row_set_subtitle(cast(nested.row), markupEscaped(tr("Not documents or packages such as .docx or .jar").localized))
        nestedSwitch = nested.toggle
        for row in [destinationRow, trash.row, junk.row, nested.row] { adw_preferences_group_add(cast(options), row) }
        gtk_box_append(cast(form), passwordGroup)
        gtk_box_append(cast(form), options)

        // TRANSLATORS: the Extract… window's title; %@ is the archive's name.
        let title = tr("Extract “%@”", name).localized
        chrome = JobWindow(app: app, title: title, width: 640, height: 660, action: tr("_Extract").localized, form: form)
        extractButton = chrome.actionButton
        chrome.formFocus = tree.view
        editing = ExtractEditing(archive: archive, name: name, chrome: chrome, tree: tree)
        updateDestination()

        // Behaviour.
        tree.onChange = { [unowned self] in refresh() }
        chrome.onBack = { [unowned self] in
            if phase == .extracting || phase == .editing { phase = .listed }
            refresh()
        }
        // A row: its entry opened in its application (from the mount, so that saving there changes the archive).
        tree.onActivate = { [unowned self] node in
            if let node { editing.open(node) } else { start() }
        }
        tree.onOtherKey = { [unowned self] key in
            switch key {
            case 0xFFFF, 0xFF9F: editing.delete(tree.tree.deletionTargets(focused: tree.focusedNode))  // Delete, KP_Delete
            case 0xFFBF: editing.rename(tree.focusedNode)  // F2
            default: return false
            }
            return true
        }
        tree.onDrop = { [unowned self] paths, node in
            guard phase == .listed else { return false }
            editing.add(paths, into: tree.tree.dropFolder(on: node))
            return true
        }
        onNotify(chrome.window, "focus-widget") { [unowned self] in
            guard let focus = gtk_window_get_focus(chrome.window), let node = tree.node(of: focus) else { return }
            lastFocused = node
        }
        editing.password = { [unowned self] in password }
        editing.canEdit = { [unowned self] in phase == .listed }
        editing.willChange = { [unowned self] in phase = .editing }
        editing.changed = { [unowned self] in
            gtk_search_bar_set_search_mode(cast(searchBar), 0)
            tree.reset()
            tree.thumbnails?.forget()
            lastFocused = nil
            list(password: password)
        }
        editing.say = { [unowned self] text, error in showMessage(text, error: error) }
        tree.onLook = { [unowned self] node in look(node) }
        onBool(chrome.window, "close-request") { [unowned self] in
            entryBytes.control.cancel()  // a scan for a thumbnail stops
            return false
        }
        let changeObj = Obj(change)
        tree.onTab = { [unowned self] forward in
            let next = forward
                ? (gtk_widget_get_visible(passwordGroup) != 0 ? passwordRow.entry : changeObj.p)
                : (gtk_widget_get_sensitive(extractButton) != 0 ? extractButton : chrome.headerCancel)
            return gtk_widget_grab_focus(next) != 0
        }
        on(passwordRow.entry, "changed") { [unowned self] in
            // A new try: the old "wrong password" no longer applies.
            if passwordRow.hasProblem { passwordRow.setProblem(nil) }
            refresh()
        }
        on(change, "clicked") { [unowned self] in
            FolderPicker.pick(title: tr("Extract “%@” to", name).localized, parent: chrome.window, startingAt: destination) { [unowned self] chosen in
                destination = chosen
                updateDestination()
            }
        }
        on(extractButton, "clicked") { [unowned self] in start() }
        let popoverObj = Obj(popover)
        for item in [testButton, propertiesToggle, addButton, renameButton, deleteButton] {
            on(item, "clicked") { gtk_popover_popdown(cast(popoverObj.p)) }
        }
        on(testButton, "clicked") { [unowned self] in test() }
        on(addButton, "clicked") { [unowned self] in editing.chooseFiles() }
        on(renameButton, "clicked") { [unowned self] in editing.rename(lastFocused) }
        on(deleteButton, "clicked") { [unowned self] in editing.delete(tree.tree.deletionTargets(focused: lastFocused)) }
        onNotify(propertiesToggle, "active") { [unowned self] in
            let on = gtk_toggle_button_get_active(cast(propertiesToggle)) != 0
            gtk_stack_set_visible_child_name(views, on ? "properties" : "tree")
            if on { gtk_search_bar_set_search_mode(cast(searchBar), 0) }
        }
        on(searchEntry, "search-changed") { [unowned self] in search(Widgets.text(searchEntry)) }
        onNotify(searchBar, "search-mode-enabled") { [unowned self] in
            guard gtk_search_bar_get_search_mode(cast(searchBar)) != 0 else {
                // Closed (Escape, its button): everything shows again and the tree has the focus back.
                search("")
                gtk_widget_grab_focus(tree.view)
                return
            }
            gtk_toggle_button_set_active(cast(propertiesToggle), 0)
            focusSearch()
        }
        properties.onChecksum = { [unowned self] in archive }
        // Ctrl+F opens the search, as in the file manager: a window action with the application's accelerator.
        let find = g_simple_action_new("search", nil)!
        onActivate(find) { [unowned self] in
            guard gtk_widget_get_sensitive(searchToggle) != 0 else { return }
            gtk_search_bar_set_search_mode(cast(searchBar), 1)
            focusSearch()
        }
        g_action_map_add_action(cast(chrome.window), cast(find))
        g_object_unref(find.raw)
        var accels: [UnsafePointer<CChar>?] = [UnsafePointer(strdup("<Primary>f")), nil]
        accels.withUnsafeMutableBufferPointer { gtk_application_set_accels_for_action(app, "win.search", $0.baseAddress) }
        free(UnsafeMutableRawPointer(mutating: accels[0]))

        list(password: nil)
    }

    public func present() {
        gtk_window_present(chrome.window)
        gtk_widget_grab_focus(tree.view)
    }

    // MARK: - Listing

    /// Lists the archive (with the password, for a 7z or rar whose names are encrypted); the tree fills as
    /// the entries arrive.
    private func list(password: [UInt8]?) {
        phase = .listing
        // Names that need the password to be listed: it opens their data too, for the thumbnails (a wrong
        // one only means none).
        if let password { tree.thumbnails?.unlock(password) }
        refresh()
        // Always --password-stdin, empty when there is no password yet: the child must never open a dialog.
        let started = chrome.runner.start(
            program: JobRunner.sibling("extract-with-archiver"), arguments: .list(archive), password: password,
            onEvent: { [unowned self] event in
                if case .entry(let entry) = event { tree.add(entry) }
            },
            onEnd: { [unowned self] outcome in listed(outcome) })
        if !started { listed(Self.notStarted) }
    }

    private func listed(_ outcome: JobRunner.Outcome) {
        tree.flush()
        Timings.afterNextFrame(of: tree.view, "listed")
        Timings.scrollRun(tree.root) { [unowned self] in gtk_window_destroy(chrome.window) }
        let error = outcome.outcome(ListOutcome.self)?.archives.first?.error
        let words = outcome.stderr.trimmingSpaces
        details.show(outcome.succeeded ? [] : outcome.result?.errorDetails ?? [])
        properties.show(outcome.outcome(ListOutcome.self)?.archives.first)
        Timings.searchRun(tree.view) { [unowned self] query in tree.filter(query) } done: { [unowned self] in gtk_window_destroy(chrome.window) }
        if outcome.succeeded {
            phase = .listed
            showMessage(nil)
            tree.focusFirstRow()
            if tree.tree.encrypted { gtk_widget_set_visible(passwordGroup, 1) }
        } else if error?.kind == ArchiverError.Code.password.name {
            // A 7z or rar that hides its names: the password first, then the list. A wrong one stays here.
            let first = passwordRow.text.isEmpty
            phase = .locked
            showMessage(tr("The names in “%@” are encrypted. Type its password to see them.", name).localized)
            askPassword(first ? nil : words)
        } else if tree.tree.root.nodes > 1 {
            phase = .damaged
            // TRANSLATORS: under the part of the list that could be read.
            let readable = ntr(
                "Only the %1$ld file listed above could be read; the rest of “%2$@” is damaged. Nothing can be extracted from it: Archiver writes nothing from an archive it cannot read to the end.",
                "Only the %1$ld files listed above could be read; the rest of “%2$@” is damaged. Nothing can be extracted from it: Archiver writes nothing from an archive it cannot read to the end.",
                tree.tree.root.files, name)
            showMessage(readable.localized, error: true)
        } else {
            phase = .failed
            showMessage(words.isEmpty ? tr("“%@” could not be read.", name).localized : words, error: true)
        }
        refresh()
    }

    // MARK: - State

    private func showMessage(_ text: String?, error: Bool = false) {
        gtk_label_set_text(message, text ?? "")
        gtk_widget_set_visible(cast(message), text == nil ? 0 : 1)
        if error { gtk_widget_add_css_class(cast(message), "error") } else { gtk_widget_remove_css_class(cast(message), "error") }
    }

    /// Shows the password field, with why it is asked again (stderr's "Wrong password…") when it was wrong.
    private func askPassword(_ problem: String?) {
        gtk_widget_set_visible(passwordGroup, 1)
        passwordRow.setProblem(problem)
        gtk_widget_grab_focus(passwordRow.entry)
    }

    private func updateDestination() {
        adw_action_row_set_subtitle(cast(destinationRow), markupEscaped(destination.string))
    }

    /// The header line, the tree's visibility and what the default button does and whether it can.
    private func refresh() {
        let root = tree.tree.root
        // TRANSLATORS: the Extract… window's header line: "4 of 6 files, 49.7 MB" (%2$ld selected of %1$ld).
        let total = ntr("%2$ld of %1$ld file, %3$@", "%2$ld of %1$ld files, %3$@", root.files, root.selectedFiles, .bytes(root.selectedBytes))
        switch phase {
        case .listing:
            showWhileListing(tr("Reading “%@”…", name).localized + "  " + total.localized)
        case .locked, .failed:
            gtk_label_set_text(summary, "")
        case .listed, .extracting, .testing, .editing:
            gtk_label_set_text(summary, total.localized)
        case .damaged:
            // TRANSLATORS: the Extract… window's header line when the archive is damaged: what could be read.
            gtk_label_set_text(summary, ntr("%ld file could be read, %@", "%ld files could be read, %@", root.files, .bytes(root.bytes)).localized)
        }
        gtk_widget_set_visible(cast(summary), phase == .locked || phase == .failed ? 0 : 1)
        gtk_widget_set_visible(tree.root, phase == .locked || (phase == .failed && root.nodes == 1) ? 0 : 1)
        let label = phase == .locked ? tr("_Unlock") : tr("_Extract")
        Names.relabel(extractButton, label.localized)
        let needsPassword = gtk_widget_get_visible(passwordGroup) != 0
        let ready: Bool =
            switch phase {
            case .locked: !passwordRow.text.isEmpty
            case .listed: tree.tree.anythingSelected && (!needsPassword || !passwordRow.text.isEmpty)
            default: false
            }
        gtk_widget_set_sensitive(extractButton, ready ? 1 : 0)
        // Testing reads the archive to its end: also one whose listing broke off, to say where.
        let testable = (phase == .listed || phase == .damaged) && (!needsPassword || !passwordRow.text.isEmpty)
        gtk_widget_set_sensitive(testButton, testable ? 1 : 0)
        let browsable = phase == .listed || phase == .damaged
        gtk_widget_set_sensitive(searchToggle, browsable ? 1 : 0)
        gtk_widget_set_sensitive(propertiesToggle, browsable && properties.known ? 1 : 0)
        for item in [addButton, renameButton, deleteButton] { gtk_widget_set_sensitive(item, phase == .listed ? 1 : 0) }
    }

    /// When the line last changed while listing, and whether a later change waits for its turn.
    private var listingLineShown: gint64 = 0
    private var listingLineDue = false

    /// The header line while a listing arrives, at most four times a second. The line wraps (a phone's
    /// 360 px at large text), and GTK measures a wrapping label in a row by shaping it again for each width
    /// it tries, a few hundred times a change: once per batch, that took most of the time to list 100,000
    /// entries (2.9 s against 0.8 s for `bsdtar -tf`).
    private func showWhileListing(_ line: String) {
        let now = g_get_monotonic_time()
        if now - listingLineShown >= 250_000 {
            listingLineShown = now
            gtk_label_set_text(summary, line)
        } else if !listingLineDue {
            listingLineDue = true
            Timeout.after(milliseconds: 250) { [weak self] in
                guard let self else { return }
                listingLineDue = false
                refresh()
            }
        }
    }

    private var password: [UInt8]? {
        gtk_widget_get_visible(passwordGroup) != 0 && !passwordRow.text.isEmpty ? Array(passwordRow.text.utf8) : nil
    }

    // MARK: - The job

    private func start() {
        guard gtk_widget_get_sensitive(extractButton) != 0 else { return }
        if phase == .locked {
            list(password: password)
            return
        }
        guard phase == .listed else { return }
        // The switches are always said, so they also win over the settings when off; always --password-stdin
        // (empty without a password): a missing one comes back here, never as a dialog.
        let arguments = Arguments.extract(
            archive, to: destination, entries: tree.tree.everythingSelected ? nil : tree.tree.selectedPaths,
            trash: gtk_switch_get_active(cast(trashSwitch)) != 0, skipJunk: gtk_switch_get_active(cast(junkSwitch)) != 0,
            nested: gtk_switch_get_active(cast(nestedSwitch)) != 0)
        let secret = password

        phase = .extracting
        chrome.startJob(
            title: tr("Extracting “%@”", name).localized, program: "extract-with-archiver", arguments: arguments, password: secret,
            notStarted: Self.notStarted.stderr
        ) { [unowned self] outcome in finished(outcome) }
    }

    private func finished(_ outcome: JobRunner.Outcome) {
        let result = outcome.outcome(ExtractOutcome.self)?.results.first
        if !chrome.hiddenDuringJob, outcome.exitCode == ArchiverError.Code.password.exitStatus,
            result?.error?.kind == ArchiverError.Code.password.name
        {
            // Wrong (or missing) password: back to the form, the field kept, the CLI's words under it.
            phase = .listed
            chrome.showForm()
            let typed = password != nil
            askPassword(typed ? outcome.stderr.trimmingSpaces : tr("“%@” needs a password.", name).localized)
            refresh()
            return
        }
        chrome.finish(outcome, failed: tr("Could not extract “%@”", name).localized) {
            guard let result, let path = result.output else { return nil }
            let output = FilePath(path)
            var info = stat()
            let isFile = stat(output.string, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
            let location = JobWindow.shortLocation(output.removingLastComponent())
            let lines: [Text] = [
                // TRANSLATORS: the result's size line after extracting.
                ntr("%ld file, %@", "%ld files, %@", Int(result.files), .bytes(result.bytes)),
                // TRANSLATORS: where the extracted folder (or single file) is: "into “Report” in Documents".
                tr("into “%1$@” in %2$@", output.lastComponent?.string ?? path, location),
            ]
            return JobWindow.Made(
                heading: tr("Extracted “%@”", name).localized, body: Text.sentences(lines, separator: "\n").localized,
                item: output, shareable: isFile ? output : nil)
        }
    }

    // MARK: - Test

    /// Reads the whole archive through the tool's `--test`, with the progress page and its Cancel; the
    /// verdict comes back to the form, under the list.
    private func test() {
        guard gtk_widget_get_sensitive(testButton) != 0 else { return }
        beforeTest = phase
        phase = .testing
        showMessage(nil)
        details.show([])
        chrome.startJob(
            title: tr("Testing “%@”", name).localized, program: "extract-with-archiver", arguments: .test(archive), password: password,
            notStarted: Self.notStarted.stderr
        ) { [unowned self] outcome in tested(outcome) }
    }

    private func tested(_ outcome: JobRunner.Outcome) {
        let result = outcome.outcome(TestOutcome.self)?.results.first
        let verdict = result.flatMap { Self.verdict($0, archiveName: name) }
        if chrome.hiddenDuringJob || outcome.cancelled || (verdict == nil && result?.error?.kind != ArchiverError.Code.password.name) {
            // Cancelled, or the archive could not be tested at all: the job page says so, with Back.
            phase = beforeTest
            chrome.finish(outcome, failed: tr("Could not test “%@”", name).localized) { nil }
            return
        }
        phase = beforeTest
        chrome.showForm()
        if let result, let verdict {
            showMessage(verdict.text.localized, error: !verdict.intact)
            // Each damaged entry in our words, and under it the reader's own (English, for a bug report).
            details.show(result.damaged.flatMap { [tr("“%1$@”: %2$@", $0.path, $0.reason).localized] + ($0.detail.isEmpty ? [] : ["    " + $0.detail]) })
            if verdict.intact, let password {
                tree.thumbnails?.unlock(password)
                tree.refreshThumbnails()
            }
            // Said with the menu that asked, which has the focus again.
            cgtk_accessible_set_description(cast(menuButton), verdict.text.localized)
            gtk_widget_grab_focus(menuButton)
        } else {
            askPassword(password != nil ? outcome.stderr.trimmingSpaces : tr("“%@” needs a password.", name).localized)
        }
        refresh()
    }

    /// What the window says after a test: "All 1,204 files are intact.", or the first damaged entry and how
    /// many files were checked; nil when the archive could not be tested (no verdict, only an error).
    static func verdict(_ result: TestOutcome.Archive, archiveName: String) -> (text: Text, intact: Bool)? {
        let checked = Int(result.checked)
        guard let first = result.damaged.first else {
            guard result.error == nil else { return nil }
            // TRANSLATORS: the Extract… window after Test: every file was read and its checksum matched.
            return (ntr("Its %ld file is intact.", "All %ld files are intact.", checked), true)
        }
        var text =
            first.path == archiveName || first.path.isEmpty
            // TRANSLATORS: after Test, when the archive itself (not one file in it) is damaged; %ld files were read before.
            ? ntr("The archive is damaged; %ld file was checked before the damage.", "The archive is damaged; %ld files were checked before the damage.", checked)
            // TRANSLATORS: after Test: %2$@ is the first damaged file; %1$ld files were checked in all.
            : ntr("“%2$@” is damaged; %1$ld file was checked.", "“%2$@” is damaged; %1$ld files were checked.", checked, first.path)
        if result.damaged.count > 1 {
            text = text.joined(ntr("%ld more is damaged.", "%ld more are damaged.", result.damaged.count - 1))
        }
        return (text, false)
    }

    // MARK: - Quick look

    /// Space on a file: a look at it, read in memory; false while the archive is not listed yet.
    private func look(_ node: Int) -> Bool {
        guard phase == .listed || phase == .damaged, quickLook == nil else { return false }
        let entry = tree.tree.nodes[node]
        let window = QuickLookWindow(parent: chrome.window, name: entry.name, path: tree.tree.path(node), size: entry.size, bytes: entryBytes)
        // Closed: this window again, with the focus on the row (without a window manager nothing gives it back).
        let row = gtk_window_get_focus(chrome.window).map { Obj(g_object_ref($0.raw).assumingMemoryBound(to: GtkWidget.self)) }
        window.onClose = { [unowned self] in
            quickLook = nil
            // Once the preview is gone.
            Idle.run { [unowned self] in
                gtk_window_present(chrome.window)
                if let row {
                    gtk_widget_grab_focus(row.p)
                    g_object_unref(row.p.raw)
                }
            }
        }
        quickLook = window
        window.present()
        return true
    }

    // MARK: - Search

    private var query = ""

    /// Once the bar has begun to open: grabbing the focus in the same turn fails while it is still hidden.
    private func focusSearch() {
        let entry = Obj(searchEntry)
        Idle.run { gtk_widget_grab_focus(entry.p) }
    }

    private func search(_ query: String) {
        guard query != self.query else { return }
        self.query = query
        tree.filter(query)
    }

    private static var notStarted: JobRunner.Outcome {
        .notStarted(tr("extract-with-archiver could not be started.").localized)
    }

    // MARK: - Destination

    /// Where "Extract Here" would extract (`--here`): beside the archive when that folder can be written, even
    /// a temporary one; else the extract-location setting (or Downloads).
    static func defaultDestination(for archive: FilePath, settings: ArchiverSettings) -> FilePath {
        var environment: [String: String] = [:]
        for key in ["HOME", "TMPDIR", "XDG_RUNTIME_DIR", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"] {
            if let value = getenv(key) { environment[key] = String(cString: value) }
        }
        let home = BaseFolders(environment: environment, accountHome: BaseFolders.accountHome).home
        let places = ExtractDestination(home: home, environment: environment)
        let parent = archive.removingLastComponent()
        if let resolved = realpath(parent.string, nil) {
            defer { free(resolved) }
            let beside = FilePath(String(cString: resolved))
            if places.extractsBeside(in: beside, here: true, writable: access(resolved, W_OK | X_OK) == 0) { return beside }
        }
        var contents: UnsafeMutablePointer<CChar>?
        let userDirs = g_file_get_contents(places.configFolder.appending("user-dirs.dirs").string, &contents, nil, nil) != 0
            ? takeString(contents) : nil
        return places.extractLocation(setting: settings.extractLocation, userDirs: userDirs)
    }
}

/// `archiver-extract ARCHIVE…`: one window for each archive selected.
public enum ExtractApp {
    @MainActor
    public static func main() -> Int32 {
        WindowApp.runOnePerFile(id: "io.github.archiver.Extract", usage: "archiver-extract ARCHIVE…") { app, path in
            let window = ExtractWindow(app: app, path: path)
            window.present()
            return window
        }
    }
}
