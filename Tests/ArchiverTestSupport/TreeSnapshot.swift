import Foundation
import Glibc

/// The tests' one file-tree comparer: every fact about a tree (kinds, bytes, permission bits, modification
/// times in seconds, symlink targets), keyed by relative path, read without following symlinks and with
/// names as bytes (a Latin-1 name is a key of its own). What counts as a difference is the caller's
/// explicit choice (`Compare`): an archive round trip keeps file times but not folder times, a tool that
/// writes DOS times is 2 s off, an install is checked by layout and sizes.
public struct TreeSnapshot: CustomStringConvertible, Sendable {
    public enum Node: Equatable, CustomStringConvertible, Sendable {
        case file(data: Data, mode: Int, mtime: Int)
        case directory(mode: Int, mtime: Int)
        case symlink(target: String)
        /// A FIFO, socket or device, by its kind.
        case other(String)

        public var description: String {
            switch self {
            case .file(let data, let mode, let mtime): "file(\(data.count) bytes, mode \(String(mode, radix: 8)), mtime \(mtime))"
            case .directory(let mode, let mtime): "dir(mode \(String(mode, radix: 8)), mtime \(mtime))"
            case .symlink(let target): "symlink(→ \(target))"
            case .other(let kind): kind
            }
        }

        var isSymlink: Bool {
            if case .symlink = self { true } else { false }
        }
    }

    /// What two trees must share to count as the same.
    public struct Compare: Sendable {
        /// File bytes; false: only their sizes.
        public var contents = true
        /// Permission bits of files and symlink-free kinds.
        public var modes = true
        /// Permission bits of folders (7-Zip does not store those of folders it did not create).
        public var dirModes = true
        public var fileMTimes = true
        public var dirMTimes = false
        /// Seconds either way (DOS times are 2 s steps).
        public var mtimeTolerance = 0
        /// Symlinks' targets, and a symlink against anything else.
        public var symlinks = true
        /// Paths (relative) to leave out, e.g. symlinks a tool cannot restore.
        public var ignore: Set<String> = []

        public init(
            contents: Bool = true, modes: Bool = true, dirModes: Bool? = nil, fileMTimes: Bool = true, dirMTimes: Bool = false,
            mtimeTolerance: Int = 0, symlinks: Bool = true, ignore: Set<String> = []
        ) {
            self.contents = contents
            self.modes = modes
            self.dirModes = dirModes ?? modes
            self.fileMTimes = fileMTimes
            self.dirMTimes = dirMTimes
            self.mtimeTolerance = mtimeTolerance
            self.symlinks = symlinks
            self.ignore = ignore
        }

        /// What an archive round trip keeps: kinds, bytes, modes, file times, symlink targets.
        public static let archive = Compare()
        /// `archive` and the folders' times.
        public static let full = Compare(dirMTimes: true)
        /// Kinds, bytes and symlink targets only.
        public static let contentOnly = Compare(modes: false, fileMTimes: false)
        /// Kinds, modes and file sizes: what an installer lays out.
        public static let layout = Compare(contents: false, fileMTimes: false)
    }

    public var nodes: [String: Node]

    /// Reads the tree under `root` (not `root` itself).
    public init(_ root: String) throws {
        nodes = [:]
        var info = stat()
        guard lstat(root, &info) == 0 else { throw CocoaError(.fileReadNoSuchFile) }
        if info.st_mode & S_IFMT == S_IFDIR { try walk(Array(root.utf8), relative: []) }
    }

    /// The snapshot of `root`, or an empty one when it does not exist.
    public static func of(_ root: String) -> TreeSnapshot {
        (try? TreeSnapshot(root)) ?? TreeSnapshot(nodes: [:])
    }

    public init(nodes: [String: Node]) { self.nodes = nodes }

    public var isEmpty: Bool { nodes.isEmpty }

    private mutating func walk(_ folder: [UInt8], relative: [UInt8]) throws {
        for name in try Self.names(in: folder) {
            let path = folder + [UInt8(ascii: "/")] + name
            let key = relative.isEmpty ? name : relative + [UInt8(ascii: "/")] + name
            var info = stat()
            guard Self.withPath(path, { lstat($0, &info) }) == 0 else { continue }  // gone meanwhile
            let mode = Int(info.st_mode & 0o7777)
            let mtime = Int(info.st_mtim.tv_sec)
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                nodes[Self.key(key)] = .directory(mode: mode, mtime: mtime)
                try walk(path, relative: key)
            case S_IFLNK:
                var target = [CChar](repeating: 0, count: 4097)
                let count = Self.withPath(path) { readlink($0, &target, 4096) }
                nodes[Self.key(key)] = .symlink(target: Self.key(target.prefix(max(count, 0)).map { UInt8(bitPattern: $0) }))
            case S_IFREG:
                nodes[Self.key(key)] = .file(data: try Self.read(path), mode: mode, mtime: mtime)
            case S_IFIFO: nodes[Self.key(key)] = .other("fifo")
            case S_IFSOCK: nodes[Self.key(key)] = .other("socket")
            default: nodes[Self.key(key)] = .other("device")
            }
        }
    }

    /// A name as text: UTF-8 as it is, any other byte as `\xNN`, so that no two names meet in one key.
    static func key(_ bytes: [UInt8]) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        return bytes.map { $0 < 0x80 ? String(UnicodeScalar($0)) : String(format: "\\x%02X", $0) }.joined()
    }

    private static func withPath<R>(_ path: [UInt8], _ body: (UnsafePointer<CChar>) -> R) -> R {
        (path.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    private static func names(in folder: [UInt8]) throws -> [[UInt8]] {
        guard let dir = withPath(folder, { opendir($0) }) else { throw CocoaError(.fileReadNoPermission) }
        defer { closedir(dir) }
        var names: [[UInt8]] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            if name != [UInt8(ascii: ".")] && name != [UInt8(ascii: "."), UInt8(ascii: ".")] { names.append(name) }
        }
        return names
    }

    private static func read(_ path: [UInt8]) throws -> Data {
        let fd = withPath(path) { open($0, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { throw CocoaError(.fileReadNoPermission) }
        defer { close(fd) }
        var out = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let got = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { return out }
            out.append(contentsOf: buffer[..<got])
        }
    }

    // MARK: - Comparing

    /// Differences between the trees at two paths, one line each; empty when they match under `compare`.
    public static func differences(expected: String, actual: String, _ compare: Compare = .archive) throws -> [String] {
        try TreeSnapshot(expected).differences(to: TreeSnapshot(actual), compare)
    }

    /// Differences from this tree (the expected one) to `actual`, one line each; empty when they match.
    public func differences(to actual: TreeSnapshot, _ compare: Compare = .archive) -> [String] {
        var problems: [String] = []
        for key in Set(nodes.keys).union(actual.nodes.keys).sorted() where !compare.ignore.contains(key) {
            guard let x = nodes[key] else { problems.append("unexpected \(key): \(actual.nodes[key]!)"); continue }
            guard let y = actual.nodes[key] else { problems.append("missing \(key) (\(x))"); continue }
            problems += Self.differences(key, x, y, compare)
        }
        return problems
    }

    private static func differences(_ key: String, _ x: Node, _ y: Node, _ compare: Compare) -> [String] {
        func octal(_ mode: Int) -> String { String(mode, radix: 8) }
        var problems: [String] = []
        switch (x, y) {
        case (.file(let d1, let m1, let t1), .file(let d2, let m2, let t2)):
            if compare.contents ? d1 != d2 : d1.count != d2.count {
                problems.append("\(key): content differs (\(d1.count) vs \(d2.count) bytes)")
            }
            if compare.modes && m1 != m2 { problems.append("\(key): mode \(octal(m1)) vs \(octal(m2))") }
            if compare.fileMTimes && abs(t1 - t2) > compare.mtimeTolerance { problems.append("\(key): mtime \(t1) vs \(t2)") }
        case (.directory(let m1, let t1), .directory(let m2, let t2)):
            if compare.dirModes && m1 != m2 { problems.append("\(key)/: mode \(octal(m1)) vs \(octal(m2))") }
            if compare.dirMTimes && abs(t1 - t2) > compare.mtimeTolerance { problems.append("\(key)/: mtime \(t1) vs \(t2)") }
        case (.symlink(let l1), .symlink(let l2)):
            if compare.symlinks && l1 != l2 { problems.append("\(key): symlink → \(l1) vs → \(l2)") }
        case (.other(let k1), .other(let k2)) where k1 == k2:
            break
        default:
            if compare.symlinks || !(x.isSymlink || y.isSymlink) { problems.append("\(key): \(x) vs \(y)") }
        }
        return problems
    }

    public var description: String {
        nodes.keys.sorted().map { "\($0) \(nodes[$0]!)" }.joined(separator: "\n")
    }
}

/// The one builder of the tests' file trees: a tree is a list of items, made in order under a root.
public enum SampleTree {
    public enum Item {
        /// A folder (with its parents); `mode` when given, else the umask's.
        case folder(String, mode: Int? = nil)
        /// A file (its folder must come first); `mode` when given, else the umask's.
        case file(String, Data, mode: Int? = nil)
        case symlink(String, target: String)
    }

    /// Makes `items` under `root` (created). With `stampingFrom`, every path below `root` then gets fixed
    /// times an hour apart from that second on, deepest first so that folder times are not disturbed
    /// afterwards (symlinks themselves, not their targets).
    public static func make(at root: String, _ items: [Item], stampingFrom start: Int? = nil) throws {
        let fm = FileManager.default
        try fm.createDirectory(atPath: root, withIntermediateDirectories: true)
        for item in items {
            switch item {
            case .folder(let path, let mode):
                try fm.createDirectory(atPath: root + "/" + path, withIntermediateDirectories: true)
                if let mode { chmod(root + "/" + path, mode_t(mode)) }
            case .file(let path, let data, let mode):
                try data.write(to: URL(fileURLWithPath: root + "/" + path))
                if let mode { chmod(root + "/" + path, mode_t(mode)) }
            case .symlink(let path, let target):
                try fm.createSymbolicLink(atPath: root + "/" + path, withDestinationPath: target)
            }
        }
        guard var stamp = start else { return }
        for path in try fm.subpathsOfDirectory(atPath: root).sorted(by: { $0.count > $1.count }) {
            stamp += 3600
            var times = [timespec(tv_sec: stamp, tv_nsec: 0), timespec(tv_sec: stamp, tv_nsec: 0)]
            utimensat(AT_FDCWD, root + "/" + path, &times, AT_SYMLINK_NOFOLLOW)
        }
    }

    /// `count` bytes of noise, which no compressor can shrink.
    public static func randomData(_ count: Int) -> Data {
        var random = SystemRandomNumberGenerator()
        return Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &random) })
    }

    /// Makes the tree every engine round trip uses: nested folders, an empty folder, a symlink, an
    /// executable, names in several scripts, an empty file, incompressible bytes; fixed mtimes so they can
    /// be compared.
    public static func make(at root: String) throws {
        try make(
            at: root,
            [
                .folder("nested/deeper/deepest"), .folder("empty folder"), .folder("日本語"),
                .file("hello.txt", Data("Hello, archive!\n".utf8), mode: 0o644),
                .file("nested/deeper/deepest/café é.txt", Data(String(repeating: "répété ", count: 2000).utf8), mode: 0o644),
                .file("日本語/ファイル 🎉.txt", Data("こんにちは\n".utf8), mode: 0o644),
                .file("empty.bin", Data(), mode: 0o644),
                .file("nested/random.bin", randomData(70_000), mode: 0o644),
                .file("run.sh", Data("#!/bin/sh\necho hi\n".utf8), mode: 0o755),
                .symlink("nested/link-to-hello", target: "../hello.txt"),
            ], stampingFrom: 1_600_000_000)
    }
}
