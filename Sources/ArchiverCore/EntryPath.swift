/// Decisions about entry paths read from an archive: which are safe to create, which are junk.
///
/// Everything here works lexically on the names; the engine separately refuses to write through any
/// symlink, so a path that is safe here stays inside the destination on disk.
public enum EntryPath {
    /// Why an entry is not extracted.
    public enum Refusal: Error, Equatable, Sendable, CustomStringConvertible {
        case absolutePath
        case parentReference
        case emptyName
        case linkLeavesDestination
        case hardlinkLeavesDestination
        case throughSymlink
        case specialFile(SpecialFile)

        /// The kinds of file that are never extracted.
        public enum SpecialFile: String, Sendable {
            case characterDevice = "character-device", blockDevice = "block-device", namedPipe = "named-pipe"
            case socket
        }

        /// Why, for a person: "Refused “x”: its path is absolute."
        public var text: Text {
            switch self {
            case .absolutePath: tr("its path is absolute")
            case .parentReference: tr("its path goes up with “..”")
            case .emptyName: tr("it has no name")
            case .linkLeavesDestination: tr("it is a symlink pointing outside the destination")
            case .hardlinkLeavesDestination: tr("it is a hard link to a file outside the destination")
            case .throughSymlink: tr("it would be written through a symlink")
            case .specialFile(.characterDevice): tr("it is a character device, which is never extracted")
            case .specialFile(.blockDevice): tr("it is a block device, which is never extracted")
            case .specialFile(.namedPipe): tr("it is a named pipe, which is never extracted")
            case .specialFile(.socket): tr("it is a socket, which is never extracted")
            }
        }

        /// A stable name for scripts (`--json`'s `reasonCode`), never translated.
        public var code: String {
            switch self {
            case .absolutePath: "absolute-path"
            case .parentReference: "parent-reference"
            case .emptyName: "empty-name"
            case .linkLeavesDestination: "symlink-outside"
            case .hardlinkLeavesDestination: "hardlink-outside"
            case .throughSymlink: "through-symlink"
            case .specialFile(let kind): kind.rawValue
            }
        }

        public var description: String { text.localized }
    }

    private static let slash = UInt8(ascii: "/")
    private static let dot = [UInt8(ascii: ".")]
    private static let dotDot = [UInt8(ascii: "."), UInt8(ascii: ".")]

    /// The components of an entry path once made safe, or why it cannot be.
    /// - Returns: the components with `.` and empty ones removed (an empty array is the archive's root,
    ///   as in a `./` entry), or the refusal.
    public static func components(of path: [UInt8]) -> Result<[[UInt8]], Refusal> {
        guard !path.isEmpty else { return .failure(.emptyName) }
        guard path.first != slash else { return .failure(.absolutePath) }
        var result: [[UInt8]] = []
        for part in path.split(separator: slash) {
            let component = Array(part)
            if component == dot { continue }
            if component == dotDot { return .failure(.parentReference) }
            result.append(component)
        }
        return .success(result)
    }

    /// Whether a symlink at `linkPath` (already safe components) pointing at `target` stays inside the
    /// destination.
    ///
    /// The target must be relative and may go up only at its start, and no higher than the link's own
    /// folder is deep: `../lib/x` from `a/b/link` is fine, `../../x` is not. A `..` after a name
    /// (`a/../x`) is refused because `a` may itself be a symlink that lands elsewhere.
    public static func symlinkStaysInside(target: [UInt8], linkPath: [[UInt8]]) -> Bool {
        guard !target.isEmpty, target.first != slash else { return false }
        var ups = 0
        var sawName = false
        for part in target.split(separator: slash) {
            let component = Array(part)
            if component == dot { continue }
            if component == dotDot {
                if sawName { return false }
                ups += 1
            } else {
                sawName = true
            }
        }
        return ups <= max(linkPath.count - 1, 0)
    }

    /// Whether a symlink (already known to stay inside) resolves through the destination's top level.
    /// Such a link escapes once a single top-level item is moved out of the staging folder into the user's
    /// folder (`notes.txt -> .bashrc`, `dir/k -> ../.ssh/x`), so its archive keeps a folder of its own.
    public static func symlinkReachesTop(target: [UInt8], linkPath: [[UInt8]]) -> Bool {
        let ups = target.split(separator: slash).filter { Array($0) == dotDot }.count
        return ups >= max(linkPath.count - 1, 0)
    }

    /// Whether an entry is macOS clutter nobody wants on Linux: anything in a `__MACOSX` folder, `._name`
    /// AppleDouble files, `.DS_Store`.
    public static func isMacJunk(_ components: [[UInt8]]) -> Bool {
        guard let last = components.last else { return false }
        if components.contains(Junk.macFolder) { return true }
        return Junk.isMacJunk(last)
    }

    /// Joins components back into a path.
    public static func join(_ components: [[UInt8]]) -> [UInt8] {
        Array(components.joined(separator: [slash]))
    }
}

/// The entries a person asked for after `--`: a name selects that entry and, for a folder, everything
/// under it.
public struct EntrySelection: Sendable {
    public let names: [[UInt8]]

    public init(_ requested: [[UInt8]]) {
        names = requested.map { name in
            (try? EntryPath.components(of: name).get()).map(EntryPath.join) ?? name
        }
    }

    /// True when there is no selection or `path` is, or is under, a selected name.
    public func includes(_ path: [UInt8]) -> Bool {
        names.isEmpty || names.contains { selects($0, path) }
    }

    /// The selected names that match none of `paths`.
    public func unmatched(in paths: [[UInt8]]) -> [[UInt8]] {
        names.filter { name in !paths.contains { selects(name, $0) } }
    }

    private func selects(_ name: [UInt8], _ path: [UInt8]) -> Bool {
        path == name || (path.count > name.count && path.starts(with: name) && path[name.count] == UInt8(ascii: "/"))
    }
}

/// Close matches for a name that is not there, for "did you mean…" hints.
public enum Suggestions {
    /// Up to `limit` candidates close to `name`: same text but case, containing it, or within a few edits.
    public static func closeMatches(for name: String, in candidates: [String], limit: Int = 3) -> [String] {
        let lowered = name.lowercased()
        let scored = candidates.compactMap { candidate -> (String, Int)? in
            let other = candidate.lowercased()
            let distance = editDistance(lowered, other)
            let close = distance <= max(2, lowered.count / 3) || other.contains(lowered) || lowered.contains(other)
            return close ? (candidate, distance) : nil
        }
        return scored.sorted { ($0.1, $0.0) < ($1.1, $1.0) }.prefix(limit).map(\.0)
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
