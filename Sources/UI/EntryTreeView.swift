import ArchiverCore
import JobProtocol
import CGtk
import Dispatch
import Glibc

/// The Extract… window's tree (../shared/notes/gtk-from-swift.md §6): a lazy GtkTreeListModel whose items are `GtkStringObject`s holding
/// EntryTree node indices, in a GtkColumnView with checkbox, icon and name; size; modification date. Rows
/// are recycled, so check states are pushed to the rows bound at the moment.
@MainActor
final class EntryTreeView {
    private(set) var tree = EntryTree()
    /// The scrolled column view, for the window's layout.
    let root: UnsafeMutablePointer<GtkWidget>
    let view: UnsafeMutablePointer<GtkWidget>
    /// After the person checked or unchecked something, or entries arrived.
    var onChange: () -> Void = {}
    /// Enter or a double click on a row: its node (nil when the row is gone).
    var onActivate: (Int?) -> Void = { _ in }
    /// A key pressed in the tree that the tree itself does not use (Delete, F2): answers whether it was handled.
    var onOtherKey: (guint) -> Bool = { _ in false }
    /// Files dropped on the tree, and the node of the row they were dropped on (nil: below the rows).
    var onDrop: ([String], Int?) -> Bool = { _, _ in false }
    /// Tab (true) or Shift+Tab (false) in the tree: the window moves the focus to the control after or before
    /// it (GTK 4.8's list keeps Tab among its rows); answers whether it did.
    var onTab: (Bool) -> Bool = { _ in false }
    /// Space on a file's row: the window's quick look; answers whether it opened one (else Space flips the box).
    var onLook: (Int) -> Bool = { _ in false }
    /// Thumbnails for the image rows on screen, when the window makes them.
    var thumbnails: EntryThumbnails?
    /// The encrypted files, which get no thumbnail before the archive is unlocked.
    private var encryptedFiles: Set<Int> = []

    /// Replaced, with the top-level list, when the search changes what shows.
    private var model: OpaquePointer
    private var topLevel: OpaquePointer
    /// A folder's children list, once GTK asked for it, and how many of its children it holds so far.
    private var lists: [Int: (list: OpaquePointer, shown: Int)] = [:]
    private var dirty: Set<Int> = []
    private var flushQueued = false
    /// The rows on screen: check button → node; size label → node.
    private var boundChecks: [UnsafeMutableRawPointer: Int] = [:]
    /// check button → its row's GtkTreeListRow and the handler that says when the row opens or closes.
    private var boundRows: [UnsafeMutableRawPointer: (row: UnsafeMutableRawPointer, handler: gulong)] = [:]
    /// check button → what its row last told a screen reader: each change is a message on the accessibility
    /// bus, and every batch of a listing refreshes every row on screen.
    private var spoken: [UnsafeMutableRawPointer: Spoken] = [:]
    private struct Spoken: Equatable {
        let name: String, checked: Int32, expanded: Bool?
    }
    private var boundSizes: [UnsafeMutableRawPointer: Int] = [:]
    private var binding = false
    /// The search: every name lowercased once, and what the current query shows (nil: everything).
    private var search = EntrySearch()
    private var shown: EntrySearch.Shown?

    private let createModel: GtkTreeListModelCreateModelFunc
    /// The create function's context: GtkTreeListModel takes it at construction, before `self` exists.
    @MainActor private final class Context { weak var view: EntryTreeView? }
    private let context = Context()

    init() {
        topLevel = gtk_string_list_new(nil)!
        let create: GtkTreeListModelCreateModelFunc = { item, data in
            let context = Unmanaged<Context>.fromOpaque(data!).takeUnretainedValue()
            let item = UInt(bitPattern: item)  // pointers are not Sendable; GTK calls on the main thread
            let made = MainActor.assumeIsolated { context.view?.childModel(for: UnsafeMutableRawPointer(bitPattern: item)!).map { UInt(bitPattern: $0) } }
            return made.flatMap { OpaquePointer(bitPattern: $0) }
        }
        g_object_ref(topLevel.raw)  // the model takes one reference; this one is ours, to append to
        model = gtk_tree_list_model_new(topLevel, 0, 1, create, Unmanaged.passUnretained(context).toOpaque(), nil)
        createModel = create
        view = gtk_column_view_new(cast(gtk_no_selection_new(model)))
        root = gtk_scrolled_window_new()
        gtk_scrolled_window_set_child(cast(root), view)
        // Sideways too: on a phone's 360 px with large text the columns need more than the window has, and a
        // fixed minimum would make the window wider than the screen (issue 33).
        gtk_scrolled_window_set_policy(cast(root), GTK_POLICY_AUTOMATIC, GTK_POLICY_AUTOMATIC)
        gtk_widget_set_vexpand(root, 1)
        gtk_scrolled_window_set_min_content_height(cast(root), 200)  // a message above never squeezes it away
        gtk_widget_add_css_class(root, "card")
        accessibleLabel(view, tr("Contents").localized)
        // The list inside, which takes the focus, is otherwise called "GtkColumnListView".
        if let list = descendant(of: view, named: "GtkColumnListView") { accessibleLabel(list, tr("Contents").localized) }
        // And the row of column headings, "GtkListItemWidget".
        if let headings = gtk_widget_get_first_child(view), headings != descendant(of: view, named: "GtkColumnListView") {
            accessibleLabel(headings, tr("Column headings").localized)
        }
        context.view = self
        columns()
        keys()
        onInt(view, "activate") { [unowned self] position in onActivate(node(atPosition: position)) }
        let drop = gtk_drop_target_new(gdk_file_list_get_type(), GDK_ACTION_COPY)!
        onDropFiles(drop) { [unowned self] paths, x, y in
            guard !paths.isEmpty else { return false }
            return onDrop(paths, gtk_widget_pick(view, x, y, GTK_PICK_DEFAULT).flatMap(node(of:)))
        }
        gtk_widget_add_controller(view, cast(drop))
    }

    /// Empties the tree for a new listing of the same archive (after a change): new lists, no search.
    func reset() {
        if let whole {
            g_object_unref(whole.selection.raw)
            for (_, known) in whole.lists { g_object_unref(known.list.raw) }
            g_object_unref(whole.topLevel.raw)
            self.whole = nil
        }
        for (_, known) in lists { g_object_unref(known.list.raw) }
        lists = [:]
        g_object_unref(topLevel.raw)
        shown = nil
        search = EntrySearch()
        tree = EntryTree()
        dirty = []
        topLevel = gtk_string_list_new(nil)!
        g_object_ref(topLevel.raw)
        model = gtk_tree_list_model_new(topLevel, 0, 1, createModel, Unmanaged.passUnretained(context).toOpaque(), nil)
        let selection = gtk_no_selection_new(model)!
        gtk_column_view_set_model(cast(view), cast(selection))
        g_object_unref(selection.raw)
    }

    // MARK: - Rows and nodes

    /// The node of the row that has the keyboard focus, if a row has it.
    var focusedNode: Int? {
        guard let root = gtk_widget_get_root(view), let focus = gtk_root_get_focus(root) else { return nil }
        return node(of: focus)
    }

    /// The node of the row that holds `widget` (a row, a cell or anything in one); nil outside the rows.
    func node(of widget: UnsafeMutablePointer<GtkWidget>) -> Int? {
        var current: UnsafeMutablePointer<GtkWidget>? = widget
        while let candidate = current, candidate != view, String(cString: gtk_widget_get_name(candidate)) != "GtkColumnListView" {
            if let node = boundChecks[candidate.raw] { return node }
            // A row holds its name cell's box; any other cell holds none, and its row is next up.
            if let check = descendant(of: candidate, named: "GtkCheckButton"), let node = boundChecks[check.raw] { return node }
            current = gtk_widget_get_parent(candidate)
        }
        return nil
    }

    /// The node shown at a position of the list (what `activate` gives).
    private func node(atPosition position: Int32) -> Int? {
        guard position >= 0, let selection = gtk_column_view_get_model(cast(view)),
            let row = g_list_model_get_item(cast(selection), guint(position))
        else { return nil }
        defer { g_object_unref(row) }
        guard let item = gtk_tree_list_row_get_item(OpaquePointer(row)) else { return nil }
        defer { g_object_unref(item) }
        return Self.node(ofString: item)
    }

    /// Moves the keyboard focus from the list itself to its first row, when the list has it: a row says its
    /// name and state, the bare list nothing.
    func focusFirstRow() {
        guard let root = gtk_widget_get_root(view), let focus = gtk_root_get_focus(root) else { return }
        guard focus == view || gtk_widget_get_parent(focus) == view else { return }
        _ = gtk_widget_child_focus(focus, GTK_DIR_TAB_FORWARD)
    }

    // MARK: - Filling

    /// One `entry` event of the listing.
    func add(_ entry: ListedEntry) {
        let modified = entry.mtime.flatMap { HumanFormat.seconds(iso8601: $0) }
        let made = tree.add(
            path: entry.path, isDirectory: entry.type == "directory", size: entry.size ?? 0, modified: modified,
            encrypted: entry.encrypted)
        for node in made { dirty.insert(tree.nodes[node].parent) }
        if entry.encrypted, let file = made.last { encryptedFiles.insert(file) }
        if !made.isEmpty, !flushQueued {
            flushQueued = true
            // After the lines already queued: one splice per folder per batch, not one per entry.
            DispatchQueue.main.async { MainActor.assumeIsolated { self.flush() } }
        }
    }

    /// Puts what arrived into the lists GTK holds.
    func flush() {
        flushQueued = false
        // Under a search the lists hold only what it shows; what arrives meanwhile shows when it changes.
        guard shown == nil else {
            onChange()
            return
        }
        for parent in dirty.sorted() {
            let children = tree.nodes[parent].children
            let shown: Int
            let list: OpaquePointer
            if parent == 0 {
                list = topLevel
                shown = Int(g_list_model_get_n_items(topLevel))
            } else if let known = lists[parent] {
                (list, shown) = known
            } else {
                continue  // GTK has not asked for this folder's children: it will get them all when it does
            }
            guard shown < children.count else { continue }
            Self.append(children[shown...].map(String.init), to: list, at: shown)
            if parent != 0 { lists[parent] = (list, children.count) }
        }
        dirty = []
        if g_list_model_get_n_items(topLevel) > 0 { Timings.afterNextFrame(of: view, "first-rows") }
        // Past a few thousand entries, folders open only when asked: the model stays lazy.
        if tree.nodes.count > 2000 { gtk_tree_list_model_set_autoexpand(model, 0) }
        refreshRows()
        onChange()
    }

    private static func append(_ items: [String], to list: OpaquePointer, at position: Int) {
        var pointers: [UnsafePointer<CChar>?] = items.map { UnsafePointer(strdup($0)) } + [nil]
        gtk_string_list_splice(list, guint(position), 0, &pointers)
        for pointer in pointers { free(UnsafeMutableRawPointer(mutating: pointer)) }
    }

    /// GtkTreeListModel's create function: a folder's children (those the search shows), or NULL for a leaf.
    private func childModel(for item: UnsafeMutableRawPointer) -> OpaquePointer? {
        let node = Self.node(ofString: item)
        guard tree.nodes[node].isDirectory else { return nil }
        let children = visibleChildren(of: node)
        let list = gtk_string_list_new(nil)!
        Self.append(children.map(String.init), to: list, at: 0)
        if let old = lists[node] { g_object_unref(old.list.raw) }
        lists[node] = (list, children.count)
        g_object_ref(list.raw)  // one reference for GTK (transfer full), one kept to append what arrives later
        return list
    }

    private func visibleChildren(of node: Int) -> [Int] {
        guard let shown else { return tree.nodes[node].children }
        return tree.nodes[node].children.filter(shown.contains)
    }

    // MARK: - Search

    /// Shows only the entries whose name holds `query` (case-insensitive), with the folders on their way and
    /// what matching folders hold; "" shows everything again. Returns how many names matched (nil: all show).
    @discardableResult
    func filter(_ query: String) -> Int? {
        search.update(tree)
        let next = search.shown(query, in: tree)
        guard next != shown else { return next?.matches }  // "f", "fi", "fil": often the same rows
        if shown == nil {
            // Into a search: the whole tree's model is kept as it is, to come back to at once.
            let selection = gtk_column_view_get_model(cast(view))!
            g_object_ref(selection.raw)
            whole = Whole(selection: selection, model: model, topLevel: topLevel, lists: lists)
            lists = [:]
        } else {
            for (_, known) in lists { g_object_unref(known.list.raw) }
            lists = [:]
            g_object_unref(topLevel.raw)
        }
        shown = next
        if next == nil, let whole {
            (model, topLevel, lists) = (whole.model, whole.topLevel, whole.lists)
            gtk_column_view_set_model(cast(view), cast(whole.selection))
            g_object_unref(whole.selection.raw)
            self.whole = nil
        } else {
            showShown()
        }
        return next?.matches
    }

    /// The whole tree's model while a search shows another.
    private struct Whole {
        let selection: OpaquePointer
        let model: OpaquePointer
        let topLevel: OpaquePointer
        let lists: [Int: (list: OpaquePointer, shown: Int)]
    }
    private var whole: Whole?

    /// A new model from the top for what the search shows: GtkTreeListModel cannot be told that a folder's
    /// children changed other than by splicing each list, and a search changes most of them.
    private func showShown() {
        topLevel = gtk_string_list_new(nil)!
        Self.append(visibleChildren(of: 0).map(String.init), to: topLevel, at: 0)
        g_object_ref(topLevel.raw)
        // Every folder open when what shows is few enough to see at once, as a small listing does.
        let open = (shown?.count ?? tree.nodes.count) <= 2000
        model = gtk_tree_list_model_new(topLevel, 0, open ? 1 : 0, createModel, Unmanaged.passUnretained(context).toOpaque(), nil)
        let selection = gtk_no_selection_new(model)!
        gtk_column_view_set_model(cast(view), cast(selection))
        g_object_unref(selection.raw)  // the view holds it now
    }

    private static func node(ofString item: UnsafeMutableRawPointer) -> Int {
        Int(String(cString: gtk_string_object_get_string(OpaquePointer(item)))) ?? 0
    }

    /// The node a list item shows (its item is a GtkTreeListRow around our GtkStringObject).
    private static func node(of listItem: UnsafeMutableRawPointer) -> Int? {
        guard let row = gtk_list_item_get_item(OpaquePointer(listItem)), let item = gtk_tree_list_row_get_item(OpaquePointer(row)) else {
            return nil
        }
        defer { g_object_unref(item) }
        return node(ofString: item)
    }

    // MARK: - Columns

    private func columns() {
        let name = gtk_signal_list_item_factory_new()!
        onPointer(name, "setup") { [unowned self] item in
            let expander = gtk_tree_expander_new()!
            let box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6)!
            let check = gtk_check_button_new()!
            // The row takes the focus and Space flips its box: Tab goes on to the next control, not through
            // every row's box (a mouse click still works).
            gtk_widget_set_focusable(check, 0)
            let icon = gtk_image_new()!
            let label = gtk_label_new(nil)!
            gtk_label_set_xalign(cast(label), 0)
            gtk_label_set_single_line_mode(cast(label), 1)
            gtk_label_set_ellipsize(cast(label), PANGO_ELLIPSIZE_MIDDLE)
            gtk_label_set_width_chars(cast(label), 12)  // narrow windows squeezed names to "r…"
            gtk_widget_set_hexpand(label, 1)
            for child in [check, icon, label] { gtk_box_append(cast(box), child) }
            gtk_tree_expander_set_child(cast(expander), box)
            // GTK 4.8: a row whose expander can take the focus never gets it (the list keeps it, and says
            // only "Contents"); without, the row has the focus and AT-SPI reports it with the row's name and
            // checked state (issue 33). The tree is always expanded, so the expander's +/- keys are not missed.
            gtk_widget_set_can_focus(expander, 0)
            gtk_list_item_set_child(OpaquePointer(item), expander)
            let checkObj = Obj(check)
            on(check, "toggled") { [unowned self] in toggled(checkObj.p) }
        }
        onPointer(name, "bind") { [unowned self] item in
            guard let node = Self.node(of: item), let expander = gtk_list_item_get_child(OpaquePointer(item)) else { return }
            gtk_tree_expander_set_list_row(cast(expander), gtk_list_item_get_item(OpaquePointer(item)).map { OpaquePointer($0) })
            let box = gtk_tree_expander_get_child(cast(expander))!
            let check = gtk_widget_get_first_child(box)!
            let icon = gtk_widget_get_next_sibling(check)!
            let label = gtk_widget_get_next_sibling(icon)!
            let entry = tree.nodes[node]
            gtk_label_set_text(cast(label), Self.shown(entry.name))
            Self.setIcon(icon, for: entry)
            thumbnails?.bind(icon, node: node, entry: entry, path: tree.path(node), encrypted: encryptedFiles.contains(node))
            accessibleLabel(check, entry.name)
            boundChecks[check.raw] = node
            if let row = gtk_list_item_get_item(OpaquePointer(item)) {
                // Opened or closed by its arrow or the keys: the row says so (GTK 4.8 says it nowhere).
                let checkObj = Obj(check)
                let handler = onNotify(row, "expanded") { [unowned self] in
                    if let node = boundChecks[checkObj.p.raw] { show(checkObj.p, node) }
                }
                boundRows[check.raw] = (row, handler)
            }
            show(check, node)
        }
        onPointer(name, "unbind") { [unowned self] item in
            guard let expander = gtk_list_item_get_child(OpaquePointer(item)), let box = gtk_tree_expander_get_child(cast(expander)),
                let check = gtk_widget_get_first_child(box)
            else { return }
            boundChecks.removeValue(forKey: check.raw)
            spoken.removeValue(forKey: check.raw)
            if let bound = boundRows.removeValue(forKey: check.raw) { g_signal_handler_disconnect(bound.row, bound.handler) }
            if let icon = gtk_widget_get_next_sibling(check) { thumbnails?.unbind(icon) }
            gtk_tree_expander_set_list_row(cast(expander), nil)
        }
        let nameColumn = gtk_column_view_column_new(tr("Name").localized, cast(name))!
        gtk_column_view_column_set_expand(nameColumn, 1)
        gtk_column_view_append_column(cast(view), nameColumn)

        let size = textFactory(numeric: true) { [unowned self] node, label in
            boundSizes[label.raw] = node
            showSize(label, node)
        } unbind: { [unowned self] label in
            boundSizes.removeValue(forKey: label.raw)
        }
        let sizeColumn = gtk_column_view_column_new(tr("Size").localized, size)!
        gtk_column_view_append_column(cast(view), sizeColumn)

        // Local time in the person's format, as Recent and the file manager show dates (not --json's ISO UTC).
        let date = textFactory(numeric: true) { [unowned self] node, label in
            gtk_label_set_text(cast(label), tree.nodes[node].modified.map { LocalDate.text(unix: $0) } ?? "")
        } unbind: { _ in }
        let dateColumn = gtk_column_view_column_new(tr("Modified").localized, date)!
        gtk_column_view_append_column(cast(view), dateColumn)
    }

    /// A factory of one right-aligned label per row.
    private func textFactory(
        numeric: Bool, bind: @escaping @MainActor (Int, UnsafeMutablePointer<GtkWidget>) -> Void,
        unbind: @escaping @MainActor (UnsafeMutablePointer<GtkWidget>) -> Void
    ) -> OpaquePointer {
        let factory = gtk_signal_list_item_factory_new()!
        onPointer(factory, "setup") { item in
            let label = gtk_label_new(nil)!
            gtk_label_set_xalign(cast(label), 1)
            // Off the card's rounded edge (the last column) and apart from the next column.
            gtk_widget_set_margin_start(label, 6)
            gtk_widget_set_margin_end(label, 6)
            if numeric { gtk_widget_add_css_class(label, "numeric") }
            gtk_widget_add_css_class(label, "dim-label")
            gtk_list_item_set_child(OpaquePointer(item), label)
        }
        onPointer(factory, "bind") { item in
            guard let node = Self.node(of: item), let label = gtk_list_item_get_child(OpaquePointer(item)) else { return }
            bind(node, label)
        }
        onPointer(factory, "unbind") { item in
            if let label = gtk_list_item_get_child(OpaquePointer(item)) { unbind(label) }
        }
        return cast(factory)
    }

    /// A name as one line: control characters (a newline in a name) shown as "?" (labels take no markup here).
    static func shown(_ name: String) -> String {
        // Nearly every name has none (C0, DEL, and C1, whose UTF-8 starts with 0xC2): this runs for every
        // row on screen after each batch of a listing.
        guard name.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == 0xC2 }) else { return name }
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: name.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : $0 })
        return String(scalars)
    }

    private static func setIcon(_ image: UnsafeMutablePointer<GtkWidget>, for node: EntryTree.Node) {
        if node.isDirectory {
            gtk_image_set_from_icon_name(cast(image), "folder-symbolic")
            return
        }
        guard let type = takeString(g_content_type_guess(node.name, nil, 0, nil)), let icon = g_content_type_get_symbolic_icon(type) else {
            gtk_image_set_from_icon_name(cast(image), "text-x-generic-symbolic")
            return
        }
        gtk_image_set_from_gicon(cast(image), icon)
        g_object_unref(icon.raw)
    }

    // MARK: - Checking

    private func show(_ check: UnsafeMutablePointer<GtkWidget>, _ node: Int) {
        let state = tree.state(node)
        binding = true
        gtk_check_button_set_inconsistent(cast(check), state == .mixed ? 1 : 0)
        gtk_check_button_set_active(cast(check), state == .on ? 1 : 0)
        binding = false
        // What has the focus is the row (its cell and the row around it), which GTK 4.8 leaves unnamed: the
        // entry's name, the box's state and, for a folder, whether it is open, so a screen reader says
        // "report, checked, expanded" (the expander says nothing: it cannot take the focus).
        let expander = gtk_widget_get_parent(check).flatMap { gtk_widget_get_parent($0) }
        let listRow = expander.flatMap { gtk_tree_expander_get_list_row(cast($0)) }
        let said = Spoken(
            name: Self.shown(tree.nodes[node].name), checked: state == .mixed ? 2 : state == .on ? 1 : 0,
            expanded: tree.nodes[node].isDirectory ? listRow.map { gtk_tree_list_row_get_expanded($0) != 0 } : nil)
        guard spoken.updateValue(said, forKey: check.raw) != said else { return }
        let cell = expander.flatMap { gtk_widget_get_parent($0) }
        for target in [cell, cell.flatMap { gtk_widget_get_parent($0) }].compactMap({ $0 }) {
            accessibleLabel(target, said.name)
            cgtk_accessible_set_checked(cast(target), said.checked)
            // Rows are recycled: a file's row may have been a folder's.
            if let expanded = said.expanded { cgtk_accessible_set_expanded(cast(target), expanded ? 1 : 0) } else {
                gtk_accessible_reset_state(cast(target), GTK_ACCESSIBLE_STATE_EXPANDED)
            }
        }
    }

    private func showSize(_ label: UnsafeMutablePointer<GtkWidget>, _ node: Int) {
        let entry = tree.nodes[node]
        gtk_label_set_text(cast(label), Formatters.bytes(entry.isDirectory ? entry.bytes : entry.size))
    }

    private func toggled(_ check: UnsafeMutablePointer<GtkWidget>) {
        guard !binding, let node = boundChecks[check.raw] else { return }
        tree.set(node, checked: gtk_check_button_get_active(cast(check)) != 0)
        refreshRows()
        onChange()
    }

    /// The archive was unlocked: the rows on screen ask again for the thumbnails they could not have.
    func refreshThumbnails() {
        for (check, node) in boundChecks {
            guard let icon = gtk_widget_get_next_sibling(cast(check)) else { continue }
            thumbnails?.bind(icon, node: node, entry: tree.nodes[node], path: tree.path(node), encrypted: encryptedFiles.contains(node))
        }
    }

    /// Pushes check states and folder sizes to the rows on screen.
    private func refreshRows() {
        for (check, node) in boundChecks { show(cast(check), node) }
        for (label, node) in boundSizes where tree.nodes[node].isDirectory { showSize(cast(label), node) }
    }

    /// Space on a file's row opens its quick look, on a folder's (or with Ctrl) flips its checkbox (on the
    /// checkbox itself GTK does it); Tab leaves the tree; + or → opens a folder's row, − or ← closes it (the
    /// expander, whose keys these are, cannot take the focus); other keys go to the window (`onOtherKey`).
    private func keys() {
        let controller = gtk_event_controller_key_new()!
        onKey(controller) { [unowned self] keyval, modifiers in
            if keyval == 0xFF09 || keyval == 0xFE20 { return onTab(keyval == 0xFF09) }  // Tab, ISO_Left_Tab
            // plus, KP_Add, Right; minus, KP_Subtract, Left
            if let open = [0x2B: true, 0xFFAB: true, 0xFF53: true, 0x2D: false, 0xFFAD: false, 0xFF51: false][keyval],
                modifiers.rawValue & (GDK_CONTROL_MASK.rawValue | GDK_ALT_MASK.rawValue) == 0
            {
                return expandFocusedRow(open)
            }
            if keyval != 0x20 { return onOtherKey(keyval) }
            guard let focus = gtk_root_get_focus(gtk_widget_get_root(view)) else { return false }
            if boundChecks[focus.raw] != nil { return false }
            guard let check = descendant(of: focus, named: "GtkCheckButton"), let node = boundChecks[check.raw] else { return false }
            if modifiers.rawValue & GDK_CONTROL_MASK.rawValue == 0, !tree.nodes[node].isDirectory, onLook(node) { return true }
            gtk_check_button_set_active(cast(check), gtk_check_button_get_active(cast(check)) == 0 ? 1 : 0)
            return true
        }
        gtk_event_controller_set_propagation_phase(controller, GTK_PHASE_CAPTURE)
        gtk_widget_add_controller(view, controller)
    }

    /// Opens or closes the focused folder's row; false (the key goes on) on a file's row or off the rows.
    private func expandFocusedRow(_ open: Bool) -> Bool {
        guard let focus = gtk_root_get_focus(gtk_widget_get_root(view)), let check = descendant(of: focus, named: "GtkCheckButton"),
            let node = boundChecks[check.raw], tree.nodes[node].isDirectory,
            let expander = gtk_widget_get_parent(check).flatMap({ gtk_widget_get_parent($0) }),
            let row = gtk_tree_expander_get_list_row(cast(expander))
        else { return false }
        gtk_tree_list_row_set_expanded(row, open ? 1 : 0)
        return true
    }
}

