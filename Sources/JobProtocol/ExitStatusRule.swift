import ArchiverCore

/// How a job's items ended, counted for the one exit-status rule every tool and window shares.
public struct JobTally: Sendable {
    /// Items that were made (or listed, or extracted), with or without warnings.
    public var succeeded = 0
    /// The failures, in the order they happened.
    public var failures: [ArchiverError.Code] = []
    /// Whether any warning counts against a clean exit (refused entries, a trash that failed, …).
    public var warned = false

    public init(succeeded: Int = 0, failures: [ArchiverError.Code] = [], warned: Bool = false) {
        self.succeeded = succeeded
        self.failures = failures
        self.warned = warned
    }

    public mutating func record(_ failure: ArchiverError) { failures.append(failure.code) }

    /// The exit status, by one rule with this precedence:
    /// 1. a stop (cancel 8, time budget 9) ends the batch, and its code wins over any earlier failure:
    ///    the person (or the budget they set) decided the outcome, so a script must see that first;
    /// 2. nothing succeeded: the first failure's own code (3–7);
    /// 3. something succeeded, but some item failed or a warning counts: 1;
    /// 4. otherwise 0.
    public var exitStatus: Int32 {
        if let stop = failures.first(where: { $0 == .cancelled || $0 == .budget }) { return stop.exitStatus }
        if succeeded == 0, let first = failures.first { return first.exitStatus }
        return failures.isEmpty && !warned ? ExitStatus.success : ExitStatus.warnings
    }
}

/// What an exit status means to a window that ran a tool.
public enum JobExit {
    /// Done (0) or done with warnings (1).
    public static func succeeded(_ status: Int32) -> Bool { status == ExitStatus.success || status == ExitStatus.warnings }
    public static func cancelled(_ status: Int32) -> Bool { status == ArchiverError.Code.cancelled.exitStatus }
    /// The status a window reports when the tool could not be started at all (as a shell does).
    public static let notStarted: Int32 = 127
}
