import ArchiverCore
import CGtk
import Dispatch

/// Space on a file in the Extract… tree: a look at it read from the archive in memory (`EntryBytes`), with
/// nothing extracted anywhere: an image, the start of a text, or a PDF's first page; "No preview" for
/// anything else. Escape closes it, and the tree has the focus again.
@MainActor
final class QuickLookWindow {
    private let window: UnsafeMutablePointer<GtkWindow>
    private let pages: OpaquePointer
    private let status: UnsafeMutablePointer<GtkWidget>
    private let picture: UnsafeMutablePointer<GtkWidget>
    private let textView: UnsafeMutablePointer<GtkWidget>
    private let note: OpaquePointer
    private let name: String
    private let size: Int64
    /// Closed before the worker finished: its widgets are gone, what it found is dropped.
    private var closed = false
    /// After the window closed (to drop the reference the Extract… window keeps).
    var onClose: () -> Void = {}

    /// What the worker found: a picture (a GdkPixbuf's address, owned), a drawn page, a text, or why none.
    private enum Look: Sendable {
        case picture(UInt)
        case page(PDFFirstPage)
        case text(String)
        case nothing(tooLarge: Bool)
        case unreadable
    }

    /// The longest edge a picture or page is decoded at: a screen's worth.
    private nonisolated static let edge: Int32 = 1600

    init(parent: UnsafeMutablePointer<GtkWindow>, name: String, path: String, size: Int64, bytes: EntryBytes) {
        self.name = name
        self.size = size
        window = cast(adw_window_new()!)
        gtk_window_set_transient_for(window, parent)
        gtk_window_set_modal(window, 1)
        gtk_window_set_destroy_with_parent(window, 1)
        gtk_window_set_default_size(window, 640, 520)
        // TRANSLATORS: the title of the quick look (Space on a file in the Extract… window); %@ is the file's name.
        gtk_window_set_title(window, tr("Preview of “%@”", EntryTreeView.shown(name)).localized)

        let header = adw_header_bar_new()!
        status = adw_status_page_new()
        adw_status_page_set_icon_name(cast(status), "image-loading-symbolic")
        adw_status_page_set_title(cast(status), tr("Reading…").localized)
        picture = gtk_picture_new()
        gtk_picture_set_can_shrink(cast(picture), 1)
        Widgets.margins(picture, 12)
        // TRANSLATORS: what a screen reader says of the picture in the quick look; %@ is the file's name.
        accessibleLabel(picture, tr("Picture of “%@”", EntryTreeView.shown(name)).localized)
        textView = gtk_text_view_new()
        gtk_text_view_set_editable(cast(textView), 0)
        gtk_text_view_set_cursor_visible(cast(textView), 0)
        gtk_text_view_set_monospace(cast(textView), 1)
        gtk_text_view_set_wrap_mode(cast(textView), GTK_WRAP_WORD_CHAR)
        gtk_text_view_set_left_margin(cast(textView), 12)
        gtk_text_view_set_right_margin(cast(textView), 12)
        gtk_text_view_set_top_margin(cast(textView), 12)
        gtk_text_view_set_bottom_margin(cast(textView), 12)
        // TRANSLATORS: what a screen reader says of the text shown in the quick look; %@ is the file's name.
        accessibleLabel(textView, tr("Text of “%@”", EntryTreeView.shown(name)).localized)
        let scroller = gtk_scrolled_window_new()!
        gtk_scrolled_window_set_child(cast(scroller), textView)
        gtk_widget_set_vexpand(scroller, 1)
        note = OpaquePointer(gtk_label_new(""))
        gtk_label_set_wrap(note, 1)
        gtk_widget_add_css_class(cast(note), "dim-label")
        Widgets.margins(cast(note), 6)
        gtk_widget_set_visible(cast(note), 0)
        let text = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!
        gtk_box_append(cast(text), scroller)
        gtk_box_append(cast(text), cast(note))

        pages = OpaquePointer(gtk_stack_new())
        gtk_stack_add_named(pages, status, "status")
        gtk_stack_add_named(pages, picture, "picture")
        gtk_stack_add_named(pages, text, "text")
        gtk_widget_set_vexpand(cast(pages), 1)
        let content = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!
        gtk_box_append(cast(content), header)
        gtk_box_append(cast(content), cast(pages))
        adw_window_set_content(cast(window), content)

        let shortcuts = gtk_shortcut_controller_new()!
        gtk_shortcut_controller_add_shortcut(
            cast(shortcuts), gtk_shortcut_new(gtk_shortcut_trigger_parse_string("Escape"), gtk_named_action_new("window.close")))
        gtk_widget_add_controller(cast(window), shortcuts)
        onBool(window, "close-request") { [unowned self] in
            closed = true
            onClose()
            return false
        }

        let bytes = bytes
        DispatchQueue.global(qos: .userInitiated).async {
            let look = Self.look(path, size: size, bytes: bytes)
            DispatchQueue.main.async { MainActor.assumeIsolated { self.show(look) } }
        }
    }

    func present() { gtk_window_present(window) }

    // MARK: - Showing

    private func show(_ look: Look) {
        guard !closed else {
            if case .picture(let address) = look, let pixbuf = OpaquePointer(bitPattern: address) { g_object_unref(pixbuf.raw) }
            return
        }
        switch look {
        case .picture(let address):
            guard let pixbuf = OpaquePointer(bitPattern: address) else { return }
            let texture: OpaquePointer = cast(gdk_texture_new_for_pixbuf(pixbuf)!)
            g_object_unref(pixbuf.raw)
            showPicture(texture)
        case .page(let page):
            let pixels = page.pixels.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
            // cairo's native-endian ARGB32: B, G, R, A in memory here (little-endian), premultiplied.
            let texture: OpaquePointer = cast(gdk_memory_texture_new(page.width, page.height, GDK_MEMORY_B8G8R8A8_PREMULTIPLIED, pixels, gsize(page.stride))!)
            g_bytes_unref(pixels)
            showPicture(texture)
        case .text(let text):
            gtk_text_buffer_set_text(gtk_text_view_get_buffer(cast(textView)), text, -1)
            if size > Int64(EntryPreview.textLimit) {
                // TRANSLATORS: under a text cut short in the quick look: "The first 64.0 kB of 2.1 MB are shown."
                gtk_label_set_text(note, tr("The first %1$@ of %2$@ are shown.", .bytes(EntryPreview.textLimit), .bytes(size)).localized)
                gtk_widget_set_visible(cast(note), 1)
            }
            gtk_stack_set_visible_child_name(pages, "text")
            gtk_widget_grab_focus(textView)
        case .nothing(let tooLarge):
            adw_status_page_set_icon_name(cast(status), "dialog-information-symbolic")
            adw_status_page_set_title(cast(status), tr("No preview").localized)
            let why =
                tooLarge
                // TRANSLATORS: the quick look's reason for showing nothing: the picture or PDF is larger than %@.
                ? tr("It is larger than %@; extract it to open it.", .bytes(EntryPreview.lookLimit))
                // TRANSLATORS: the quick look's reason for showing nothing: not an image, a text or a PDF.
                : tr("Only pictures, texts and PDFs can be previewed.")
            adw_status_page_set_description(cast(status), markupEscaped(why.localized))
        case .unreadable:
            adw_status_page_set_icon_name(cast(status), "dialog-warning-symbolic")
            adw_status_page_set_title(cast(status), tr("No preview").localized)
            // TRANSLATORS: the quick look could not read the file from the archive (damaged, or encrypted without the password).
            let why = tr("“%@” could not be read from the archive.", EntryTreeView.shown(name))
            adw_status_page_set_description(cast(status), markupEscaped(why.localized))
        }
    }

    private func showPicture(_ texture: OpaquePointer) {
        gtk_picture_set_paintable(cast(picture), cast(texture))
        g_object_unref(texture.raw)
        gtk_stack_set_visible_child_name(pages, "picture")
    }

    // MARK: - Worker side

    /// Reads the start, tells the kind by it, then the rest of a picture or PDF when it is small enough.
    private nonisolated static func look(_ path: String, size: Int64, bytes: EntryBytes) -> Look {
        guard let start = bytes.read(path, limit: EntryPreview.textLimit) else { return .unreadable }
        switch EntryPreview.kind(of: start) {
        case .text:
            return EntryPreview.text(start).map(Look.text) ?? .nothing(tooLarge: false)
        case .image, .pdf:
            guard size <= EntryPreview.lookLimit else { return .nothing(tooLarge: true) }
            guard let whole = size <= Int64(start.count) ? start : bytes.read(path, limit: Int(size)) else { return .unreadable }
            if EntryPreview.isImage(start) {
                return EntryThumbnails.decode(whole, edge: edge).map(Look.picture) ?? .nothing(tooLarge: false)
            }
            return PDFFirstPage(whole, edge: Double(edge)).map(Look.page) ?? .nothing(tooLarge: false)
        case nil:
            return .nothing(tooLarge: false)
        }
    }
}
