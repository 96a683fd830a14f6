import Foundation

/// Archiver's statistics store as GLib itself reads it (GKeyFile through Debian's python3-gi): the oracle
/// the statistics tests compare with, so a file GLib cannot read fails them.
public enum StatisticsFile {
    /// `<dataHome>/io.github.archiver/statistics.ini`.
    public static func path(dataHome: String) -> String { dataHome + "/io.github.archiver/statistics.ini" }

    /// Every group's keys as integers; empty when there is no file.
    /// - Throws: when GLib cannot load the file or a value is no integer.
    public static func read(dataHome: String) throws -> [String: [String: Int64]] {
        let file = path(dataHome: dataHome)
        guard FileManager.default.fileExists(atPath: file) else { return [:] }
        let script = """
            import json, sys
            import gi
            from gi.repository import GLib
            keys = GLib.KeyFile()
            keys.load_from_file(sys.argv[1], GLib.KeyFileFlags.NONE)
            print(json.dumps({g: {k: keys.get_int64(g, k) for k in keys.get_keys(g)[0]} for g in keys.get_groups()[0]}))
            """
        let result = try Tool.run(["/usr/bin/python3", "-c", script, file], mergingErrors: false)
        guard result.status == 0, let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: [String: NSNumber]]
        else { throw Unreadable(file: file, output: result.output) }
        return object.mapValues { $0.mapValues(\.int64Value) }
    }

    /// The all-time figures, `archives-made` → 3, … (empty when there is no store).
    public static func allTime(dataHome: String) throws -> [String: Int64] { try read(dataHome: dataHome)["all-time"] ?? [:] }

    /// What the store must hold for one kind of output (`archives-made`, `pdfs-compressed`, …) after
    /// `outputs`: how many, how many came out smaller, the bytes before and after, and the bytes saved by
    /// the smaller ones.
    public static func expected(_ kind: String, _ outputs: [(before: Int64, after: Int64)]) -> [String: Int64] {
        [
            kind: Int64(outputs.count),
            kind + "-smaller": Int64(outputs.count { $0.after < $0.before }),
            kind + "-bytes-before": outputs.reduce(0) { $0 + $1.before },
            kind + "-bytes-after": outputs.reduce(0) { $0 + $1.after },
            kind + "-bytes-saved": outputs.reduce(0) { $0 + max(0, $1.before - $1.after) },
        ]
    }

    /// GLib could not read the store.
    public struct Unreadable: Error, CustomStringConvertible {
        public var file: String
        public var output: String
        public var description: String { "GLib cannot read \(file): \(output)" }
    }
}
