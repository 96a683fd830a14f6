import Foundation
import Glibc

/// Everything about a file tree that an archive round trip must keep: kinds, bytes, permission bits,
/// modification times (seconds) and symlink targets, keyed by relative path.
public struct TreeSnapshot: Equatable, CustomStringConvertible {
    public enum Node: Equatable {
        case file(data: Data, mode: UInt32, mtime: Int)
        case directory(mode: UInt32)
        case symlink(target: String)
    }

    public var nodes: [String: Node]

    /// Reads the tree under `root` without following symlinks.
    public init(_ root: String, ignoringDirectoryTimes: Bool = true) throws {
        nodes = [:]
        try walk(root, relative: "")
    }

    private mutating func walk(_ path: String, relative: String) throws {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw CocoaError(.fileReadNoSuchFile) }
        switch info.st_mode & S_IFMT {
        case S_IFDIR:
            if !relative.isEmpty { nodes[relative] = .directory(mode: info.st_mode & 0o7777) }
            for child in try FileManager.default.contentsOfDirectory(atPath: path) {
                try walk(path + "/" + child, relative: relative.isEmpty ? child : relative + "/" + child)
            }
        case S_IFLNK:
            nodes[relative] = .symlink(target: try FileManager.default.destinationOfSymbolicLink(atPath: path))
        default:
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            nodes[relative] = .file(data: data, mode: info.st_mode & 0o7777, mtime: Int(info.st_mtim.tv_sec))
        }
    }

    public var description: String {
        nodes.keys.sorted().map { key in
            switch nodes[key] {
            case .file(let data, let mode, let mtime): "\(key) file \(data.count)B \(String(mode, radix: 8)) \(mtime)"
            case .directory(let mode): "\(key)/ \(String(mode, radix: 8))"
            case .symlink(let target): "\(key) -> \(target)"
            case nil: key
            }
        }.joined(separator: "\n")
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
