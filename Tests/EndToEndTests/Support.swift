import ArchiverTestSupport
import Foundation
import Testing

// Black-box helpers: run the BUILT executables as subprocesses, check results with other people's tools.
// Everything lives in `E2E` so nothing clashes with other files of this test target.

enum E2E {
    static let compressName = "compress-with-archiver"
    static let extractName = "extract-with-archiver"

    /// Where the executables are (`BuiltProducts.folder(holding:)`), else `<package root>/.build/debug`.
    static let binDir: String = BuiltProducts.folder(holding: [compressName, extractName])
        ?? packageRoot.appendingPathComponent(".build/debug").path

    /// The absolute path of one of our executables; records a clear failure when it cannot be found.
    static func ours(_ name: String) throws -> String {
        guard FileManager.default.isExecutableFile(atPath: binDir + "/" + name) else {
            Issue.record(
                """
                Cannot find the built executable \(name): set ARCHIVER_BIN_DIR to the folder holding \
                compress-with-archiver and extract-with-archiver, or build them first (swift build).
                """)
            throw E2EError.missingExecutables
        }
        return binDir + "/" + name
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

    /// A scratch folder for one test with a `home` in it (HOME for our executables); removed afterwards.
    static func withScratch<T>(_ label: String = #function, _ body: (ScratchDirectory) throws -> T) throws -> T {
        let scratch = try ScratchDirectory(label)
        try scratch.mkdir("home")
        return try body(scratch)
    }

    /// Runs `tool` (a path, or one of ours by name) with stdin from /dev/null, or `input`. Ours run with no
    /// locale at all, as CI may; other tools get C.UTF-8, without which bsdtar refuses non-ASCII names.
    @discardableResult
    static func run(
        _ tool: String, _ arguments: [String], in directory: String? = nil, environment extra: [String: String] = [:],
        input: String? = nil
    ) throws -> Outcome {
        let ours = [compressName, extractName].contains(tool)
        var environment = ProcessInfo.processInfo.environment
        for key in ["LANG", "LC_ALL", "LC_CTYPE", "LANGUAGE"] { environment[key] = nil }
        if !ours { environment["LANG"] = "C.UTF-8" }
        environment.merge(DesktopIsolation.variables) { $1 }
        environment.merge(extra) { $1 }
        return try Tool.start([ours ? binDir + "/" + tool : tool] + arguments, in: directory, environment: environment, input: input)
            .wait(timeout: 3600)
    }

    /// Runs a Python script with Debian's Python (its standard library is all these scripts need).
    @discardableResult
    static func python(_ script: String, _ arguments: [String] = [], in directory: String? = nil) throws -> Outcome {
        let result = try run("/usr/bin/python3", ["-c", script] + arguments, in: directory, environment: ["LANG": "C.UTF-8"])
        if result.status != 0 { Issue.record("python failed: \(result.stderr)") }
        return result
    }

    /// A tree with the cases that break archivers: nested and empty folders, a symlink, an executable,
    /// names in several scripts, an empty file, incompressible bytes.
    static func makeTree(_ root: String) throws {
        try SampleTree.make(
            at: root,
            [
                .folder("a/b/c"), .folder("empty"), .folder("日本語"),
                .file("a/b/c/café é.txt", Data(String(repeating: "répété ", count: 3000).utf8)),
                .file("日本語/ファイル 🎉.txt", Data("こんにちは\n".utf8)),
                .file("zero", Data()),
                .file("a/random.bin", SampleTree.randomData(50_000)),
                .file("run.sh", Data("#!/bin/sh\necho hi\n".utf8), mode: 0o755),
                .symlink("a/link", target: "b/c/café é.txt"),
            ], stampingFrom: 1_600_000_000)
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

// MARK: - A scratch folder as the end-to-end tests use it

extension ScratchDirectory {
    /// The test's own folder; tests put their inputs and outputs here.
    var root: String { path }
    /// HOME for our executables (inside `root`, made by `E2E.withScratch`).
    var home: String { path + "/home" }

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
        try Tool.start(
            [executable] + arguments, in: cwd ?? root, environment: environment(localeUTF8: localeUTF8, overrides: overrides))
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
        facts.files = [
            "top.txt": Data("hello, world\n".utf8),
            "a/b/c/deep.txt": Data(String(repeating: "deep text, compressible. ", count: 200).utf8),
            "a/random.bin": SampleTree.randomData(6 * 1024 + 7),
            "run.sh": Data("#!/bin/sh\necho ran\n".utf8),
            "private.txt": Data("only me and my group\n".utf8),
            "café é.txt": Data("crème brûlée\n".utf8),
            "日本語/ファイル.txt": Data("こんにちは世界\n".utf8),
            "emoji 🎉/party 🎈.txt": Data("🎉🎈\n".utf8),
            "zero.bin": Data(),
            ".hidden": Data("dotfile\n".utf8),
            "secret/key.txt": Data("k\n".utf8),
        ]
        facts.symlinks = ["a/link": "b/c/deep.txt", "a/b/up": "../../top.txt"]
        let modes = ["run.sh": 0o755, "private.txt": 0o640]
        try SampleTree.make(
            at: root,
            facts.folders.map { .folder($0, mode: $0 == "secret" ? 0o700 : nil) }
                + facts.files.sorted(by: { $0.key < $1.key }).map { .file($0.key, $0.value, mode: modes[$0.key]) }
                + facts.symlinks.map { .symlink($0.key, target: $0.value) })
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
}
