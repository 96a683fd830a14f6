import ArchiverCore
import JobProtocol
import CGtk
import Glibc
import SystemPackage

/// What the Compress… and Extract… windows share around their own form: the header (Cancel, the default
/// button), the form and job pages, Escape, and a job that goes on when the window is closed.
@MainActor
final class JobWindow {
    let window: UnsafeMutablePointer<GtkWindow>
    let headerCancel: UnsafeMutablePointer<GtkWidget>
    /// Compress or Extract: the default button, at the header's end.
    let actionButton: UnsafeMutablePointer<GtkWidget>
    let panel = JobPanel()
    let runner = JobRunner()
    private let pages: OpaquePointer
    /// The runner also lists (Extract…): only a job, not a listing, outlives its window.
    private var jobRunning = false
    /// Closed while the job ran: the window is hidden, so the result comes as a notification, as from a menu.
    private(set) var hiddenDuringJob = false

    /// The window with `form` as the page shown first and `action` as the default button's label.
    init(app: UnsafeMutablePointer<GtkApplication>, title: String, width: Int32, height: Int32, action: String,
         form: UnsafeMutablePointer<GtkWidget>)
    {
        window = cast(adw_application_window_new(app)!)
        gtk_window_set_title(window, title)
        gtk_window_set_default_size(window, width, height)

        // Header: Cancel at the start, the action (the default button) at the end; no title buttons.
        let header = adw_header_bar_new()!
        adw_header_bar_set_show_end_title_buttons(cast(header), 0)
        adw_header_bar_set_show_start_title_buttons(cast(header), 0)
        headerCancel = Names.button(tr("_Cancel").localized)
        actionButton = Names.button(action)
        gtk_widget_add_css_class(actionButton, "suggested-action")
        adw_header_bar_pack_start(cast(header), headerCancel)
        adw_header_bar_pack_end(cast(header), actionButton)
        adw_header_bar_set_title_widget(cast(header), Self.title(of: window))
        gtk_window_set_default_widget(window, actionButton)

        pages = OpaquePointer(gtk_stack_new())
        Self.measureShownPageOnly(pages)
        gtk_stack_add_named(pages, form, "form")
        gtk_stack_add_named(pages, panel.root, "job")
        let content = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!
        gtk_box_append(cast(content), header)
        gtk_widget_set_vexpand(cast(pages), 1)
        gtk_box_append(cast(content), cast(pages))
        adw_application_window_set_content(cast(window), content)

        on(headerCancel, "clicked") { [unowned self] in gtk_window_close(window) }
        panel.onCancel = { [unowned self] in runner.cancel() }
        panel.onClose = { [unowned self] in gtk_window_destroy(window) }
        onBool(window, "close-request") { [unowned self] in closeRequested() }

        // Escape closes (the form's Cancel); Enter in a field presses the default button.
        let shortcuts = gtk_shortcut_controller_new()!
        gtk_shortcut_controller_add_shortcut(
            cast(shortcuts), gtk_shortcut_new(gtk_shortcut_trigger_parse_string("Escape"), gtk_named_action_new("window.close")))
        gtk_widget_add_controller(cast(window), shortcuts)
    }

    /// The window's title, shortened while a few characters fit between the buttons, else left out: with text at
    /// 1.5×, the title's "Com…" beside Cancel and Compress held the window at 383 px, wider than a phone (issue 33).
    private static func title(of window: UnsafeMutablePointer<GtkWindow>) -> UnsafeMutablePointer<GtkWidget> {
        let label = gtk_label_new(nil)!
        gtk_label_set_ellipsize(cast(label), PANGO_ELLIPSIZE_END)
        gtk_label_set_width_chars(cast(label), 8)
        gtk_label_set_single_line_mode(cast(label), 1)
        gtk_widget_add_css_class(label, "title")
        g_object_bind_property(window.raw, "title", label.raw, "label", G_BINDING_SYNC_CREATE)
        let squeezer = adw_squeezer_new()!
        adw_squeezer_set_switch_threshold_policy(cast(squeezer), ADW_FOLD_THRESHOLD_POLICY_MINIMUM)
        adw_squeezer_set_homogeneous(cast(squeezer), 0)
        adw_squeezer_add(cast(squeezer), label)
        adw_squeezer_add(cast(squeezer), gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 0))
        return squeezer
    }

    /// A stack sized by the page it shows, not by the largest: a homogeneous one (GTK's default) measures and
    /// lays out its hidden pages too, the job and result pages' text before the form could be seen (start-up,
    /// issue 33).
    static func measureShownPageOnly(_ stack: OpaquePointer) {
        gtk_stack_set_hhomogeneous(stack, 0)
        gtk_stack_set_vhomogeneous(stack, 0)
    }

    /// After Back on the error page, with the form shown again.
    var onBack: () -> Void = {}

    /// Back from the job to the form (Extract…'s wrong password, Back after an error).
    func showForm() {
        // Off the job page's buttons first: GTK 4.8 would leave them saying "focused" over AT-SPI once hidden.
        gtk_window_set_focus(window, nil)
        gtk_stack_set_visible_child_name(pages, "form")
        gtk_widget_set_visible(actionButton, 1)
        gtk_widget_set_visible(headerCancel, 1)
        // GTK dropped the button as the default while it was hidden: Enter in a field would do nothing.
        gtk_window_set_default_widget(window, actionButton)
        if let formFocus { gtk_widget_grab_focus(formFocus) }
    }

    /// What has the keyboard focus when the form comes back (the focus was on the job page's buttons).
    var formFocus: UnsafeMutablePointer<GtkWidget>?

    /// Runs `program` (a sibling executable) with the progress page shown; `onEnd` also gets the outcome of
    /// a child that could not be started, with `notStarted` as its words.
    /// - Parameter lowPriority: see `JobRunner.start`.
    /// - Parameter inPlace: the window shows the progress itself, on its form (Compress Photos…: the grid
    ///   fills as photos finish), and `onEvent` gets every event; the result page comes with `finish`.
    func startJob(
        title: String, program: String, arguments: Arguments, password: [UInt8]?, notStarted: String,
        inPlace: Bool = false, lowPriority: Bool = false, onEvent: @escaping @MainActor (JobRunner.Event) -> Void = { _ in },
        onEnd: @escaping @MainActor (JobRunner.Outcome) -> Void
    ) {
        if !inPlace {
            panel.showProgress(title: title)
            gtk_stack_set_visible_child_name(pages, "job")
        }
        gtk_widget_set_visible(actionButton, 0)
        gtk_widget_set_visible(headerCancel, 0)
        jobRunning = true
        let started = runner.start(
            program: JobRunner.sibling(program), arguments: arguments, password: password, lowPriority: lowPriority,
            onEvent: { [unowned self] event in
                if !inPlace, case .progress(let progress) = event {
                    panel.update(
                        done: progress.done, total: progress.total, fraction: progress.fraction, rate: progress.rate.map(Double.init),
                        remaining: progress.remaining)
                }
                onEvent(event)
            },
            onEnd: { [unowned self] outcome in
                jobRunning = false
                onEnd(outcome)
            })
        if !started {
            jobRunning = false
            onEnd(.notStarted(notStarted))
        }
    }

    /// What a finished job made, for the result page.
    struct Made {
        var heading: String
        var body: String
        var item: FilePath
        var shareable: FilePath?
        /// Buttons after Open and Share…, as (mnemonic label, action).
        var more: [(String, @MainActor () -> Void)] = []
    }

    /// The error page without a job (a file that cannot be opened): its words, Close, and no Back.
    func showError(heading: String, message: String) {
        panel.showError(heading: heading, message: message)
        gtk_stack_set_visible_child_name(pages, "job")
        gtk_widget_set_visible(actionButton, 0)
        gtk_widget_set_visible(headerCancel, 0)
    }

    /// Shows the job's end: what `made` gives when it succeeded (nil: nothing to show), else the error
    /// headed `failed` in the child's own words.
    func finish(_ outcome: JobRunner.Outcome, failed: String, made: () -> Made?) {
        let heading: String
        let body: String
        gtk_stack_set_visible_child_name(pages, "job")
        if outcome.succeeded, let made = made() {
            heading = made.heading
            body = made.body
            panel.showResult(heading: heading, body: body, item: made.item, shareable: made.shareable, more: made.more)
        } else {
            heading = outcome.cancelled ? tr("Cancelled").localized : failed
            body = outcome.cancelled ? Self.afterHeading(outcome.stderr.trimmingSpaces, heading) : outcome.stderr.trimmingSpaces
            panel.showError(
                heading: heading, message: body, cancelled: outcome.cancelled, details: outcome.result?.errorDetails ?? []
            ) { [unowned self] in
                showForm()
                onBack()
            }
        }
        if hiddenDuringJob {
            JobPanel.notify(summary: heading, body: body)
            gtk_window_destroy(window)
        }
    }

    /// A folder as the result page names it ("Documents/Reports", "Home"), as the file manager would.
    static func shortLocation(_ folder: FilePath) -> Text {
        let environment = getenv("HOME").map { ["HOME": String(cString: $0)] } ?? [:]
        return ShortLocation.text(folder, home: BaseFolders(environment: environment, accountHome: BaseFolders.accountHome).home)
    }

    /// The child's sentence without the word the heading already says ("Cancelled; nothing was left behind."
    /// under "Cancelled" → "Nothing was left behind."), so the page does not repeat itself.
    static func afterHeading(_ sentence: String, _ heading: String) -> String {
        guard sentence.lowercased().hasPrefix(heading.lowercased()) else { return sentence }
        let rest = sentence.dropFirst(heading.count).drop { $0 == ";" || $0 == "." || $0 == ":" || $0 == "," || $0.isWhitespace }
        guard let first = rest.first else { return "" }
        return first.uppercased() + rest.dropFirst()
    }

    /// Closing while the job runs hides the window (the job goes on, its end is announced); closing while
    /// listing stops the listing.
    private func closeRequested() -> Bool {
        guard runner.isRunning else { return false }
        guard jobRunning else {
            runner.cancel()
            return false
        }
        hiddenDuringJob = true
        gtk_widget_set_visible(cast(window), 0)
        return true
    }
}
