import Synchronization

/// Stops a running job: cancellation from a signal or a Cancel action, and the time budget. The job
/// calls `check()` between blocks of work; anyone may call `cancel()` from any thread.
public final class JobControl: Sendable {
    private let cancelled = Atomic<Bool>(false)
    private let deadline: ContinuousClock.Instant?
    /// Nanoseconds spent waiting for a person (a password prompt), which the budget does not count.
    private let waited = Atomic<Int64>(0)
    /// The budget in seconds, for messages.
    public let budget: Double?

    /// - Parameter budget: seconds the job may take; nil or 0 means no limit.
    public init(budget: Double? = nil) {
        if let budget, budget > 0, budget.isFinite, budget < 1e9 {
            self.budget = budget
            deadline = ContinuousClock.now.advanced(by: .milliseconds(Int64(budget * 1000)))
        } else {
            self.budget = nil
            deadline = nil
        }
    }

    public func cancel() { cancelled.store(true, ordering: .relaxed) }

    public var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    /// Runs `body` without its time counting against the budget: the budget is for the work, not for
    /// someone typing a password.
    public func notCounting<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        let start = ContinuousClock.now
        defer {
            let (seconds, attoseconds) = (ContinuousClock.now - start).components
            waited.wrappingAdd(seconds * 1_000_000_000 + attoseconds / 1_000_000_000, ordering: .relaxed)
        }
        return try body()
    }

    /// - Throws: `ArchiverError` `.cancelled` after `cancel()`, `.budget` once the deadline has passed.
    public func check() throws(ArchiverError) {
        if isCancelled {
            throw ArchiverError(.cancelled, tr("Cancelled; nothing was left behind."))
        }
        if let deadline, ContinuousClock.now >= deadline.advanced(by: .nanoseconds(waited.load(ordering: .relaxed))),
            let budget
        {
            throw ArchiverError(
                .budget, tr("Stopped after %@, the time budget; nothing was left behind.", .spoken(budget)),
                hint: tr("Change it in settings (time-budget) or with --time-budget SECONDS (0 = no limit)."))
        }
    }
}
