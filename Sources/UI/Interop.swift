public import CGtk

// Calling GTK from Swift without a binding layer (../shared/notes/gtk-from-swift.md §2–3).

/// Anything Swift imports a GObject pointer as: `UnsafeMutablePointer<T>` for types whose struct is in the
/// headers, `OpaquePointer` for final types and interfaces, raw pointers from callbacks.
public protocol GPtr {
    var raw: UnsafeMutableRawPointer { get }
    init(raw: UnsafeMutableRawPointer)
}

extension UnsafeMutablePointer: GPtr {
    public var raw: UnsafeMutableRawPointer { UnsafeMutableRawPointer(self) }
    public init(raw: UnsafeMutableRawPointer) { self = raw.assumingMemoryBound(to: Pointee.self) }
}

extension OpaquePointer: GPtr {
    public var raw: UnsafeMutableRawPointer { UnsafeMutableRawPointer(self) }
    public init(raw: UnsafeMutableRawPointer) { self.init(raw) }
}

extension UnsafeMutableRawPointer: GPtr {
    public var raw: UnsafeMutableRawPointer { self }
    public init(raw: UnsafeMutableRawPointer) { self = raw }
}

/// An unchecked cast between the ways one GObject is imported (`GTK_WIDGET(x)` and friends are macros).
@inline(__always)
public func cast<P: GPtr>(_ p: some GPtr) -> P { P(raw: p.raw) }

/// A GTK pointer that a `@MainActor` closure may capture (GTK pointers are not Sendable; every use of one is
/// on the main thread anyway).
public struct Obj<P: GPtr>: @unchecked Sendable {
    public let p: P
    public init(_ p: P) { self.p = p }
}

// MARK: - Signals

/// The closure of one connection. GLib owns the box: it is retained once and released by the destroy notify
/// when the handler is disconnected or the object finalized (never by a Swift array of handlers).
private final class Handler<F>: @unchecked Sendable {
    let body: F
    init(_ body: F) { self.body = body }
}

private let releaseHandler: GClosureNotify = { data, _ in
    Unmanaged<AnyObject>.fromOpaque(data!).release()
}

private func connect<F>(_ object: some GPtr, _ signal: String, _ thunk: GCallback, _ body: F) -> gulong {
    let box = Unmanaged.passRetained(Handler(body) as AnyObject).toOpaque()
    return g_signal_connect_data(object.raw, signal, thunk, box, releaseHandler, GConnectFlags(rawValue: 0))
}

/// `clicked`, `toggled`, `changed`, `activate`, `apply`: signals with no arguments and no result.
@MainActor @discardableResult
public func on(_ object: some GPtr, _ signal: String, _ body: @escaping @MainActor () -> Void) -> gulong {
    let thunk: @convention(c) (gpointer?, gpointer?) -> Void = { _, data in
        let handler = Unmanaged<Handler<@MainActor () -> Void>>.fromOpaque(data!).takeUnretainedValue()
        MainActor.assumeIsolated { handler.body() }  // GTK emits on the main thread
    }
    return connect(object, signal, unsafeBitCast(thunk, to: GCallback.self), body)
}

/// `notify::property` (instance, GParamSpec, data).
@MainActor @discardableResult
public func onNotify(_ object: some GPtr, _ property: String, _ body: @escaping @MainActor () -> Void) -> gulong {
    let thunk: @convention(c) (gpointer?, gpointer?, gpointer?) -> Void = { _, _, data in
        let handler = Unmanaged<Handler<@MainActor () -> Void>>.fromOpaque(data!).takeUnretainedValue()
        MainActor.assumeIsolated { handler.body() }
    }
    return connect(object, "notify::" + property, unsafeBitCast(thunk, to: GCallback.self), body)
}

/// A signal with one pointer argument: a list item factory's `setup`/`bind`/`unbind` (factory, GtkListItem, data).
@MainActor @discardableResult
public func onPointer(_ object: some GPtr, _ signal: String, _ body: @escaping @MainActor (UnsafeMutableRawPointer) -> Void) -> gulong {
    let thunk: @convention(c) (gpointer?, gpointer?, gpointer?) -> Void = { _, argument, data in
        let handler = Unmanaged<Handler<@MainActor (UnsafeMutableRawPointer) -> Void>>.fromOpaque(data!).takeUnretainedValue()
        guard let argument else { return }
        MainActor.assumeIsolated { handler.body(argument) }
    }
    return connect(object, signal, unsafeBitCast(thunk, to: GCallback.self), body)
}

/// A signal with one `gint` argument: GtkNativeDialog's `response`.
@MainActor @discardableResult
public func onInt(_ object: some GPtr, _ signal: String, _ body: @escaping @MainActor (Int32) -> Void) -> gulong {
    let thunk: @convention(c) (gpointer?, gint, gpointer?) -> Void = { _, value, data in
        let handler = Unmanaged<Handler<@MainActor (Int32) -> Void>>.fromOpaque(data!).takeUnretainedValue()
        MainActor.assumeIsolated { handler.body(value) }
    }
    return connect(object, signal, unsafeBitCast(thunk, to: GCallback.self), body)
}

/// A signal with two `double` arguments: GtkGestureDrag's `drag-begin`/`drag-update`, GtkGestureClick's
/// `released` without its count (gesture, x, y, data).
@MainActor @discardableResult
public func onPoint(_ object: some GPtr, _ signal: String, _ body: @escaping @MainActor (Double, Double) -> Void) -> gulong {
    let thunk: @convention(c) (gpointer?, gdouble, gdouble, gpointer?) -> Void = { _, x, y, data in
        let handler = Unmanaged<Handler<@MainActor (Double, Double) -> Void>>.fromOpaque(data!).takeUnretainedValue()
        MainActor.assumeIsolated { handler.body(x, y) }
    }
    return connect(object, signal, unsafeBitCast(thunk, to: GCallback.self), body)
}

/// GtkEventControllerScroll's `scroll` (controller, dx, dy, data): answers "handled".
@MainActor @discardableResult
public func onScroll(_ controller: some GPtr, _ body: @escaping @MainActor (Double, Double) -> Bool) -> gulong {
    let thunk: @convention(c) (gpointer?, gdouble, gdouble, gpointer?) -> gboolean = { _, dx, dy, data in
        let handler = Unmanaged<Handler<@MainActor (Double, Double) -> Bool>>.fromOpaque(data!).takeUnretainedValue()
        return MainActor.assumeIsolated { handler.body(dx, dy) } ? 1 : 0
    }
    return connect(controller, "scroll", unsafeBitCast(thunk, to: GCallback.self), body)
}

/// GAction's `activate` (action, parameter, data): the parameter is not used.
@MainActor @discardableResult
public func onActivate(_ action: some GPtr, _ body: @escaping @MainActor () -> Void) -> gulong {
    let thunk: @convention(c) (gpointer?, gpointer?, gpointer?) -> Void = { _, _, data in
        let handler = Unmanaged<Handler<@MainActor () -> Void>>.fromOpaque(data!).takeUnretainedValue()
        MainActor.assumeIsolated { handler.body() }
    }
    return connect(action, "activate", unsafeBitCast(thunk, to: GCallback.self), body)
}

/// GApplication's `open` (application, GFile **files, n_files, hint, data): the files' paths.
@MainActor @discardableResult
public func onOpen(_ app: some GPtr, _ body: @escaping @MainActor ([String]) -> Void) -> gulong {
    let thunk: @convention(c) (gpointer?, UnsafeMutablePointer<OpaquePointer?>?, gint, UnsafePointer<CChar>?, gpointer?) -> Void = {
        _, files, count, _, data in
        let handler = Unmanaged<Handler<@MainActor ([String]) -> Void>>.fromOpaque(data!).takeUnretainedValue()
        let paths = (0..<Int(max(count, 0))).compactMap { index in
            files?[index].flatMap { takeString(g_file_get_path($0)) }
        }
        MainActor.assumeIsolated { handler.body(paths) }
    }
    return connect(app, "open", unsafeBitCast(thunk, to: GCallback.self), body)
}

/// GtkDropTarget's `drop` for a `GdkFileList` (target, GValue, x, y, data): the dropped files' paths and
/// where they were dropped (in the target widget's coordinates); answers whether the drop was taken.
@MainActor @discardableResult
public func onDropFiles(_ target: some GPtr, _ body: @escaping @MainActor ([String], Double, Double) -> Bool) -> gulong {
    let thunk: @convention(c) (gpointer?, UnsafePointer<GValue>?, Double, Double, gpointer?) -> gboolean = { _, value, x, y, data in
        let handler = Unmanaged<Handler<@MainActor ([String], Double, Double) -> Bool>>.fromOpaque(data!).takeUnretainedValue()
        var paths: [String] = []
        var node = value.flatMap { g_value_get_boxed($0) }?.assumingMemoryBound(to: GSList.self)
        while let current = node {
            if let file = current.pointee.data, let path = takeString(g_file_get_path(OpaquePointer(file))) { paths.append(path) }
            node = current.pointee.next
        }
        return MainActor.assumeIsolated { handler.body(paths, x, y) } ? 1 : 0
    }
    return connect(target, "drop", unsafeBitCast(thunk, to: GCallback.self), body)
}

/// The same, where the drop point does not matter.
@MainActor @discardableResult
public func onDropFiles(_ target: some GPtr, _ body: @escaping @MainActor ([String]) -> Bool) -> gulong {
    onDropFiles(target) { paths, _, _ in body(paths) }
}

/// A signal whose handler answers "handled": GtkWindow's `close-request`.
@MainActor @discardableResult
public func onBool(_ object: some GPtr, _ signal: String, _ body: @escaping @MainActor () -> Bool) -> gulong {
    let thunk: @convention(c) (gpointer?, gpointer?) -> gboolean = { _, data in
        let handler = Unmanaged<Handler<@MainActor () -> Bool>>.fromOpaque(data!).takeUnretainedValue()
        return MainActor.assumeIsolated { handler.body() } ? 1 : 0
    }
    return connect(object, signal, unsafeBitCast(thunk, to: GCallback.self), body)
}

/// GtkEventControllerKey's `key-pressed` (controller, keyval, keycode, modifiers, data): answers "handled".
@MainActor @discardableResult
public func onKey(_ controller: some GPtr, _ body: @escaping @MainActor (_ keyval: guint, _ modifiers: GdkModifierType) -> Bool) -> gulong {
    let thunk: @convention(c) (gpointer?, guint, guint, GdkModifierType, gpointer?) -> gboolean = { _, keyval, _, modifiers, data in
        let handler = Unmanaged<Handler<@MainActor (guint, GdkModifierType) -> Bool>>.fromOpaque(data!).takeUnretainedValue()
        return MainActor.assumeIsolated { handler.body(keyval, modifiers) } ? 1 : 0
    }
    return connect(controller, "key-pressed", unsafeBitCast(thunk, to: GCallback.self), body)
}

// MARK: - Small helpers

/// A widget's accessible name, for what GTK 4.8 leaves unnamed (icon buttons, rows' inner switches), and its
/// only name: GTK 4.8 says the label property followed by the names of what labels the widget (a button's
/// own mnemonic label, the row title libadwaita relates to a row's switch), which gives "_Cancel Cancel" and
/// "Show password Show password": the relation goes. (A mnemonic label: `Names.set`.)
@MainActor
public func accessibleLabel(_ widget: some GPtr, _ label: String) {
    gtk_accessible_reset_relation(cast(widget), GTK_ACCESSIBLE_RELATION_LABELLED_BY)
    cgtk_accessible_set_label(cast(widget), label)
}

/// Takes a newly allocated C string (transfer full) and frees it.
public func takeString(_ text: UnsafeMutablePointer<CChar>?) -> String? {
    guard let text else { return nil }
    defer { g_free(text) }
    return String(cString: text)
}

/// The GtkWidget view of any widget pointer.
@inline(__always)
public func widget(_ p: some GPtr) -> UnsafeMutablePointer<GtkWidget> { cast(p) }

/// Finds the first descendant whose `gtk_widget_get_name` is `name` (a row's inner GtkSwitch, which GTK 4.8
/// exposes without a name: ../shared/notes/gtk-from-swift.md §7).
@MainActor
public func descendant(of root: UnsafeMutablePointer<GtkWidget>, named name: String) -> UnsafeMutablePointer<GtkWidget>? {
    var child = gtk_widget_get_first_child(root)
    while let current = child {
        if String(cString: gtk_widget_get_name(current)) == name { return current }
        if let found = descendant(of: current, named: name) { return found }
        child = gtk_widget_get_next_sibling(current)
    }
    return nil
}
