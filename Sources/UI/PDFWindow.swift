import ArchiverCore
import JobProtocol
public import CGtk
import Desktop
import Glibc
import SystemPackage

/// The Compress PDF… window: the PDF's name, pages and size; the six levels, each with what it does and the
/// size it would give this file (from `compress-pdf-with-archiver --estimate --json`, which runs while the
/// window is already shown); then the copy's progress and its result, before → after, with Try a Smaller
/// Level. The estimate and the copy are `compress-pdf-with-archiver` children.
@MainActor
public final class PDFWindow {
    private enum Phase { case estimating, locked, ready, compressing }

    private let pdf: FilePath
    private let name: String
    private let size: Int64
    private var phase = Phase.estimating
    private var pages: Int?
    private var alreadyOptimal = false
    /// The copy this window made last; the next run (Try a Smaller Level) replaces it once its own is made.
    private var previousCopy: FilePath?

    private let chrome: JobWindow
    /// The estimate runs beside the job's runner: Compress may start before it ends, and the estimate goes on.
    private let estimator = JobRunner()
    private let actionButton: UnsafeMutablePointer<GtkWidget>
    private let headerLine: OpaquePointer
    private let optimalGroup: UnsafeMutablePointer<GtkWidget>
    private let passwordGroup: UnsafeMutablePointer<GtkWidget>
    private let passwordRow: FieldRow
    private var levels: [(quality: PDFQuality, check: UnsafeMutablePointer<GtkWidget>, spinner: UnsafeMutablePointer<GtkWidget>, estimate: OpaquePointer)] = []

    /// Builds the window for `path` (absolute, or relative to the current folder) and starts the estimate.
    public init(app: UnsafeMutablePointer<GtkApplication>, path: FilePath) {
        pdf = WindowApp.absolute(path)
        name = pdf.lastComponent?.string ?? path.string
        var info = stat()
        size = stat(self.pdf.string, &info) == 0 ? Int64(info.st_size) : 0

        let page = adw_preferences_page_new()!

        // Name, then pages and size.
        let headerGroup = adw_preferences_group_new()!
        let header = gtk_box_new(GTK_ORIENTATION_VERTICAL, 4)!
        let title = OpaquePointer(gtk_label_new(name)!)
        gtk_widget_add_css_class(cast(title), "title-2")
        gtk_label_set_wrap(title, 1)
        gtk_label_set_wrap_mode(title, PANGO_WRAP_WORD_CHAR)
        gtk_label_set_xalign(title, 0)
        headerLine = OpaquePointer(gtk_label_new(PDFChoice.header(size: size, pages: nil).localized)!)
        gtk_widget_add_css_class(cast(headerLine), "dim-label")
        gtk_label_set_xalign(headerLine, 0)
        gtk_box_append(cast(header), cast(title))
        gtk_box_append(cast(header), cast(headerLine))
        adw_preferences_group_add(cast(headerGroup), header)

        // "Already optimal", up front when no level would help.
        optimalGroup = adw_preferences_group_new()
        let optimalRow = adw_action_row_new()!
        adw_preferences_row_set_title(cast(optimalRow), tr("Already optimal").localized)
        // TRANSLATORS: Compress PDF…, when no level would make the PDF meaningfully smaller.
        adw_action_row_set_subtitle(cast(optimalRow), markupEscaped(tr("No level would make this PDF meaningfully smaller: it is already compact.").localized))
        adw_action_row_add_prefix(cast(optimalRow), gtk_image_new_from_icon_name("emblem-ok-symbolic"))
        adw_preferences_group_add(cast(optimalGroup), optimalRow)
        gtk_widget_set_visible(optimalGroup, 0)

        // The password, only for an encrypted PDF.
        passwordGroup = adw_preferences_group_new()
        passwordRow = Widgets.fieldRow(title: tr("_Password").localized, password: true)
        adw_preferences_group_add(cast(passwordGroup), passwordRow.row)
        gtk_widget_set_visible(passwordGroup, 0)

        // The six levels: a radio each, what it does, and its estimate for this file.
        let levelGroup = adw_preferences_group_new()!
        // TRANSLATORS: Compress PDF…, the title above the six levels.
        adw_preferences_group_set_title(cast(levelGroup), tr("Quality").localized)
        var first: UnsafeMutablePointer<GtkWidget>?
        for quality in PDFQuality.allCases {
            let row = adw_action_row_new()!
            let label = quality.name.localized
            adw_preferences_row_set_title(cast(row), label)
            adw_action_row_set_subtitle(cast(row), markupEscaped(PDFChoice.summary(of: quality).localized))
            let check = Self.radioButton()
            if let first { gtk_check_button_set_group(cast(check), cast(first)) } else { first = check }
            gtk_widget_set_valign(check, GTK_ALIGN_CENTER)
            adw_action_row_add_prefix(cast(row), check)
            adw_action_row_set_activatable_widget(cast(row), check)
            accessibleLabel(check, label)  // after: the row's relation would make GTK 4.8 say the title twice
            let spinner = gtk_spinner_new()!
            gtk_spinner_start(cast(spinner))
            accessibleLabel(spinner, tr("Estimating").localized)
            let estimate = OpaquePointer(gtk_label_new("")!)
            gtk_widget_add_css_class(cast(estimate), "numeric")
            gtk_widget_set_visible(cast(estimate), 0)
            adw_action_row_add_suffix(cast(row), spinner)
            adw_action_row_add_suffix(cast(row), cast(estimate))
            adw_preferences_group_add(cast(levelGroup), row)
            levels.append((quality, check, spinner, estimate))
        }

        for group in [headerGroup, optimalGroup, passwordGroup, levelGroup] { adw_preferences_page_add(cast(page), cast(group)) }

        // TRANSLATORS: the Compress PDF… window's title; %@ is the PDF's name.
        chrome = JobWindow(
            app: app, title: tr("Compress “%@”", name).localized, width: 560, height: 680, action: tr("C_ompress").localized,
            form: page)
        actionButton = chrome.actionButton
        chrome.onBack = { [unowned self] in
            phase = .ready
            refresh()
        }
        select(SettingsStore.shared.value(.pdfQuality))

        on(passwordRow.entry, "changed") { [unowned self] in
            if passwordRow.hasProblem { passwordRow.setProblem(nil) }
            refresh()
        }
        on(actionButton, "clicked") { [unowned self] in act() }
        on(chrome.window, "destroy") { [unowned self] in estimator.cancel() }

        estimate(password: nil)
    }

    /// A check button that assistive technology reads as a radio button (GTK 4.8 calls a grouped one a check box).
    private static func radioButton() -> UnsafeMutablePointer<GtkWidget> {
        var role = GValue()
        g_value_init(&role, gtk_accessible_role_get_type())
        g_value_set_enum(&role, gint(GTK_ACCESSIBLE_ROLE_RADIO.rawValue))
        defer { g_value_unset(&role) }
        var names: [UnsafePointer<CChar>?] = [UnsafePointer(strdup("accessible-role"))]
        defer { free(UnsafeMutableRawPointer(mutating: names[0])) }
        let object = g_object_new_with_properties(gtk_check_button_get_type(), 1, &names, &role)!
        return cast(object)
    }

    public func present() {
        gtk_window_present(chrome.window)
        gtk_widget_grab_focus(actionButton)
    }

    // MARK: - State

    var quality: PDFQuality {
        levels.first { gtk_check_button_get_active(cast($0.check)) != 0 }?.quality ?? .standard
    }

    private func select(_ quality: PDFQuality) {
        guard let level = levels.first(where: { $0.quality == quality }) else { return }
        gtk_check_button_set_active(cast(level.check), 1)
    }

    private var password: [UInt8]? {
        gtk_widget_get_visible(passwordGroup) != 0 && !passwordRow.text.isEmpty ? Array(passwordRow.text.utf8) : nil
    }

    /// The default button: Unlock for a locked PDF, Close when no level would help, else Compress.
    private func refresh() {
        let label: Text =
            switch phase {
            case .locked: tr("_Unlock")
            case _ where alreadyOptimal: tr("_Close")
            default: tr("C_ompress")
            }
        Names.relabel(actionButton, label.localized)
        gtk_widget_set_visible(chrome.headerCancel, alreadyOptimal && phase != .locked ? 0 : 1)
        let ready =
            switch phase {
            case .locked: !passwordRow.text.isEmpty
            case .estimating, .ready: true
            case .compressing: false
            }
        gtk_widget_set_sensitive(actionButton, ready ? 1 : 0)
    }

    private func act() {
        guard gtk_widget_get_sensitive(actionButton) != 0 else { return }
        switch phase {
        case .locked: estimate(password: password)
        case _ where alreadyOptimal: gtk_window_close(chrome.window)
        case .estimating, .ready: start()
        case .compressing: break
        }
    }

    // MARK: - The estimate

    /// Estimates every level (with the password, for an encrypted PDF); the rows fill when it ends.
    private func estimate(password: [UInt8]?) {
        phase = .estimating
        for level in levels {
            gtk_widget_set_visible(level.spinner, 1)
            gtk_widget_set_visible(cast(level.estimate), 0)
        }
        refresh()
        // Always --password-stdin, empty when there is no password yet: the child must never open a dialog.
        let started = estimator.start(
            program: JobRunner.sibling("compress-pdf-with-archiver"),
            arguments: .estimatePDF(pdf), password: password,
            onEvent: { _ in }, onEnd: { [unowned self] outcome in estimated(outcome, withPassword: password != nil) })
        if !started { estimated(.notStarted(""), withPassword: false) }
    }

    private func estimated(_ outcome: JobRunner.Outcome, withPassword: Bool) {
        // Compress may have started meanwhile: the rows still fill in for Try a Smaller Level, the rest waits.
        let busy = phase == .compressing
        let result = outcome.outcome(PDFEstimateOutcome.self)
        let error = result?.error
        if outcome.exitCode == ExitStatus.success, let result {
            if !busy { phase = .ready }
            gtk_widget_set_visible(passwordGroup, password == nil ? 0 : 1)
            if let count = result.pages { pages = Int(count) }
            gtk_label_set_text(headerLine, PDFChoice.header(size: size, pages: pages).localized)
            let original = result.size ?? size
            for (level, value) in zip(levels, result.levels) {
                show(PDFChoice.estimate(original: original, estimated: value.estimatedSize, helps: value.helps).localized, in: level)
            }
            alreadyOptimal = result.alreadyOptimal
            gtk_widget_set_visible(optimalGroup, alreadyOptimal ? 1 : 0)
        } else if busy {
            for level in levels { show("", in: level) }
            return
        } else if error?.kind == ArchiverError.Code.password.name {
            // Encrypted: the password first, then the estimate. A wrong one stays here with the CLI's words.
            let first = !withPassword
            phase = .locked
            gtk_widget_set_visible(passwordGroup, 1)
            // TRANSLATORS: Compress PDF…, above the password field of an encrypted PDF.
            // The CLI's first sentence ("Wrong password for …"); its hint is about the command line.
            let wrong = outcome.stderr.trimmingSpaces.split(separator: "\n").first.map(String.init) ?? ""
            let why = first ? tr("“%@” is encrypted. Type its password to compress it.", name).localized : wrong
            if first {
                adw_preferences_group_set_description(cast(passwordGroup), markupEscaped(why))
            } else {
                // Wrong: said with the field, under its title, until the person types again.
                passwordRow.setProblem(why)
            }
            for level in levels { show("", in: level) }
            gtk_widget_grab_focus(passwordRow.entry)
        } else if error != nil || outcome.exitCode != 0 && outcome.exitCode != 127 && outcome.exitCode != 2 {
            // A PDF that cannot be opened: the CLI's own words, and nothing to choose.
            let words = outcome.stderr.trimmingSpaces
            chrome.showError(heading: tr("Could not open “%@”", name).localized, message: words.isEmpty ? tr("“%@” could not be read.", name).localized : words)
            return  // the header's buttons stay hidden: Close is on the page
        } else {
            // No estimate (the tool could not run it): the levels still work, without their sizes.
            phase = .ready
            for level in levels { show("", in: level) }
        }
        refresh()
    }

    private func show(_ text: String, in level: (quality: PDFQuality, check: UnsafeMutablePointer<GtkWidget>, spinner: UnsafeMutablePointer<GtkWidget>, estimate: OpaquePointer)) {
        gtk_widget_set_visible(level.spinner, 0)
        gtk_label_set_text(level.estimate, text)
        gtk_widget_set_visible(cast(level.estimate), text.isEmpty ? 0 : 1)
    }

    // MARK: - The copy

    private func start() {
        let quality = quality
        // The window's previous copy steps aside (hidden, same folder) so the new one takes its name; it is
        // removed when the new copy is made, and comes back if not.
        let aside = previousCopy.flatMap(stepAside)
        phase = .compressing
        refresh()
        chrome.startJob(
            title: tr("Compressing “%@”", name).localized, program: "compress-pdf-with-archiver", arguments: .compressPDF(pdf, quality: quality),
            password: password, notStarted: tr("compress-pdf-with-archiver could not be started.").localized
        ) { [unowned self] outcome in finished(outcome, quality: quality, aside: aside) }
    }

    /// Renames `copy` to a hidden name beside it; returns both names, or nil when it is gone.
    private func stepAside(_ copy: FilePath) -> (copy: FilePath, aside: FilePath)? {
        guard let last = copy.lastComponent?.string else { return nil }
        let aside = copy.removingLastComponent().appending(".\(last).previous-\(getpid())")
        return rename(copy.string, aside.string) == 0 ? (copy, aside) : nil
    }

    private func finished(_ outcome: JobRunner.Outcome, quality: PDFQuality, aside: (copy: FilePath, aside: FilePath)?) {
        phase = .ready
        let item = outcome.outcome(PDFOutcome.self)?.results.first
        let output = item?.output.map { FilePath($0) }
        if let aside {
            // Replaced by the new copy, or back under its name.
            if outcome.succeeded, output != nil { unlink(aside.aside.string) } else { rename(aside.aside.string, aside.copy.string) }
        }
        if output != nil || !outcome.succeeded { previousCopy = output ?? previousCopy }
        let smaller = PDFChoice.smaller(than: quality)
        var more: [(String, @MainActor () -> Void)] = []
        if let smaller {
            more.append((tr("_Try a Smaller Level").localized, { [unowned self] in
                select(smaller)
                chrome.showForm()
                refresh()
            }))
        }
        chrome.finish(outcome, failed: tr("Could not compress “%@”", name).localized) {
            guard let item else { return nil }
            let before = item.inputBytes ?? size
            let after = item.outputBytes ?? 0
            let pageCount = item.pages.map(Int.init) ?? pages ?? 0
            let textKept = item.textKept
            guard let output else {
                // No copy: it would not have been smaller.
                let lines: [Text] = [
                    // TRANSLATORS: Compress PDF…'s result when no copy was made; %1$@ is a level (“Medium”), %2$@ the size the copy would have had.
                    tr("At %1$@ the copy would not be smaller (%2$@); the original is kept.", quality.name, .bytes(after)),
                ]
                return JobWindow.Made(
                    heading: tr("“%@” is already optimal", name).localized, body: Text.sentences(lines, separator: "\n").localized,
                    item: pdf, shareable: nil, more: more)
            }
            let lines: [Text] = [
                PDFChoice.sizes(before: before, after: after),
                PDFChoice.pages(pageCount, textKept: textKept),
                // TRANSLATORS: Compress PDF…'s result: the copy's name and folder.
                tr("Saved as “%1$@” in %2$@", output.lastComponent?.string ?? "", output.removingLastComponent()),
            ]
            return JobWindow.Made(
                heading: tr("Compressed “%@”", name).localized, body: Text.sentences(lines, separator: "\n").localized,
                item: output, shareable: output, more: more)
        }
    }
}

/// `archiver-compress-pdf FILE.pdf…`: one window for each PDF.
public enum CompressPDFApp {
    @MainActor
    public static func main() -> Int32 {
        WindowApp.runOnePerFile(id: "io.github.archiver.CompressPdf", usage: "archiver-compress-pdf FILE.pdf…") { app, path in
            let window = PDFWindow(app: app, path: path)
            window.present()
            return window
        }
    }
}
