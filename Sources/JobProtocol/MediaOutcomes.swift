import ArchiverCore
import SystemPackage

/// `compress-pdf-with-archiver`'s outcome: one result per PDF.
public struct PDFOutcome: JobOutcome {
    public static let operation = "compress-pdf"

    public struct Item: Sendable {
        public var input: String
        public var output: String?
        public var inputBytes: Int64?
        public var outputBytes: Int64?
        public var alreadyOptimal = false
        public var pages: Int64?
        public var imagesPlaced: Int64 = 0
        public var imagesResampled: Int64 = 0
        public var encrypted = false
        public var repaired = false
        public var flattened = false
        public var signed = false
        public var textKept: Bool?
        public var error: ErrorReport?

        public init(input: String) { self.input = input }

        /// A PDF that failed carries only its input, no output and the error.
        var json: JSON {
            guard let inputBytes, let outputBytes, error == nil else {
                return .object([("input", .string(input)), ("output", .null), ("error", error.json)])
            }
            return .object([
                ("input", .string(input)), ("output", .optional(output)), ("inputBytes", .int(inputBytes)),
                ("outputBytes", .int(outputBytes)), ("alreadyOptimal", .bool(alreadyOptimal)), ("pages", .int(pages ?? 0)),
                ("imagesPlaced", .int(imagesPlaced)), ("imagesResampled", .int(imagesResampled)), ("encrypted", .bool(encrypted)),
                ("repaired", .bool(repaired)), ("flattened", .bool(flattened)), ("signed", .bool(signed)),
                ("textKept", .bool(textKept ?? true)), ("error", .null),
            ])
        }

        init?(_ json: JSON) {
            guard let input = json["input"]?.string else { return nil }
            self.input = input
            output = json["output"]?.string
            inputBytes = json["inputBytes"]?.int
            outputBytes = json["outputBytes"]?.int
            alreadyOptimal = json["alreadyOptimal"]?.bool ?? false
            pages = json["pages"]?.int
            imagesPlaced = json["imagesPlaced"]?.int ?? 0
            imagesResampled = json["imagesResampled"]?.int ?? 0
            encrypted = json["encrypted"]?.bool ?? false
            repaired = json["repaired"]?.bool ?? false
            flattened = json["flattened"]?.bool ?? false
            signed = json["signed"]?.bool ?? false
            textKept = json["textKept"]?.bool
            error = ErrorReport(json["error"])
        }
    }

    public var results: [Item]
    public var error: ErrorReport?

    public init(results: [Item], error: ErrorReport?) {
        self.results = results
        self.error = error
    }

    public var fields: [(String, JSON)] { [("results", .array(results.map(\.json))), ("error", error.json)] }

    public init?(_ json: JSON) {
        guard json["results"] != nil else { return nil }
        self.init(results: json["results"]?.array.compactMap(Item.init) ?? [], error: ErrorReport(json["error"]))
    }
}

/// `compress-pdf-with-archiver --estimate`'s outcome: the copy's size at each level.
public struct PDFEstimateOutcome: JobOutcome {
    public static let operation = "estimate-pdf"

    public struct Level: Sendable {
        public var quality: String
        public var dpi: Int64
        public var jpegQuality: Int64
        public var estimatedSize: Int64
        public var helps: Bool

        public init(quality: String, dpi: Int64, jpegQuality: Int64, estimatedSize: Int64, helps: Bool) {
            self.quality = quality
            self.dpi = dpi
            self.jpegQuality = jpegQuality
            self.estimatedSize = estimatedSize
            self.helps = helps
        }
    }

    public var elapsed: Double
    public var path: String
    public var size: Int64?
    public var pages: Int64?
    public var encrypted = false
    public var alreadyOptimal = false
    public var imagesPlaced: Int64 = 0
    public var imagesResampled: Int64 = 0
    public var levels: [Level] = []
    public var error: ErrorReport?

    public init(elapsed: Double, path: String, error: ErrorReport?) {
        self.elapsed = elapsed
        self.path = path
        self.error = error
    }

    public var fields: [(String, JSON)] {
        let elapsed = (elapsed * 1000).rounded() / 1000
        guard error == nil else {
            return [("elapsed", .double(elapsed)), ("path", .string(path)), ("levels", .array([])), ("error", error.json)]
        }
        let levels = self.levels.map { level in
            JSON.object([
                ("quality", .string(level.quality)), ("dpi", .int(level.dpi)), ("jpegQuality", .int(level.jpegQuality)),
                ("estimatedSize", .int(level.estimatedSize)), ("helps", .bool(level.helps)),
            ])
        }
        return [
            ("elapsed", .double(elapsed)), ("path", .string(path)), ("size", .int(size ?? 0)), ("pages", .int(pages ?? 0)),
            ("encrypted", .bool(encrypted)), ("alreadyOptimal", .bool(alreadyOptimal)), ("imagesPlaced", .int(imagesPlaced)),
            ("imagesResampled", .int(imagesResampled)), ("levels", .array(levels)), ("error", .null),
        ]
    }

    public init?(_ json: JSON) {
        guard let path = json["path"]?.string else { return nil }
        self.init(elapsed: json["elapsed"]?.double ?? 0, path: path, error: ErrorReport(json["error"]))
        size = json["size"]?.int
        pages = json["pages"]?.int
        encrypted = json["encrypted"]?.bool ?? false
        alreadyOptimal = json["alreadyOptimal"]?.bool ?? false
        imagesPlaced = json["imagesPlaced"]?.int ?? 0
        imagesResampled = json["imagesResampled"]?.int ?? 0
        levels = json["levels"]?.array.compactMap { level in
            level["quality"]?.string.map {
                Level(
                    quality: $0, dpi: level["dpi"]?.int ?? 0, jpegQuality: level["jpegQuality"]?.int ?? 0,
                    estimatedSize: level["estimatedSize"]?.int ?? 0, helps: level["helps"]?.bool ?? false)
            }
        } ?? []
    }
}

/// A photo's copy: in `compress-photos-with-archiver`'s outcome, and (with `message`) its `photo` event.
public struct PhotoCopy: Sendable {
    public var source: FilePath
    public var path: FilePath?
    public var inputSize: Int64
    public var size: Int64?
    /// `compressed`, `kept` (the original's bytes), `video`, or `failed` in an event.
    public var outcome: String
    public var width: Int64?
    public var height: Int64?
    public var outWidth: Int64?
    public var outHeight: Int64?

    public init(
        source: FilePath, path: FilePath?, inputSize: Int64, size: Int64?, outcome: String, width: Int64?, height: Int64?,
        outWidth: Int64?, outHeight: Int64?
    ) {
        self.source = source
        self.path = path
        self.inputSize = inputSize
        self.size = size
        self.outcome = outcome
        self.width = width
        self.height = height
        self.outWidth = outWidth
        self.outHeight = outHeight
    }

    public init?(_ json: JSON) {
        guard let source = json["source"]?.path else { return nil }
        self.init(
            source: source, path: json["path"]?.path, inputSize: json["inputSize"]?.int ?? 0, size: json["size"]?.int,
            outcome: json["outcome"]?.string ?? "", width: json["width"]?.int, height: json["height"]?.int,
            outWidth: json["outWidth"]?.int, outHeight: json["outHeight"]?.int)
    }

    public var fields: [(String, JSON)] {
        [
            ("source", .path(source)), ("path", path.map(JSON.path) ?? .null), ("inputSize", .int(inputSize)), ("size", .optional(size)),
            ("outcome", .string(outcome)), ("width", .optional(width)), ("height", .optional(height)),
            ("outWidth", .optional(outWidth)), ("outHeight", .optional(outHeight)),
        ]
    }
}

/// A photo finished (or failed) in a batch, as it happens.
public struct PhotoEvent: JobEventKind {
    public static let name = "photo"
    public var copy: PhotoCopy
    /// Why it failed, in the user's language.
    public var message: String?

    public init(_ copy: PhotoCopy, message: String?) {
        self.copy = copy
        self.message = message
    }

    public init?(_ json: JSON) {
        guard let copy = PhotoCopy(json) else { return nil }
        self.init(copy, message: json["message"]?.string)
    }

    public var failed: Bool { copy.outcome == "failed" }
    public var fields: [(String, JSON)] { copy.fields + [("message", .optional(message))] }
}

/// A photo's estimated copy (`--estimate`, `--suggest`).
public struct EstimateEvent: JobEventKind {
    public static let name = "estimate"
    public var source: FilePath
    public var size: Int64
    public var width: Int64
    public var height: Int64
    public var estimatedSize: Int64
    /// `PhotoSelection.Status`'s raw value.
    public var status: String
    public var message: String?
    /// When it was taken, whether it has a position, the place written in it; nil when unreadable.
    public var facts: PhotoFacts?

    public init(
        source: FilePath, size: Int64, width: Int64, height: Int64, estimatedSize: Int64, status: String, message: String?,
        facts: PhotoFacts? = nil
    ) {
        self.source = source
        self.size = size
        self.width = width
        self.height = height
        self.estimatedSize = estimatedSize
        self.status = status
        self.message = message
        self.facts = facts
    }

    public init?(_ json: JSON) {
        guard let source = json["source"]?.path else { return nil }
        var facts: PhotoFacts?
        if let located = json["located"]?.bool {
            facts = PhotoFacts(
                taken: json["taken"]?.string.flatMap { PhotoDate(parsing: $0) }, located: located, city: json["city"]?.string,
                state: json["state"]?.string, country: json["country"]?.string)
        }
        self.init(
            source: source, size: json["size"]?.int ?? 0, width: json["width"]?.int ?? 0, height: json["height"]?.int ?? 0,
            estimatedSize: json["estimatedSize"]?.int ?? 0, status: json["status"]?.string ?? "", message: json["message"]?.string,
            facts: facts)
    }

    public var fields: [(String, JSON)] {
        [
            ("source", .path(source)), ("size", .int(size)), ("width", .int(width)), ("height", .int(height)),
            ("estimatedSize", .int(estimatedSize)), ("status", .string(status)), ("message", .optional(message)),
            ("taken", .optional(facts?.taken?.text)), ("located", facts.map { JSON.bool($0.located) } ?? .null),
            ("city", .optional(facts?.city)), ("state", .optional(facts?.state)), ("country", .optional(facts?.country)),
        ]
    }
}

/// `compress-photos-with-archiver`'s outcome.
public struct PhotoOutcome: JobOutcome {
    public static let operation = "compress-photos"

    public struct Failure: Sendable {
        public var path: FilePath?
        public var error: ErrorReport?
        public init(path: FilePath?, error: ErrorReport?) {
            self.path = path
            self.error = error
        }
    }

    public var outputs: [PhotoCopy]
    public var photos: Int64?
    public var kept: Int64 = 0
    public var inputBytes: Int64 = 0
    public var outputBytes: Int64 = 0
    public var failures: [Failure]
    public var resumed: Int64 = 0
    public var error: ErrorReport?

    public init(outputs: [PhotoCopy], photos: Int64?, failures: [Failure], error: ErrorReport?) {
        self.outputs = outputs
        self.photos = photos
        self.failures = failures
        self.error = error
    }

    /// A batch that never started carries the empty lists and the error.
    public var fields: [(String, JSON)] {
        let outputs: (String, JSON) = ("outputs", .array(self.outputs.map { .object($0.fields) }))
        let failures: (String, JSON) = (
            "failures", .array(self.failures.map { .object([("path", $0.path.map(JSON.path) ?? .null), ("error", $0.error.json)]) })
        )
        guard let photos else { return [outputs, failures, ("error", error.json)] }
        return [
            outputs, ("photos", .int(photos)), ("kept", .int(kept)), ("inputBytes", .int(inputBytes)),
            ("outputBytes", .int(outputBytes)), failures, ("resumed", .int(resumed)), ("error", error.json),
        ]
    }

    public init?(_ json: JSON) {
        guard json["outputs"] != nil else { return nil }
        self.init(
            outputs: json["outputs"]?.array.compactMap(PhotoCopy.init) ?? [], photos: json["photos"]?.int,
            failures: json["failures"]?.array.map { Failure(path: $0["path"]?.path, error: ErrorReport($0["error"])) } ?? [],
            error: ErrorReport(json["error"]))
        kept = json["kept"]?.int ?? 0
        inputBytes = json["inputBytes"]?.int ?? 0
        outputBytes = json["outputBytes"]?.int ?? 0
        resumed = json["resumed"]?.int ?? 0
    }
}
