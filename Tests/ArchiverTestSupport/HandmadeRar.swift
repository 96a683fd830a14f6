import Foundation

/// RAR archives made header by header (`python/handmade_rar.py`): no rar writer exists here, RAR being
/// non-free. Each holds one stored file and, when given, an archive comment.
public enum HandmadeRar {
    /// Writes `path`: a RAR5 archive (or RAR4, `version` 4) holding `name` with `text` as its data.
    public static func make(_ path: String, version: Int = 5, name: String, text: String, comment: String?) throws {
        let script = PythonHelpers.prelude + """
            from handmade_rar import rar4, rar5
            path, version, name, text = sys.argv[1:5]
            comment = sys.argv[5] if len(sys.argv) > 5 else None
            (rar5 if version == '5' else rar4)(path, name, text.encode(), comment)
            """
        let made = try Tool.run(["/usr/bin/python3", "-c", script, path, String(version), name, text] + (comment.map { [$0] } ?? []))
        guard made.status == 0 else { throw Failed(description: made.output) }
    }

    public struct Failed: Error, CustomStringConvertible {
        public let description: String
    }
}
