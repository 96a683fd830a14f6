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

/// Builds the tree every round trip uses: nested folders, an empty folder, a symlink, an executable, names
/// in several scripts, an empty file, incompressible bytes; fixed mtimes so they can be compared.
public enum SampleTree {
    public static func make(at root: String) throws {
        let fm = FileManager.default
        try fm.createDirectory(atPath: root + "/nested/deeper/deepest", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: root + "/empty folder", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: root + "/日本語", withIntermediateDirectories: true)
        try write(root + "/hello.txt", Data("Hello, archive!\n".utf8))
        try write(root + "/nested/deeper/deepest/café é.txt", Data(String(repeating: "répété ", count: 2000).utf8))
        try write(root + "/日本語/ファイル 🎉.txt", Data("こんにちは\n".utf8))
        try write(root + "/empty.bin", Data())
        var random = SystemRandomNumberGenerator()
        try write(root + "/nested/random.bin", Data((0..<70_000).map { _ in UInt8.random(in: 0...255, using: &random) }))
        try write(root + "/run.sh", Data("#!/bin/sh\necho hi\n".utf8), mode: 0o755)
        try fm.createSymbolicLink(atPath: root + "/nested/link-to-hello", withDestinationPath: "../hello.txt")
        // Fixed times, set deepest first so folder times are not disturbed afterwards.
        var stamp = 1_600_000_000
        for path in try fm.subpathsOfDirectory(atPath: root).sorted(by: { $0.count > $1.count }) {
            stamp += 3600
            var times = [timespec(tv_sec: stamp, tv_nsec: 0), timespec(tv_sec: stamp, tv_nsec: 0)]
            utimensat(AT_FDCWD, root + "/" + path, &times, AT_SYMLINK_NOFOLLOW)
        }
    }

    static func write(_ path: String, _ data: Data, mode: Int = 0o644) throws {
        try data.write(to: URL(fileURLWithPath: path))
        chmod(path, mode_t(mode))
    }
}
