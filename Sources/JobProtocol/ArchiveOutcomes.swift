import ArchiverCore

/// `compress-with-archiver`'s outcome: the archives made (several with `--each`).
public struct CompressOutcome: JobOutcome {
    public static let operation = "compress"

    public struct Output: Sendable, Equatable {
        public var path: String
        public var size: Int64
        /// Every part of a split archive; empty otherwise.
        public var parts: [String]

        public init(path: String, size: Int64, parts: [String]) {
            self.path = path
            self.size = size
            self.parts = parts
        }
    }

    public var outputs: [Output]
    public var inputBytes: Int64
    public var files: Int64
    public var folders: Int64
    public var symlinks: Int64
    /// Whether each archive was tested before it took its name (`--verify`).
    public var verified = false
    /// What the leave-out rules left out, all archives together: per rule (`vcs`, `node_modules`, …) its
    /// items and bytes, each item counted for one rule.
    public var leftOut: [String: LeaveOutFigures] = [:]
    /// What `--check` found, or what `--portable` and `--fix` left; after the fixes chosen either way.
    public var problems: [Problem] = []
    /// The fixes' renames: paths in the archive before and after.
    public var renames: [Rename] = []
    /// The first failure of an `--each` batch, or what stopped the job.
    public var error: ErrorReport?

    public init(
        outputs: [Output], inputBytes: Int64 = 0, files: Int64 = 0, folders: Int64 = 0, symlinks: Int64 = 0,
        leftOut: [String: LeaveOutFigures] = [:], problems: [Problem] = [], renames: [Rename] = [], error: ErrorReport?
    ) {
        self.problems = problems
        self.renames = renames
        self.outputs = outputs
        self.inputBytes = inputBytes
        self.files = files
        self.folders = folders
        self.symlinks = symlinks
        self.leftOut = leftOut
        self.error = error
    }

    public struct Problem: Sendable, Equatable {
        /// A stable name: `reserved-name`, `path-too-long`, `zip-aes`, ….
        public var code: String
        public var path: String
        public var message: String
        public init(code: String, path: String, message: String) {
            self.code = code
            self.path = path
            self.message = message
        }
    }

    public struct Rename: Sendable, Equatable {
        public var from: String
        public var to: String
        public init(from: String, to: String) {
            self.from = from
            self.to = to
        }
    }

    /// `{"items": 212, "bytes": 1300000, "rules": {"node_modules": {"items": 200, "bytes": …}, …}}`.
    private var leftOutJSON: JSON {
        let total = leftOut.values.reduce(into: LeaveOutFigures()) {
            $0.items += $1.items
            $0.bytes += $1.bytes
        }
        let rules = leftOut.sorted { $0.key < $1.key }.map { ($0.key, JSON.object([("items", .int($0.value.items)), ("bytes", .int($0.value.bytes))])) }
        return .object([("items", .int(total.items)), ("bytes", .int(total.bytes)), ("rules", .object(rules))])
    }

    /// A job that failed before making anything: only the empty list and the error.
    public var fields: [(String, JSON)] {
        let outputs: (String, JSON) = (
            "outputs",
            .array(self.outputs.map { .object([("path", .string($0.path)), ("size", .int($0.size)), ("parts", .array($0.parts.map(JSON.string)))]) })
        )
        if self.outputs.isEmpty, error != nil { return [outputs, ("error", error.json)] }
        return [
            outputs, ("inputBytes", .int(inputBytes)), ("files", .int(files)), ("folders", .int(folders)),
            ("symlinks", .int(symlinks)), ("verified", .bool(verified)), ("leftOut", leftOutJSON),
            ("problems", .array(problems.map { .object([("code", .string($0.code)), ("path", .string($0.path)), ("message", .string($0.message))]) })),
            ("renames", .array(renames.map { .object([("from", .string($0.from)), ("to", .string($0.to))]) })),
            ("error", error.json),
        ]
    }

    public init?(_ json: JSON) {
        guard json["outputs"] != nil else { return nil }
        self.init(
            outputs: json["outputs"]?.array.compactMap { output in
                output["path"]?.string.map {
                    Output(path: $0, size: output["size"]?.int ?? 0, parts: output["parts"]?.array.compactMap(\.string) ?? [])
                }
            } ?? [],
            inputBytes: json["inputBytes"]?.int ?? 0, files: json["files"]?.int ?? 0, folders: json["folders"]?.int ?? 0,
            symlinks: json["symlinks"]?.int ?? 0,
            leftOut: Dictionary(
                uniqueKeysWithValues: (json["leftOut"]?["rules"]?.members ?? []).map {
                    ($0.0, LeaveOutFigures(items: $0.1["items"]?.int ?? 0, bytes: $0.1["bytes"]?.int ?? 0))
                }),
            problems: json["problems"]?.array.map {
                Problem(code: $0["code"]?.string ?? "", path: $0["path"]?.string ?? "", message: $0["message"]?.string ?? "")
            } ?? [],
            renames: json["renames"]?.array.map { Rename(from: $0["from"]?.string ?? "", to: $0["to"]?.string ?? "") } ?? [],
            error: ErrorReport(json["error"]))
        verified = json["verified"]?.bool ?? false
    }
}

/// `extract-with-archiver`'s outcome: one result per archive.
public struct ExtractOutcome: JobOutcome {
    public static let operation = "extract"

    public struct Refused: Sendable, Equatable {
        public var path: String
        public var reason: String
        public var reasonCode: String

        public init(path: String, reason: String, reasonCode: String) {
            self.path = path
            self.reason = reason
            self.reasonCode = reasonCode
        }
    }

    public struct Archive: Sendable {
        public var archive: String
        public var output: String?
        public var format: String?
        public var nameEncoding: String?
        public var files: Int64 = 0
        public var folders: Int64 = 0
        public var symlinks: Int64 = 0
        public var bytes: Int64 = 0
        public var refused: [Refused] = []
        public var skippedJunk: [String] = []
        public var warnings: [WarningEvent] = []
        public var error: ErrorReport?

        public init(archive: String) { self.archive = archive }

        var json: JSON {
            .object([
                ("archive", .string(archive)), ("output", .optional(output)), ("format", .optional(format)),
                ("nameEncoding", .optional(nameEncoding)), ("files", .int(files)), ("folders", .int(folders)),
                ("symlinks", .int(symlinks)), ("bytes", .int(bytes)),
                ("refused", .array(refused.map { .object([("path", .string($0.path)), ("reason", .string($0.reason)), ("reasonCode", .string($0.reasonCode))]) })),
                ("skippedJunk", .array(skippedJunk.map(JSON.string))),
                ("warnings", .array(warnings.map { .string($0.message) })), ("warningCodes", .array(warnings.map { .string($0.code) })),
                ("error", error.json),
            ])
        }

        init?(_ json: JSON) {
            guard let archive = json["archive"]?.string else { return nil }
            self.archive = archive
            output = json["output"]?.string
            format = json["format"]?.string
            nameEncoding = json["nameEncoding"]?.string
            files = json["files"]?.int ?? 0
            folders = json["folders"]?.int ?? 0
            symlinks = json["symlinks"]?.int ?? 0
            bytes = json["bytes"]?.int ?? 0
            refused = json["refused"]?.array.compactMap { item in
                item["path"]?.string.map {
                    Refused(path: $0, reason: item["reason"]?.string ?? "", reasonCode: item["reasonCode"]?.string ?? "")
                }
            } ?? []
            skippedJunk = json["skippedJunk"]?.array.compactMap(\.string) ?? []
            let codes = json["warningCodes"]?.array.compactMap(\.string) ?? []
            warnings = zip(codes, json["warnings"]?.array.compactMap(\.string) ?? []).map { WarningEvent(code: $0, message: $1) }
            error = ErrorReport(json["error"])
        }
    }

    public var results: [Archive]
    /// Set only when the job failed before any archive was tried.
    public var error: ErrorReport?

    public init(results: [Archive], error: ErrorReport? = nil) {
        self.results = results
        self.error = error
    }

    public var fields: [(String, JSON)] {
        let results: (String, JSON) = ("results", .array(self.results.map(\.json)))
        return error == nil ? [results] : [results, ("error", error.json)]
    }

    public init?(_ json: JSON) {
        guard json["results"] != nil else { return nil }
        self.init(results: json["results"]?.array.compactMap(Archive.init) ?? [], error: ErrorReport(json["error"]))
    }
}

/// An entry of a listing (`--list --json`, and `--progress-json`'s entry events).
public struct ListedEntry: Sendable, Equatable {
    public var path: String
    public var type: String
    public var size: Int64?
    public var packedSize: Int64?
    /// ISO 8601, UTC.
    public var mtime: String?
    public var encrypted: Bool
    public var linkTarget: String?
    /// The stored CRC-32 as 8 hex digits, as 7-Zip shows it (`1A2B3C4D`); nil where the format keeps none.
    public var crc32: String?

    public init(
        path: String, type: String, size: Int64?, packedSize: Int64?, mtime: String?, encrypted: Bool, linkTarget: String?,
        crc32: String? = nil
    ) {
        self.crc32 = crc32
        self.path = path
        self.type = type
        self.size = size
        self.packedSize = packedSize
        self.mtime = mtime
        self.encrypted = encrypted
        self.linkTarget = linkTarget
    }

    public init?(_ json: JSON) {
        guard let path = json["path"]?.string else { return nil }
        self.init(
            path: path, type: json["type"]?.string ?? "file", size: json["size"]?.int, packedSize: json["packedSize"]?.int,
            mtime: json["mtime"]?.string, encrypted: json["encrypted"]?.bool ?? false, linkTarget: json["linkTarget"]?.string,
            crc32: json["crc32"]?.string)
    }

    public var fields: [(String, JSON)] {
        [
            ("path", .string(path)), ("type", .string(type)), ("size", .optional(size)), ("packedSize", .optional(packedSize)),
            ("mtime", .optional(mtime)), ("encrypted", .bool(encrypted)), ("linkTarget", .optional(linkTarget)),
            ("crc32", .optional(crc32)),
        ]
    }
}

/// `extract-with-archiver --list`'s outcome: one listing per archive.
public struct ListOutcome: JobOutcome {
    public static let operation = "list"

    public struct Archive: Sendable {
        public var archive: String
        public var format: String?
        public var nameEncoding: String?
        /// The entries, or (with `--progress-json`, which carried them as events) only their count.
        public var entries: [ListedEntry]?
        public var entryCount: Int64?
        public var error: ErrorReport?
        /// The archive's facts; nil when it could not be listed.
        public var properties: ArchiveFacts?

        public init(
            archive: String, format: String?, nameEncoding: String?, entries: [ListedEntry]?, entryCount: Int64?, error: ErrorReport?
        ) {
            self.archive = archive
            self.format = format
            self.nameEncoding = nameEncoding
            self.entries = entries
            self.entryCount = entryCount
            self.error = error
        }

        var json: JSON {
            let listing: (String, JSON) =
                if let entries { ("entries", .array(entries.map { .object($0.fields) })) } else { ("entryCount", .int(entryCount ?? 0)) }
            guard error == nil else { return .object([("archive", .string(archive)), listing, ("error", error.json)]) }
            return .object(
                [("archive", .string(archive)), ("format", .optional(format)), ("nameEncoding", .optional(nameEncoding))]
                    + (properties?.fields ?? []) + [listing, ("error", .null)])
        }

        init?(_ json: JSON) {
            guard let archive = json["archive"]?.string else { return nil }
            self.init(
                archive: archive, format: json["format"]?.string, nameEncoding: json["nameEncoding"]?.string,
                entries: json["entries"].map { $0.array.compactMap(ListedEntry.init) }, entryCount: json["entryCount"]?.int,
                error: ErrorReport(json["error"]))
            properties = json["files"] == nil ? nil : ArchiveFacts(json)
        }
    }

    public var archives: [Archive]
    public var error: ErrorReport?

    public init(archives: [Archive], error: ErrorReport? = nil) {
        self.archives = archives
        self.error = error
    }

    public var fields: [(String, JSON)] {
        let archives: (String, JSON) = ("archives", .array(self.archives.map(\.json)))
        return error == nil ? [archives] : [archives, ("error", error.json)]
    }

    public init?(_ json: JSON) {
        guard json["archives"] != nil else { return nil }
        self.init(archives: json["archives"]?.array.compactMap(Archive.init) ?? [], error: ErrorReport(json["error"]))
    }
}

/// `edit-with-archiver`'s outcome: what changed in the archive and where the result is.
public struct EditOutcome: JobOutcome {
    public static let operation = "edit"

    public struct Renamed: Sendable, Equatable {
        public var from: String
        public var to: String

        public init(from: String, to: String) {
            self.from = from
            self.to = to
        }
    }

    public var archive: String
    public var added: [String]
    public var replaced: [String]
    public var deleted: [String]
    public var renamed: [Renamed]
    /// The edited archive: the archive itself, or `x (edited).zip` when the archive changed meanwhile.
    public var output: String?
    /// Where the previous version went (`--keep-previous`), else nil.
    public var previous: String?
    public var error: ErrorReport?

    public init(
        archive: String, added: [String] = [], replaced: [String] = [], deleted: [String] = [], renamed: [Renamed] = [],
        output: String? = nil, previous: String? = nil, error: ErrorReport? = nil
    ) {
        self.archive = archive
        self.added = added
        self.replaced = replaced
        self.deleted = deleted
        self.renamed = renamed
        self.output = output
        self.previous = previous
        self.error = error
    }

    public var fields: [(String, JSON)] {
        [
            ("archive", .string(archive)), ("added", .array(added.map(JSON.string))), ("replaced", .array(replaced.map(JSON.string))),
            ("deleted", .array(deleted.map(JSON.string))),
            ("renamed", .array(renamed.map { .object([("from", .string($0.from)), ("to", .string($0.to))]) })),
            ("output", .optional(output)), ("previous", .optional(previous)), ("error", error.json),
        ]
    }

    public init?(_ json: JSON) {
        guard let archive = json["archive"]?.string else { return nil }
        self.init(
            archive: archive, added: json["added"]?.array.compactMap(\.string) ?? [],
            replaced: json["replaced"]?.array.compactMap(\.string) ?? [], deleted: json["deleted"]?.array.compactMap(\.string) ?? [],
            renamed: json["renamed"]?.array.compactMap { item in
                guard let from = item["from"]?.string, let to = item["to"]?.string else { return nil }
                return Renamed(from: from, to: to)
            } ?? [],
            output: json["output"]?.string, previous: json["previous"]?.string, error: ErrorReport(json["error"]))
    }
}

/// The archive's facts as `--list --json` carries them, beside the archive's own keys (its `format` is one).
extension ArchiveFacts {
    init(_ json: JSON) {
        self.init()
        format = json["format"]?.string
        filters = json["filters"]?.array.compactMap(\.string) ?? []
        files = json["files"]?.int ?? 0
        packedSize = json["packedSize"]?.int ?? 0
        size = json["size"]?.int ?? 0
        encryptedNames = json["encryptedNames"]?.bool ?? false
        encryptedData = json["encryptedData"]?.bool ?? false
        comment = json["comment"]?.string
        sha256 = json["sha256"]?.string
    }

    /// Its keys, but `format`: the archive's object has that already.
    var fields: [(String, JSON)] {
        [
            ("filters", .array(filters.map(JSON.string))), ("files", .int(files)), ("packedSize", .int(packedSize)),
            ("size", .int(size)), ("encryptedNames", .bool(encryptedNames)), ("encryptedData", .bool(encryptedData)),
            ("comment", .optional(comment)), ("sha256", .optional(sha256)),
        ]
    }
}
