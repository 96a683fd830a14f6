import ArchiverTestSupport
import Foundation
import Testing

// Black-box helpers: run the BUILT executables as subprocesses, check results with other people's tools.
// Everything lives in `E2E` so nothing clashes with other files of this test target.

enum E2E {
    /// <package root>, from this file's path: <root>/Tests/EndToEndTests/Support.swift.
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let compressName = "compress-with-archiver"
    static let extractName = "extract-with-archiver"

    /// Where the executables are (`BuiltProducts.folder(holding:)`); nil when they cannot be found.
    static let binDir: String? = BuiltProducts.folder(holding: [compressName, extractName])

    /// The absolute path of one of our executables; records a clear failure when they cannot be found.
    static func ours(_ name: String) throws -> String {
        guard let dir = binDir else {
            Issue.record(
                """
                Cannot find the built executable \(name): set ARCHIVER_BIN_DIR to the folder holding \
                compress-with-archiver and extract-with-archiver, or build them first (swift build).
                """)
            throw E2EError.missingExecutables
        }
        return dir + "/" + name
    }

    enum E2EError: Error, CustomStringConvertible {
        case missingExecutables
        case failed(String)
        var description: String {
            switch self {
            case .missingExecutables: return "the built executables were not found"
            case .failed(let why): return why
            }
        }
    }

    /// Per-test unique folder under <package root>/.build/e2e-scratch (NOT /tmp: the extractor treats /tmp
    /// as a temporary place). `body` gets the scratch; it is removed afterwards unless ARCHIVER_E2E_KEEP=1.
    static func withScratch<T>(_ label: String = #function, _ body: (Scratch) throws -> T) throws -> T {
        let scratch = try Scratch(label: label)
        defer { scratch.remove() }
        return try body(scratch)
    }

    // MARK: File system helpers

    static let fm = FileManager.default

    static func exists(_ path: String) -> Bool {
        (try? fm.attributesOfItem(atPath: path)) != nil  // lstat: a dangling symlink exists too
    }

    static func isSymlink(_ path: String) -> Bool {
        (try? fm.attributesOfItem(atPath: path)[.type] as? FileAttributeType) == .typeSymbolicLink
    }

    static func isDirectory(_ path: String) -> Bool {
        (try? fm.attributesOfItem(atPath: path)[.type] as? FileAttributeType) == .typeDirectory
    }

    static func mode(_ path: String) -> Int? {
        (try? fm.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
    }

    static func size(_ path: String) -> Int? {
        (try? fm.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue
    }

    static func linkCount(_ path: String) -> Int? {
        (try? fm.attributesOfItem(atPath: path)[.referenceCount] as? NSNumber)?.intValue
    }

    static func read(_ path: String) -> Data? { fm.contents(atPath: path) }

    static func text(_ path: String) -> String? { read(path).map { String(decoding: $0, as: UTF8.self) } }

    /// Sorted names in a folder (hidden ones included); empty when it does not exist.
    static func list(_ path: String) -> [String] {
        ((try? fm.contentsOfDirectory(atPath: path)) ?? []).sorted()
    }

    /// Every path under `root`, relative, not following symlinks.
    static func allPaths(under root: String) -> Set<String> {
        var out = Set<String>()
        func walk(_ rel: String) {
            let abs = rel.isEmpty ? root : root + "/" + rel
            for name in (try? fm.contentsOfDirectory(atPath: abs)) ?? [] {
                let child = rel.isEmpty ? name : rel + "/" + name
                out.insert(child)
                if isDirectory(root + "/" + child) { walk(child) }
            }
        }
        walk("")
        return out
    }

    /// Hidden temporaries (`.archiver-…`) anywhere under `root`.
    static func leftovers(under root: String) -> [String] {
        allPaths(under: root).filter { ($0 as NSString).lastPathComponent.hasPrefix(".archiver-") }.sorted()
    }

    static func randomData(_ count: Int) -> Data {
        var generator = SystemRandomNumberGenerator()
        var bytes = [UInt8](repeating: 0, count: count)
        var i = 0
        while i < count {
            var word = generator.next()
            for _ in 0..<8 where i < count {
                bytes[i] = UInt8(truncatingIfNeeded: word)
                word >>= 8
                i += 1
            }
        }
        return Data(bytes)
    }

    // MARK: JSON helpers

    static func json(_ text: String) -> [String: Any]? {
        guard let data = text.data(using: .utf8),
            let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        else { return nil }
        return object as? [String: Any]
    }

    static func int(_ value: Any?) -> Int? {
        if let n = value as? NSNumber, !(value is Bool) { return n.intValue }
        return value as? Int
    }

    static func double(_ value: Any?) -> Double? {
        if let n = value as? NSNumber { return n.doubleValue }
        return value as? Double
    }

    static func isNull(_ value: Any?) -> Bool { value is NSNull }

    static func nonEmptyString(_ value: Any?) -> Bool {
        guard let text = value as? String else { return false }
        return !text.isEmpty
    }
}

// MARK: - Running processes

/// The result of one subprocess run.
struct Outcome: CustomStringConvertible {
    var command: [String]
    var status: Int32
    var uncaughtSignal: Bool
    var stdout: String
    var stderr: String

    var json: [String: Any]? { E2E.json(stdout) }

    var description: String {
        let shown = command.map { $0.contains(" ") ? "'\($0)'" : $0 }.joined(separator: " ")
        return "`\(shown)` → exit \(status)\(uncaughtSignal ? " (signal)" : "")\nstderr: \(stderr.prefix(2000))\nstdout: \(stdout.prefix(1500))"
    }
}

/// A process started in the background (for signal tests).
final class Running {
    let process: Process
    let command: [String]
    private let outPath: String
    private let errPath: String

    init(process: Process, command: [String], outPath: String, errPath: String) {
        self.process = process
        self.command = command
        self.outPath = outPath
        self.errPath = errPath
    }

    var isRunning: Bool { process.isRunning }

    /// What it has written on standard output so far.
    var stdoutSoFar: String { E2E.text(outPath) ?? "" }

    /// Waits at most `timeout` seconds; kills it (SIGKILL via `kill`) and records an issue when it hangs.
    func wait(timeout: TimeInterval = 120) -> Outcome {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning {
            Issue.record("\(command.first ?? "?") did not finish within \(timeout) s; killing it")
            let killer = Process()
            killer.executableURL = URL(fileURLWithPath: "/bin/kill")
            killer.arguments = ["-KILL", String(process.processIdentifier)]
            try? killer.run()
            killer.waitUntilExit()
        }
        process.waitUntilExit()
        return Outcome(
            command: command, status: process.terminationStatus,
            uncaughtSignal: process.terminationReason == .uncaughtSignal,
            stdout: E2E.text(outPath) ?? "", stderr: E2E.text(errPath) ?? "")
    }
}

final class Scratch {
    /// The test's own folder; tests put their inputs and outputs here.
    let root: String
    /// HOME for our executables (inside `root`).
    let home: String
    /// Output capture files live beside `root` so they never show up in listings of it.
    private let logs: String
    private var counter = 0

    init(label: String) throws {
        let safe = String(label.unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) && $0.isASCII }.map(Character.init)).prefix(40)
        let unique = "\(safe)-\(UUID().uuidString.prefix(8))"
        let base = E2E.packageRoot.appendingPathComponent(".build/e2e-scratch").path
        root = base + "/" + unique
        logs = base + "/" + unique + ".logs"
        home = root + "/home"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: logs, withIntermediateDirectories: true)
    }

    func remove() {
        if ProcessInfo.processInfo.environment["ARCHIVER_E2E_KEEP"] == "1" { return }
        // Some tests make read-only folders; make everything removable first.
        let chmod = Process()
        chmod.executableURL = URL(fileURLWithPath: "/bin/chmod")
        chmod.arguments = ["-R", "u+rwX", root]
        chmod.standardOutput = FileHandle.nullDevice
        chmod.standardError = FileHandle.nullDevice
        try? chmod.run()
        chmod.waitUntilExit()
        try? FileManager.default.removeItem(atPath: root)
        try? FileManager.default.removeItem(atPath: logs)
    }

    func path(_ relative: String) -> String { relative.isEmpty ? root : root + "/" + relative }

    @discardableResult
    func mkdir(_ relative: String) throws -> String {
        let p = path(relative)
        try FileManager.default.createDirectory(atPath: p, withIntermediateDirectories: true)
        return p
    }

    @discardableResult
    func write(_ relative: String, _ text: String) throws -> String {
        try write(relative, data: Data(text.utf8))
    }

    @discardableResult
    func write(_ relative: String, data: Data) throws -> String {
        let p = path(relative)
        try FileManager.default.createDirectory(
            atPath: (p as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        guard FileManager.default.createFile(atPath: p, contents: data) else {
            throw E2E.E2EError.failed("could not create \(p)")
        }
        return p
    }

    // MARK: processes

    /// Environment for a child: the runner's, minus locale and XDG/TMPDIR variables, HOME = scratch home.
    /// `localeUTF8` gives other people's tools C.UTF-8 (bsdtar and unzip need it for non-ASCII names).
    /// `overrides` set (or, with nil, remove) variables last.
    func environment(localeUTF8: Bool, overrides: [String: String?]) -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        for key in env.keys where key.hasPrefix("LC_") || key.hasPrefix("XDG_") { env[key] = nil }
        for key in ["LANG", "LANGUAGE", "TMPDIR", "ARCHIVER_BIN_DIR"] { env[key] = nil }
        env["HOME"] = home
        env.merge(DesktopIsolation.variables) { $1 }
        if env["PATH"] == nil { env["PATH"] = "/usr/local/bin:/usr/bin:/bin" }
        if localeUTF8 {
            env["LANG"] = "C.UTF-8"
            env["LC_ALL"] = "C.UTF-8"
        }
        for (key, value) in overrides { env[key] = value }
        return env
    }

    private func prepare(_ executable: String, _ arguments: [String], cwd: String?, env: [String: String])
        -> (Process, String, String)
    {
        counter += 1
        let outPath = logs + "/\(counter).out"
        let errPath = logs + "/\(counter).err"
        FileManager.default.createFile(atPath: outPath, contents: nil)
        FileManager.default.createFile(atPath: errPath, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: cwd ?? root)
        process.environment = env
        process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        process.standardOutput = FileHandle(forWritingAtPath: outPath)
        process.standardError = FileHandle(forWritingAtPath: errPath)
        return (process, outPath, errPath)
    }

    /// Runs any program to completion (stdin /dev/null, output captured in files: no pipe deadlocks).
    func run(
        _ executable: String, _ arguments: [String], cwd: String? = nil, localeUTF8: Bool = true,
        env overrides: [String: String?] = [:], timeout: TimeInterval = 600
    ) throws -> Outcome {
        try start(executable, arguments, cwd: cwd, localeUTF8: localeUTF8, env: overrides).wait(timeout: timeout)
    }

    func start(
        _ executable: String, _ arguments: [String], cwd: String? = nil, localeUTF8: Bool = true,
        env overrides: [String: String?] = [:]
    ) throws -> Running {
        let env = environment(localeUTF8: localeUTF8, overrides: overrides)
        let (process, outPath, errPath) = prepare(executable, arguments, cwd: cwd, env: env)
        try process.run()
        return Running(process: process, command: [executable] + arguments, outPath: outPath, errPath: errPath)
    }

    /// Our compressor, with no locale at all (LANG/LC_* unset) unless `env` sets one.
    func compress(_ arguments: [String], cwd: String? = nil, env: [String: String?] = [:]) throws -> Outcome {
        try run(E2E.ours(E2E.compressName), arguments, cwd: cwd, localeUTF8: false, env: env)
    }

    /// Our extractor, with no locale at all (LANG/LC_* unset) unless `env` sets one.
    func extract(_ arguments: [String], cwd: String? = nil, env: [String: String?] = [:]) throws -> Outcome {
        try run(E2E.ours(E2E.extractName), arguments, cwd: cwd, localeUTF8: false, env: env)
    }

    /// One of our executables under /usr/bin/time, without a locale: the outcome (time's line taken out)
    /// and the peak memory in MiB.
    func measured(_ name: String, _ arguments: [String], timeout: TimeInterval = 3600) throws -> (Outcome, Int) {
        var out = try run("/usr/bin/time", ["-f", "peak-kb %M", try E2E.ours(name)] + arguments, localeUTF8: false, timeout: timeout)
        let peak = out.stderr.split(separator: "\n").last { $0.hasPrefix("peak-kb ") }.flatMap { Int($0.dropFirst(8)) } ?? 0
        out.stderr = out.stderr.split(separator: "\n").filter { !$0.hasPrefix("peak-kb ") }.joined(separator: "\n")
        return (out, peak / 1024)
    }

    /// Another tool by absolute path, in C.UTF-8.
    func tool(_ executable: String, _ arguments: [String], cwd: String? = nil) throws -> Outcome {
        try run(executable, arguments, cwd: cwd, localeUTF8: true)
    }

    /// Runs a tool and records an issue when it does not exit 0.
    @discardableResult
    func must(_ executable: String, _ arguments: [String], cwd: String? = nil,
              sourceLocation: SourceLocation = #_sourceLocation) throws -> Outcome {
        let outcome = try tool(executable, arguments, cwd: cwd)
        if outcome.status != 0 { Issue.record("helper tool failed: \(outcome)", sourceLocation: sourceLocation) }
        return outcome
    }

    /// Runs a script with Debian's /usr/bin/python3; records an issue when it fails.
    @discardableResult
    func python(_ script: String, _ arguments: [String] = [], cwd: String? = nil,
                sourceLocation: SourceLocation = #_sourceLocation) throws -> Outcome {
        let outcome = try run("/usr/bin/python3", ["-c", script] + arguments, cwd: cwd, localeUTF8: true)
        if outcome.status != 0 { Issue.record("python failed: \(outcome.stderr)", sourceLocation: sourceLocation) }
        return outcome
    }
}

// MARK: - Trees and comparison

enum Tree {
    /// Base mtime for files in the rich tree (even: zip's DOS times have 2 s resolution).
    static let baseTime = 1_600_000_000

    /// Files of the rich tree (relative path → content).
    struct Facts {
        var files: [String: Data] = [:]
        var symlinks: [String: String] = [:]
        var folders: [String] = []  // relative, without the root itself
        var inputBytes: Int { files.values.reduce(0) { $0 + $1.count } }
    }

    /// Builds the tree every round trip uses at `root` (created): nested folders, an empty folder, relative
    /// symlinks (one climbing up but staying inside), an executable, a 0640 file, a 0700 folder, names in
    /// several scripts and an emoji, a 0-byte file, a dotfile, a few KB of random data. Mtimes are fixed.
    @discardableResult
    static func makeRich(at root: String) throws -> Facts {
        let fm = FileManager.default
        var facts = Facts()
        facts.folders = ["a", "a/b", "a/b/c", "empty", "日本語", "emoji 🎉", "secret"]
        for folder in facts.folders {
            try fm.createDirectory(atPath: root + "/" + folder, withIntermediateDirectories: true)
        }
        facts.files = [
            "top.txt": Data("hello, world\n".utf8),
            "a/b/c/deep.txt": Data(String(repeating: "deep text, compressible. ", count: 200).utf8),
            "a/random.bin": E2E.randomData(6 * 1024 + 7),
            "run.sh": Data("#!/bin/sh\necho ran\n".utf8),
            "private.txt": Data("only me and my group\n".utf8),
            "café é.txt": Data("crème brûlée\n".utf8),
            "日本語/ファイル.txt": Data("こんにちは世界\n".utf8),
            "emoji 🎉/party 🎈.txt": Data("🎉🎈\n".utf8),
            "zero.bin": Data(),
            ".hidden": Data("dotfile\n".utf8),
            "secret/key.txt": Data("k\n".utf8),
        ]
        for (rel, data) in facts.files.sorted(by: { $0.key < $1.key }) {
            guard fm.createFile(atPath: root + "/" + rel, contents: data) else {
                throw E2E.E2EError.failed("cannot create \(rel)")
            }
        }
        facts.symlinks = ["a/link": "b/c/deep.txt", "a/b/up": "../../top.txt"]
        for (rel, target) in facts.symlinks {
            try fm.createSymbolicLink(atPath: root + "/" + rel, withDestinationPath: target)
        }
        try fm.setAttributes([.posixPermissions: 0o755], ofItemAtPath: root + "/run.sh")
        try fm.setAttributes([.posixPermissions: 0o640], ofItemAtPath: root + "/private.txt")
        try fm.setAttributes([.posixPermissions: 0o700], ofItemAtPath: root + "/secret")
        // Fixed mtimes: files first, then folders deepest first.
        var t = baseTime
        for rel in facts.files.keys.sorted() {
            t += 3600
            try fm.setAttributes([.modificationDate: Date(timeIntervalSince1970: TimeInterval(t))], ofItemAtPath: root + "/" + rel)
        }
        for rel in facts.folders.sorted(by: { $0.count > $1.count }) + [""] {
            t += 3600
            try fm.setAttributes(
                [.modificationDate: Date(timeIntervalSince1970: TimeInterval(t))],
                ofItemAtPath: rel.isEmpty ? root : root + "/" + rel)
        }
        return facts
    }

    enum Node: Equatable, CustomStringConvertible {
        case file(data: Data, mode: Int, mtime: Int)
        case directory(mode: Int, mtime: Int)
        case symlink(target: String)
        case other(String)

        var description: String {
            switch self {
            case .file(let data, let mode, let mtime):
                return "file(\(data.count) bytes, mode \(String(mode, radix: 8)), mtime \(mtime))"
            case .directory(let mode, let mtime): return "dir(mode \(String(mode, radix: 8)), mtime \(mtime))"
            case .symlink(let target): return "symlink(→ \(target))"
            case .other(let kind): return kind
            }
        }
    }

    static func snapshot(_ root: String) -> [String: Node] {
        var out: [String: Node] = [:]
        for rel in E2E.allPaths(under: root) {
            let p = root + "/" + rel
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: p) else { continue }
            let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
            let mtime = Int(((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? -1).rounded(.down))
            switch attributes[.type] as? FileAttributeType {
            case .typeRegular?: out[rel] = .file(data: E2E.read(p) ?? Data(), mode: mode, mtime: mtime)
            case .typeDirectory?: out[rel] = .directory(mode: mode, mtime: mtime)
            case .typeSymbolicLink?:
                out[rel] = .symlink(target: (try? FileManager.default.destinationOfSymbolicLink(atPath: p)) ?? "?")
            default: out[rel] = .other("\(attributes[.type] ?? "unknown")")
            }
        }
        return out
    }

    struct Compare {
        var modes = true
        var fileMTimes = true
        var dirMTimes = false
        var mtimeTolerance = 0
        var symlinks = true
        /// Paths (relative) to leave out of the comparison, e.g. symlinks a tool cannot restore.
        var ignore: Set<String> = []

        static let full = Compare(modes: true, fileMTimes: true, dirMTimes: true)
        static let contentOnly = Compare(modes: false, fileMTimes: false, dirMTimes: false)
    }

    /// Differences between two trees, one line each; empty when they match under `options`.
    static func differences(expected: String, actual: String, _ options: Compare = Compare()) -> [String] {
        let a = snapshot(expected)
        let b = snapshot(actual)
        var problems: [String] = []
        for key in Set(a.keys).union(b.keys).sorted() where !options.ignore.contains(key) {
            guard let x = a[key] else { problems.append("unexpected \(key): \(b[key]!)"); continue }
            guard let y = b[key] else { problems.append("missing \(key) (\(x))"); continue }
            switch (x, y) {
            case (.file(let d1, let m1, let t1), .file(let d2, let m2, let t2)):
                if d1 != d2 { problems.append("\(key): content differs (\(d1.count) vs \(d2.count) bytes)") }
                if options.modes && m1 & 0o7777 != m2 & 0o7777 {
                    problems.append("\(key): mode \(String(m1, radix: 8)) vs \(String(m2, radix: 8))")
                }
                if options.fileMTimes && abs(t1 - t2) > options.mtimeTolerance {
                    problems.append("\(key): mtime \(t1) vs \(t2)")
                }
            case (.directory(let m1, let t1), .directory(let m2, let t2)):
                if options.modes && m1 & 0o7777 != m2 & 0o7777 {
                    problems.append("\(key)/: mode \(String(m1, radix: 8)) vs \(String(m2, radix: 8))")
                }
                if options.dirMTimes && abs(t1 - t2) > options.mtimeTolerance {
                    problems.append("\(key)/: mtime \(t1) vs \(t2)")
                }
            case (.symlink(let l1), .symlink(let l2)):
                if options.symlinks && l1 != l2 { problems.append("\(key): symlink → \(l1) vs → \(l2)") }
            default:
                if !(options.symlinks == false && (isLink(x) || isLink(y))) {
                    problems.append("\(key): \(x) vs \(y)")
                }
            }
        }
        return problems
    }

    private static func isLink(_ node: Node) -> Bool {
        if case .symlink = node { return true }
        return false
    }
}
