/// A date in the local calendar, without a time: the unit the statistics keep per-day figures in.
public struct CalendarDay: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Days since 1970-01-01 (which is 0); negative before it.
    public var ordinal: Int

    public init(ordinal: Int) { self.ordinal = ordinal }

    /// The proleptic Gregorian date; `month` 1…12, `day` 1…31 (not checked against the month's length).
    public init(year: Int, month: Int, day: Int) {
        // Howard Hinnant's days_from_civil: years start in March, so February's length is the year's end.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        ordinal = era * 146_097 + dayOfEra - 719_468
    }

    /// `2026-11-23`; nil for anything else, including impossible dates such as `2026-02-30`.
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.allSatisfy(\.isASCII) }),
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        self.init(year: year, month: month, day: day)
        guard self.civil == (year, month, day) else { return nil }
    }

    /// The year, month (1…12) and day of the month.
    public var civil: (year: Int, month: Int, day: Int) {
        let z = ordinal + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// `2026-11-23`, as the store's group names write it.
    public var description: String {
        let (year, month, day) = civil
        func padded(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))"
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.ordinal < rhs.ordinal }

    /// The day `count` days later (earlier when negative).
    public func adding(days count: Int) -> CalendarDay { CalendarDay(ordinal: ordinal + count) }
}

/// One output of a finished job, as the statistics count it: an archive made, an archive extracted, a
/// compressed copy of a PDF or of a photo.
public struct StatisticsEvent: Sendable, Equatable {
    /// What kind of output; the raw value names it in the store.
    public enum Kind: String, CaseIterable, Sendable {
        case archiveMade = "archives-made"
        case archiveExtracted = "archives-extracted"
        case pdfCompressed = "pdfs-compressed"
        case photoCompressed = "photos-compressed"
    }

    public var kind: Kind
    /// What went in: the inputs' sizes (the archive's, for an extraction).
    public var bytesBefore: Int64
    /// What came out: the archive with all its parts, the extracted files, the copy.
    public var bytesAfter: Int64
    /// The local day the job ended.
    public var day: CalendarDay

    public init(_ kind: Kind, bytesBefore: Int64, bytesAfter: Int64, day: CalendarDay) {
        self.kind = kind
        self.bytesBefore = max(0, bytesBefore)
        self.bytesAfter = max(0, bytesAfter)
        self.day = day
    }
}

/// The sums for one kind of output.
public struct StatisticsFigures: Sendable, Equatable {
    /// How many outputs.
    public var count: Int64 = 0
    /// How many of them came out smaller than what went in.
    public var smaller: Int64 = 0
    public var bytesBefore: Int64 = 0
    public var bytesAfter: Int64 = 0
    /// The sum over the outputs that came out smaller of what they saved; one that grew saves 0, not less.
    public var bytesSaved: Int64 = 0

    public init() {}

    /// Adds `other`, saturating: a damaged store's huge numbers must not crash a job.
    public mutating func add(_ other: StatisticsFigures) {
        count = count.addingSaturating(other.count)
        smaller = smaller.addingSaturating(other.smaller)
        bytesBefore = bytesBefore.addingSaturating(other.bytesBefore)
        bytesAfter = bytesAfter.addingSaturating(other.bytesAfter)
        bytesSaved = bytesSaved.addingSaturating(other.bytesSaved)
    }

    init(_ event: StatisticsEvent) {
        count = 1
        bytesBefore = event.bytesBefore
        bytesAfter = event.bytesAfter
        if event.bytesAfter < event.bytesBefore {
            smaller = 1
            bytesSaved = event.bytesBefore - event.bytesAfter
        }
    }
}

/// The figures of every kind of output over some span of time (all time, or the last 30 days).
public struct StatisticsTotals: Sendable, Equatable {
    private var figures: [StatisticsEvent.Kind: StatisticsFigures] = [:]

    public init() {}

    public subscript(kind: StatisticsEvent.Kind) -> StatisticsFigures {
        get { figures[kind] ?? StatisticsFigures() }
        set { figures[kind] = newValue }
    }

    /// Nothing counted yet.
    public var isEmpty: Bool { figures.values.allSatisfy { $0.count == 0 } }

    public var archivesMade: Int64 { self[.archiveMade].count }
    public var archivesExtracted: Int64 { self[.archiveExtracted].count }
    /// Space the archives made take less than their inputs.
    public var archiveBytesSaved: Int64 { self[.archiveMade].bytesSaved }
    /// Compressed PDF copies (a copy is only made when it is smaller).
    public var pdfsMadeSmaller: Int64 { self[.pdfCompressed].smaller }
    public var pdfBytesSaved: Int64 { self[.pdfCompressed].bytesSaved }
    public var photosMadeSmaller: Int64 { self[.photoCompressed].smaller }
    public var photoBytesSaved: Int64 { self[.photoCompressed].bytesSaved }
    /// Archives, PDFs and photos together.
    public var bytesSaved: Int64 {
        archiveBytesSaved.addingSaturating(pdfBytesSaved).addingSaturating(photoBytesSaved)
    }

    /// Adds every kind's figures of `other`.
    public mutating func add(_ other: StatisticsTotals) {
        for (kind, value) in other.figures { self[kind].add(value) }
    }
}

/// What the statistics store holds: all-time totals, and per-day totals for the days the "last 30 days"
/// figure can still need. Pure: the store (Desktop's `StatisticsStore`) reads and writes it as a GLib key
/// file through `groups` and `init(groups:)`.
public struct StatisticsLedger: Sendable, Equatable {
    public private(set) var allTime = StatisticsTotals()
    /// Per local day; older days are pruned by `add`.
    public private(set) var days: [CalendarDay: StatisticsTotals] = [:]

    /// Days kept: the 30 of the window, and one more for a clock that moved back across midnight.
    public static let daysKept = 31

    public init() {}

    /// Counts `events`, then drops the days older than `daysKept` before `today`.
    public mutating func add(_ events: [StatisticsEvent], today: CalendarDay) {
        for event in events {
            var totals = StatisticsTotals()
            totals[event.kind] = StatisticsFigures(event)
            allTime.add(totals)
            days[event.day, default: StatisticsTotals()].add(totals)
        }
        prune(today: today)
    }

    /// Drops the days older than `daysKept` before `today`. Later days (a clock set back) stay: they are
    /// dropped once they are old.
    public mutating func prune(today: CalendarDay) {
        let oldest = today.adding(days: -(Self.daysKept - 1))
        days = days.filter { $0.key >= oldest }
    }

    /// The totals of `today` and the `count - 1` days before it; all time when `count` is nil.
    public func totals(lastDays count: Int?, today: CalendarDay) -> StatisticsTotals {
        guard let count else { return allTime }
        let oldest = today.adding(days: -(count - 1))
        var sum = StatisticsTotals()
        for (day, totals) in days where day >= oldest && day <= today { sum.add(totals) }
        return sum
    }

    // MARK: The key file's shape

    /// The group of the all-time totals; the per-day groups are named by their date, `2026-11-23`.
    public static let allTimeGroup = "all-time"
    /// The version of this shape, in the `store` group's `version` key.
    public static let version: Int64 = 1
    static let storeGroup = "store"
    static var fields: [(suffix: String, value: WritableKeyPath<StatisticsFigures, Int64>)] {
        [
            ("", \.count), ("-smaller", \.smaller), ("-bytes-before", \.bytesBefore), ("-bytes-after", \.bytesAfter),
            ("-bytes-saved", \.bytesSaved),
        ]
    }

    /// The groups and integer keys to write, in a stable order: `[all-time] archives-made=3`,
    /// `archives-made-bytes-saved=…`, then one group per day, oldest first. Kinds never counted are left out.
    public var groups: [(name: String, values: [(key: String, value: Int64)])] {
        func values(_ totals: StatisticsTotals) -> [(key: String, value: Int64)] {
            StatisticsEvent.Kind.allCases.filter { totals[$0].count > 0 }.flatMap { kind in
                Self.fields.map { (kind.rawValue + $0.suffix, totals[kind][keyPath: $0.value]) }
            }
        }
        return [(Self.storeGroup, [("version", Self.version)]), (Self.allTimeGroup, values(allTime))]
            + days.keys.sorted().map { ($0.description, values(days[$0] ?? StatisticsTotals())) }
    }

    /// Why a store's content cannot be taken as it is.
    public struct Malformed: Error, Equatable, Sendable {
        public var reason: String
    }

    /// The ledger the groups describe. Unknown keys and groups are left out (a later version's additions).
    /// - Throws: `Malformed` for a negative figure, a day that is no date, or a newer version than this one.
    public init(groups: [String: [String: Int64]]) throws(Malformed) {
        if let version = groups[Self.storeGroup]?["version"], version > Self.version {
            throw Malformed(reason: "version \(version) is newer than \(Self.version)")
        }
        func totals(_ values: [String: Int64]) throws(Malformed) -> StatisticsTotals {
            var totals = StatisticsTotals()
            for kind in StatisticsEvent.Kind.allCases {
                for field in Self.fields {
                    guard let value = values[kind.rawValue + field.suffix] else { continue }
                    guard value >= 0 else { throw Malformed(reason: "\(kind.rawValue + field.suffix) is negative") }
                    totals[kind][keyPath: field.value] = value
                }
            }
            return totals
        }
        for (name, values) in groups where name != Self.storeGroup {
            if name == Self.allTimeGroup {
                allTime = try totals(values)
            } else if let day = CalendarDay(name) {
                days[day] = try totals(values)
            } else {
                throw Malformed(reason: "group “\(name)” is neither all-time nor a date")
            }
        }
    }
}

extension Int64 {
    fileprivate func addingSaturating(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }
}
