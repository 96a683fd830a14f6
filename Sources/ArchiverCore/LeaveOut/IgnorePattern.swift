/// One line of a `.gitignore` (or `.archiverignore`, or `--exclude`), read as git's dir.c reads it.
public struct IgnorePattern: Sendable, Equatable {
    /// The glob, without the `!`, the leading `/` and the trailing `/`.
    public let glob: [UInt8]
    /// `!`: a match includes again what an earlier line left out.
    public let negated: Bool
    /// A trailing `/`: it matches folders only.
    public let directoryOnly: Bool
    /// No `/` but a trailing one: matched against the name alone, at any depth. Otherwise it is matched
    /// against the path from the file's folder (`/build`, `doc/*.txt`, `**/x`).
    public let matchesName: Bool

    private static let slash = UInt8(ascii: "/")

    /// Reads one line; nil for a blank line, a comment, or a pattern that is empty once read.
    public init?(line raw: some Collection<UInt8>) {
        var line = Array(raw)
        if line.first == UInt8(ascii: "#") { return nil }
        line = Self.trimmingTrailingSpaces(line)
        negated = line.first == UInt8(ascii: "!")
        if negated { line.removeFirst() }
        directoryOnly = line.last == Self.slash
        if directoryOnly { line.removeLast() }
        if line.isEmpty { return nil }
        matchesName = !line.contains(Self.slash)
        if line.first == Self.slash { line.removeFirst() }
        glob = line
    }

    /// Whether the pattern matches an item.
    /// - Parameters:
    ///   - path: the item's path from the folder the pattern belongs to, without a leading `/`.
    ///   - isDirectory: whether the item is a folder (a symlink to one is not).
    public func matches(_ path: ArraySlice<UInt8>, isDirectory: Bool) -> Bool {
        if directoryOnly, !isDirectory { return false }
        if matchesName {
            let name = path.lastIndex(of: Self.slash).map { path[($0 + 1)...] } ?? path
            return Wildmatch.matches(glob[...], name, pathname: false)
        }
        return Wildmatch.matches(glob[...], path, pathname: true)
    }

    /// git's `trim_trailing_spaces`: spaces at the end go, unless a backslash escapes them.
    private static func trimmingTrailingSpaces(_ line: [UInt8]) -> [UInt8] {
        var end = line.count
        var spaceStart: Int?
        var index = 0
        while index < line.count {
            switch line[index] {
            case UInt8(ascii: " "):
                if spaceStart == nil { spaceStart = index }
            case UInt8(ascii: "\\"):
                index += 1
                if index == line.count { return line }
                spaceStart = nil
            default:
                spaceStart = nil
            }
            index += 1
        }
        if let spaceStart { end = spaceStart }
        return Array(line[..<end])
    }

    /// Every pattern of a file's text, in order (lines end at `\n`; a `\r` stays, as git keeps it; a
    /// UTF-8 byte-order mark at the start goes, as git drops it).
    public static func lines(of text: [UInt8]) -> [IgnorePattern] {
        let text = text.starts(with: [0xEF, 0xBB, 0xBF]) ? text.dropFirst(3) : text[...]
        return text.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true).compactMap { IgnorePattern(line: $0) }
    }
}

/// The patterns of one file (or of `--exclude`), and the folder they are relative to.
public struct IgnoreList: Sendable {
    /// The folder's path from the root the lists are asked about, without a leading or trailing `/`;
    /// empty for the root itself.
    public let base: [UInt8]
    public let patterns: [IgnorePattern]

    public init(base: [UInt8], patterns: [IgnorePattern]) {
        self.base = base
        self.patterns = patterns
    }

    /// The last pattern that matches, as git's `last_matching_pattern_from_list` finds it; nil when none
    /// does or `path` is not under `base`.
    public func lastMatch(_ path: [UInt8], isDirectory: Bool) -> IgnorePattern? {
        let relative: ArraySlice<UInt8>
        if base.isEmpty {
            relative = path[...]
        } else {
            guard path.count > base.count, path.starts(with: base), path[base.count] == UInt8(ascii: "/") else { return nil }
            relative = path[(base.count + 1)...]
        }
        return patterns.last { $0.matches(relative, isDirectory: isDirectory) }
    }
}

/// The lists that decide one item, in git's order of precedence: the first list with a match decides,
/// and within a list the last matching line. A folder left out takes everything under it along: nothing
/// inside can be included again (the walk never looks inside).
public struct IgnoreStack: Sendable {
    /// Most important first: the deepest folder's file, then its parents', then the repository's
    /// `info/exclude`, then the user's `core.excludesFile`.
    public var lists: [IgnoreList]

    public init(_ lists: [IgnoreList] = []) { self.lists = lists }

    /// Whether the item at `path` (from the root, no leading `/`) is left out.
    public func isIgnored(_ path: [UInt8], isDirectory: Bool) -> Bool {
        for list in lists {
            if let pattern = list.lastMatch(path, isDirectory: isDirectory) { return !pattern.negated }
        }
        return false
    }
}
