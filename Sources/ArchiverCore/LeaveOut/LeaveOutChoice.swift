/// Which rules leave items out of one compression: the settings' defaults, each turned on or off for one
/// call by a flag (`--exclude-vcs`/`--no-exclude-vcs`, …), plus `--exclude` patterns.
public struct LeaveOutChoice: Equatable, Sendable {
    public var rules: Set<LeaveOutRule>
    /// `--exclude` patterns, in the order given, relative to each selected folder.
    public var patterns: [IgnorePattern]

    public init(rules: Set<LeaveOutRule>, patterns: [IgnorePattern] = []) {
        self.rules = rules
        self.patterns = patterns
    }

    /// The rules `settings` turn on, changed by the flags given (nil: not given). `.archiverignore` files
    /// are always followed: someone wrote them for this.
    public static func make(
        settings: ArchiverSettings, vcs: Bool? = nil, junk: Bool? = nil, caches: Bool? = nil, nodeModules: Bool? = nil,
        gitignore: Bool? = nil, patterns: [IgnorePattern] = []
    ) -> LeaveOutChoice {
        var rules: Set<LeaveOutRule> = [.archiverignore]
        if vcs ?? settings.excludeVCS { rules.insert(.vcs) }
        if junk ?? settings.excludeJunk { rules.insert(.junk) }
        if caches ?? settings.excludeCaches { rules.formUnion([.caches, .editor]) }
        if nodeModules ?? settings.excludeNodeModules { rules.insert(.nodeModules) }
        if gitignore ?? settings.followGitignore { rules.insert(.gitignore) }
        if !patterns.isEmpty { rules.insert(.pattern) }
        return LeaveOutChoice(rules: rules, patterns: patterns)
    }

    /// Nothing left out at all (`.archiverignore` files are still read when there are any).
    public static let nothing = LeaveOutChoice(rules: [])
}

/// How many items a rule leaves out, and their bytes (regular files' sizes).
public struct LeaveOutFigures: Equatable, Sendable {
    /// Files, folders and symlinks, each counted once.
    public var items: Int64 = 0
    public var bytes: Int64 = 0

    public init(items: Int64 = 0, bytes: Int64 = 0) {
        self.items = items
        self.bytes = bytes
    }

    public mutating func add(bytes: Int64) {
        items += 1
        self.bytes += bytes
    }
}

/// What a scan of the selection found: for each rule what it would leave out on its own (the window's
/// switches show it whether on or not), and what the chosen rules do leave out, each item put down to
/// one rule.
public struct LeaveOutReport: Equatable, Sendable {
    /// Per rule considered, everything it matches, overlaps with other rules included.
    public var available: [LeaveOutRule: LeaveOutFigures] = [:]
    /// Per rule chosen, what it leaves out; an item several rules match counts for the first (`<`).
    public var leftOut: [LeaveOutRule: LeaveOutFigures] = [:]
    /// What goes into the archive.
    public var kept = LeaveOutFigures()
    /// False while the scan is still running (a partial report, for live totals).
    public var finished = false

    public init() {}

    /// Everything left out, all rules together.
    public var totalLeftOut: LeaveOutFigures {
        leftOut.values.reduce(into: LeaveOutFigures()) {
            $0.items += $1.items
            $0.bytes += $1.bytes
        }
    }

    /// "Left out 212 items (1.3 GB)", or nil when nothing was.
    public var summary: Text? {
        let total = totalLeftOut
        guard total.items > 0 else { return nil }
        // TRANSLATORS: %1$ld items were not put into the archive by the leave-out rules; %2$@ is their size.
        return ntr("Left out %1$ld item (%2$@)", "Left out %1$ld items (%2$@)", Int(total.items), .bytes(total.bytes))
    }
}
