import Foundation

/// A folder for one test, removed when the test ends. It lives under the package's `.build`, not in /tmp:
/// the extractor treats the temporary folder as a temporary place and would extract into Downloads
/// instead (the executables under test get their own `$TMPDIR`, `BuiltProducts.isolation`).
public final class ScratchDirectory {
    public let url: URL
    public var path: String { url.path }

    public init(_ label: String = #function) throws {
        let safe = label.filter { $0.isLetter || $0.isNumber }
        url = packageRoot.appendingPathComponent(".build/test-scratch/\(safe)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        // ARCHIVER_E2E_KEEP=1 keeps every test's folder, to look at after a failure.
        if ProcessInfo.processInfo.environment["ARCHIVER_E2E_KEEP"] == "1" { return }
        // Read-only folders from archives would stop a plain removal.
        _ = try? Tool.run(["/bin/chmod", "-R", "u+rwX", url.path])
        try? FileManager.default.removeItem(at: url)
    }

    public func sub(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Sorted names in `name` (this folder when empty), hidden ones included; empty when it does not exist.
    public func list(_ name: String = "") -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: name.isEmpty ? path : sub(name))) ?? []).sorted()
    }

    /// A copy of `file` in this folder under `name` (a fixture a test may change or compress beside).
    public func copy(_ file: String, as name: String) throws -> String {
        try FileManager.default.copyItem(atPath: file, toPath: sub(name))
        return sub(name)
    }
}

/// The package's root folder, found from this file's location.
public let packageRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
