import ArchiverCore
import JobProtocol
import CGtk
import Desktop
import Glibc
import Platform
import SystemPackage

/// The app's window: a header with the view switcher (Home, Recent, Settings) that moves to a bar at the
/// bottom when the window is narrow, the pages, and toasts over them.
@MainActor
final class MainWindow {
    enum Page: String { case home, recent, settings }

    let window: UnsafeMutablePointer<GtkWindow>
    let app: UnsafeMutablePointer<GtkApplication>
    private let stack: OpaquePointer
    private let toasts: OpaquePointer
    private var home: HomePage!
    private var recent: RecentPage!
    private var settings: SettingsPage!

    init(app: UnsafeMutablePointer<GtkApplication>) {
        self.app = app
        window = cast(adw_application_window_new(app)!)
        gtk_window_set_title(window, tr("Archiver").localized)
        gtk_window_set_default_size(window, 760, 640)
        gtk_window_set_icon_name(window, ArchiverApp.id)

        stack = cast(adw_view_stack_new()!)
        toasts = cast(adw_toast_overlay_new()!)

        let header = adw_header_bar_new()!
        let switcherTitle = adw_view_switcher_title_new()!
        adw_view_switcher_title_set_stack(cast(switcherTitle), stack)
        adw_view_switcher_title_set_title(cast(switcherTitle), tr("Archiver").localized)
        adw_header_bar_set_title_widget(cast(header), switcherTitle)
        adw_header_bar_pack_end(cast(header), Self.mainMenu())

        let switcherBar = adw_view_switcher_bar_new()!
        adw_view_switcher_bar_set_stack(cast(switcherBar), stack)
        // Narrow: the title shows the name only, and the switcher moves to the bottom bar. A bar out of
        // sight is also hidden, so assistive technology sees one switcher, not two.
        let bar = Obj(switcherBar), title = Obj(switcherTitle)
        gtk_widget_set_visible(switcherBar, 0)
        onNotify(switcherTitle, "title-visible") {
            let narrow = adw_view_switcher_title_get_title_visible(cast(title.p))
            gtk_widget_set_visible(bar.p, narrow)
            adw_view_switcher_bar_set_reveal(cast(bar.p), narrow)
        }

        adw_toast_overlay_set_child(toasts, cast(stack))
        gtk_widget_set_vexpand(cast(toasts), 1)
        let content = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!
        gtk_box_append(cast(content), header)
        gtk_box_append(cast(content), cast(toasts))
        gtk_box_append(cast(content), switcherBar)
        adw_application_window_set_content(cast(window), content)

        home = HomePage(owner: self)
        recent = RecentPage(owner: self)
        settings = SettingsPage(owner: self)
        add(home.root, .home, title: tr("Home").localized, icon: "go-home-symbolic")
        add(recent.root, .recent, title: tr("Recent").localized, icon: "document-open-recent-symbolic")
        add(settings.root, .settings, title: tr("Settings").localized, icon: "emblem-system-symbolic")

        // The Recent list is the desktop's file, changed by every job: read it again when it is looked at.
        onNotify(stack, "visible-child") { [unowned self] in
            if currentPage == .recent { recent.reload() }
            if currentPage == .home { home.reloadStatistics() }
        }
        onNotify(window, "is-active") { [unowned self] in
            guard gtk_window_is_active(window) != 0 else { return }
            if currentPage == .recent { recent.reload() }
            if currentPage == .home { home.reloadStatistics() }
        }
        gtk_application_window_set_help_overlay(cast(window), ShortcutsWindow.make())
        StyleReport.install(app)
    }

    private func add(_ child: UnsafeMutablePointer<GtkWidget>, _ page: Page, title: String, icon: String) {
        let added = adw_view_stack_add_titled(stack, child, page.rawValue, title)
        adw_view_stack_page_set_icon_name(added, icon)
    }

    var currentPage: Page? {
        adw_view_stack_get_visible_child_name(stack).flatMap { Page(rawValue: String(cString: $0)) }
    }

    func show(page: Page) {
        adw_view_stack_set_visible_child_name(stack, page.rawValue)
    }

    func refreshStatistics() { home.reloadStatistics() }

    /// A toast over the pages; with `undo`, an Undo button that runs it.
    func toast(_ text: String, undo: (@MainActor () -> Void)? = nil) {
        let toast = adw_toast_new(text)!
        if let undo {
            // Twice libadwaita's 5 s: time to read what happened and change one's mind.
            adw_toast_set_timeout(toast, 10)
            adw_toast_set_button_label(toast, tr("_Undo").localized)
            on(toast, "button-clicked", undo)
        }
        adw_toast_overlay_add_toast(toasts, toast)
    }

    /// The main menu: Keyboard Shortcuts, About Archiver and Quit (the pages are in the switcher).
    private static func mainMenu() -> UnsafeMutablePointer<GtkWidget> {
        let menu = g_menu_new()!
        g_menu_append(menu, tr("_Keyboard Shortcuts").localized, "win.show-help-overlay")
        g_menu_append(menu, tr("_About Archiver").localized, "app.about")
        g_menu_append(menu, tr("_Quit").localized, "app.quit")
        let button = gtk_menu_button_new()!
        gtk_menu_button_set_icon_name(cast(button), "open-menu-symbolic")
        gtk_menu_button_set_menu_model(cast(button), cast(menu))
        Widgets.saysWhetherOpen(button)
        gtk_widget_set_tooltip_text(button, tr("Main Menu").localized)
        accessibleLabel(button, tr("Main Menu").localized)
        g_object_unref(menu.raw)
        return button
    }

    // MARK: - Files in: the choosers, drops, the command line and D-Bus `open`

    func chooseFilesToCompress() {
        FilesPicker.pick(title: tr("Compress Files").localized, accept: tr("_Compress…").localized, parent: window) {
            [unowned self] paths in launch(.compress, paths)
        }
    }

    func chooseArchives() {
        FilesPicker.pick(title: tr("Extract Archive").localized, accept: tr("_Extract…").localized, parent: window) {
            [unowned self] paths in launch(.extract, paths)
        }
    }

    /// Asks for PDFs (only PDFs shown), then opens a Compress PDF… window for each.
    func choosePDFs() {
        FilesPicker.pick(
            title: tr("Compress PDF").localized, accept: tr("_Compress…").localized, parent: window,
            filter: (tr("PDF documents").localized, "application/pdf")
        ) { paths in Launch.sibling("archiver-compress-pdf", ["--"] + paths) }
    }

    /// Files dropped, given on the command line or sent over D-Bus: compress them, extract archives, or
    /// offer a PDF's or photo's own tool (DropRoute decides).
    func open(_ paths: [String]) {
        let kinds = paths.map { path in
            var info = stat()
            let isFolder = stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
            let name = FilePath(path).lastComponent.map { Array($0.string.utf8) } ?? []
            return DropRoute.kind(name: name, mimeType: RecentFiles.guessedType(of: FilePath(path)), isFolder: isFolder)
        }
        guard let route = DropRoute.route(for: kinds) else { return }
        switch route {
        case .compress, .extract: launch(route, paths)
        case .compressPDFs:
            offer(paths, heading: ntr("Compress the PDF?", "Compress the PDFs?", paths.count).localized,
                  body: tr("“Compress PDF” makes smaller copies beside the originals, text kept searchable.").localized,
                  tool: "archiver-compress-pdf", toolLabel: tr("Compress _PDF…").localized)
        case .compressPhotos:
            offer(paths, heading: ntr("Compress the photo?", "Compress the photos?", paths.count).localized,
                  body: tr("“Compress Photos” makes smaller copies beside the originals, with their metadata.").localized,
                  tool: "archiver-compress-photos", toolLabel: tr("Compress P_hotos…").localized)
        }
    }

    /// Starts the Compress… window with every file, or one Extract… window per archive.
    private func launch(_ route: DropRoute, _ paths: [String]) {
        guard !paths.isEmpty else { return }
        if route == .extract {
            for path in paths { Launch.sibling("archiver-extract", ["--", path]) }
        } else {
            Launch.sibling("archiver-compress", ["--"] + paths)
        }
    }

    /// A PDF's or photo's own window (Compress PDF…, Compress Photos…), or the Compress… window.
    private func offer(_ paths: [String], heading: String, body: String, tool: String, toolLabel: String) {
        let answers = [
            Widgets.Answer(id: "cancel", label: tr("_Cancel").localized),
            Widgets.Answer(id: "archive", label: tr("Put in an _Archive…").localized),
            Widgets.Answer(id: "tool", label: toolLabel, appearance: ADW_RESPONSE_SUGGESTED),
        ]
        Widgets.ask(window, heading: heading, body: body, answers: answers, preferred: "tool", close: "cancel") { [unowned self] answer in
            switch answer {
            case "tool": Launch.sibling(tool, ["--"] + paths)
            case "archive": launch(.compress, paths)
            default: break
            }
        }
    }
}

/// Starting the other Archiver executables from the app; they outlive it.
@MainActor
enum Launch {
    static func sibling(_ program: String, _ arguments: [String]) {
        Spawn.detached(([JobRunner.sibling(program)] + arguments).map { Array($0.utf8) })
    }
}

/// The style manager's answer (dark or not) as the state of the read-only action `app.style-dark`, which
/// GApplication publishes on the session bus (org.gtk.Actions): scripts and the tests read what libadwaita
/// decided, not only what the setting asks for.
@MainActor
enum StyleReport {
    static func install(_ app: UnsafeMutablePointer<GtkApplication>) {
        let manager = adw_style_manager_get_default()!
        let action = g_simple_action_new_stateful("style-dark", nil, g_variant_new_boolean(adw_style_manager_get_dark(manager)))!
        g_simple_action_set_enabled(action, 0)
        g_action_map_add_action(cast(app), cast(action))
        let held = Obj(action)
        onNotify(manager, "dark") {
            g_simple_action_set_state(held.p, g_variant_new_boolean(adw_style_manager_get_dark(manager)))
        }
    }
}

/// Asks for files to open with the desktop's chooser (the portal's when there is one).
@MainActor
enum FilesPicker {
    /// - Parameter filter: (its name, a MIME type): only files of that type are shown.
    static func pick(title: String, accept: String, parent: UnsafeMutablePointer<GtkWindow>, filter: (String, String)? = nil,
                     _ chosen: @escaping @MainActor ([String]) -> Void)
    {
        let dialog = gtk_file_chooser_native_new(title, parent, GTK_FILE_CHOOSER_ACTION_OPEN, accept, tr("_Cancel").localized)!
        gtk_file_chooser_set_select_multiple(cast(dialog), 1)
        if let (name, type) = filter {
            let only = gtk_file_filter_new()!
            gtk_file_filter_set_name(only, name)
            gtk_file_filter_add_mime_type(only, type)
            gtk_file_chooser_add_filter(cast(dialog), only)
            g_object_unref(only.raw)
        }
        gtk_native_dialog_set_modal(cast(dialog), 1)
        let obj = Obj(dialog)
        onInt(dialog, "response") { response in
            var paths: [String] = []
            if response == GTK_RESPONSE_ACCEPT.rawValue, let files = gtk_file_chooser_get_files(cast(obj.p)) {
                for index in 0..<g_list_model_get_n_items(files) {
                    guard let file = g_list_model_get_item(files, index) else { continue }
                    if let path = takeString(g_file_get_path(cast(file))) { paths.append(path) }
                    g_object_unref(file)
                }
                g_object_unref(files.raw)
            }
            gtk_native_dialog_destroy(cast(obj.p))
            g_object_unref(obj.p.raw)
            if !paths.isEmpty { chosen(paths) }
        }
        gtk_native_dialog_show(cast(dialog))
    }
}
