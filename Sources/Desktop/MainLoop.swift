internal import CGLib
import Dispatch

/// GLib's default main context, run on a thread of its own. libnotify delivers action and `closed`
/// callbacks only from a running main loop, while the job itself blocks the main thread in libarchive;
/// `@MainActor` would never run under `g_main_loop_run` (../shared/notes/libarchive-glib-swift.md §6).
/// A window process runs the default context itself (GTK's loop): there no thread is started, and the
/// work runs on the window's thread, so notifications from a window go the same way as from a tool.
public enum MainLoop {
    private final class Work {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// Set once, before any notification, by a process whose main thread runs the default context.
    nonisolated(unsafe) private static var callerRunsLoop = false

    /// Says that the caller's main thread runs GLib's default context (GTK's `g_application_run`): a
    /// second thread iterating it would steal the window's events.
    public static func useCallersLoop() { callerRunsLoop = true }

    /// Starts the loop thread once; a static's lazy initialisation makes every other caller wait for it.
    static func start() {
        if !callerRunsLoop { _ = thread }
    }

    private static let thread: Void = {
        let loop = g_main_loop_new(nil, 0)
        let thread = g_thread_new("archiver-glib", { loop in
            g_main_loop_run(OpaquePointer(loop))
            return nil
        }, UnsafeMutableRawPointer(loop))
        g_thread_unref(thread)
        // Until the loop owns the context, g_main_context_invoke would run work on the caller's thread.
        let running = DispatchSemaphore(value: 0)
        let signal = Unmanaged.passRetained(Work { running.signal() }).toOpaque()
        g_idle_add({ data in
            Unmanaged<Work>.fromOpaque(data!).takeRetainedValue().body()
            return 0
        }, signal)
        running.wait()
    }()

    /// Runs `body` on the loop thread, in order with every other call and callback there (at once when
    /// called on the thread that runs the loop).
    static func perform(_ body: @escaping () -> Void) {
        start()
        let work = Unmanaged.passRetained(Work(body)).toOpaque()
        g_main_context_invoke(nil, { data in
            let work = Unmanaged<Work>.fromOpaque(data!).takeRetainedValue()
            work.body()
            return 0  // G_SOURCE_REMOVE
        }, work)
    }
}
