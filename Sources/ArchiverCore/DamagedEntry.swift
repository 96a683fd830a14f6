/// An entry whose data (or the header after it) did not read back as stored, with the reader's own words
/// (libarchive's, 7-Zip's; English, as `--json` carries them). One type for the engine's test result and the
/// tools' `--test` outcome.
public struct DamagedEntry: Sendable, Equatable {
    public var path: String
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
}
