/// An entry whose data (or the header after it) did not read back as stored: what is wrong in our words
/// (`problem`, translated), and the reader's own (`detail`: libarchive's, 7-Zip's, unrar's, or our header
/// check's; English, for `--json` and the window's Details, never put in a sentence). One type for the
/// engine's test result and the tools' `--test` outcome.
public struct DamagedEntry: Sendable, Equatable {
    public var path: String
    public var problem: Problem
    public var detail: String

    public init(path: String, problem: Problem, detail: String) {
        self.path = path
        self.problem = problem
        self.detail = detail
    }

    /// The entry at `path`, with the problem that a reader's message names.
    public init(path: String, detail: String) {
        self.init(path: path, problem: Problem(readerMessage: detail), detail: detail)
    }

    /// What is wrong, for a person: "a checksum does not match".
    public var reason: Text { problem.text }

    /// What is wrong with a damaged entry, as much as the reader's message says.
    public enum Problem: String, Sendable, CaseIterable {
        case checksum
        case endsEarly = "ends-early"
        case headers
        /// A zip's central directory record and the member's local header disagree.
        case headerMismatch = "header-mismatch"
        case data
        /// Encrypted data whose checksum does not match: the reader cannot tell damage from a wrong password.
        case password
        case unknown

        /// A stable name for scripts (`--json`'s `reasonCode`), never translated.
        public var code: String { rawValue }

        /// The problem named by `code` (a `reasonCode` read back); `.unknown` for one this version lacks.
        public init(code: String) { self = Problem(rawValue: code) ?? .unknown }

        /// Why, inserted in a sentence: "“x.zip” is damaged at “a.txt”: a checksum does not match."
        public var text: Text {
            switch self {
            case .checksum: tr("a checksum does not match")
            case .endsEarly: tr("it ends too early")
            case .headers: tr("its headers are damaged")
            // TRANSLATORS: a zip's two records of one file (the central directory's, and the header before its data).
            case .headerMismatch: tr("its central directory and its local header disagree")
            case .data: tr("its data is damaged")
            case .password: tr("its checksum does not match: it is damaged or the password is wrong")
            case .unknown: tr("it does not read back as it was stored")
            }
        }

        /// The problem that a reader's own message names (libarchive's "ZIP bad CRC: …", "Truncated input
        /// file (needed 512 bytes, only 0 available)", 7-Zip's "CRC Failed", our decoders' words).
        public init(readerMessage message: String) {
            let text = message.lowercased()
            func has(_ words: String...) -> Bool { words.contains(where: text.contains) }
            if has("wrong password", "incorrect password", "passphrase", "decryption") {
                self = .password
            } else if has("truncated", "unexpected end", "premature end", "ends early", "stops after") {
                self = .endsEarly
            } else if has("header", "central directory", "signature") {
                self = .headers
            } else if has("crc", "checksum") {
                self = .checksum
            } else if has("data error", "decompression failed", "corrupt", "invalid", "inflate", "decode", "bad", "damaged") {
                self = .data
            } else {
                self = .unknown
            }
        }
    }
}
