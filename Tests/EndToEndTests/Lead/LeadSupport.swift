import ArchiverTestSupport
import Foundation
import Testing

/// Runs the built executables and other people's tools, in scratch folders under `.build` (not /tmp, which
/// the extractor treats as a temporary place).
enum Lead {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The folder holding `compress-with-archiver` (`BuiltProducts.folder(holding:)`), else `.build/debug`.
    static let binDir: String =
        BuiltProducts.folder(holding: ["compress-with-archiver"]) ?? root.appendingPathComponent(".build/debug").path

    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
        var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(stdout.utf8))) as? [String: Any] ?? [:]
        }
    }

    /// Runs `tool` (a path, or one of ours by name) with stdin from /dev/null, or `input`. Ours run with no
    /// locale at all, as CI may; other tools get C.UTF-8, without which bsdtar refuses non-ASCII names.
    @discardableResult
    static func run(
        _ tool: String, _ arguments: [String], in directory: String? = nil, environment extra: [String: String] = [:],
        input: String? = nil
    ) throws -> Output {
        let process = Process()
        let ours = ["compress-with-archiver", "extract-with-archiver"].contains(tool)
        process.executableURL = URL(fileURLWithPath: ours ? binDir + "/" + tool : tool)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        var environment = ProcessInfo.processInfo.environment
        for key in ["LANG", "LC_ALL", "LC_CTYPE", "LANGUAGE"] { environment[key] = nil }
        if !ours { environment["LANG"] = "C.UTF-8" }
        environment.merge(DesktopIsolation.variables) { $1 }
        environment.merge(extra) { $1 }
        process.environment = environment
        let stdin = Pipe()
        process.standardInput = input == nil ? FileHandle(forReadingAtPath: "/dev/null") : stdin
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        if let input {
            try stdin.fileHandleForWriting.write(contentsOf: Data(input.utf8))
            try stdin.fileHandleForWriting.close()
        }
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// Runs a Python script with Debian's Python (its standard library is all these scripts need).
    @discardableResult
    static func python(_ script: String, _ arguments: [String] = [], in directory: String? = nil) throws -> Output {
        let result = try run("/usr/bin/python3", ["-c", script] + arguments, in: directory, environment: ["LANG": "C.UTF-8"])
        if result.status != 0 { Issue.record("python failed: \(result.stderr)") }
        return result
    }

    final class Scratch {
        let path: String
        init(_ label: String = #function) throws {
            let safe = label.filter { $0.isLetter || $0.isNumber }
            path = root.appendingPathComponent(".build/e2e-scratch/lead-\(safe)-\(UUID().uuidString.prefix(8))").path
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        deinit {
            _ = try? Lead.run("/bin/chmod", ["-R", "u+rwX", path])
            try? FileManager.default.removeItem(atPath: path)
        }
        func sub(_ name: String) -> String { path + "/" + name }
        func list(_ name: String = "") -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: name.isEmpty ? path : sub(name))) ?? []).sorted()
        }
    }

    /// A tree with the cases that break archivers: nested and empty folders, a symlink, an executable,
    /// names in several scripts, an empty file, incompressible bytes.
    static func makeTree(_ root: String) throws {
        try python(
            """
            import os, sys
            r = sys.argv[1]
            os.makedirs(r + '/a/b/c', exist_ok=True); os.makedirs(r + '/empty', exist_ok=True)
            os.makedirs(r + '/日本語', exist_ok=True)
            open(r + '/a/b/c/café é.txt', 'w').write('répété ' * 3000)
            open(r + '/日本語/ファイル 🎉.txt', 'w').write('こんにちは\\n')
            open(r + '/zero', 'w').close()
            open(r + '/a/random.bin', 'wb').write(os.urandom(50000))
            open(r + '/run.sh', 'w').write('#!/bin/sh\\necho hi\\n'); os.chmod(r + '/run.sh', 0o755)
            os.symlink('b/c/café é.txt', r + '/a/link')
            t = 1600000000
            for dirpath, dirs, files in sorted(os.walk(r, topdown=False)):
                for n in files + dirs:
                    t += 60; os.utime(os.path.join(dirpath, n), (t, t), follow_symlinks=False)
            """, [root])
    }

    /// Compares two trees: kinds, bytes, permission bits, file mtimes, symlink targets. Returns the
    /// differences, empty when equal.
    static func differences(_ a: String, _ b: String) throws -> String {
        try python(
            """
            import os, sys, stat
            def snap(r):
                out = {}
                for dirpath, dirs, files in os.walk(r):
                    for n in dirs + files:
                        p = os.path.join(dirpath, n); rel = os.path.relpath(p, r); st = os.lstat(p)
                        if stat.S_ISLNK(st.st_mode): out[rel] = ('link', os.readlink(p))
                        elif stat.S_ISDIR(st.st_mode): out[rel] = ('dir', oct(st.st_mode & 0o7777))
                        else: out[rel] = ('file', open(p, 'rb').read(), oct(st.st_mode & 0o7777), int(st.st_mtime))
                return out
            x, y = snap(sys.argv[1]), snap(sys.argv[2])
            for k in sorted(set(x) | set(y)):
                if x.get(k) != y.get(k): print(k, repr(x.get(k))[:80], repr(y.get(k))[:80])
            """, [a, b]
        ).stdout
    }
}
