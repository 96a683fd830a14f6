import ArchiverCore

/// `extract-with-archiver --test`'s outcome: one result per archive, nothing written.
public struct TestOutcome: JobOutcome {
    public static let operation = "test"

    public typealias Damaged = DamagedEntry

    public struct Archive: Sendable {
        public var archive: String
        public var format: String?
        /// Files whose data was read to its end.
        public var checked: Int64 = 0
        public var damaged: [Damaged] = []
        /// Why the archive could not be tested at all (missing, not an archive, wrong password).
        public var error: ErrorReport?

        public init(archive: String) { self.archive = archive }

        var json: JSON {
            .object([
                ("archive", .string(archive)), ("format", .optional(format)), ("checked", .int(checked)),
                // `reason` in our words (English), `reasonCode` for scripts, `detail` in the reader's.
                ("damaged", .array(damaged.map {
                    .object([
                        ("path", .string($0.path)), ("reason", .string($0.reason.english)), ("reasonCode", .string($0.problem.code)),
                        ("detail", .string($0.detail)),
                    ])
                })),
                ("error", error.json),
            ])
        }

        init?(_ json: JSON) {
            guard let archive = json["archive"]?.string else { return nil }
            self.archive = archive
            format = json["format"]?.string
            checked = json["checked"]?.int ?? 0
            damaged = json["damaged"]?.array.compactMap { item in
                guard let path = item["path"]?.string else { return nil }
                let detail = item["detail"]?.string ?? item["reason"]?.string ?? ""
                let problem = item["reasonCode"]?.string.map(Damaged.Problem.init(code:)) ?? Damaged.Problem(readerMessage: detail)
                return Damaged(path: path, problem: problem, detail: detail)
            } ?? []
            error = ErrorReport(json["error"])
        }
    }

    public var results: [Archive]

    public init(results: [Archive]) { self.results = results }

    public var fields: [(String, JSON)] { [("results", .array(results.map(\.json)))] }

    public init?(_ json: JSON) {
        guard let results = json["results"]?.array else { return nil }
        self.init(results: results.compactMap(Archive.init))
    }
}
