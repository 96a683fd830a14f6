/// The one rule for “N % smaller”, whatever was made smaller (an archive, a PDF, photos).
public enum Saving {
    /// How many percent smaller `after` is than `before`, rounded, at most 99 while anything is left (99.8 %
    /// is not “100 % smaller”); 0 for a saving under half a percent; nil when it is not smaller at all.
    public static func percent(before: Int64, after: Int64) -> Int? {
        guard before > 0, after < before else { return nil }
        let percent = 100 - Int((Double(after) * 100 / Double(before)).rounded())
        return after > 0 ? min(percent, 99) : percent
    }

    /// The saving worth a mention: at least 1 %.
    public static func visible(before: Int64, after: Int64) -> Int? {
        percent(before: before, after: after).flatMap { $0 > 0 ? $0 : nil }
    }
}
