/// A mounted file system, as one line of `/proc/self/mountinfo` describes it.
public struct MountEntry: Equatable, Sendable {
    public var mountPoint: [UInt8]
    /// `fuse.archiver` for ours.
    public var type: String
    /// What was mounted: for ours, the archive's absolute path.
    public var source: [UInt8]

    public init(mountPoint: [UInt8], type: String, source: [UInt8]) {
        self.mountPoint = mountPoint
        self.type = type
        self.source = source
    }

    /// The entries of a `mountinfo` file (proc(5)): paths there escape space, tab, newline and backslash
    /// as octal (`\040`).
    public static func parse(mountinfo: [UInt8]) -> [MountEntry] {
        mountinfo.split(separator: UInt8(ascii: "\n")).compactMap { line in
            let fields = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false).map(Array.init)
            guard fields.count >= 10, let dash = fields.firstIndex(of: [UInt8(ascii: "-")]), dash + 2 < fields.count else {
                return nil
            }
            return MountEntry(
                mountPoint: unescape(fields[4]), type: String(decoding: fields[dash + 1], as: UTF8.self),
                source: unescape(fields[dash + 2]))
        }
    }

    static func unescape(_ field: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        var index = 0
        while index < field.count {
            if field[index] == UInt8(ascii: "\\"), index + 3 < field.count {
                let digits = field[(index + 1)...(index + 3)]
                if digits.allSatisfy({ (48...55).contains($0) }) {
                    result.append(digits.reduce(0) { $0 &* 8 &+ ($1 - 48) })
                    index += 4
                    continue
                }
            }
            result.append(field[index])
            index += 1
        }
        return result
    }
}

/// Where "Open as Folder" mounts an archive: `$XDG_RUNTIME_DIR/archiver/<archive's name>`, the mount
/// already there when the same archive is mounted, else the first free name (`x.zip (2)`).
public enum MountPlace {
    /// The file-system type our mounts show in the mount table (`-o subtype=archiver`).
    public static let type = "fuse.archiver"

    public enum Decision: Equatable, Sendable {
        /// The archive is mounted there already.
        case reuse([UInt8])
        /// Mount it there (the folder may need making).
        case mount([UInt8])
    }

    /// - Parameters:
    ///   - archive: the archive's absolute path.
    ///   - folder: the folder that holds the mounts (`$XDG_RUNTIME_DIR/archiver`).
    ///   - mounts: the mount table now.
    ///   - isTaken: whether a folder of that name exists that is not one of our mounts (and not empty).
    public static func decide(
        archive: [UInt8], in folder: [UInt8], mounts: [MountEntry], isTaken: ([UInt8]) -> Bool
    ) -> Decision {
        if let mounted = mounts.first(where: { $0.type == type && $0.source == archive && $0.mountPoint.starts(with: folder + [UInt8(ascii: "/")]) }) {
            return .reuse(mounted.mountPoint)
        }
        let name = archive.split(separator: UInt8(ascii: "/")).last.map(Array.init) ?? Array("Archive".utf8)
        let mountPoints = Set(mounts.map(\.mountPoint))
        for number in 1... {
            let candidate = folder + [UInt8(ascii: "/")] + name + (number == 1 ? [] : Array(" (\(number))".utf8))
            if !mountPoints.contains(candidate), !isTaken(candidate) { return .mount(candidate) }
        }
        fatalError("unreachable")
    }

    /// `path` as libfuse's `-o fsname=` wants it: commas and backslashes escaped.
    public static func optionValue(_ path: String) -> String {
        path.replacing("\\", with: "\\\\").replacing(",", with: "\\,")
    }
}
