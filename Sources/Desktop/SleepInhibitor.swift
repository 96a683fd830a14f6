internal import CGLib
import Dispatch
import Glibc

/// Keeps the machine from suspending while a long job runs, through logind's inhibitor lock: logind
/// holds the lock for as long as the file descriptor it hands out stays open.
public final class SleepInhibitor {
    private var descriptor: Int32

    /// Takes the lock on the system bus (`DBUS_SYSTEM_BUS_ADDRESS` when set).
    /// - Parameter why: shown by `systemd-inhibit --list` and by desktops that ask before suspending.
    /// - Returns: nil, quietly, when there is no system bus or logind refuses.
    public convenience init?(why: String) {
        var error: UnsafeMutablePointer<GError>?
        guard let address = takeString(g_dbus_address_get_for_bus_sync(G_BUS_TYPE_SYSTEM, nil, &error)) else {
            g_clear_error(&error)
            return nil
        }
        self.init(why: why, busAddress: address)
    }

    /// Takes the lock from the logind at `busAddress`. The corresponding D-Bus method is
    /// `org.freedesktop.login1.Manager.Inhibit`.
    init?(why: String, busAddress: String, timeout: Double = 2) {
        let arguments = ["sleep", "Archiver", why, "block"].map { (text: String) in g_variant_new_string(text) }
        let taken: Int32? = BusCall.call(
            address: busAddress, destination: "org.freedesktop.login1", path: "/org/freedesktop/login1",
            interface: "org.freedesktop.login1.Manager", method: "Inhibit", arguments: arguments, replyType: "(h)",
            timeout: timeout
        ) { reply, descriptors in
            guard let descriptors else { return nil }
            let handle = g_variant_get_child_value(reply, 0)
            defer { g_variant_unref(handle) }
            // A duplicate: the list closes its own copy when it is freed.
            let descriptor = g_unix_fd_list_get(descriptors, g_variant_get_handle(handle), nil)
            return descriptor >= 0 ? descriptor : nil
        }
        guard let taken else { return nil }
        descriptor = taken
    }

    /// Gives the lock back. Calling it again does nothing.
    public func release() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
    }

    deinit { release() }
}

/// One D-Bus method call on a connection of its own, opened and closed around the call. Unlike the
/// `g_bus_get_sync` singletons, such a connection never ends the process when the bus goes away and is
/// not tied to the address the process saw first.
enum BusCall {
    /// - Parameters:
    ///   - arguments: the method's arguments, wrapped into a tuple here.
    ///   - timeout: seconds for connecting and for the reply together, so a hung bus cannot stall a job.
    ///   - read: turns the reply and any file descriptors that came with it into the result.
    /// - Returns: nil when the bus cannot be reached, the call fails, or `read` returns nil.
    static func call<Result>(
        address: String, destination: String, path: String, interface: String, method: String,
        arguments: [OpaquePointer?], replyType: String?, timeout: Double,
        read: (OpaquePointer, UnsafeMutablePointer<GUnixFDList>?) -> Result?
    ) -> Result? {
        let parameters = arguments.withUnsafeBufferPointer { g_variant_new_tuple($0.baseAddress, gsize($0.count)) }
        g_variant_ref_sink(parameters)
        defer { g_variant_unref(parameters) }

        let deadline = Deadline(after: timeout)
        var error: UnsafeMutablePointer<GError>?
        defer { g_clear_error(&error) }
        let flags = GDBusConnectionFlags(
            rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue
                | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
        guard let connection = g_dbus_connection_new_for_address_sync(address, flags, nil, deadline.cancellable, &error)
        else { return nil }
        defer {
            g_dbus_connection_close(connection, nil, nil, nil)
            g_object_unref(UnsafeMutableRawPointer(connection))
        }
        // A copy: a pointer into a Swift string's temporary C string would dangle after the call making it.
        let type = replyType.flatMap { g_variant_type_new($0) }
        defer { if let type { g_variant_type_free(type) } }
        var descriptors: UnsafeMutablePointer<GUnixFDList>?
        guard
            let reply = g_dbus_connection_call_with_unix_fd_list_sync(
                connection, destination, path, interface, method, parameters, type, G_DBUS_CALL_FLAGS_NONE,
                gint(timeout * 1000), nil, &descriptors, deadline.cancellable, &error)
        else { return nil }
        defer {
            g_variant_unref(reply)
            if let descriptors { g_object_unref(descriptors) }
        }
        return read(reply, descriptors)
    }

    /// A cancellable that cancels itself after a while; it covers the connection handshake, which has no
    /// timeout of its own.
    private final class Deadline: @unchecked Sendable {
        let cancellable: UnsafeMutablePointer<GCancellable>?

        init(after seconds: Double) {
            cancellable = g_cancellable_new()
            // The timer's closure keeps this object, and so the cancellable, alive until it fires.
            Self.timers.asyncAfter(deadline: .now() + seconds) { [self] in g_cancellable_cancel(cancellable) }
        }

        /// A queue of its own: the global queues run Swift concurrency's jobs too, and blocked jobs there
        /// would delay the cancel (seen under swift-testing on two cores).
        private static let timers = DispatchQueue(label: "archiver.bus-deadline")

        deinit { g_object_unref(cancellable) }
    }
}
