/// One line of `--progress-json`: an event's name and its whole object. Each kind of event is a type of its
/// own conforming to `JobEventKind`, so a new tool adds its events without touching the others.
public struct JobEvent: Sendable {
    public var name: String
    public var json: JSON

    public init(name: String, json: JSON) {
        self.name = name
        self.json = json
    }

    /// A line as the tools write it; nil for anything that is not an event object.
    public init?(line: [UInt8]) {
        guard let json = JSON.parse(line), let name = json["event"]?.string else { return nil }
        self.init(name: name, json: json)
    }

    /// The event as its type, when it is one of that kind.
    public func `as`<Kind: JobEventKind>(_ kind: Kind.Type) -> Kind? { name == Kind.name ? Kind(json) : nil }
}

/// A kind of event: its name on the wire, its fields in order, and the reading of them.
public protocol JobEventKind: Sendable {
    static var name: String { get }
    /// The fields after `"event":NAME`, in the order they are written.
    var fields: [(String, JSON)] { get }
    init?(_ json: JSON)
}

extension JobEventKind {
    /// The whole line's object.
    public var json: JSON { .object([("event", .string(Self.name))] + fields) }
}

/// Bytes (or, for photos, photos) done of a total.
public struct ProgressEvent: JobEventKind {
    public static let name = "progress"
    public var done: Int64
    public var total: Int64?
    public var fraction: Double?
    public var rate: Int64?
    public var remaining: Double?
    /// Compress Photos' own fields: bytes saved so far and the photo being worked on.
    public var savedBytes: Int64?
    public var current: String??

    public init(
        done: Int64, total: Int64?, fraction: Double?, rate: Int64? = nil, remaining: Double?, savedBytes: Int64? = nil,
        current: String?? = nil
    ) {
        self.done = done
        self.total = total
        self.fraction = fraction
        self.rate = rate
        self.remaining = remaining
        self.savedBytes = savedBytes
        self.current = current
    }

    public init?(_ json: JSON) {
        guard let done = json["done"]?.int else { return nil }
        self.init(
            done: done, total: json["total"]?.int, fraction: json["fraction"]?.double, rate: json["rate"]?.int,
            remaining: json["remaining"]?.double, savedBytes: json["savedBytes"]?.int,
            current: json["current"].map { $0.string })
    }

    public var fields: [(String, JSON)] {
        var fields: [(String, JSON)] = [
            ("done", .int(done)), ("total", total.map(JSON.int) ?? .null),
            ("fraction", fraction.map { .double(($0 * 10_000).rounded() / 10_000) } ?? .null),
        ]
        if let rate { fields.append(("rate", .int(rate))) }
        fields.append(("remaining", remaining.map { .double(($0 * 10).rounded() / 10) } ?? .null))
        if let savedBytes { fields.append(("savedBytes", .int(savedBytes))) }
        if let current { fields.append(("current", current.map(JSON.string) ?? .null)) }
        return fields
    }
}

/// A warning as it happens: its stable code and its English text.
public struct WarningEvent: JobEventKind {
    public static let name = "warning"
    public var code: String
    public var message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    public init?(_ json: JSON) {
        guard let code = json["code"]?.string else { return nil }
        self.init(code: code, message: json["message"]?.string ?? "")
    }

    public var fields: [(String, JSON)] { [("code", .string(code)), ("message", .string(message))] }
}

/// One entry of a listing, with the fields of an entry of `--list --json`.
public struct EntryEvent: JobEventKind {
    public static let name = "entry"
    public var entry: ListedEntry

    public init(_ entry: ListedEntry) { self.entry = entry }

    public init?(_ json: JSON) {
        guard let entry = ListedEntry(json) else { return nil }
        self.entry = entry
    }

    public var fields: [(String, JSON)] { entry.fields }
}

/// Compress Photos pauses (SIGUSR1) and resumes (SIGUSR2).
public struct PausedEvent: JobEventKind {
    public static let name = "paused"
    public init() {}
    public init?(_ json: JSON) {}
    public var fields: [(String, JSON)] { [] }
}

public struct ResumedEvent: JobEventKind {
    public static let name = "resumed"
    public init() {}
    public init?(_ json: JSON) {}
    public var fields: [(String, JSON)] { [] }
}
