import ArchiverCore
import JobProtocol
import CGtk
import Glibc
import SystemPackage

/// The Compress Photos… grid: a GtkGridView over a GtkStringList of positions (../shared/notes/gtk-from-swift.md §6: no GObject subclass;
/// the photos stay in Swift, in `selection`), so a thousand photos cost only the cells on screen. The filter
/// is a GtkFilterListModel between the two that asks `selection` whether a photo is shown: a new filter keeps
/// the items (and so the cells) of the photos still shown, and GTK tells the view only what changed. Each cell:
/// the thumbnail (a placeholder icon until it comes), a checkbox named after the photo, a badge once done,
/// the name and "size → about estimate". Cells are recycled: what changes is pushed to the bound ones.
@MainActor
final class PhotoGridView {
    private(set) var selection = PhotoSelection()
    let root: UnsafeMutablePointer<GtkWidget>
    let view: UnsafeMutablePointer<GtkWidget>
    /// After a checkbox changed.
    var onChange: () -> Void = {}
    /// A cell activated (double click, Enter): its position.
    var onActivate: (Int) -> Void = { _ in }

    private let list: OpaquePointer
    /// `list` through the filter: what the view shows, and the filter it asks.
    private let filtered: OpaquePointer
    private let filter: OpaquePointer
    private var textures: [FilePath: OpaquePointer] = [:]
    private var bound: [Int: Cell] = [:]
    private var binding = false
    private let thumbnails = Thumbnails()
    /// How many thumbnails (or verdicts) came, for the timing mark "thumbnails".
    private var thumbnailsDone = 0

    private struct Cell {
        var picture: UnsafeMutablePointer<GtkWidget>
        var check: UnsafeMutablePointer<GtkWidget>
        var badge: UnsafeMutablePointer<GtkWidget>
        var name: UnsafeMutablePointer<GtkWidget>
        var sizes: UnsafeMutablePointer<GtkWidget>
        /// The photo whose name the cell shows (nil: none yet).
        var shown: FilePath? = nil
    }

    init() {
        list = gtk_string_list_new(nil)!
        g_object_ref(list.raw)  // the selection model takes one reference; this one is ours, to splice
        let factory = gtk_signal_list_item_factory_new()!
        filter = cast(gtk_custom_filter_new(nil, nil, nil)!)
        g_object_ref(filter.raw)  // the filter model takes one reference; this one is ours, to say it changed
        filtered = cast(gtk_filter_list_model_new(cast(list), cast(filter))!)
        view = gtk_grid_view_new(cast(gtk_no_selection_new(cast(filtered))), cast(factory))
        gtk_grid_view_set_max_columns(cast(view), 12)
        gtk_grid_view_set_min_columns(cast(view), 2)
        root = gtk_scrolled_window_new()
        gtk_scrolled_window_set_child(cast(root), view)
        gtk_scrolled_window_set_policy(cast(root), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC)
        gtk_widget_set_vexpand(root, 1)
        gtk_widget_set_hexpand(root, 1)
        accessibleLabel(view, tr("Photos").localized)
        cells(factory)
        onInt(view, "activate") { [unowned self] position in
            guard let item = g_list_model_get_item(cast(filtered), guint(position)) else { return }
            defer { g_object_unref(item) }
            onActivate(Self.index(of: item))
        }
        // Asked for each item on a change, synchronously, on the main thread; the grid outlives its model.
        let match: GtkCustomFilterFunc = { item, grid in
            guard let item, let grid else { return 0 }
            let view = Unmanaged<PhotoGridView>.fromOpaque(grid).takeUnretainedValue()
            let at = PhotoGridView.index(of: item)
            return MainActor.assumeIsolated { at < view.selection.photos.count && view.selection[at].shown } ? 1 : 0
        }
        gtk_custom_filter_set_filter_func(cast(filter), match, Unmanaged.passUnretained(self).toOpaque(), nil)
    }

    /// The photo an item of `list` stands for (its string is the photo's position in `selection`).
    private nonisolated static func index(of item: UnsafeMutableRawPointer) -> Int {
        Int(atoi(gtk_string_object_get_string(OpaquePointer(item))))
    }

    // MARK: - The filter

    /// Shows the photos `filter` matches; GTK looks again only at the photos that may have changed.
    func apply(_ filter: PhotoFilter) {
        let change = selection.apply(filter, today: PhotoDate.today)
        guard change.hidden + change.shown > 0 else { return }
        let strictness =
            change.shown == 0 ? GTK_FILTER_CHANGE_MORE_STRICT : change.hidden == 0 ? GTK_FILTER_CHANGE_LESS_STRICT : GTK_FILTER_CHANGE_DIFFERENT
        gtk_filter_changed(cast(self.filter), strictness)
    }

    // MARK: - Filling

    /// Shows `paths` (with their sizes) at once as placeholders, then loads their thumbnails on workers.
    func add(_ photos: [(path: FilePath, size: Int64)]) {
        let first = selection.photos.count
        for photo in photos { selection.add(path: photo.path, size: photo.size) }
        let added = selection.photos.count - first
        guard added > 0 else { return }
        var pointers: [UnsafePointer<CChar>?] = (first..<(first + added)).map { UnsafePointer(strdup(String($0))) } + [nil]
        gtk_string_list_splice(list, guint(first), 0, &pointers)
        for pointer in pointers { free(UnsafeMutableRawPointer(mutating: pointer)) }
        if gtk_widget_get_realized(view) != 0 { Timings.afterNextFrame(of: view, "placeholders") }
        let paths = selection.photos[first...].map(\.path)
        // Decoding takes both cores: it starts once the window has drawn its first frame, so the placeholders
        // show at once (before, two runs in five drew them only after two seconds on a busy machine).
        afterFirstFrame { [unowned self] in
            thumbnails.load(paths) { [unowned self] offset, result in thumbnailCame(paths[offset], result) }
        }
    }

    private var drawn = false
    private var waiting: [@MainActor () -> Void] = []

    /// Runs `body` now if the grid has been drawn, else right after its first frame.
    func afterFirstFrame(_ body: @escaping @MainActor () -> Void) {
        if drawn { return body() }
        waiting.append(body)
        guard waiting.count == 1 else { return }
        if gtk_widget_get_realized(view) != 0 { return watchFirstFrame() }
        on(view, "realize") { [unowned self] in watchFirstFrame() }
    }

    private func watchFirstFrame() {
        guard let clock = gtk_widget_get_frame_clock(view), !drawn else { return }
        var handler: gulong = 0
        handler = on(clock, "after-paint") { [unowned self] in
            g_signal_handler_disconnect(clock.raw, handler)
            drawn = true
            let bodies = waiting
            waiting = []
            for body in bodies { body() }
        }
        gtk_widget_queue_draw(view)
    }

    private func thumbnailCame(_ path: FilePath, _ result: Thumbnails.Result) {
        thumbnailsDone += 1
        if case .picture(let texture) = result { textures[path] = texture }
        if let at = selection.position(of: path) {
            if case .unreadable = result, selection[at].status == .pending {
                selection.estimate(path: path, size: selection[at].size, status: .unreadable, estimatedSize: nil, width: nil, height: nil)
                onChange()
            }
            refresh(at)
        }
        if thumbnailsDone == selection.photos.count {
            // bench/photo-grid.sh: every thumbnail drawn (or its verdict shown), then the window ends.
            let grid = Obj(view)
            Timings.afterNextFrame(of: view, "thumbnails") {
                Timings.recordCPU("thumbnails-cpu-ms")
                if Timings.exitsAfterThumbnails, let root = gtk_widget_get_root(grid.p) { gtk_window_destroy(cast(root)) }
            }
        }
    }

    /// Empties the grid (Find Large Photos… replaces what it showed).
    func clear() {
        let count = guint(selection.photos.count)
        selection = PhotoSelection()
        bound = [:]
        gtk_string_list_splice(list, 0, count, nil)
    }

    /// Changes the whole model (select all, new estimates to come) and shows it in every bound cell.
    func update(_ change: (inout PhotoSelection) -> Void) {
        change(&selection)
        for position in bound.keys { refresh(position) }
    }

    /// Changes one photo (its estimate, its copy) and shows it in its cell alone, if bound: a batch sends an
    /// event a photo, and refreshing every cell for each kept the main thread from the accessibility bus.
    func updatePhoto(_ change: (inout PhotoSelection) -> Int?) {
        guard let position = change(&selection) else { return }
        // Its metadata came, and the filter now shows or hides it: the filter model looks at this item alone.
        if selection.refilter(position) { g_list_model_items_changed(cast(list), guint(position), 1, 1) }
        refresh(position)
    }

    /// Puts the photos in the suggestions' order and redraws every cell.
    func reorder(_ paths: [FilePath]) {
        selection.reorder(paths)
        let count = guint(selection.photos.count)
        g_list_model_items_changed(cast(list), 0, count, count)
        // A cell may keep its item (the same position's string) and so not be bound again.
        for position in bound.keys { refresh(position) }
    }

    func texture(of path: FilePath) -> OpaquePointer? { textures[path] }

    func refresh(_ position: Int) {
        guard let cell = bound[position], position < selection.photos.count else { return }
        let photo = selection[position]
        if cell.shown != photo.path {
            // Only when the cell shows another photo (bound anew, or reordered in place): setting a tooltip
            // asks the X server where the pointer is, a round trip each time.
            accessibleLabel(cell.check, photo.name)
            gtk_label_set_text(cast(cell.name), EntryTreeView.shown(photo.name))
            gtk_widget_set_tooltip_text(cell.name, photo.path.string)
            bound[position]?.shown = photo.path
        }
        if let texture = textures[photo.path] {
            gtk_picture_set_paintable(cast(cell.picture), texture)
        } else {
            gtk_picture_set_paintable(cast(cell.picture), nil)
        }
        binding = true
        gtk_check_button_set_active(cast(cell.check), photo.included ? 1 : 0)
        binding = false
        gtk_widget_set_sensitive(cell.check, photo.status == .unreadable ? 0 : 1)
        gtk_label_set_text(cast(cell.sizes), Self.sizes(photo).localized)
        let badge: Text? =
            if photo.status == .unreadable { tr("Unreadable") } else if photo.failed { tr("Failed") } else if let after = photo.outputSize {
                // TRANSLATORS: the badge on a finished photo in the Compress Photos… grid: the copy's size.
                tr("Done: %@", .bytes(after))
            } else { nil }
        gtk_label_set_text(cast(cell.badge), badge?.localized ?? "")
        gtk_widget_set_visible(cell.badge, badge == nil ? 0 : 1)
        gtk_widget_set_opacity(cell.picture, photo.included || photo.output != nil ? 1 : 0.45)
    }

    /// "2.1 MB → about 310 kB", "2.1 MB, already small", or the size alone while the estimate runs.
    static func sizes(_ photo: PhotoSelection.Photo) -> Text {
        if let after = photo.outputSize, !photo.failed { return tr("%1$@ → %2$@", .bytes(photo.size), .bytes(after)) }
        switch photo.status {
        case .unreadable: return tr("%@, cannot be read", .bytes(photo.size))
        case .small: return tr("%@, already small", .bytes(photo.size))
        // TRANSLATORS: a photo in the grid that Archiver already made smaller.
        case .ours: return tr("%@, made smaller before", .bytes(photo.size))
        case .ok:
            if let estimate = photo.estimatedSize { return tr("%1$@ → about %2$@", .bytes(photo.size), .bytes(estimate)) }
            return Text.verbatim(Formatters.bytes(photo.size))
        case .pending: return Text.verbatim(Formatters.bytes(photo.size))
        }
    }

    // MARK: - Cells

    private static func position(of item: UnsafeMutableRawPointer) -> Int? {
        guard let string = gtk_list_item_get_item(OpaquePointer(item)) else { return nil }
        return Int(String(cString: gtk_string_object_get_string(OpaquePointer(string))))
    }

    private func cells(_ factory: some GPtr) {
        onPointer(factory, "setup") { [unowned self] item in
            let box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 4)!
            Widgets.margins(box, 6)
            let overlay = gtk_overlay_new()!
            let frame = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!
            gtk_widget_set_size_request(frame, 168, 128)
            gtk_widget_add_css_class(frame, "card")
            let placeholder = gtk_image_new_from_icon_name("image-x-generic-symbolic")!
            gtk_image_set_pixel_size(cast(placeholder), 48)
            gtk_widget_add_css_class(placeholder, "dim-label")
            gtk_widget_set_vexpand(placeholder, 1)
            gtk_box_append(cast(frame), placeholder)
            let picture = gtk_picture_new()!
            gtk_picture_set_can_shrink(cast(picture), 1)
            gtk_picture_set_content_fit(cast(picture), GTK_CONTENT_FIT_CONTAIN)
            gtk_widget_set_size_request(picture, 168, 128)
            gtk_overlay_set_child(cast(overlay), frame)
            gtk_overlay_add_overlay(cast(overlay), picture)
            let check = gtk_check_button_new()!
            gtk_widget_set_halign(check, GTK_ALIGN_START)
            gtk_widget_set_valign(check, GTK_ALIGN_START)
            Widgets.margins(check, 4)
            gtk_overlay_add_overlay(cast(overlay), check)
            let badge = gtk_label_new(nil)!
            gtk_widget_add_css_class(badge, "osd")
            gtk_widget_add_css_class(badge, "caption")
            gtk_widget_set_halign(badge, GTK_ALIGN_END)
            gtk_widget_set_valign(badge, GTK_ALIGN_END)
            Widgets.margins(badge, 4)
            gtk_overlay_add_overlay(cast(overlay), badge)
            let name = gtk_label_new(nil)!
            gtk_label_set_ellipsize(cast(name), PANGO_ELLIPSIZE_MIDDLE)
            gtk_label_set_max_width_chars(cast(name), 18)
            let sizes = gtk_label_new(nil)!
            gtk_widget_add_css_class(sizes, "dim-label")
            gtk_widget_add_css_class(sizes, "caption")
            gtk_widget_add_css_class(sizes, "numeric")
            for child in [overlay, name, sizes] { gtk_box_append(cast(box), child) }
            gtk_list_item_set_child(OpaquePointer(item), box)
            let checkObj = Obj(check)
            on(check, "toggled") { [unowned self] in toggled(checkObj.p) }
        }
        onPointer(factory, "bind") { [unowned self] item in
            guard let position = Self.position(of: item), let box = gtk_list_item_get_child(OpaquePointer(item)) else { return }
            let overlay = gtk_widget_get_first_child(box)!
            let frame = gtk_widget_get_first_child(overlay)!
            let picture = gtk_widget_get_next_sibling(frame)!
            let check = gtk_widget_get_next_sibling(picture)!
            let badge = gtk_widget_get_next_sibling(check)!
            let name = gtk_widget_get_next_sibling(overlay)!
            let sizes = gtk_widget_get_next_sibling(name)!
            // The checkbox speaks for the cell: "IMG_1.jpg", with its sizes as the description.
            let photo = selection[position]
            cgtk_accessible_set_description(cast(check), Self.sizes(photo).localized)
            bound[position] = Cell(picture: picture, check: check, badge: badge, name: name, sizes: sizes)
            refresh(position)
        }
        onPointer(factory, "unbind") { [unowned self] item in
            guard let position = Self.position(of: item) else { return }
            bound.removeValue(forKey: position)
        }
    }

    private func toggled(_ check: UnsafeMutablePointer<GtkWidget>) {
        guard !binding, let position = bound.first(where: { $0.value.check == check })?.key else { return }
        selection.select(position, gtk_check_button_get_active(cast(check)) != 0)
        refresh(position)
        onChange()
    }
}
