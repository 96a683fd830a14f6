import Foundation

/// RARLAB's unrar and the rar fixtures, for the tests of what only unrar decrypts. unrar is non-free: CI
/// builds one from source (scripts/build-test-unrar.sh) and names it in ARCHIVER_TEST_UNRAR; the fixtures
/// (from libarchive's test suite) are in ../shared/fixtures beside the clone.
public enum TestUnrar {
    /// An unrar installed where Archiver looks for it (PATH, then /usr/bin).
    public static let installed: String? = {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "") + ":/usr/bin"
        return path.split(separator: ":").map { "\($0)/unrar" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// The unrar to test with: $ARCHIVER_TEST_UNRAR, else the installed one.
    public static let program: String? = {
        if let named = ProcessInfo.processInfo.environment["ARCHIVER_TEST_UNRAR"], !named.isEmpty { return named }
        return installed
    }()

    public static let fixtures = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/fixtures").path

    public static func fixture(_ name: String) -> String { fixtures + "/" + name }

    /// Why a test of unrar cannot run here, printed as its skip; nil when it can.
    public static var missing: String? {
        if !FileManager.default.fileExists(atPath: fixture("rar4_encrypted.rar")) { return "skipped: fixtures not present (\(fixtures))" }
        if program == nil { return "skipped: unrar not installed (set ARCHIVER_TEST_UNRAR; see scripts/build-test-unrar.sh)" }
        return nil
    }

    /// A folder (`bin` in `scratch`) whose `unrar` records its arguments and environment in `scratch`'s
    /// `record`, then runs the unrar to test with; to put first on an executable's PATH.
    public static func recordingFolder(in scratch: String) throws -> String {
        let folder = scratch + "/bin", record = scratch + "/record"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Tool.installScript(
            """
            #!/bin/sh
            printf 'argv:' >> '\(record)'
            printf ' %s' "$@" >> '\(record)'
            printf '\\n' >> '\(record)'
            env >> '\(record)'
            exec '\(program!)' "$@"
            """, at: folder + "/unrar")
        return folder
    }
}
