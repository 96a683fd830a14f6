import ArchiverCore
import JobProtocol
import CGtk
import Dispatch
import Glibc

/// Before/after for finished photos: the original and its copy side by side, or one picture split by a slider
/// (drag the line), at the same zoom and position (the copy is scaled to the original's size, as a smaller copy
/// is shown by a viewer), pannable by dragging, zoomable by scrolling or + and −, with both sizes and
/// dimensions. One GtkDrawingArea draws both pixbufs clipped at the split: no widget subclass needed.
@MainActor
final class BeforeAfterWindow {
    private let window: UnsafeMutablePointer<GtkWindow>
    private let area: UnsafeMutablePointer<GtkWidget>
    private let beforeLabel: OpaquePointer
    private let afterLabel: OpaquePointer
    private let splitToggle: UnsafeMutablePointer<GtkWidget>
    private let previous: UnsafeMutablePointer<GtkWidget>
    private let next: UnsafeMutablePointer<GtkWidget>
    private let photos: [PhotoSelection.Photo]
    private var showing: Int

    // What is drawn: both pictures (owned GdkPixbufs), the zoom over "fit", the pan, the split (0…1 of the width).
    private var before: OpaquePointer?
    private var after: OpaquePointer?
    private var zoom = 1.0
    private var pan = (x: 0.0, y: 0.0)
    private var split = 0.5
    private var dragStart = (x: 0.0, y: 0.0)
    private var dragPan = (x: 0.0, y: 0.0)
    private var draggingSplit = false
    private var loading = 0

    /// The draw function's context: GTK takes it before `self` exists.
    private final class Context { weak var view: BeforeAfterWindow? }
    private let context = Context()

    init(parent: UnsafeMutablePointer<GtkWindow>, photos: [PhotoSelection.Photo], showing: Int) {
        self.photos = photos
        self.showing = showing
        window = cast(adw_window_new()!)
        gtk_window_set_transient_for(window, parent)
        gtk_window_set_default_size(window, 1000, 700)
        // TRANSLATORS: the title of the window comparing an original photo with its compressed copy.
        gtk_window_set_title(window, tr("Before and After").localized)

        let header = adw_header_bar_new()!
        splitToggle = gtk_toggle_button_new_with_mnemonic(tr("_Split View").localized)
        gtk_widget_set_tooltip_text(splitToggle, tr("One picture: the original left of the line, the copy right of it").localized)
        previous = Self.iconButton("go-previous-symbolic", tr("Previous photo").localized)
        next = Self.iconButton("go-next-symbolic", tr("Next photo").localized)
        let zoomOut = Self.iconButton("zoom-out-symbolic", tr("Zoom out").localized)
        let zoomIn = Self.iconButton("zoom-in-symbolic", tr("Zoom in").localized)
        let fit = Self.iconButton("zoom-fit-best-symbolic", tr("Fit").localized)
        adw_header_bar_pack_start(cast(header), previous)
        adw_header_bar_pack_start(cast(header), next)
        adw_header_bar_pack_start(cast(header), splitToggle)
        for button in [zoomIn, zoomOut, fit] { adw_header_bar_pack_end(cast(header), button) }

        area = gtk_drawing_area_new()
        gtk_widget_set_vexpand(area, 1)
        gtk_widget_set_hexpand(area, 1)
        gtk_widget_set_focusable(area, 1)
        accessibleLabel(area, tr("The original and the copy").localized)
        let labels = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 12)!
        Widgets.margins(labels, 12)
        gtk_box_set_homogeneous(cast(labels), 1)
        beforeLabel = OpaquePointer(gtk_label_new(""))
        afterLabel = OpaquePointer(gtk_label_new(""))
        for label in [beforeLabel, afterLabel] {
            gtk_widget_add_css_class(cast(label), "numeric")
            gtk_label_set_wrap(label, 1)
            gtk_box_append(cast(labels), cast(label))
        }
        let content = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!
        gtk_box_append(cast(content), header)
        gtk_box_append(cast(content), area)
        gtk_box_append(cast(content), labels)
        adw_window_set_content(cast(window), content)

        context.view = self
        gtk_drawing_area_set_draw_func(cast(area), { _, cr, width, height, data in
            let context = Unmanaged<Context>.fromOpaque(data!).takeUnretainedValue()
            let cairo = UInt(bitPattern: cr)
            MainActor.assumeIsolated { context.view?.draw(OpaquePointer(bitPattern: cairo)!, Double(width), Double(height)) }
        }, Unmanaged.passRetained(context).toOpaque(), { data in Unmanaged<AnyObject>.fromOpaque(data!).release() })

        on(splitToggle, "toggled") { [unowned self] in gtk_widget_queue_draw(area) }
        on(zoomIn, "clicked") { [unowned self] in zoomBy(1.25) }
        on(zoomOut, "clicked") { [unowned self] in zoomBy(0.8) }
        on(fit, "clicked") { [unowned self] in
            zoom = 1
            pan = (0, 0)
            gtk_widget_queue_draw(area)
        }
        on(previous, "clicked") { [unowned self] in show(self.showing - 1) }
        on(next, "clicked") { [unowned self] in show(self.showing + 1) }
        gestures()
        show(showing)
    }

    func present() { gtk_window_present(window) }

    func close() { gtk_window_destroy(window) }

    private static func iconButton(_ icon: String, _ name: String) -> UnsafeMutablePointer<GtkWidget> {
        let button = gtk_button_new_from_icon_name(icon)!
        gtk_widget_set_tooltip_text(button, name)
        accessibleLabel(button, name)
        return button
    }

    // MARK: - Photos

    private func show(_ index: Int) {
        guard photos.indices.contains(index) else { return }
        showing = index
        gtk_widget_set_sensitive(previous, index > 0 ? 1 : 0)
        gtk_widget_set_sensitive(next, index < photos.count - 1 ? 1 : 0)
        let photo = photos[index]
        gtk_window_set_title(window, tr("Before and After: “%@”", photo.name).localized)
        for pixbuf in [before, after] { if let pixbuf { g_object_unref(pixbuf.raw) } }
        before = nil
        after = nil
        zoom = 1
        pan = (0, 0)
        label(before: photo, nil)
        loading += 1
        let ticket = loading
        let paths = (photo.path, photo.output ?? photo.path)
        // Decoding a 50-megapixel original takes a while: on a worker, as the grid's thumbnails.
        DispatchQueue.global().async {
            let original = Thumbnails.full(paths.0)
            let copy = Thumbnails.full(paths.1)
            DispatchQueue.main.async {
                MainActor.assumeIsolated { [weak self] in
                    let pointers = [original, copy].map { $0.flatMap { OpaquePointer(bitPattern: $0) } }
                    guard let self, ticket == self.loading else {
                        for pointer in pointers { if let pointer { g_object_unref(pointer.raw) } }
                        return
                    }
                    self.before = pointers[0]
                    self.after = pointers[1]
                    self.label(before: photo, (original: pointers[0], copy: pointers[1]))
                    gtk_widget_queue_draw(self.area)
                }
            }
        }
    }

    /// "Before: 4.2 MB, 4000 × 3000" and "After: 310 kB, 1500 × 1125" (the engine's figures, else the pictures').
    private func label(before photo: PhotoSelection.Photo, _ pictures: (original: OpaquePointer?, copy: OpaquePointer?)?) {
        func dimensions(_ width: Int?, _ height: Int?, _ pixbuf: OpaquePointer?) -> (Int, Int)? {
            if let width, let height { return (width, height) }
            guard let pixbuf else { return nil }
            // The decoded picture may be scaled down for the screen; its original size is in the options.
            let w = gdk_pixbuf_get_option(cast(pixbuf), "archiver-width").flatMap { Int(String(cString: $0)) }
            let h = gdk_pixbuf_get_option(cast(pixbuf), "archiver-height").flatMap { Int(String(cString: $0)) }
            return w.flatMap { w in h.map { (w, $0) } }
        }
        func line(_ heading: Text, _ size: Int64?, _ pixels: (Int, Int)?) -> String {
            var parts: [Text] = [heading]
            if let size { parts.append(.verbatim(Formatters.bytes(size))) }
            // TRANSLATORS: a photo's dimensions in pixels: width × height.
            if let pixels { parts.append(tr("%1$ld × %2$ld px", pixels.0, pixels.1)) }
            return Text.sentences(parts, separator: "  ").localized
        }
        // TRANSLATORS: under the before/after comparison: the original's size and dimensions follow.
        gtk_label_set_text(beforeLabel, line(tr("Before:"), photo.size, dimensions(photo.width, photo.height, pictures?.original)))
        // TRANSLATORS: under the before/after comparison: the copy's size and dimensions follow.
        gtk_label_set_text(afterLabel, line(tr("After:"), photo.outputSize, dimensions(photo.outputWidth, photo.outputHeight, pictures?.copy)))
    }

    // MARK: - Drawing

    private var splitting: Bool { gtk_toggle_button_get_active(cast(splitToggle)) != 0 }

    /// The scale and origin that show the original's `width`×`height` in a pane of `pane` size.
    private func placement(_ width: Double, _ height: Double, pane: (w: Double, h: Double)) -> (scale: Double, x: Double, y: Double) {
        let fit = min(pane.w / width, pane.h / height, 1)
        let scale = fit * zoom
        return (scale, (pane.w - width * scale) / 2 + pan.x, (pane.h - height * scale) / 2 + pan.y)
    }

    private func draw(_ cr: OpaquePointer, _ width: Double, _ height: Double) {
        guard let before else { return }
        let w = Double(gdk_pixbuf_get_width(cast(before))), h = Double(gdk_pixbuf_get_height(cast(before)))
        if splitting {
            let place = placement(w, h, pane: (width, height))
            let line = width * split
            paint(cr, before, place, clip: (0, 0, line, height), reference: w)
            if let after { paint(cr, after, place, clip: (line, 0, width - line, height), reference: w) }
            cairo_set_source_rgba(cr, 1, 1, 1, 0.9)
            cairo_set_line_width(cr, 2)
            cairo_move_to(cr, line, 0)
            cairo_line_to(cr, line, height)
            cairo_stroke(cr)
        } else {
            let half = (width - 8) / 2
            let place = placement(w, h, pane: (half, height))
            paint(cr, before, place, clip: (0, 0, half, height), reference: w)
            if let after {
                let right = (place.scale, place.x + half + 8, place.y)
                paint(cr, after, right, clip: (half + 8, 0, half, height), reference: w)
            }
        }
    }

    /// Paints `pixbuf` scaled as the original (`reference` is the original's decoded width) inside `clip`.
    private func paint(
        _ cr: OpaquePointer, _ pixbuf: OpaquePointer, _ place: (scale: Double, x: Double, y: Double),
        clip: (Double, Double, Double, Double), reference: Double
    ) {
        cairo_save(cr)
        cairo_rectangle(cr, clip.0, clip.1, clip.2, clip.3)
        cairo_clip(cr)
        cairo_translate(cr, place.x, place.y)
        let scale = place.scale * reference / Double(gdk_pixbuf_get_width(cast(pixbuf)))
        cairo_scale(cr, scale, scale)
        gdk_cairo_set_source_pixbuf(cr, cast(pixbuf), 0, 0)
        // Past 100 % the pixels show as pixels: the comparison is about them.
        cairo_pattern_set_filter(cairo_get_source(cr), scale > 1 ? CAIRO_FILTER_NEAREST : CAIRO_FILTER_GOOD)
        cairo_paint(cr)
        cairo_restore(cr)
    }

    private func zoomBy(_ factor: Double) {
        zoom = min(max(zoom * factor, 0.25), 32)
        pan = (pan.x * factor, pan.y * factor)
        gtk_widget_queue_draw(area)
    }

    private func gestures() {
        let scroll = gtk_event_controller_scroll_new(GTK_EVENT_CONTROLLER_SCROLL_VERTICAL)!
        onScroll(scroll) { [unowned self] _, dy in
            zoomBy(dy < 0 ? 1.15 : 1 / 1.15)
            return true
        }
        gtk_widget_add_controller(area, scroll)
        let drag = gtk_gesture_drag_new()!
        onPoint(drag, "drag-begin") { [unowned self] x, _ in
            let width = Double(gtk_widget_get_width(area))
            draggingSplit = splitting && abs(x - width * split) < 16
            dragStart = (x, 0)
            dragPan = pan
        }
        onPoint(drag, "drag-update") { [unowned self] dx, dy in
            let width = Double(gtk_widget_get_width(area))
            if draggingSplit {
                split = min(max((dragStart.x + dx) / max(width, 1), 0), 1)
            } else {
                pan = (dragPan.x + dx, dragPan.y + dy)
            }
            gtk_widget_queue_draw(area)
        }
        gtk_widget_add_controller(area, cast(drag))
        let keys = gtk_event_controller_key_new()!
        onKey(keys) { [unowned self] keyval, _ in
            switch keyval {
            case 0x2b, 0x3d, 0xffab: zoomBy(1.25)  // + = KP_Add
            case 0x2d, 0xffad: zoomBy(0.8)  // - KP_Subtract
            default: return false
            }
            return true
        }
        gtk_widget_add_controller(cast(window), keys)
        onBool(window, "close-request") { [unowned self] in
            for pixbuf in [before, after] { if let pixbuf { g_object_unref(pixbuf.raw) } }
            before = nil
            after = nil
            return false
        }
    }
}
