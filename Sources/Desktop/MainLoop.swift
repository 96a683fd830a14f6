internal import CGLib
import Dispatch

/// GLib's default main context, run on a thread of its own. libnotify delivers action and `closed`
/// callbacks only from a running main loop, while the job itself blocks the main thread in libarchive;
/// `@MainActor` would never run under `g_main_loop_run` (../shared/notes/libarchive-glib-swift.md §6).
enum MainLoop {
    private final class Work {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// Starts the loop thread once; a static's lazy initialisation makes every other caller wait for it.
    static func start() { _ = thread }

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

    /// Runs `body` on the loop thread, in order with every other call and callback there.
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
