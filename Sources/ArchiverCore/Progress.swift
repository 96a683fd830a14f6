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
    /// (Written into 20 bytes: `--list --json` writes one for each of 100,000 entries.)
    public static func iso8601(_ seconds: Int64) -> String {
        // Damaged headers can hold any value; years outside 0…9999 are clamped rather than trapping.
        let seconds = min(max(seconds, -62_167_219_200), 253_402_300_799)
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = Int(seconds - days * 86_400)
        let (year, month, day) = CalendarDay(ordinal: Int(days)).civil
        var text: [UInt8] = Array("0000-00-00T00:00:00Z".utf8)
        func put(_ value: Int, at end: Int, width: Int) {
            var value = value
            for index in stride(from: end, to: end - width, by: -1) {
                text[index] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            }
        }
        put(year, at: 3, width: 4)
        put(month, at: 6, width: 2)
        put(day, at: 9, width: 2)
        put(secondOfDay / 3600, at: 12, width: 2)
        put(secondOfDay / 60 % 60, at: 15, width: 2)
        put(secondOfDay % 60, at: 18, width: 2)
        return String(decoding: text, as: UTF8.self)
    }

    /// The inverse of `iso8601(_:)`: seconds since 1970 from `2024-01-31T09:05:00Z`; nil for any other shape,
    /// or for a day that does not exist. (The Extract… window reads 100,000 of them as the listing streams
    /// in, on its main thread: read in place, with no string made.)
    public static func seconds(iso8601 text: String) -> Int64? {
        var text = text
        return text.withUTF8 { bytes -> Int64? in
            guard bytes.count == 20, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
                bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"), bytes[19] == UInt8(ascii: "Z")
            else { return nil }
            func number(_ range: Range<Int>) -> Int? {
                var value = 0
                for index in range {
                    let digit = bytes[index] &- UInt8(ascii: "0")
                    guard digit < 10 else { return nil }
                    value = value * 10 + Int(digit)
                }
                return value
            }
            guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
                let minute = number(14..<16), let second = number(17..<19),
                (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
            else { return nil }
            let date = CalendarDay(year: year, month: month, day: day)
            guard date.civil == (year, month, day) else { return nil }  // 2026-02-30
            return Int64(date.ordinal) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        }
    }
}
