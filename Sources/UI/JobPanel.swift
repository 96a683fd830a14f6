import ArchiverCore
import JobProtocol
public import CGtk
import Desktop
import Platform
import SystemPackage

/// The second and third pages of every window: progress (bar with percent, rate, time left, Cancel), then
/// the result (what was made, where, size and saving, with Open folder, Open and Share…), or the error in
/// the words the command-line tool wrote on stderr.
@MainActor
public final class JobPanel {
    /// The panel's root, for a GtkStack page.
    public let root: UnsafeMutablePointer<GtkWidget>

    private let progressPage: UnsafeMutablePointer<GtkWidget>
    private let resultPage: UnsafeMutablePointer<GtkWidget>
    private let stack: OpaquePointer
    private let title: OpaquePointer
    private let bar: OpaquePointer
    private let detail: OpaquePointer
    private let status: OpaquePointer
    private let resultButtons: UnsafeMutablePointer<GtkWidget>
    private let closeButton: UnsafeMutablePointer<GtkWidget>
    private let details = DetailsExpander()
    /// Cancel on the progress page.
    public let cancelButton: UnsafeMutablePointer<GtkWidget>
    private var item: FilePath?
    private var lastEvent: Double = 0

    /// Called when Cancel is pressed during the job.
    public var onCancel: () -> Void = {}
    /// Called by Close on the result page (or on an error).
    public var onClose: () -> Void = {}

    public init() {
        stack = OpaquePointer(gtk_stack_new())
        JobWindow.measureShownPageOnly(stack)
        root = cast(stack)

        // Progress.
        let box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12)!
        progressPage = box
        for set in [gtk_widget_set_margin_top, gtk_widget_set_margin_bottom, gtk_widget_set_margin_start, gtk_widget_set_margin_end] {
            set(box, 24)
        }
        gtk_widget_set_valign(box, GTK_ALIGN_CENTER)
        title = OpaquePointer(gtk_label_new(""))
        gtk_widget_add_css_class(cast(title), "title-3")
        gtk_label_set_wrap(title, 1)
        gtk_label_set_wrap_mode(title, PANGO_WRAP_WORD_CHAR)
        bar = OpaquePointer(gtk_progress_bar_new())
        gtk_progress_bar_set_show_text(bar, 1)
        detail = OpaquePointer(gtk_label_new(""))
        gtk_widget_add_css_class(cast(detail), "dim-label")
        gtk_widget_add_css_class(cast(detail), "numeric")
        cancelButton = Names.button(tr("_Cancel").localized)
        gtk_widget_set_halign(cancelButton, GTK_ALIGN_CENTER)
        for child in [widget(title), widget(bar), widget(detail), cancelButton] { gtk_box_append(cast(box), child) }
        gtk_stack_add_named(stack, box, "progress")

        // Result or error.
        let result = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!
        resultPage = result
        status = cast(adw_status_page_new())
        gtk_widget_set_vexpand(cast(status), 1)
        gtk_widget_add_css_class(cast(status), "compact")
        resultButtons = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6)
        gtk_widget_set_halign(resultButtons, GTK_ALIGN_CENTER)
        closeButton = Names.button(tr("_Close").localized)
        let actions = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6)!
        gtk_widget_set_halign(actions, GTK_ALIGN_CENTER)
        gtk_widget_set_margin_bottom(actions, 18)
        gtk_box_append(cast(actions), resultButtons)
        gtk_box_append(cast(actions), closeButton)
        gtk_box_append(cast(result), cast(status))
        gtk_widget_set_halign(details.root, GTK_ALIGN_CENTER)
        gtk_widget_set_margin_bottom(details.root, 12)
        for set in [gtk_widget_set_margin_start, gtk_widget_set_margin_end] { set(details.root, 24) }
        gtk_box_append(cast(result), details.root)
        gtk_box_append(cast(result), actions)
        gtk_stack_add_named(stack, result, "result")

        on(cancelButton, "clicked") { [unowned self] in
            gtk_widget_set_sensitive(cancelButton, 0)
            gtk_label_set_text(detail, tr("Cancelling…").localized)
            onCancel()
        }
        on(closeButton, "clicked") { [unowned self] in onClose() }
    }

    /// Shows the progress page: "Compressing “Photos”…" and an empty bar.
    public func showProgress(title text: String) {
        gtk_label_set_text(title, text)
        gtk_progress_bar_set_fraction(bar, 0)
        gtk_progress_bar_set_text(bar, nil)
        gtk_label_set_text(detail, " ")
        gtk_widget_set_sensitive(cancelButton, 1)
        gtk_stack_set_visible_child(stack, progressPage)
        accessibleLabel(bar, text)
        gtk_widget_grab_focus(cancelButton)
    }

    /// One progress event from the child.
    public func update(done: Int64, total: Int64?, fraction: Double?, rate: Double?, remaining: Double?) {
        guard gtk_widget_get_sensitive(cancelButton) != 0 else { return }
        if let fraction {
            gtk_progress_bar_set_fraction(bar, fraction)
            gtk_progress_bar_set_text(bar, tr("%ld%%", Int(fraction * 100)).localized)
        } else {
            gtk_progress_bar_pulse(bar)
        }
        // The same line as the terminal's, minus the percent the bar already shows.
        let snapshot = ProgressMeter.Snapshot(done: done, total: total, fraction: nil, rate: rate ?? 0, remaining: remaining)
        gtk_label_set_text(detail, HumanFormat.progressLine(snapshot).localized)
    }

    /// The result page after success.
    /// - Parameters:
    ///   - heading: "Created “Holiday.zip”".
    ///   - body: size, saving and folder, one per line.
    ///   - item: what Open opens and Open folder shows selected.
    ///   - shareable: a single file that can be mailed and copied (nil for a folder or split parts).
    ///   - more: buttons after these, as (mnemonic label, action) (Compress PDF…'s "Try a Smaller Level").
    public func showResult(
        heading: String, body: String, item: FilePath, shareable: FilePath?, more: [(String, @MainActor () -> Void)] = []
    ) {
        self.item = item
        adw_status_page_set_icon_name(status, "emblem-ok-symbolic")
        adw_status_page_set_title(status, heading)
        adw_status_page_set_description(status, markupEscaped(body))
        details.show([])
        clear(resultButtons)
        addButton(tr("Open _Folder").localized) { Reveal.show(item) }
        addButton(tr("_Open").localized) { Self.open(item) }
        if let shareable { addShareButton(shareable) }
        for (label, action) in more { addButton(label, action) }
        gtk_stack_set_visible_child(stack, resultPage)
        gtk_widget_grab_focus(closeButton)
    }

    /// The result page after a failure or a cancel: the child's own words, and Back to the form (to choose
    /// another folder, format or password) when `back` is given.
    /// - Parameter cancelled: the person stopped it: a stop sign, not the failure's.
    /// - Parameter details: the libraries' own words, under Details (closed).
    public func showError(
        heading: String, message: String, cancelled: Bool = false, details: [String] = [], back: (@MainActor () -> Void)? = nil
    ) {
        adw_status_page_set_icon_name(status, cancelled ? "process-stop-symbolic" : "dialog-error-symbolic")
        adw_status_page_set_title(status, heading)
        adw_status_page_set_description(status, markupEscaped(message))
        self.details.show(details)
        clear(resultButtons)
        // TRANSLATORS: on the error page of the Compress… and Extract… windows: back to the choices.
        if let back { addButton(tr("_Back").localized, back) }
        gtk_stack_set_visible_child(stack, resultPage)
        gtk_widget_grab_focus(closeButton)
    }

    // MARK: - Buttons

    /// One more button on the result page (Compress Photos…' Compare), after `showResult`.
    public func addResultButton(_ label: String, _ action: @escaping @MainActor () -> Void) {
        addButton(label, action)
    }

    private func addButton(_ label: String, _ action: @escaping @MainActor () -> Void) {
        let button = Names.button(label)
        gtk_box_append(cast(resultButtons), button)
        on(button, "clicked", action)
    }

    private func addShareButton(_ file: FilePath) {
        gtk_box_append(cast(resultButtons), Share.button(file, label: tr("_Share…").localized))
    }

    private func clear(_ box: UnsafeMutablePointer<GtkWidget>) {
        while let child = gtk_widget_get_first_child(box) { gtk_box_remove(cast(box), child) }
    }

    /// The result as a desktop notification, for a window closed while its job ran: the tools' notifier,
    /// named after this window's launcher; returns once the server has it (the process ends next).
    static func notify(summary: String, body: String) {
        let app = g_application_get_default().flatMap { g_application_get_application_id($0) }.map { String(cString: $0) }
        Notifier.connect(desktopEntry: app)?.show(summary: summary, body: body, wait: true)
    }

    /// Opens a file or folder with its default application.
    static func open(_ item: FilePath) {
        let file = item.string.withCString { g_file_new_for_path($0) }
        defer { g_object_unref(file.map { UnsafeMutableRawPointer($0) }) }
        guard let uri = takeString(g_file_get_uri(file)) else { return }
        g_app_info_launch_default_for_uri_async(uri, nil, nil, nil, nil)
    }
}

/// Text for a widget that reads Pango markup (AdwStatusPage's description): `<`, `&` and friends as text.
func markupEscaped(_ text: String) -> String {
    takeString(g_markup_escape_text(text, -1)) ?? ""
}
