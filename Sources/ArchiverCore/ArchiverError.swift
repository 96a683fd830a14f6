import SystemPackage

/// The one error every layer throws: a code that decides the exit status, and words for a person.
public struct ArchiverError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure this is. A struct around a private enum so that cases can be added later.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Kind: Int32, Sendable {
            case usage = 2, inputUnreadable, notAnArchive, corrupt, password, destination, cancelled, budget
        }
        fileprivate let kind: Kind

        fileprivate init(kind: Kind) { self.kind = kind }

        /// Bad flags or arguments.
        public static let usage = Code(kind: .usage)
        /// An input is missing or cannot be read.
        public static let inputUnreadable = Code(kind: .inputUnreadable)
        /// Not an archive, or a format or feature that is not supported.
        public static let notAnArchive = Code(kind: .notAnArchive)
        /// The input is damaged or cut short.
        public static let corrupt = Code(kind: .corrupt)
        /// A password is needed, wrong, or cannot be asked for.
        public static let password = Code(kind: .password)
        /// The destination cannot be written (permissions, disk full, read-only, already exists).
        public static let destination = Code(kind: .destination)
        /// The user or a signal stopped the job.
        public static let cancelled = Code(kind: .cancelled)
        /// The time budget ran out, or the estimate exceeds it.
        public static let budget = Code(kind: .budget)

        /// The code an exit status stands for (another process's failure); nil for 0, 1 and unknown ones.
        public init?(exitStatus: Int32) {
            guard let kind = Kind(rawValue: exitStatus) else { return nil }
            self.kind = kind
        }

        /// The process exit status DESIGN.md fixes for this code.
        public var exitStatus: Int32 { kind.rawValue }

        public var description: String { name }

        /// A stable name for scripts (`--json`'s `kind`), never translated; spelled out so that renaming a
        /// case cannot change what scripts read.
        public var name: String {
            switch kind {
            case .usage: "usage"
            case .inputUnreadable: "inputUnreadable"
            case .notAnArchive: "notAnArchive"
            case .corrupt: "corrupt"
            case .password: "password"
            case .destination: "destination"
            case .cancelled: "cancelled"
            case .budget: "budget"
            }
        }
    }

    /// The file of `path` byte for byte, when the error was made from a `FilePath`: a Latin-1 name
    /// survives into a tool's JSON, where `path` shows it with U+FFFD.
    public var file: FilePath?

    public var code: Code
    /// One plain sentence saying what went wrong.
    public var message: Text
    /// What the person can do about it, if anything.
    public var hint: Text?
    /// The file the error is about, when there is one.
    public var path: String?
    /// The library's own words (libarchive's "Truncated input file (needed 40010 bytes…)"), English and never
    /// translated: for `--json` and a window's Details, never inside `message`, which says it in our words in
    /// every language.
    public var detail: String?

    public init(_ code: Code, _ message: Text, hint: Text? = nil, path: String? = nil, detail: String? = nil) {
        self.code = code
        self.message = message
        self.hint = hint
        self.path = path
        self.detail = detail
    }

    @available(*, deprecated, message: "words for a person go through tr(), ntr() or ptr()")
    public init(_ code: Code, _ message: String, hint: String? = nil, path: String? = nil) {
        self.init(code, .verbatim(message), hint: hint.map(Text.verbatim), path: path)
    }

    public init(_ code: Code, _ message: Text, hint: Text? = nil, file: FilePath) {
        self.init(code, message, hint: hint, path: file.string)
        self.file = file
    }

    /// The sentence and the hint, in the user's language.
    public var description: String {
        guard let hint else { return message.localized }
        return "\(message.localized) \(hint.localized)"
    }
}

/// Exit statuses that are not errors.
public enum ExitStatus {
    public static let success: Int32 = 0
    /// Done, but some entries were refused or skipped, or some items of a batch failed.
    public static let warnings: Int32 = 1
}
