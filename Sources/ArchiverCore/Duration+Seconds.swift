/// `Duration` as the plain numbers the jobs keep and report: one conversion, instead of taking its
/// `components` apart at every clock.
extension Duration {
    /// In seconds, with its fraction (a report's `elapsed`, a progress event's time). Named apart from
    /// `Duration.seconds(_:)`, which makes a duration.
    public var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// In whole nanoseconds, the fraction of one dropped (what `JobControl` keeps in its atomics).
    public var inNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
