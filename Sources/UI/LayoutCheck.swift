import CGtk
import Glibc

/// A test hook of debug builds: with `ARCHIVER_TEST_LAYOUT` set, every half second, each shown label that
/// cannot ellipsize but got less room than its text needs, or reaches past its window's right edge, is
/// reported once on stderr ("layout check: …"). The window tests run with it at 1.5× text and 360 px wide (issue 33), where
/// a cut label would otherwise show only in a screenshot.
@MainActor
enum LayoutCheck {
    static func startIfAsked() {
        #if ARCHIVER_TEST_HOOKS
        guard getenv("ARCHIVER_TEST_LAYOUT") != nil else { return }
        g_timeout_add(500, { _ in
            MainActor.assumeIsolated { LayoutCheck.checkAll() }
            return 1
        }, nil)
        #endif
    }

    #if ARCHIVER_TEST_HOOKS
    /// The labels already reported (by text): each once.
    private static var reported: Set<String> = []

    private static func checkAll() {
        let windows = gtk_window_get_toplevels()
        for index in 0..<g_list_model_get_n_items(windows) {
            guard let window = g_list_model_get_item(windows, index) else { continue }
            let widget: UnsafeMutablePointer<GtkWidget> = cast(window)
            if gtk_widget_get_mapped(widget) != 0 { visit(widget, window: widget, scrolls: false) }
            g_object_unref(window)
        }
    }

    private static func visit(_ widget: UnsafeMutablePointer<GtkWidget>, window: UnsafeMutablePointer<GtkWidget>, scrolls: Bool) {
        guard gtk_widget_get_mapped(widget) != 0 else { return }
        let instance: UnsafeMutablePointer<GTypeInstance> = cast(widget)
        if g_type_check_instance_is_a(instance, gtk_label_get_type()) != 0 {
            check(widget, window: window, scrolls: scrolls)
        }
        // Inside a scroller that scrolls sideways, past the window's edge is only out of view.
        var scrolls = scrolls
        if g_type_check_instance_is_a(instance, gtk_scrolled_window_get_type()) != 0 {
            var horizontal = GTK_POLICY_NEVER
            gtk_scrolled_window_get_policy(cast(widget), &horizontal, nil)
            scrolls = scrolls || horizontal != GTK_POLICY_NEVER
        }
        var child = gtk_widget_get_first_child(widget)
        while let current = child {
            visit(current, window: window, scrolls: scrolls)
            child = gtk_widget_get_next_sibling(current)
        }
    }

    private static func check(_ widget: UnsafeMutablePointer<GtkWidget>, window: UnsafeMutablePointer<GtkWidget>, scrolls: Bool) {
        let label: OpaquePointer = cast(widget)
        guard gtk_label_get_ellipsize(label) == PANGO_ELLIPSIZE_NONE, let layout = gtk_label_get_layout(label) else { return }
        let text = String(cString: gtk_label_get_text(label))
        guard !text.isEmpty, !reported.contains(text) else { return }
        var needed = (width: Int32(0), height: Int32(0))
        pango_layout_get_pixel_size(layout, &needed.width, &needed.height)
        let has = (width: gtk_widget_get_width(widget), height: gtk_widget_get_height(widget))
        guard has.width > 0 || has.height > 0 else { return }  // mapped, not laid out yet
        var problem: String?
        if needed.width > has.width + 1 || needed.height > has.height + 1 {
            problem = "needs \(needed.width)×\(needed.height) px, has \(has.width)×\(has.height)"
        } else if !scrolls {
            // The surface's width, not the window widget's: a window made narrower than its minimum keeps
            // its layout and is cut by the edge.
            let edge = gtk_native_get_surface(cast(window)).map { gdk_surface_get_width($0) } ?? gtk_widget_get_width(window)
            var bounds = graphene_rect_t()
            if gtk_widget_compute_bounds(widget, window, &bounds) != 0, bounds.origin.x + bounds.size.width > Float(edge) + 1 {
                problem = "reaches past the window's right edge (\(Int(bounds.origin.x + bounds.size.width)) of \(edge) px)"
            }
        }
        guard let problem else { return }
        reported.insert(text)
        let line = "layout check: “\(text)” \(problem)\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
    }
    #endif
}
