internal import CGLib
internal import CNotify
import Dispatch
import Glibc

/// One desktop notification per job, replaced in place: progress, then the result or the failure.
/// All libnotify calls run on the GLib loop thread (`MainLoop`), where its callbacks arrive too.
public final class Notifier: @unchecked Sendable {
    public enum Urgency { case low, normal, critical }

    /// A button on the notification. `run` is called on the GLib thread.
    public struct Action: Sendable {
        public var id: String
        public var label: String
        public var run: @Sendable () -> Void
        public init(id: String, label: String, run: @escaping @Sendable () -> Void) {
            self.id = id
            self.label = label
            self.run = run
        }
    }

    /// Whether the server shows buttons (xfce4-notifyd and GNOME do; some minimal servers do not).
    public let supportsActions: Bool
    /// Whether the server draws the `value` hint as a bar.
    public let capabilities: Set<String>
    private let notification: UnsafeMutablePointer<NotifyNotification>
    /// The `desktop-entry` hint: the server shows the launcher's (translated) name and icon.
    private let desktopEntry: String?
    /// Signalled when the person clicks a button or the notification closes.
    private let interaction = DispatchSemaphore(value: 0)
    private var actionBoxes: [Unmanaged<ActionBox>] = []

    private final class ActionBox {
        let action: Action
        weak var owner: Notifier?
        init(_ action: Action, owner: Notifier) {
            self.action = action
            self.owner = owner
        }
    }

    /// A notifier when a session bus and a notification server are there; nil otherwise, without
    /// starting a bus (`dbus-launch` autolaunch would hang or pop up an X11 error on a headless machine).
    /// - Parameter desktopEntry: the launcher's desktop file ID without `.desktop`, such as
    ///   `io.github.archiver.Extract`.
    public static func connect(appName: String = "Archiver", desktopEntry: String? = nil) -> Notifier? {
        // libnotify prints a warning on stderr when it finds no bus or no server; look first.
        guard sessionBusAddress() != nil, serverIsThere() else { return nil }
        var result: Notifier?
        let done = DispatchSemaphore(value: 0)
        MainLoop.perform {
            defer { done.signal() }
            guard notify_is_initted() != 0 || notify_init(appName) != 0 else { return }
            // Asks the server; nil when none answers.
            guard let caps = notify_get_server_caps() else { return }
            var names: Set<String> = []
            var node: UnsafeMutablePointer<GList>? = caps
            while let current = node {
                if let data = current.pointee.data { names.insert(String(cString: data.assumingMemoryBound(to: CChar.self))) }
                node = current.pointee.next
            }
            g_list_free_full(caps, g_free)
            guard let notification = notify_notification_new("Archiver", nil, nil) else { return }
            result = Notifier(notification: notification, capabilities: names, desktopEntry: desktopEntry)
        }
        done.wait()
        return result
    }

    private init(notification: UnsafeMutablePointer<NotifyNotification>, capabilities: Set<String>, desktopEntry: String?) {
        self.notification = notification
        self.capabilities = capabilities
        self.desktopEntry = desktopEntry
        supportsActions = capabilities.contains("actions")
        let me = Unmanaged.passUnretained(self).toOpaque()
        let closed: @convention(c) (OpaquePointer?, gpointer?) -> Void = { _, data in
            Unmanaged<Notifier>.fromOpaque(data!).takeUnretainedValue().interaction.signal()
        }
        _ = cg_signal_connect(gpointer(notification), "closed", unsafeBitCast(closed, to: GCallback.self), me)
    }

    /// Shows or replaces the notification. Returns at once; the D-Bus call happens on the GLib thread.
    /// - Parameters:
    ///   - summary, body: plain text in the user's language; the body is escaped here for servers that
    ///     read it as markup, so a file named `<b>` shows as typed.
    ///   - percent: the `value` hint for servers that draw a bar; nil removes it.
    ///   - transient: kept out of the notification history (progress is).
    ///   - wait: returns only once the server has the notification (for the last one before exiting).
    public func show(
        summary: String, body: String, urgency: Urgency = .normal, percent: Int? = nil, actions: [Action] = [],
        transient: Bool = false, wait: Bool = false
    ) {
        let shown = DispatchSemaphore(value: 0)
        MainLoop.perform { [self] in
            defer { shown.signal() }
            notify_notification_update(notification, summary, bodyText(body), "package-x-generic")
            notify_notification_set_hint(notification, "desktop-entry", desktopEntry.map { g_variant_new_string($0) })
            notify_notification_set_urgency(notification, Self.level(urgency))
            notify_notification_set_hint(notification, "value", percent.map { g_variant_new_int32(Int32($0)) })
            notify_notification_set_hint(notification, "transient", transient ? g_variant_new_boolean(1) : nil)
            // Results stay until dismissed; progress is replaced anyway.
            notify_notification_set_timeout(notification, urgency == .critical ? 0 : -1)
            replaceActions(supportsActions ? actions : [])
            var error: UnsafeMutablePointer<GError>?
            if notify_notification_show(notification, &error) == 0 { g_clear_error(&error) }
        }
        if wait { shown.wait() }
    }

    /// Waits until the person clicks a button or closes the notification, at most `timeout` seconds.
    /// - Returns: false when the time ran out.
    @discardableResult
    public func waitForInteraction(timeout: Double) -> Bool {
        interaction.wait(timeout: .now() + timeout) == .success
    }

    /// Takes the notification away (a button whose process is leaving would do nothing).
    public func close() {
        let closed = DispatchSemaphore(value: 0)
        MainLoop.perform { [self] in
            defer { closed.signal() }
            var error: UnsafeMutablePointer<GError>?
            if notify_notification_close(notification, &error) == 0 { g_clear_error(&error) }
        }
        closed.wait()
    }

    private func replaceActions(_ actions: [Action]) {
        notify_notification_clear_actions(notification)
        // The boxes of the old actions were freed by libnotify through `release` below.
        actionBoxes = []
        for action in actions {
            let box = Unmanaged.passRetained(ActionBox(action, owner: self))
            actionBoxes.append(box)
            let callback: @convention(c) (UnsafeMutablePointer<NotifyNotification>?, UnsafeMutablePointer<CChar>?, gpointer?) -> Void = { _, _, data in
                let box = Unmanaged<ActionBox>.fromOpaque(data!).takeUnretainedValue()
                box.action.run()
                box.owner?.interaction.signal()
            }
            let release: @convention(c) (gpointer?) -> Void = { data in
                Unmanaged<ActionBox>.fromOpaque(data!).release()
            }
            notify_notification_add_action(notification, action.id, action.label, callback, box.toOpaque(), release)
        }
    }

    /// The body as the server reads it: markup only where it says `body-markup` (the specification's
    /// subset, in which `&`, `<` and `>` are the characters to escape).
    func bodyText(_ text: String) -> String {
        capabilities.contains("body-markup") ? Markup.escaped(text) : text
    }

    private static func level(_ urgency: Urgency) -> NotifyUrgency {
        switch urgency {
        case .low: NOTIFY_URGENCY_LOW
        case .normal: NOTIFY_URGENCY_NORMAL
        case .critical: NOTIFY_URGENCY_CRITICAL
        }
    }

    /// Whether `org.freedesktop.Notifications` has an owner or can be started on the session bus.
    private static func serverIsThere() -> Bool {
        var error: UnsafeMutablePointer<GError>?
        guard let bus = g_bus_get_sync(G_BUS_TYPE_SESSION, nil, &error) else {
            g_clear_error(&error)
            return false
        }
        defer { g_object_unref(UnsafeMutableRawPointer(bus)) }
        func ask(_ method: String, _ arguments: OpaquePointer?) -> OpaquePointer? {
            let reply = g_dbus_connection_call_sync(
                bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", method, arguments, nil,
                G_DBUS_CALL_FLAGS_NONE, 2000, nil, &error)
            g_clear_error(&error)
            return reply
        }
        let name = "org.freedesktop.Notifications"
        var argument = g_variant_new_string(name)
        if let reply = ask("NameHasOwner", g_variant_new_tuple(&argument, 1)) {
            defer { g_variant_unref(reply) }
            let owned = g_variant_get_child_value(reply, 0)
            defer { g_variant_unref(owned) }
            if g_variant_get_boolean(owned) != 0 { return true }
        }
        guard let reply = ask("ListActivatableNames", nil) else { return false }
        defer { g_variant_unref(reply) }
        let names = g_variant_get_child_value(reply, 0)
        defer { g_variant_unref(names) }
        for index in 0..<g_variant_n_children(names) {
            let child = g_variant_get_child_value(names, index)
            defer { g_variant_unref(child) }
            if String(cString: g_variant_get_string(child, nil)) == name { return true }
        }
        return false
    }
}
