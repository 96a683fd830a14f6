import Glibc
import SystemPackage

/// When a photo was taken, as its camera wrote it: the wall-clock time where it was taken, without a time
/// zone (EXIF's DateTimeOriginal has none). The filters compare days.
public struct PhotoDate: Comparable, Hashable, Sendable {
    public let year: Int
    public let month: Int
    public let day: Int
    public let hour: Int
    public let minute: Int
    public let second: Int

    public init?(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) {
        // A camera whose clock was never set writes "0000:00:00 00:00:00": no date.
        guard (1...9999).contains(year), (1...12).contains(month), (1...Self.days(year, month)).contains(day),
            (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// "2024:04:21 08:03:44" (EXIF), "2024-04-21T08:03:44+02:00" (XMP; the zone is left as written, the
    /// clock time kept), "2024-04-21" (a day; what a person types in the filter). Nil for anything else.
    public init?(parsing text: some StringProtocol) {
        let bytes = Array(text.utf8.prefix(19))
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[range] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        let separators: Set<UInt8> = [UInt8(ascii: ":"), UInt8(ascii: "-")]
        guard bytes.count >= 10, separators.contains(bytes[4]), bytes[7] == bytes[4], let year = number(0..<4),
            let month = number(5..<7), let day = number(8..<10)
        else { return nil }
        guard bytes.count >= 16, bytes[10] == UInt8(ascii: " ") || bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"),
            let hour = number(11..<13), let minute = number(14..<16)
        else {
            // A day alone ("2024-04-21", or with a time we cannot read).
            self.init(year: year, month: month, day: day)
            return
        }
        self.init(year: year, month: month, day: day, hour: hour, minute: minute, second: bytes.count >= 19 ? number(17..<19) ?? 0 : 0)
    }

    /// ISO 8601 without a zone, "2024-04-21T08:03:44": the form `--progress-json` carries.
    public var text: String {
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
        let year = String(self.year)
        return String(repeating: "0", count: max(0, 4 - year.count)) + year + "-\(two(month))-\(two(day))T\(two(hour)):\(two(minute)):\(two(second))"
    }

    /// Days since 1970-01-01 of the day it names, for "the last 30 days" and ranges.
    public var dayNumber: Int { Self.dayNumber(year: year, month: month, day: day) }

    /// Days since 1970-01-01 of a day of the proleptic Gregorian calendar (H. Hinnant's days_from_civil).
    public static func dayNumber(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
        return era * 146_097 + yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear - 719_468
    }

    private static func days(_ year: Int, _ month: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// The local wall-clock time of `seconds` since 1970 (a file's modification time, now).
    public static func local(seconds: Int) -> PhotoDate? {
        var time = time_t(seconds)
        var parts = tm()
        guard localtime_r(&time, &parts) != nil else { return nil }
        return PhotoDate(
            year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday), hour: Int(parts.tm_hour),
            minute: Int(parts.tm_min), second: Int(parts.tm_sec))
    }

    /// Today's day number where the person is (what "the last 30 days" counts back from).
    public static var today: Int { local(seconds: Int(time(nil)))?.dayNumber ?? Int(time(nil)) / 86_400 }

    public static func < (a: PhotoDate, b: PhotoDate) -> Bool {
        (a.year, a.month, a.day, a.hour, a.minute, a.second) < (b.year, b.month, b.day, b.hour, b.minute, b.second)
    }
}

/// What a photo's metadata says about it, read with its estimate: when it was taken, whether it carries a
/// position, and the place written in it (IPTC or XMP City, State/Province, Country; never looked up).
public struct PhotoFacts: Equatable, Sendable {
    /// EXIF DateTimeOriginal (or CreateDate, or XMP's); without either, the file's modification time.
    public var taken: PhotoDate?
    /// EXIF (or XMP) GPS latitude and longitude.
    public var located: Bool
    public var city: String?
    public var state: String?
    public var country: String?

    public init(taken: PhotoDate? = nil, located: Bool = false, city: String? = nil, state: String? = nil, country: String? = nil) {
        self.taken = taken
        self.located = located
        self.city = city
        self.state = state
        self.country = country
    }

    /// The place names it has, most precise first.
    public var places: [String] { [city, state, country].compactMap { $0 } }
}

/// The Compress Photos… window's filters: the photos shown are those that match every filter set, and a
/// run compresses only those. Pure: the window builds one from its controls and the selection applies it.
public struct PhotoFilter: Equatable, Sendable {
    public enum Taken: Equatable, Sendable {
        case any
        /// Today and the days before it, `n` in all.
        case lastDays(Int)
        case year(Int)
        /// From one day to another, both included; nil: open on that side.
        case between(from: PhotoDate?, to: PhotoDate?)
    }

    public enum Location: Equatable, Sendable {
        case any, with, without
    }

    /// Sizes from `atLeast` (included) to `below` (excluded); nil: open on that side.
    public struct SizeRange: Equatable, Sendable {
        public var atLeast: Int64?
        public var below: Int64?
        public init(atLeast: Int64? = nil, below: Int64? = nil) {
            self.atLeast = atLeast
            self.below = below
        }
        public static let any = SizeRange()
    }

    public var taken: Taken = .any
    /// The folder the photo is in.
    public var album: FilePath?
    public var location: Location = .any
    /// A name of the place in the photo's metadata: its city, state or country.
    public var place: String?
    public var size: SizeRange = .any
    /// Part of the photo's name, in any case.
    public var name = "" {
        didSet { nameKey = Self.key(name) }
    }
    private var nameKey = ""

    public init(
        taken: Taken = .any, album: FilePath? = nil, location: Location = .any, place: String? = nil, size: SizeRange = .any, name: String = ""
    ) {
        self.taken = taken
        self.album = album
        self.location = location
        self.place = place
        self.size = size
        self.name = name
        nameKey = Self.key(name)
    }

    /// Whether any filter is set.
    public var isActive: Bool { self != PhotoFilter() }

    /// Whether it asks what only the metadata says: a photo whose metadata is not read yet does not match.
    public var needsFacts: Bool { taken != .any || location != .any || place != nil }

    /// Names compared in any case: "IMG" finds "img_0001.jpg".
    static func key(_ name: String) -> String { name.lowercased() }

    /// Whether `photo` is shown. `today`: today's day number (`PhotoDate.today`).
    public func matches(_ photo: PhotoSelection.Photo, today: Int) -> Bool {
        if let atLeast = size.atLeast, photo.size < atLeast { return false }
        if let below = size.below, photo.size >= below { return false }
        if !nameKey.isEmpty, !photo.nameKey.contains(nameKey) { return false }
        if let album, photo.path.removingLastComponent() != album { return false }
        guard needsFacts else { return true }
        guard let facts = photo.facts else { return false }
        switch location {
        case .any: break
        case .with: if !facts.located { return false }
        case .without: if facts.located { return false }
        }
        if let place, !facts.places.contains(where: { Self.key($0) == Self.key(place) }) { return false }
        switch taken {
        case .any: return true
        case .lastDays(let count):
            guard let day = facts.taken?.dayNumber else { return false }
            return day > today - count && day <= today
        case .year(let year): return facts.taken?.year == year
        case .between(let from, let to):
            guard let day = facts.taken?.dayNumber else { return false }
            return day >= (from?.dayNumber ?? .min) && day <= (to?.dayNumber ?? .max)
        }
    }

    // MARK: - What the controls offer

    /// The years photos were taken in, latest first.
    public static func years(_ photos: [PhotoSelection.Photo]) -> [Int] {
        Set(photos.compactMap { $0.facts?.taken?.year }).sorted(by: >)
    }

    /// The place names photos carry (cities, states, countries), each once, in alphabetical order.
    public static func places(_ photos: [PhotoSelection.Photo]) -> [String] {
        var seen: [String: String] = [:]
        for photo in photos {
            for place in photo.facts?.places ?? [] where seen[key(place)] == nil { seen[key(place)] = place }
        }
        return seen.sorted { $0.key < $1.key }.map(\.value)
    }

    /// The folders photos are in, in path order, each named by its last component, or by its last two
    /// ("2023/Summer", "2024/Summer") where two folders would read the same.
    public static func albums(_ photos: [PhotoSelection.Photo]) -> [(folder: FilePath, name: String)] {
        let folders = Set(photos.map { $0.path.removingLastComponent() }).sorted { $0.string < $1.string }
        func name(_ folder: FilePath, parts: Int) -> String {
            let components = folder.components.suffix(parts).map(\.string)
            return components.isEmpty ? folder.string : components.joined(separator: "/")
        }
        var counts: [String: Int] = [:]
        for folder in folders { counts[name(folder, parts: 1), default: 0] += 1 }
        return folders.map { folder in
            let short = name(folder, parts: 1)
            return (folder, counts[short, default: 0] > 1 ? name(folder, parts: 2) : short)
        }
    }

    /// The size choices the filter offers, from 1 MB and 5 MB.
    public static let sizeRanges: [SizeRange] = [
        .any, SizeRange(below: 1_000_000), SizeRange(atLeast: 1_000_000, below: 5_000_000), SizeRange(atLeast: 5_000_000),
    ]

    /// "Under 1 MB", "1 MB to 5 MB", "Over 5 MB", "Any size".
    public static func sizeName(_ range: SizeRange) -> Text {
        switch (range.atLeast, range.below) {
        // TRANSLATORS: the Compress Photos… window's size filter: photos under a size ("Under 1 MB").
        case (nil, let below?): tr("Under %@", .bytes(below))
        // TRANSLATORS: the Compress Photos… window's size filter: photos between two sizes ("1 MB to 5 MB").
        case (let atLeast?, let below?): tr("%1$@ to %2$@", .bytes(atLeast), .bytes(below))
        // TRANSLATORS: the Compress Photos… window's size filter: photos of at least a size ("Over 5 MB").
        case (let atLeast?, nil): tr("Over %@", .bytes(atLeast))
        case (nil, nil): tr("Any size")
        }
    }
}
