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

    /// The libraries' own words of every error in the outcome (`ErrorReport.detail`), in order and without
    /// repeats: what a window shows under Details, apart from its sentence.
    public var errorDetails: [String] {
        var found: [String] = []
        func visit(_ json: JSON) {
            switch json {
            case .object(let members):
                for (key, value) in members {
                    if key == "error", let detail = value["detail"]?.string, !found.contains(detail) { found.append(detail) }
                    visit(value)
                }
            case .array(let items): items.forEach(visit)
            default: break
            }
        }
        fields.forEach { visit($0.1) }
        return found
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

/// An error as scripts read it: `{"code":5,"kind":"corrupt","message":…,"hint":…,"detail":…}` (English;
/// `detail`, only when the library said something: its own words).
public struct ErrorReport: Sendable, Equatable {
    public var code: Int32
    public var kind: String
    public var message: String
    public var hint: String?
    public var detail: String?

    public init(_ error: ArchiverError) {
        self.init(
            code: error.code.exitStatus, kind: error.code.name, message: error.message.english, hint: error.hint?.english,
            detail: error.detail)
    }

    public init(code: Int32, kind: String, message: String, hint: String?, detail: String? = nil) {
        self.code = code
        self.kind = kind
        self.message = message
        self.hint = hint
        self.detail = detail
    }

    public init?(_ json: JSON?) {
        guard let json, let code = json["code"]?.int else { return nil }
        self.init(
            code: Int32(truncatingIfNeeded: code), kind: json["kind"]?.string ?? "", message: json["message"]?.string ?? "",
            hint: json["hint"]?.string, detail: json["detail"]?.string)
    }

    public var json: JSON {
        // `detail` only when there is one: the errors that have none read as they always did.
        .object(
            [
                ("code", .int(Int64(code))), ("kind", .string(kind)), ("message", .string(message)),
                ("hint", hint.map(JSON.string) ?? .null),
            ] + (detail.map { [("detail", JSON.string($0))] } ?? []))
    }
}

extension Optional where Wrapped == ErrorReport {
    var json: JSON { self?.json ?? .null }
}

extension JSON {
    static func optional(_ value: String?) -> JSON { value.map(JSON.string) ?? .null }
    static func optional(_ value: Int64?) -> JSON { value.map(JSON.int) ?? .null }
}
