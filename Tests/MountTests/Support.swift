import ArchiverTestSupport
import Foundation
import Glibc
import Testing

/// Runs the built `open-with-archiver` against a runtime folder of the test's own, and reads the mount
/// table as the kernel keeps it.
struct Mounts {
    let scratch: ScratchDirectory
    var runtime: String { scratch.sub("run") }
    /// `$XDG_CACHE_HOME`, where the daemon keeps indexes.
    var cache: String { scratch.sub("cache") }
    /// The indexes kept there.
    var keptIndexes: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: cache + "/io.github.archiver/indexes")) ?? []).filter { $0.hasSuffix(".index") }
    }
    /// Waits up to 5 s until `count` indexes are kept: a daemon keeps its index in the background once
    /// the folder is ready.
    func waitForKeptIndexes(_ count: Int) {
        for _ in 0..<100 where keptIndexes.count != count { usleep(50_000) }
    }
    /// The daemon keeps the starter's standard error, so it goes to a file: a pipe would stay open as long
    /// as the daemon lives.
    var log: String { scratch.sub("daemon.log") }

    /// Why the mount tests cannot run here, or nil.
    static let unavailable: String? = {
        if access("/dev/fuse", R_OK | W_OK) != 0 { return "skipped: /dev/fuse is missing or not usable" }
        if !["/usr/bin/fusermount3", "/bin/fusermount3"].contains(where: { (path: String) in access(path, X_OK) == 0 }) {
            return "skipped: fusermount3 is not installed (package fuse3)"
        }
        if BuiltProducts.executable("open-with-archiver") == nil { return "skipped: open-with-archiver is not built" }
        return nil
    }()

    /// Why a user other than root cannot mount here, or nil: /dev/fuse must be open to everyone (a desktop's
    /// udev rule makes it 0666; some containers keep it 0600).
    static let unprivilegedUnavailable: String? = {
        var info = stat()
        guard stat("/dev/fuse", &info) == 0, info.st_mode & 0o006 == 0o006 else {
            return "skipped: /dev/fuse is not open to other users here (0666 on a desktop)"
        }
        if access("/usr/bin/setpriv", X_OK) != 0 { return "skipped: setpriv is missing (package util-linux)" }
        return getuid() == 0 ? nil : "skipped: only root can test as another user"
    }()

    init(_ label: String = #function) throws {
        scratch = try ScratchDirectory(label)
        try FileManager.default.createDirectory(atPath: scratch.sub("run"), withIntermediateDirectories: true)
    }

    /// Runs the executable; `input` is its standard input (a password line).
    @discardableResult
    func run(_ arguments: [String], input: String? = nil, environment extra: [String: String] = [:]) throws -> (
        status: Int32, output: String
    ) {
        let environment = ProcessInfo.processInfo.environment.merging(BuiltProducts.isolation) { $1 }
            .merging(["XDG_RUNTIME_DIR": runtime, "XDG_CACHE_HOME": cache, "LC_ALL": "C.UTF-8"]) { $1 }.merging(extra) { $1 }
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let outcome = try Tool.start(
            [BuiltProducts.executable("open-with-archiver") ?? "open-with-archiver"] + arguments, environment: environment,
            input: input, errors: log
        ).wait(timeout: 600)
        return (outcome.status, outcome.stdout)
    }

    /// Mounts with `--mount` and returns the folder.
    func mount(_ archive: String, _ extra: [String] = [], input: String? = nil, environment: [String: String] = [:]) throws -> String {
        let result = try run(["--mount"] + extra + [archive], input: input, environment: environment)
        #expect(result.status == 0, "\(result.output) \(errors)")
        return result.output.trimmingCharacters(in: .newlines)
    }

    var errors: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    /// No process's command line or environment holds `secret`.
    static func expectNowhereInProc(_ secret: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let processes = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).filter { Int($0) != nil }
        for process in processes {
            for place in ["cmdline", "environ"] {
                guard let data = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(process)/\(place)")) else { continue }
                #expect(data.range(of: Data(secret.utf8)) == nil, "the password is in /proc/\(process)/\(place)", sourceLocation: sourceLocation)
            }
        }
    }

    /// Our mount points now, from /proc/self/mountinfo.
    static func ours() -> [String] {
        let table = (try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8)) ?? ""
        return table.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard let dash = fields.firstIndex(of: "-"), fields[dash + 1] == "fuse.archiver" else { return nil }
            return String(fields[4]).replacingOccurrences(of: "\\040", with: " ")
        }
    }

    /// The daemon serving `folder`: the process whose command line ends with it after `--serve`.
    static func daemon(serving folder: String) -> pid_t? {
        let ids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for id in ids.compactMap({ pid_t($0) }) {
            guard let line = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(id)/cmdline")) else { continue }
            let arguments = line.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            if arguments.contains("--serve"), arguments.last == folder { return id }
        }
        return nil
    }

    /// A folder `tree` of `files` files of 200 kB of random bytes, and `tree.tar.gz` of it (bsdtar).
    func randomTarGz(files: Int) throws -> (tree: String, archive: String) {
        let tree = scratch.sub("tree")
        try FileManager.default.createDirectory(atPath: tree, withIntermediateDirectories: true)
        var generator = SystemRandomNumberGenerator()
        for number in 0..<files {
            let data = Data((0..<200_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
            try data.write(to: URL(fileURLWithPath: tree + "/f\(number)"))
        }
        let archive = scratch.sub("tree.tar.gz")
        try #require(try Tool.run(["/usr/bin/bsdtar", "-czf", archive, "-C", tree, "."]).status == 0)
        return (tree, archive)
    }

    /// The bytes a process has read so far (`rchar` of /proc/PID/io).
    static func bytesRead(by process: pid_t) throws -> Int {
        let io = try String(contentsOfFile: "/proc/\(process)/io", encoding: .utf8)
        return Int(io.split(separator: "\n").first { $0.hasPrefix("rchar:") }?.split(separator: " ").last ?? "") ?? 0
    }

    /// Unmounts whatever of ours is still mounted under the scratch folder (a failed test's leftovers).
    func cleanUp() {
        for point in Self.ours() where point.hasPrefix(scratch.path) {
            _ = try? Tool.run(["/usr/bin/fusermount3", "-u", "-z", point])
        }
    }

    /// Relative path → bytes (files) or "-> target" (symlinks) under `root`; folders as "/": the tests' one
    /// tree reader (TreeSnapshot) in the shape these tests compare, contents only.
    static func tree(_ root: String) throws -> [String: Data] {
        try TreeSnapshot(root).nodes.mapValues { node in
            switch node {
            case .file(let data, _, _): data
            case .directory: Data("/".utf8)
            case .symlink(let target): Data(("-> " + target).utf8)
            case .other(let kind): Data(kind.utf8)
            }
        }
    }

    /// Reads every file of `root` from several threads at once, each file in 64 KiB pieces in random order.
    /// - Returns: relative path → bytes, as `tree` gives them.
    static func readScrambled(_ root: String, files: [String]) -> [String: Data] {
        let results = Locked([String: Data]())
        DispatchQueue.concurrentPerform(iterations: files.count) { index in
            let path = root + "/" + files[index]
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return }
            defer { close(descriptor) }
            var info = stat()
            fstat(descriptor, &info)
            let size = Int(info.st_size), piece = 65536
            var data = Data(count: size)
            for offset in stride(from: 0, to: size, by: piece).shuffled() {
                let count = min(piece, size - offset)
                let got = data.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + offset, count, off_t(offset)) }
                if got != count { return }
            }
            results.with { $0[files[index]] = data }
        }
        return results.with { $0 }
    }
}

final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()
    init(_ value: Value) { self.value = value }
    func with<R>(_ body: (inout Value) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
