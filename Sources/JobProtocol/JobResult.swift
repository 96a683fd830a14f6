import ArchiverCore

/// The last line of `--progress-json`, the one object `--json` prints: a head every tool writes
/// (`operation`, `exitCode`, `durationSeconds`), the tool's own outcome, then the warnings.
public struct JobResult: Sendable {
    public var operation: String
    public var exitCode: Int32
    public var durationSeconds: Double
    /// The outcome's fields, in order (see the `JobOutcome` types).
    public var fields: [(String, JSON)]
    public var warnings: [WarningEvent]

    public init(operation: String, exitCode: Int32, durationSeconds: Double, fields: [(String, JSON)], warnings: [WarningEvent]) {
        self.operation = operation
        self.exitCode = exitCode
        self.durationSeconds = durationSeconds
        self.fields = fields
        self.warnings = warnings
    }

    public var json: JSON {
        .object(
            [
                ("operation", .string(operation)), ("exitCode", .int(Int64(exitCode))),
                ("durationSeconds", .double((durationSeconds * 1000).rounded() / 1000)),
            ] + fields + [
                ("warnings", .array(warnings.map { .string($0.message) })),
                ("warningCodes", .array(warnings.map { .string($0.code) })),
            ])
    }

    /// A result read back (a window reading its child's last line).
    public init?(_ json: JSON) {
        guard case .object(let all) = json, let operation = json["operation"]?.string, let exitCode = json["exitCode"]?.int else {
            return nil
        }
        let head: Set = ["event", "operation", "exitCode", "durationSeconds", "warnings", "warningCodes"]
        let messages = json["warnings"]?.array.compactMap(\.string) ?? []
        let codes = json["warningCodes"]?.array.compactMap(\.string) ?? []
        self.init(
            operation: operation, exitCode: Int32(truncatingIfNeeded: exitCode), durationSeconds: json["durationSeconds"]?.double ?? 0,
            fields: all.filter { !head.contains($0.0) },
            warnings: zip(codes, messages).map { WarningEvent(code: $0, message: $1) })
    }

    /// The outcome as its tool's type.
    public func outcome<Outcome: JobOutcome>(_ type: Outcome.Type) -> Outcome? {
        operation == Outcome.operation ? Outcome(.object(fields)) : nil
    }
}

/// A tool's outcome: the fields of its result after the head, and the reading of them.
public protocol JobOutcome: Sendable {
    /// The result's `operation`.
    static var operation: String { get }
    var fields: [(String, JSON)] { get }
    init?(_ json: JSON)
}

/// An error as scripts read it: `{"code":5,"kind":"corrupt","message":…,"hint":…}` (English).
public struct ErrorReport: Sendable, Equatable {
    public var code: Int32
    public var kind: String
    public var message: String
    public var hint: String?

    public init(_ error: ArchiverError) {
        self.init(code: error.code.exitStatus, kind: error.code.name, message: error.message.english, hint: error.hint?.english)
    }

    public init(code: Int32, kind: String, message: String, hint: String?) {
        self.code = code
        self.kind = kind
        self.message = message
        self.hint = hint
    }

    public init?(_ json: JSON?) {
        guard let json, let code = json["code"]?.int else { return nil }
        self.init(
            code: Int32(truncatingIfNeeded: code), kind: json["kind"]?.string ?? "", message: json["message"]?.string ?? "",
            hint: json["hint"]?.string)
    }

    public var json: JSON {
        .object([
            ("code", .int(Int64(code))), ("kind", .string(kind)), ("message", .string(message)),
            ("hint", hint.map(JSON.string) ?? .null),
        ])
    }
}

extension Optional where Wrapped == ErrorReport {
    var json: JSON { self?.json ?? .null }
}

extension JSON {
    static func optional(_ value: String?) -> JSON { value.map(JSON.string) ?? .null }
    static func optional(_ value: Int64?) -> JSON { value.map(JSON.int) ?? .null }
}
