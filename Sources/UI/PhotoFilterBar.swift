import ArchiverCore
import CGtk
import Glibc
import SystemPackage

/// The Compress Photos… window's filters, above the grid: Search by name, and Filters (a popover: date taken,
/// album, location, place, size, Clear Filters), one column of labelled drop-downs so that it fits a phone's
/// width at large text. It only builds a `PhotoFilter` from its controls; the selection applies it.
@MainActor
final class PhotoFilterBar {
    let root: UnsafeMutablePointer<GtkWidget>
    /// After any control changed: the filter the controls now say.
    var onChange: (PhotoFilter) -> Void = { _ in }
    /// The photos whose years, albums and places the drop-downs offer.
    var photos: () -> [PhotoSelection.Photo] = { [] }

    private let search: UnsafeMutablePointer<GtkWidget>
    private let menuButton: UnsafeMutablePointer<GtkWidget>
    private let dateDrop: UnsafeMutablePointer<GtkWidget>
    private let albumDrop: UnsafeMutablePointer<GtkWidget>
    private let locationDrop: UnsafeMutablePointer<GtkWidget>
    private let placeDrop: UnsafeMutablePointer<GtkWidget>
    private let sizeDrop: UnsafeMutablePointer<GtkWidget>
    private let range: UnsafeMutablePointer<GtkWidget>
    private let fromEntry: UnsafeMutablePointer<GtkWidget>
    private let toEntry: UnsafeMutablePointer<GtkWidget>
    private let clearButton: UnsafeMutablePointer<GtkWidget>

    /// What the drop-downs list after their fixed first items.
    private var years: [Int] = []
    private var albums: [(folder: FilePath, name: String)] = []
    private var places: [String] = []
    /// Set while the controls are changed from here: their signals then say nothing.
    private var quiet = false

    /// The date choices before the years.
    private static let dateChoices = [
        tr("Any date"), tr("Last 30 days"),
        // TRANSLATORS: the date filter's choice that shows two fields, From and To.
        tr("Between two dates"),
    ]
    private static let locationChoices: [(PhotoFilter.Location, Text)] = [
        // TRANSLATORS: the location filter's choices: every photo, those with a GPS position, those without.
        (.any, tr("With or without")), (.with, tr("With a location")), (.without, tr("Without a location")),
    ]

    init() {
        search = gtk_search_entry_new()!
        gtk_widget_set_hexpand(search, 1)
        cgtk_set_string_property(search.raw, "placeholder-text", tr("Search by name").localized)
        accessibleLabel(search, tr("Search by name").localized)

        dateDrop = Self.dropDown(Self.dateChoices.map(\.localized), named: tr("Date taken").localized)
        albumDrop = Self.dropDown([tr("All albums").localized], named: tr("Album").localized)
        locationDrop = Self.dropDown(Self.locationChoices.map(\.1.localized), named: tr("Location").localized)
        placeDrop = Self.dropDown([tr("All places").localized], named: tr("Place").localized)
        sizeDrop = Self.dropDown(PhotoFilter.sizeRanges.map { PhotoFilter.sizeName($0).localized }, named: tr("Size").localized)

        // From and To, under the date when "Between two dates" is chosen.
        range = gtk_grid_new()!
        gtk_grid_set_row_spacing(cast(range), 6)
        gtk_grid_set_column_spacing(cast(range), 6)
        fromEntry = gtk_entry_new()!
        toEntry = gtk_entry_new()!
        // TRANSLATORS: the first and last day of the date filter's range.
        for (row, (entry, title)) in [(fromEntry, tr("From")), (toEntry, tr("To"))].enumerated() {
            let label = gtk_label_new(title.localized)!
            gtk_label_set_xalign(cast(label), 0)
            gtk_widget_set_hexpand(entry, 1)
            gtk_editable_set_width_chars(cast(entry), 10)
            // TRANSLATORS: how a day is typed into the date filter (year, month, day), shown in the empty field.
            cgtk_set_string_property(entry.raw, "placeholder-text", tr("YYYY-MM-DD").localized)
            accessibleLabel(entry, title.localized)
            gtk_grid_attach(cast(range), label, 0, Int32(row), 1, 1)
            gtk_grid_attach(cast(range), entry, 1, Int32(row), 1, 1)
        }
        gtk_widget_set_visible(range, 0)
        clearButton = Names.button(tr("C_lear Filters").localized)
        gtk_widget_set_sensitive(clearButton, 0)

        let content = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6)!
        Widgets.margins(content, 6)
        gtk_widget_set_size_request(content, 240, -1)
        for (title, drop) in [(tr("Date taken"), dateDrop), (tr("Album"), albumDrop), (tr("Location"), locationDrop),
                              (tr("Place"), placeDrop), (tr("Size"), sizeDrop)]
        {
            let label = gtk_label_new(title.localized)!
            gtk_label_set_xalign(cast(label), 0)
            gtk_widget_add_css_class(label, "heading")
            if drop != dateDrop { gtk_widget_set_margin_top(label, 6) }
            gtk_box_append(cast(content), label)
            gtk_box_append(cast(content), drop)
            if drop == dateDrop { gtk_box_append(cast(content), range) }
        }
        gtk_widget_set_margin_top(clearButton, 12)
        gtk_box_append(cast(content), clearButton)
        let popover = gtk_popover_new()!
        gtk_popover_set_child(cast(popover), content)
        menuButton = gtk_menu_button_new()!
        gtk_menu_button_set_label(cast(menuButton), tr("_Filters").localized)
        gtk_menu_button_set_use_underline(cast(menuButton), 1)
        gtk_menu_button_set_popover(cast(menuButton), popover)
        accessibleLabel(menuButton, tr("Filters").localized)

        // Filters first: its popover opens over the grid, not past the window's right edge.
        root = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6)!
        gtk_box_append(cast(root), menuButton)
        gtk_box_append(cast(root), search)

        on(search, "search-changed") { [unowned self] in changed() }
        for drop in [dateDrop, albumDrop, locationDrop, placeDrop, sizeDrop] {
            onNotify(drop, "selected") { [unowned self] in changed() }
        }
        for entry in [fromEntry, toEntry] { on(entry, "changed") { [unowned self] in changed() } }
        on(clearButton, "clicked") { [unowned self] in clear() }
        // The years, albums and places of the photos as they are when the person looks.
        on(popover, "show") { [unowned self] in refreshChoices() }
    }

    /// A drop-down over `items` whose labels end in "…" rather than widen the popover past a phone's width.
    private static func dropDown(_ items: [String], named name: String) -> UnsafeMutablePointer<GtkWidget> {
        let drop = gtk_drop_down_new(cast(Widgets.stringList(items)), nil)!
        let factory = gtk_signal_list_item_factory_new()!
        onPointer(factory, "setup") { item in
            let label = gtk_label_new(nil)!
            gtk_label_set_xalign(cast(label), 0)
            gtk_label_set_ellipsize(cast(label), PANGO_ELLIPSIZE_END)
            gtk_label_set_max_width_chars(cast(label), 20)
            gtk_list_item_set_child(OpaquePointer(item), label)
        }
        onPointer(factory, "bind") { item in
            guard let label = gtk_list_item_get_child(OpaquePointer(item)), let object = gtk_list_item_get_item(OpaquePointer(item)) else {
                return
            }
            let text = String(cString: gtk_string_object_get_string(OpaquePointer(object)))
            gtk_label_set_text(cast(label), text)
            // GTK 4.8 leaves a list item unnamed, whatever its label says.
            if let row = gtk_widget_get_parent(label) { accessibleLabel(row, text) }
        }
        gtk_drop_down_set_factory(cast(drop), cast(factory))
        gtk_widget_set_hexpand(drop, 1)
        accessibleLabel(drop, name)
        return drop
    }

    private func selected(_ drop: UnsafeMutablePointer<GtkWidget>) -> Int {
        let position = gtk_drop_down_get_selected(cast(drop))
        return position == GTK_INVALID_LIST_POSITION ? 0 : Int(position)
    }

    /// The filter the controls say.
    var filter: PhotoFilter {
        var filter = PhotoFilter(name: Widgets.text(search))
        let date = selected(dateDrop)
        switch date {
        case 0: filter.taken = .any
        case 1: filter.taken = .lastDays(30)
        case 2:
            let from = day(fromEntry), to = day(toEntry)
            filter.taken = from == nil && to == nil ? .any : .between(from: from, to: to)
        default: filter.taken = date - 3 < years.count ? .year(years[date - 3]) : .any
        }
        let album = selected(albumDrop)
        filter.album = album > 0 && album - 1 < albums.count ? albums[album - 1].folder : nil
        filter.location = Self.locationChoices[min(selected(locationDrop), Self.locationChoices.count - 1)].0
        let place = selected(placeDrop)
        filter.place = place > 0 && place - 1 < places.count ? places[place - 1] : nil
        filter.size = PhotoFilter.sizeRanges[min(selected(sizeDrop), PhotoFilter.sizeRanges.count - 1)]
        return filter
    }

    /// A day typed into From or To; an entry that holds something else is marked and left open.
    private func day(_ entry: UnsafeMutablePointer<GtkWidget>) -> PhotoDate? {
        let text = Widgets.text(entry).trimmingSpaces
        let date = PhotoDate(parsing: text)
        if text.isEmpty || date != nil { gtk_widget_remove_css_class(entry, "error") } else { gtk_widget_add_css_class(entry, "error") }
        return date
    }

    private func changed() {
        guard !quiet else { return }
        gtk_widget_set_visible(range, selected(dateDrop) == 2 ? 1 : 0)
        let now = self.filter
        gtk_widget_set_sensitive(clearButton, now.isActive || selected(dateDrop) == 2 ? 1 : 0)
        onChange(now)
    }

    /// Every control back to showing all photos.
    func clear() {
        quiet = true
        for drop in [dateDrop, albumDrop, locationDrop, placeDrop, sizeDrop] { gtk_drop_down_set_selected(cast(drop), 0) }
        for entry in [search, fromEntry, toEntry] { gtk_editable_set_text(cast(entry), "") }
        quiet = false
        changed()
    }

    /// The years, albums and places of the photos now, the choice made kept (by what it names).
    func refreshChoices() {
        let photos = photos()
        let years = PhotoFilter.years(photos)
        let albums = PhotoFilter.albums(photos)
        let places = PhotoFilter.places(photos)
        let albumsChanged = albums.map(\.folder) != self.albums.map(\.folder) || albums.map(\.name) != self.albums.map(\.name)
        guard years != self.years || albumsChanged || places != self.places else { return }
        quiet = true
        if years != self.years {
            let chosen = selected(dateDrop) >= 3 ? self.years[selected(dateDrop) - 3] : nil
            replace(dateDrop, from: Self.dateChoices.count, with: years.map { String($0) })
            self.years = years
            if let chosen { gtk_drop_down_set_selected(cast(dateDrop), guint(years.firstIndex(of: chosen).map { $0 + 3 } ?? 0)) }
        }
        if albumsChanged {
            let chosen = selected(albumDrop) > 0 ? self.albums[selected(albumDrop) - 1].folder : nil
            replace(albumDrop, from: 1, with: albums.map(\.name))
            self.albums = albums
            if let chosen { gtk_drop_down_set_selected(cast(albumDrop), guint(albums.firstIndex { $0.folder == chosen }.map { $0 + 1 } ?? 0)) }
        }
        if places != self.places {
            let chosen = selected(placeDrop) > 0 ? self.places[selected(placeDrop) - 1] : nil
            replace(placeDrop, from: 1, with: places)
            self.places = places
            if let chosen { gtk_drop_down_set_selected(cast(placeDrop), guint(places.firstIndex(of: chosen).map { $0 + 1 } ?? 0)) }
        }
        quiet = false
        // A choice that went (its photos did) shows all again.
        changed()
    }

    /// Replaces a drop-down's items after the first `fixed` ones.
    private func replace(_ drop: UnsafeMutablePointer<GtkWidget>, from fixed: Int, with items: [String]) {
        guard let model = gtk_drop_down_get_model(cast(drop)) else { return }
        let list: OpaquePointer = cast(model)
        let count = Int(g_list_model_get_n_items(model))
        var pointers: [UnsafePointer<CChar>?] = items.map { UnsafePointer(strdup($0)) } + [nil]
        gtk_string_list_splice(list, guint(fixed), guint(max(0, count - fixed)), &pointers)
        for pointer in pointers { free(UnsafeMutableRawPointer(mutating: pointer)) }
    }
}
