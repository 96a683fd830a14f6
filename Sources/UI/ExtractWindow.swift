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
    private enum Phase { case listing, locked, listed, damaged, failed, extracting }

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

    /// Builds the window for `path` (absolute, or relative to the current folder) and starts listing it.
    public init(app: UnsafeMutablePointer<GtkApplication>, path: FilePath) {
        archive = WindowApp.absolute(path)
        name = archive.lastComponent?.string ?? path.string
        let settings = SettingsStore.shared.load().settings
        destination = Self.defaultDestination(for: self.archive, settings: settings)

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
        // The message under the list: it speaks of the entries listed above it.
        gtk_box_append(cast(form), cast(summary))
        gtk_box_append(cast(form), tree.root)
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
        for row in [destinationRow, trash.row, junk.row] { adw_preferences_group_add(cast(options), row) }
        gtk_box_append(cast(form), passwordGroup)
        gtk_box_append(cast(form), options)

        // TRANSLATORS: the Extract… window's title; %@ is the archive's name.
        let title = tr("Extract “%@”", name).localized
        chrome = JobWindow(app: app, title: title, width: 640, height: 660, action: tr("_Extract").localized, form: form)
        extractButton = chrome.actionButton
        chrome.formFocus = tree.view
        updateDestination()

        // Behaviour.
        tree.onChange = { [unowned self] in refresh() }
        chrome.onBack = { [unowned self] in
            phase = .listed
            refresh()
        }
        tree.onActivate = { [unowned self] in start() }
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
            gtk_label_set_text(summary, tr("Reading “%@”…", name).localized + "  " + total.localized)
        case .locked, .failed:
            gtk_label_set_text(summary, "")
        case .listed, .extracting:
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
            trash: gtk_switch_get_active(cast(trashSwitch)) != 0, skipJunk: gtk_switch_get_active(cast(junkSwitch)) != 0)
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
