/// Hidden names for work in progress: `.archiver-PID-TOKEN[.tmp]`. The PID lets a later run tell a
/// leftover of a dead process from the live work of a run beside it.
public enum TemporaryName {
    public static let prefix = ".archiver-"

    /// A temporary name for process `pid`; `token` keeps two outputs of one process apart.
    public static func make(pid: Int32, token: String, isDirectory: Bool) -> String {
        "\(prefix)\(pid)-\(token)" + (isDirectory ? "" : ".tmp")
    }

    /// The PID in a temporary name, or nil when `name` is not one of ours.
    public static func pid(in name: [UInt8]) -> Int32? {
        guard name.starts(with: Array(prefix.utf8)) else { return nil }
        let digits = name.dropFirst(prefix.utf8.count).prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        guard !digits.isEmpty, name.count > prefix.utf8.count + digits.count,
            name[prefix.utf8.count + digits.count] == UInt8(ascii: "-")
        else { return nil }
        return Int32(String(decoding: digits, as: UTF8.self))
    }
}
