/// Turns a stream of "bytes done" into what a progress display shows: percent, rate, time left, and
/// when it is worth showing again (at most ten times a second).
public struct ProgressMeter: Sendable {
    /// One moment of progress, ready to display.
    public struct Snapshot: Equatable, Sendable {
        public var done: Int64
        public var total: Int64?
        /// 0…1, when the total is known.
        public var fraction: Double?
        /// Bytes per second, smoothed.
        public var rate: Double
        /// Seconds left, when the total and a rate are known.
        public var remaining: Double?

        public init(done: Int64, total: Int64?, fraction: Double?, rate: Double, remaining: Double?) {
            self.done = done
            self.total = total
            self.fraction = fraction
            self.rate = rate
            self.remaining = remaining
        }
    }

    public let total: Int64?
    public let interval: Double
    private let start: Double
    private var lastShown: Double?
    private var rate: Double = 0
    private var lastSample: (time: Double, done: Int64)

    /// - Parameters:
    ///   - total: bytes to process, if known.
    ///   - start: the job's start, in seconds on any monotonic clock.
    ///   - interval: the shortest time between two displays.
    public init(total: Int64?, start: Double, interval: Double = 0.1) {
        self.total = total
        self.start = start
        self.interval = interval
        lastSample = (start, 0)
    }

    /// Records progress; returns a snapshot when it is time to show one, else nil.
    public mutating func update(done: Int64, now: Double) -> Snapshot? {
        let elapsed = now - lastSample.time
        if elapsed >= 0.05 {
            let instant = Double(done - lastSample.done) / elapsed
            // An exponential average steadies the ETA without hiding real changes for long.
            rate = rate == 0 ? instant : rate * 0.7 + instant * 0.3
            lastSample = (now, done)
        }
        if let lastShown, now - lastShown < interval { return nil }
        lastShown = now
        return snapshot(done: done, now: now)
    }

    /// The snapshot for `done` bytes at `now`, whatever the interval.
    public func snapshot(done: Int64, now: Double) -> Snapshot {
        let averageRate = now > start ? Double(done) / (now - start) : 0
        let shownRate = rate > 0 ? rate : averageRate
        var fraction: Double?
        var remaining: Double?
        if let total, total > 0 {
            fraction = min(1, max(0, Double(done) / Double(total)))
            if shownRate > 0 { remaining = max(0, Double(total - done) / shownRate) }
        }
        return Snapshot(done: done, total: total, fraction: fraction, rate: shownRate, remaining: remaining)
    }
}

/// Sizes and durations the way a person reads them.
public enum HumanFormat {
    /// Decimal units, as GNOME and KDE show file sizes: `532 bytes`, `1.2 kB`, `38 MB`, `4.7 GB`.
    public static func bytes(_ count: Int64) -> String {
        if count < 1000 { return count == 1 ? "1 byte" : "\(count) bytes" }
        let units = ["kB", "MB", "GB", "TB", "PB"]
        var value = Double(count)
        var unit = -1
        while value >= 999.95, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return value >= 100 ? "\(Int(value.rounded())) \(units[unit])" : "\(oneDecimal(value)) \(units[unit])"
    }

    /// `0:07`, `12:30`, `1:02:03`.
    public static func duration(_ seconds: Double) -> String {
        let total = seconds.isFinite ? Int(min(max(seconds, 0), 1e9).rounded(.up)) : 0
        let (h, m, s) = (total / 3600, (total / 60) % 60, total % 60)
        let ss = s < 10 ? "0\(s)" : "\(s)"
        if h > 0 { return "\(h):\(m < 10 ? "0\(m)" : "\(m)"):\(ss)" }
        return "\(m):\(ss)"
    }

    /// A duration in words for a person, in their language: `45 s`, `30 min`, `2 h 5 min`.
    public static func spokenText(_ seconds: Double) -> Text {
        let total = seconds.isFinite ? Int(min(max(seconds, 0), 1e9).rounded(.up)) : 0
        if total < 60 { return tr("%ld s", max(total, 1)) }
        let minutes = Int((Double(total) / 60).rounded())
        if minutes < 60 { return tr("%ld min", minutes) }
        return minutes % 60 == 0 ? tr("%ld h", minutes / 60) : tr("%1$ld h %2$ld min", minutes / 60, minutes % 60)
    }

    /// One progress line: `42%  120 MB of 286 MB  35.2 MB/s  1:05 left`.
    public static func progressLine(_ snapshot: ProgressMeter.Snapshot) -> Text {
        var parts: [Text] = []
        if let fraction = snapshot.fraction { parts.append(tr("%ld%%", Int(fraction * 100))) }
        if let total = snapshot.total {
            parts.append(tr("%1$@ of %2$@", .bytes(snapshot.done), .bytes(total)))
        } else {
            parts.append(Text(.verbatim("%@"), [.bytes(snapshot.done)]))
        }
        if snapshot.rate > 0 { parts.append(tr("%@/s", .bytes(Int64(snapshot.rate)))) }
        if let remaining = snapshot.remaining { parts.append(tr("%@ left", TextValue.clock(remaining))) }
        return Text.sentences(parts, separator: "  ")
    }

    private static func oneDecimal(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}

extension HumanFormat {
    /// UTC time in ISO 8601, `2024-01-31T09:05:00Z`, from seconds since 1970.
    public static func iso8601(_ seconds: Int64) -> String {
        // Damaged headers can hold any value; years outside 0…9999 are clamped rather than trapping.
        let seconds = min(max(seconds, -62_167_219_200), 253_402_300_799)
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let (h, m, s) = (secondOfDay / 3600, (secondOfDay / 60) % 60, secondOfDay % 60)
        return "\(CalendarDay(ordinal: Int(days)))T\(two(h)):\(two(m)):\(two(s))Z"
    }

    /// The inverse of `iso8601(_:)`: seconds since 1970 from `2024-01-31T09:05:00Z`; nil for any other shape.
    /// (The Extract… window reads 100,000 of them; GLib's general parser costs more than the listing.)
    public static func seconds(iso8601 text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count == 20, bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"),
            bytes[16] == UInt8(ascii: ":"), bytes[19] == UInt8(ascii: "Z"),
            let day = CalendarDay(String(decoding: bytes[0..<10], as: UTF8.self))
        else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for byte in bytes[range] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19), hour < 24, minute < 60,
            second < 61
        else { return nil }
        return Int64(day.ordinal) * 86_400 + hour * 3600 + minute * 60 + second
    }
}
