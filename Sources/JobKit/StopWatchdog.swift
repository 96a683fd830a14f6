import Platform
import ArchiverCore
import Desktop
import Dispatch
import Glibc
import Platform
import Synchronization

/// Makes a stop hold when the engine never comes back (a libarchive call looping on malformed data):
/// from its own thread it watches the job's control, and when a stop (a signal, Cancel, the budget, no
/// progress) has not ended the job within `grace`, it parks the engine's thread, removes the job's
/// temporary outputs, kills its child programs, reports and exits.
final class StopWatchdog: @unchecked Sendable {
    /// How long the engine has to notice a stop itself, at its next block.
    static let grace = Duration.seconds(1)

    private let control: JobControl
    private let queue = DispatchQueue(label: "io.github.archiver.watchdog")
    private let timer: any DispatchSourceTimer
    /// The thread that runs the engine, and its kernel I/O counters for the progress watch.
    private let engine = pthread_self()
    private let engineIO: String
    /// Seconds without input read or output written after which a reader is given up as malformed;
    /// nil when this command does not watch for progress.
    private let stallLimit: Int?
    // Touched on `queue` only:
    private var stopSeen: ContinuousClock.Instant?
    private var lastIO: Int64?
    private var lastProgress = ContinuousClock.now
    /// A second signal: abandon without waiting for the grace period.
    let hurry = Atomic<Bool>(false)

    /// - Parameter watchesProgress: give up on a reader that makes no progress (the extractor).
    init(control: JobControl, watchesProgress: Bool) {
        self.control = control
        engineIO = Self.threadFolder() + "/io"
        stallLimit = watchesProgress ? Self.stallSeconds : nil
        timer = DispatchSource.makeTimerSource(queue: queue)
        Parking.prepare()
        timer.schedule(deadline: .now() + .milliseconds(100), repeating: .milliseconds(100), leeway: .milliseconds(20))
        timer.setEventHandler { [unowned self] in tick() }
        timer.resume()
    }

    /// `/proc/PID/task/TID` of the calling thread (Swift's Glibc does not show `gettid`).
    private static func threadFolder() -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        let count = readlink("/proc/thread-self", &buffer, buffer.count - 1)
        return count > 0 ? "/proc/" + String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) : "/proc/self"
    }

    /// 10 s, or in a debug build `ARCHIVER_STALL_SECONDS` (for tests).
    private static var stallSeconds: Int {
        #if ARCHIVER_TEST_HOOKS
        getenv("ARCHIVER_STALL_SECONDS").flatMap { Int(String(cString: $0)) }.flatMap { $0 > 0 ? $0 : nil } ?? 10
        #else
        10
        #endif
    }

    private func tick() {
        let now = ContinuousClock.now
        if let stallLimit { watchProgress(now: now, limit: stallLimit) }
        guard let reason = control.stopReason else {
            stopSeen = nil
            return
        }
        if stopSeen == nil { stopSeen = now }
        guard let seen = stopSeen, now - seen >= Self.grace || hurry.load(ordering: .relaxed) else { return }
        // Not while a result is moved into place or the job is over: the command then finishes itself.
        guard PendingOutputs.isAbandonable else { return }
        abandon(reason)
    }

    /// Gives up on the input when the engine's thread has read and written nothing for `limit` seconds
    /// while a job runs in this process (not while a person is asked, nor while 7-Zip or unrar works).
    private func watchProgress(now: ContinuousClock.Instant, limit: Int) {
        let io = PendingOutputs.isAbandonable && !PendingOutputs.hasChildren && !control.isWaitingForPerson
            ? readIO() : nil
        guard let io, io == lastIO else {
            lastIO = io
            lastProgress = now
            return
        }
        if now - lastProgress >= .seconds(limit), control.stopReason == nil { control.stall(seconds: limit) }
    }

    /// Bytes the engine's thread has read and written so far (`rchar` + `wchar`), nil when unknown, plus the
    /// work of its helper threads (a tar.xz is read by `ReadAhead`'s thread and its small files are created by
    /// workers: the engine's thread may only decode from memory for a long while).
    private func readIO() -> Int64? {
        engineThreadIO().map { $0 &+ Int64(PendingOutputs.helperWork) }
    }

    private func engineThreadIO() -> Int64? {
        let descriptor = open(engineIO, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        var total: Int64 = 0
        for line in buffer[..<count].split(separator: UInt8(ascii: "\n")).prefix(2) {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")),
                let value = Int64(String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingPrefix(" "))
            else { return nil }
            total += value
        }
        return total
    }

    /// Ends the process as the job would have: its outputs removed, its programs killed, the stop
    /// reported, exit 8 (cancelled), 9 (budget) or 5 (no progress).
    private func abandon(_ reason: ArchiverError) {
        // The engine must not go on (publish, report, exit) while its work is taken apart.
        Parking.park(engine)
        Parking.exitIfStuck(reason.code.exitStatus)
        guard PendingOutputs.abandonAll() else {
            Parking.unpark()
            return
        }
        CommandRunner.report(reason)
        _exit(reason.code.exitStatus)
    }
}

/// Holds the engine's thread in a signal handler while the watchdog takes its job apart, so that nothing
/// runs beside the clean-up. The handler only sleeps, which is safe wherever the thread was stopped.
private enum Parking {
    /// Not SIGUSR1/SIGUSR2, which pause and resume a batch of photos; SIGURG is ignored by default, so
    /// one sent from outside before the handler is in place does nothing.
    private static let parkSignal = SIGURG
    fileprivate static let held = Atomic<Bool>(false)
    fileprivate static let arrived = Atomic<Bool>(false)
    fileprivate static let exitStatus = Atomic<Int32>(ArchiverError.Code.cancelled.exitStatus)

    static func prepare() {
        // Touched here so that the handlers never initialise a global.
        _ = held.load(ordering: .relaxed)
        _ = arrived.load(ordering: .relaxed)
        _ = exitStatus.load(ordering: .relaxed)
        install(parkSignal) { _ in
            Parking.arrived.store(true, ordering: .sequentiallyConsistent)
            var pause = timespec(tv_sec: 0, tv_nsec: 5_000_000)
            while Parking.held.load(ordering: .sequentiallyConsistent) { nanosleep(&pause, nil) }
            Parking.arrived.store(false, ordering: .sequentiallyConsistent)
        }
        install(SIGALRM) { _ in _exit(Parking.exitStatus.load(ordering: .relaxed)) }
    }

    private static func install(_ signal: Int32, _ handler: @convention(c) (Int32) -> Void) {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = handler
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        sigaction(signal, &action, nil)
    }

    /// Stops `thread` in the handler; waits up to 0.2 s for it to get there (a thread inside a system call
    /// that cannot be interrupted arrives when the call returns).
    static func park(_ thread: pthread_t) {
        held.store(true, ordering: .sequentiallyConsistent)
        guard !pthread_equal(thread, pthread_self()).isTrue else { return }
        pthread_kill(thread, parkSignal)
        for _ in 0..<40 where !arrived.load(ordering: .sequentiallyConsistent) { usleep(5000) }
    }

    static func unpark() {
        held.store(false, ordering: .sequentiallyConsistent)
        alarm(0)
    }

    /// If the clean-up itself hangs (the parked thread held a lock it needs), the process still ends, with
    /// `status`, within two seconds.
    static func exitIfStuck(_ status: Int32) {
        exitStatus.store(status, ordering: .relaxed)
        alarm(2)
    }
}

extension Int32 {
    fileprivate var isTrue: Bool { self != 0 }
}
