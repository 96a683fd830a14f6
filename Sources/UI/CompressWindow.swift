import ArchiverCore
import JobProtocol
public import CGtk
import Desktop
import Glibc
import SystemPackage

/// The Compress… window: name (with the final, conflict-free name shown live), folder, format, level,
/// Encrypt and Split into parts; then the job's progress and its result in the same window.
@MainActor
public final class CompressWindow: AppWindow {
    /// The formats offered, with the line that says what each is for; single streams only for one file.
    static func formats(singleFile: Bool) -> [(ArchiveFormat, Text)] {
        var list: [(ArchiveFormat, Text)] = [
            (.zip, tr("zip — opens everywhere")),
            (.sevenZip, tr("7z — smallest; encryption hides the names too")),
            (.tarGz, tr("tar.gz — common on Linux and macOS")),
            (.tarXz, tr("tar.xz — small, slower")),
            (.tarZst, tr("tar.zst — fast and small")),
            (.tarBz2, tr("tar.bz2 — for older systems")),
            (.tar, tr("tar — no compression, keeps Linux permissions")),
        ]
        if singleFile {
            list += [
                (.gz, tr("gz — this one file, compressed")),
                (.xz, tr("xz — this one file, smaller")),
                (.zst, tr("zst — this one file, fast")),
                (.bz2, tr("bz2 — this one file, for older systems")),
            ]
        }
        return list
    }

    static let levels: [(CompressionLevel, Text)] = [
        (.store, tr("Store — no compression")),
        (.fast, tr("Fast")),
        (.normal, tr("Normal")),
        (.maximum, tr("Maximum — smallest, slowest")),
    ]

    private let inputs: [CompressPlan.Input]
    private let formats: [(ArchiveFormat, Text)]
    private var folder: FilePath
    /// The name field holds the name without the extension; nil until the person edits it.
    private var editedName: String?
    private var settingName = false

    private let chrome: JobWindow
    let compressButton: UnsafeMutablePointer<GtkWidget>
    /// Holds the folder row; its description, right below the name, is the final name.
    private let nameGroup: UnsafeMutablePointer<GtkWidget>
    private let nameRow: FieldRow
    private let folderRow: UnsafeMutablePointer<GtkWidget>
    private let formatRow: UnsafeMutablePointer<AdwComboRow>
    private let levelRow: UnsafeMutablePointer<AdwComboRow>
    private let encryptRow: UnsafeMutablePointer<AdwExpanderRow>
    private let passwordRow: FieldRow
    private let confirmRow: FieldRow
    private let showPassword: UnsafeMutablePointer<GtkWidget>
    private let splitRow: UnsafeMutablePointer<AdwExpanderRow>
    private let partRow: UnsafeMutablePointer<AdwComboRow>
    private let customPartRow: FieldRow
    private let commentRow: FieldRow
    private let leaveOut: LeaveOutSection
    private let portability = PortabilitySection()
    /// "Convert “x.rar” to another format": offered when the window is given one archive.
    private let convertRow: (row: UnsafeMutablePointer<GtkWidget>, toggle: UnsafeMutablePointer<GtkWidget>)?
    private let change: UnsafeMutablePointer<GtkWidget>
    private var subject: JobSubject

    /// Builds the window for `paths` (as given on the command line: absolute or relative to the current folder).
    public init(app: UnsafeMutablePointer<GtkApplication>, paths: [FilePath]) {
        inputs = WindowApp.inputs(paths).map { CompressPlan.Input(path: $0.path, isDirectory: $0.isDirectory) }
        let singleFile = inputs.count == 1 && !inputs[0].isDirectory
        formats = Self.formats(singleFile: singleFile)
        folder = CompressPlan.commonFolder(inputs.map(\.path))
        subject = JobSubject(inputs.map(\.path))

        // Name and folder.
        let page = adw_preferences_page_new()!
        let entryGroup = adw_preferences_group_new()!
        nameGroup = adw_preferences_group_new()
        nameRow = Widgets.fieldRow(title: tr("Archive _name").localized)
        (folderRow, change) = Widgets.folderRow(title: tr("Folder").localized)
        // Given one archive, the window also converts it: written again, in the format chosen, beside it.
        if inputs.count == 1, !inputs[0].isDirectory, let name = inputs[0].path.lastComponent, NestedArchives.opens(Array(name.string.utf8)) {
            // TRANSLATORS: %@ is the archive the window was given (x.rar); the format is chosen below.
            let convert = Widgets.switchRow(title: tr("Conve_rt “%@” to another format", name.string.replacing("_", with: "__")).localized, on: false)
            adw_preferences_group_add(cast(entryGroup), convert.row)
            convertRow = convert
        } else {
            convertRow = nil
        }
        adw_preferences_group_add(cast(entryGroup), nameRow.row)
        adw_preferences_group_add(cast(nameGroup), folderRow)

        // Format and level.
        let formatGroup = adw_preferences_group_new()!
        formatRow = Widgets.comboRow(title: tr("_Format").localized, items: formats.map(\.1.localized))
        levelRow = Widgets.comboRow(title: tr("_Level").localized, items: Self.levels.map(\.1.localized))
        adw_preferences_group_add(cast(formatGroup), cast(formatRow))
        adw_preferences_group_add(cast(formatGroup), cast(levelRow))
        // A zip's comment, as Info-ZIP's `zip -z` stores it (`unzip -z` shows it).
        commentRow = Widgets.fieldRow(title: tr("Co_mment").localized)
        adw_preferences_group_add(cast(formatGroup), commentRow.row)

        // Encrypt: password, confirm, show password.
        let optionsGroup = adw_preferences_group_new()!
        encryptRow = Widgets.switchExpander(title: tr("_Encrypt").localized, subtitle: "")
        passwordRow = Widgets.fieldRow(title: tr("_Password").localized, password: true)
        confirmRow = Widgets.fieldRow(title: tr("Con_firm password").localized, password: true)
        showPassword = adw_action_row_new()
        adw_preferences_row_set_title(cast(showPassword), tr("_Show password").localized)
        adw_preferences_row_set_use_underline(cast(showPassword), 1)
        let showSwitch = gtk_switch_new()!
        gtk_widget_set_valign(showSwitch, GTK_ALIGN_CENTER)
        adw_action_row_add_suffix(cast(showPassword), showSwitch)
        adw_action_row_set_activatable_widget(cast(showPassword), showSwitch)
        Names.set(showSwitch, tr("Show password").localized)
        for row in [passwordRow.row, confirmRow.row, showPassword] { adw_expander_row_add_row(encryptRow, row) }

        // Split into parts: presets, or a custom size.
        splitRow = Widgets.switchExpander(title: tr("S_plit into parts").localized, subtitle: tr("Off: one file").localized)
        partRow = Widgets.comboRow(
            title: tr("Part _size").localized, items: PartSize.presets.map(\.use.localized) + [tr("Custom size").localized])
        customPartRow = Widgets.fieldRow(title: tr("Custom size (such as 250M or 2G)").localized)
        gtk_widget_set_visible(customPartRow.row, 0)
        adw_expander_row_add_row(splitRow, cast(partRow))
        adw_expander_row_add_row(splitRow, customPartRow.row)
        adw_preferences_group_add(cast(optionsGroup), cast(encryptRow))
        adw_preferences_group_add(cast(optionsGroup), cast(splitRow))

        // Leave out: what the selected folders hold that nobody means to send (shown once found).
        let settings = SettingsStore.shared.load().settings
        leaveOut = LeaveOutSection(folders: inputs.filter(\.isDirectory).map(\.path), settings: settings)

        for group in [entryGroup, nameGroup, formatGroup, leaveOut.group, portability.group, optionsGroup] { adw_preferences_page_add(cast(page), cast(group)) }

        // TRANSLATORS: the Compress… window's title.
        let title = subject.say({ tr("Compress “%@”", $0) }, { ntr("Compress %ld item", "Compress %ld items", $0) }).localized
        chrome = JobWindow(app: app, title: title, width: 520, height: 620, action: tr("C_ompress").localized, form: page)
        compressButton = chrome.actionButton
        chrome.onBack = { [unowned self] in refresh() }
        chrome.formFocus = nameRow.entry

        // Starting values: the last choice in this window, else the defaults.
        let initial = settings
        let formatIndex = formats.firstIndex { $0.0 == initial.windowFormat } ?? 0
        adw_combo_row_set_selected(formatRow, guint(formatIndex))
        adw_combo_row_set_selected(levelRow, guint(Self.levels.firstIndex { $0.0 == initial.windowLevel } ?? 2))
        setNameField(defaultStem())
        updateFolder()

        // Behaviour.
        on(nameRow.entry, "changed") { [unowned self] in
            if !settingName { editedName = nameRow.text }
            refresh()
        }
        onNotify(formatRow, "selected") { [unowned self] in
            if editedName == nil { setNameField(defaultStem()) }
            refresh()
            leaveOut.showTotal()
        }
        onNotify(levelRow, "selected") { [unowned self] in
            refresh()
            leaveOut.showTotal()
        }
        onNotify(encryptRow, "enable-expansion") { [unowned self] in
            refresh()
            if adw_expander_row_get_enable_expansion(encryptRow) != 0 { gtk_widget_grab_focus(passwordRow.entry) }
        }
        onNotify(splitRow, "enable-expansion") { [unowned self] in refresh() }
        onNotify(partRow, "selected") { [unowned self] in refresh() }
        for row in [passwordRow, confirmRow, customPartRow] { on(row.entry, "changed") { [unowned self] in refresh() } }
        let switchObj = Obj(showSwitch)
        onNotify(showSwitch, "active") { [unowned self] in
            // Shown, one field is enough: the confirm field goes away (Keka #659).
            let shown = gtk_switch_get_active(cast(switchObj.p)) != 0
            Widgets.setVisible(passwordRow.entry, shown)
            gtk_widget_set_visible(confirmRow.row, shown ? 0 : 1)
            refresh()
        }
        on(change, "clicked") { [unowned self] in
            FolderPicker.pick(title: tr("Where to save the archive").localized, parent: chrome.window, startingAt: folder) { [unowned self] chosen in
                folder = chosen
                updateFolder()
                refresh()
            }
        }
        on(compressButton, "clicked") { [unowned self] in start() }
        on(chrome.window, "destroy") { [unowned self] in
            leaveOut.cancel()
            portability.cancel()
        }
        if let convertRow { onNotify(convertRow.toggle, "active") { [unowned self] in refresh() } }
        leaveOut.onChange = { [unowned self] in refresh() }
        portability.onChange = { [unowned self] in refresh() }
        leaveOut.chosen = { [unowned self] in (format, level) }

        refresh()
    }

    public func present() {
        gtk_window_present(chrome.window)
        gtk_widget_grab_focus(nameRow.entry)
    }

    // MARK: - State

    var format: ArchiveFormat { formats[Int(adw_combo_row_get_selected(formatRow))].0 }
    var level: CompressionLevel { Self.levels[Int(adw_combo_row_get_selected(levelRow))].0 }
    var encrypting: Bool { format.canEncrypt && adw_expander_row_get_enable_expansion(encryptRow) != 0 }
    var splitting: Bool { adw_expander_row_get_enable_expansion(splitRow) != 0 }
    private var passwordShown: Bool { gtk_widget_get_visible(confirmRow.row) == 0 }
    var converting: Bool { convertRow.map { gtk_switch_get_active(cast($0.toggle)) != 0 } ?? false }
    /// The comment typed, when the format keeps one (zip of one part).
    private var comment: String? {
        let text = commentRow.text
        return gtk_widget_get_visible(commentRow.row) != 0 && !text.isEmpty ? text : nil
    }

    /// The name the naming rule gives, without the format's extension ("Photos", "Archive", "report").
    private func defaultStem() -> String {
        guard let plan = try? CompressPlan.make(inputs: inputs, format: format) else { return "Archive" }
        var name = plan.archiveName
        let ext = Array(format.fileExtension.utf8)
        if name.count > ext.count, Array(name.suffix(ext.count)) == ext { name.removeLast(ext.count) }
        return name.displayName
    }

    private func setNameField(_ text: String) {
        settingName = true
        nameRow.setText(text)
        settingName = false
    }

    private func updateFolder() {
        adw_action_row_set_subtitle(cast(folderRow), markupEscaped(folder.string))
    }

    /// The part size chosen, as `--split` takes it; nil when the custom size is not a size.
    private var partSize: String? {
        let index = Int(adw_combo_row_get_selected(partRow))
        if index < PartSize.presets.count { return PartSize.presets[index].size }
        let text = customPartRow.text
        return PartSize.parse(text) != nil ? text.filter { $0 != " " } : nil
    }

    /// The archive's name as it will be written: the typed name with the format's extension, numbered
    /// "(2)", "(3)"… past what the folder already holds. Nil when the typed name cannot be a file name.
    func finalName() -> [UInt8]? {
        if converting, let source = inputs.first?.path.lastComponent {
            // What --convert names it: the archive's stem and the format's extension, numbered past what is there.
            let name = ArchiveNaming.stem(Array(source.string.utf8)) + Array(format.fileExtension.utf8)
            return (1...10_000).lazy.map { ArchiveNaming.numbered(name, isDirectory: false, attempt: $0) }.first {
                !exists(folder.appending(bytes: $0))
            }
        }
        let typed = nameRow.text.trimmingSpaces
        guard !typed.isEmpty, typed != ".", typed != "..", !typed.contains("/") else { return nil }
        guard let plan = try? CompressPlan.make(inputs: inputs, format: format, destination: .name(Array(typed.utf8))) else {
            return nil
        }
        for attempt in 1...10_000 {
            let candidate = ArchiveNaming.numbered(plan.archiveName, isDirectory: false, attempt: attempt)
            let path = folder.appending(bytes: candidate)
            if !exists(path), !(splitting && exists(folder.appending(bytes: candidate + Array(".001".utf8)))) { return candidate }
        }
        return nil
    }

    private func exists(_ path: FilePath) -> Bool {
        var info = stat()
        return lstat(path.string, &info) == 0
    }

    /// Re-derives everything shown from the fields: final name, what Encrypt offers, whether Compress can go.
    private func refresh() {
        let name = finalName()
        // TRANSLATORS: below the archive name; %@ is the file name it will really get.
        let saved = name.map { tr("Will be saved as “%@”", $0.displayName).localized } ?? tr("Type a name for the archive.").localized
        adw_preferences_group_set_description(cast(nameGroup), markupEscaped(saved))

        let canEncrypt = format.canEncrypt
        gtk_widget_set_sensitive(cast(encryptRow), canEncrypt ? 1 : 0)
        if !canEncrypt { adw_expander_row_set_enable_expansion(encryptRow, 0) }
        let encryptNote: Text =
            switch format.container {
            case .sevenZip: tr("AES-256; 7z hides the file names too")
            case .zip: tr("AES-256; the file names stay readable")
            default: tr("Only zip and 7z can be encrypted")
            }
        adw_expander_row_set_subtitle(encryptRow, markupEscaped(encryptNote.localized))
        gtk_widget_set_sensitive(cast(levelRow), format == .tar ? 0 : 1)
        // Converting: the name and folder are the archive's own, one file, no comment.
        gtk_widget_set_sensitive(nameRow.row, converting ? 0 : 1)
        gtk_widget_set_sensitive(change, converting ? 0 : 1)
        gtk_widget_set_sensitive(cast(splitRow), converting ? 0 : 1)
        if converting {
            adw_expander_row_set_enable_expansion(splitRow, 0)
            if folder != inputs[0].path.removingLastComponent() {
                folder = inputs[0].path.removingLastComponent()
                updateFolder()
            }
        }
        gtk_widget_set_visible(commentRow.row, format == .zip && !splitting && !converting ? 1 : 0)

        let custom = Int(adw_combo_row_get_selected(partRow)) == PartSize.presets.count
        gtk_widget_set_visible(customPartRow.row, custom ? 1 : 0)
        if splitting {
            let text = partSize.flatMap(PartSize.parse).map { tr("Parts of %@", .bytes($0)).localized } ?? tr("Type a size such as 250M.").localized
            adw_expander_row_set_subtitle(splitRow, markupEscaped(text))
        } else {
            adw_expander_row_set_subtitle(splitRow, markupEscaped(tr("Off: one file").localized))
        }

        var ready = name != nil
        var mismatch = false
        if encrypting {
            let password = passwordRow.text
            mismatch = !passwordShown && !confirmRow.text.isEmpty && password != confirmRow.text
            ready = ready && !password.isEmpty && (passwordShown || password == confirmRow.text)
        }
        if splitting, partSize == nil { ready = false }
        if converting, format.isSingleStream { ready = false }
        if let convertRow {
            let note = converting && format.isSingleStream
                ? tr("Choose zip, 7z or a tar format: %@ holds one file.", format.rawValue)
                : tr("Its files go into a new archive of the format below, beside it.")
            adw_action_row_set_subtitle(cast(convertRow.row), markupEscaped(note.localized))
        }
        portability.check(name.flatMap { converting ? nil : checkArguments(name: $0) })
        // Under the confirm field's title, and said with it: its name stays what it is.
        if mismatch != confirmRow.hasProblem { confirmRow.setProblem(mismatch ? tr("Passwords do not match").localized : nil) }
        gtk_widget_set_sensitive(compressButton, ready ? 1 : 0)
    }

    /// `--check` of the archive as the form would make it: its name, format, encryption, what is left out
    /// and the fixes chosen.
    private func checkArguments(name: [UInt8]) -> Arguments {
        Arguments.compress(
            inputs.map(\.path), format: format, level: level, output: folder.appending(bytes: name), split: nil, encrypt: false,
            options: ["--check"] + (encrypting ? ["--encrypt"] : []) + leaveOut.arguments + portability.arguments)
    }

    // MARK: - The job

    private func start() {
        guard gtk_widget_get_sensitive(compressButton) != 0, let name = finalName() else { return }
        let output = folder.appending(bytes: name)
        let arguments =
            converting
            ? Arguments.convert(inputs[0].path, format: format, level: level, encrypt: encrypting)
            : Arguments.compress(
                inputs.map(\.path), format: format, level: level, output: output, split: splitting ? partSize : nil, encrypt: encrypting,
                options: leaveOut.arguments + portability.arguments + (comment.map { ["--comment=\($0)"] } ?? []))
        let password = encrypting ? Array(passwordRow.text.utf8) : nil
        // Never the one-click defaults, never the password; a single-file format is not remembered.
        SettingsStore.shared.rememberChoice(format: format, level: level)
        leaveOut.remember()

        let title = subject.say({ tr("Compressing “%@”", $0) }, { ntr("Compressing %ld item", "Compressing %ld items", $0) })
        chrome.startJob(
            title: title.localized, program: "compress-with-archiver", arguments: arguments, password: password,
            notStarted: tr("compress-with-archiver could not be started.").localized
        ) { [unowned self] outcome in finished(outcome, name: name.displayName) }
    }

    private func finished(_ outcome: JobRunner.Outcome, name: String) {
        let couldNot = subject.say({ tr("Could not compress “%@”", $0) }, { ntr("Could not compress %ld item", "Could not compress %ld items", $0) })
        chrome.finish(outcome, failed: couldNot.localized) {
            guard let made = outcome.outcome(CompressOutcome.self), let first = made.outputs.first else { return nil }
            let size = first.size
            let parts = first.parts
            let output = FilePath(first.path)
            var lines: [Text] = []
            if let saving = Saving.visible(before: made.inputBytes, after: size) {
                // TRANSLATORS: the result's size line: the archive's size and how much smaller than its input.
                lines.append(tr("%1$@, %2$ld %% smaller", .bytes(size), saving))
            } else {
                lines.append(.verbatim(Formatters.bytes(size)))
            }
            if parts.count > 1 { lines.append(ntr("%ld part", "%ld parts", parts.count)) }
            if !made.renames.isEmpty {
                // TRANSLATORS: the result of the fixes chosen under "Will it open for them?".
                lines.append(ntr("%ld item renamed so that it opens everywhere", "%ld items renamed so that they open everywhere", made.renames.count))
            }
            lines.append(tr("in %@", JobWindow.shortLocation(output.removingLastComponent())))
            return JobWindow.Made(
                heading: tr("Created “%@”", output.lastComponent?.string ?? name).localized,
                body: Text.sentences(lines, separator: "\n").localized, item: output, shareable: parts.count > 1 ? nil : output)
        }
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while let c = s.first, c.isWhitespace { s = s.dropFirst() }
        while let c = s.last, c.isWhitespace { s = s.dropLast() }
        return String(s)
    }
}

/// `archiver-compress FILE…`.
public enum CompressApp {
    @MainActor
    public static func main() -> Int32 {
        WindowApp.main(id: "io.github.archiver.Compress") { app, paths in CompressWindow(app: app, paths: paths) }
    }
}
