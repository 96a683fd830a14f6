import Synchronization

/// Stops a running job: cancellation from a signal or a Cancel action, the time budget, and a reader that
/// stopped making progress. The job calls `check()` between blocks of work; anyone may call `cancel()` or
/// `stall(seconds:)` from any thread.
public final class JobControl: Sendable {
    private let cancelled = Atomic<Bool>(false)
    /// Seconds without progress after which a watchdog gave up on the input; 0 while it has not.
    private let stalledAfter = Atomic<Int>(0)
    private let start = ContinuousClock.now
    private let deadline: ContinuousClock.Instant?
    /// Nanoseconds spent waiting for a person (a password prompt), which the budget does not count.
    private let waited = Atomic<Int64>(0)
    /// When the current wait for a person began, in nanoseconds after `start`; -1 when nobody is asked.
    private let waitingSince = Atomic<Int64>(-1)
    /// When the current pause began, in nanoseconds after `start`; -1 while running.
    private let pausedSince = Atomic<Int64>(-1)
    /// Pauses so far: a pause is told apart from the one before.
    private let pauses = Atomic<Int>(0)
    /// The budget in seconds, for messages.
    public let budget: Double?

    /// - Parameter budget: seconds the job may take; nil or 0 means no limit.
    public init(budget: Double? = nil) {
        if let budget, budget > 0, budget.isFinite, budget < 1e9 {
            self.budget = budget
            deadline = start.advanced(by: .milliseconds(Int64(budget * 1000)))
        } else {
            self.budget = nil
            deadline = nil
        }
    }

    public func cancel() { cancelled.store(true, ordering: .relaxed) }

    public var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    /// Gives up on an input that made no progress for `seconds` (a loop on malformed data).
    public func stall(seconds: Int) { stalledAfter.store(max(1, seconds), ordering: .relaxed) }

    /// Whether a person is being asked something now (a password), or paused the job, so that neither the
    /// budget nor a watch for progress counts the time.
    public var isWaitingForPerson: Bool { waitingSince.load(ordering: .relaxed) >= 0 || isPaused }

    /// Pauses the job (a batch's workers finish the item in hand, then wait); the time until `resume()` is
    /// not counted. Returns false when it was paused already.
    @discardableResult
    public func pause() -> Bool {
        let now = (ContinuousClock.now - start).inNanoseconds
        guard pausedSince.compareExchange(expected: -1, desired: now, ordering: .relaxed).exchanged else { return false }
        pauses.wrappingAdd(1, ordering: .relaxed)
        return true
    }

    /// Ends a pause. Returns false when it was not paused.
    @discardableResult
    public func resume() -> Bool {
        let since = pausedSince.exchange(-1, ordering: .relaxed)
        guard since >= 0 else { return false }
        waited.wrappingAdd((ContinuousClock.now - start).inNanoseconds - since, ordering: .relaxed)
        return true
    }

    public var isPaused: Bool { pausedSince.load(ordering: .relaxed) >= 0 }

    /// Which pause this is (1 for the first): a waiter announces each pause once.
    public var pauseNumber: Int { pauses.load(ordering: .relaxed) }

    /// Seconds of work so far: the time since the start, less pauses and waits for a person.
    public var workingSeconds: Double {
        var now = (ContinuousClock.now - start).inNanoseconds - waited.load(ordering: .relaxed)
        let since = pausedSince.load(ordering: .relaxed)
        if since >= 0 { now -= (ContinuousClock.now - start).inNanoseconds - since }
        return max(0, Double(now) / 1e9)
    }

    /// Runs `body` without its time counting against the budget: the budget is for the work, not for
    /// someone typing a password.
    public func notCounting<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        let began = (ContinuousClock.now - start).inNanoseconds
        waitingSince.store(began, ordering: .relaxed)
        defer {
            waited.wrappingAdd((ContinuousClock.now - start).inNanoseconds - began, ordering: .relaxed)
            waitingSince.store(-1, ordering: .relaxed)
        }
        return try body()
    }

    /// Why the job must stop now, or nil while it may go on.
    public var stopReason: ArchiverError? {
        if isCancelled {
            return ArchiverError(.cancelled, tr("Cancelled; nothing was left behind."))
        }
        let stalled = stalledAfter.load(ordering: .relaxed)
        if stalled > 0 {
            return ArchiverError(
                .corrupt, tr("The archive is malformed: reading it made no progress for %@, so it was stopped; nothing was left behind.", .spoken(Double(stalled))),
                hint: tr("The file is damaged, or was made to trap programs that read it; do not trust its contents."))
        }
        if let deadline, let budget, !isWaitingForPerson,
            ContinuousClock.now >= deadline.advanced(by: .nanoseconds(waited.load(ordering: .relaxed)))
        {
            return ArchiverError(
                .budget, tr("Stopped after %@, the time budget; nothing was left behind.", .spoken(budget)),
                hint: tr("Change it in settings (time-budget) or with --time-budget SECONDS (0 = no limit)."))
        }
        return nil
    }

    /// - Throws: `ArchiverError` `.cancelled` after `cancel()`, `.corrupt` after `stall(seconds:)`,
    ///   `.budget` once the deadline has passed.
    public func check() throws(ArchiverError) {
        if let reason = stopReason { throw reason }
    }
}
