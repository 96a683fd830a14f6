import ArchiverTestSupport
import Foundation
import Testing

/// No test hook in a release build: every hook (`ARCHIVER_TEST_HANG`, `ARCHIVER_STALL_SECONDS`,
/// `ARCHIVER_STATISTICS_PAUSE`, `ARCHIVER_UI_TIMINGS…`) sits in `#if ARCHIVER_TEST_HOOKS`, which Package.swift
/// defines for the debug configuration alone.
///
/// The suite runs debug builds, so the rule is checked where it is made, in the sources and the manifest, on
/// every run. The release executables are checked byte for byte (stricter than `strings`) when there are
/// some to check: `ARCHIVER_RELEASE_BIN_DIR` names a folder of them (an installed copy: ~/.local/bin after
/// `make install`, /usr/bin from the package), or with `ARCHIVER_SLOW_TESTS=1` the test builds them as
/// `make release` does, in a scratch folder of its own (the running `swift test` holds .build's lock).
@Suite struct TestHookTests {
    static let hooks = ["ARCHIVER_TEST_", "ARCHIVER_STALL_", "ARCHIVER_STATISTICS_PAUSE", "ARCHIVER_UI_TIMINGS"]
    static let root = packageRoot

    /// The executables `make install` installs (the Makefile's `EXECUTABLES`).
    static func executables() throws -> [String] {
        let makefile = try String(contentsOf: Self.root.appendingPathComponent("Makefile"), encoding: .utf8)
        let joined = makefile.replacingOccurrences(of: "\\\n", with: " ")
        let line = try #require(joined.split(separator: "\n").first { $0.hasPrefix("EXECUTABLES =") })
        return line.dropFirst("EXECUTABLES =".count).split(separator: " ").map(String.init).filter { !$0.isEmpty }
    }

    @Test func everyHookIsReadOnlyUnderTheDebugDefine() throws {
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let defines = manifest.split(separator: "\n").map(String.init).filter {
            $0.contains("ARCHIVER_TEST_HOOKS") && !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//")
        }
        #expect(defines.count == 1 && defines[0].contains(#".define("ARCHIVER_TEST_HOOKS", .when(configuration: .debug))"#), "\(defines)")
        // The one build that adds the hooks on purpose is the benchmarks' own, never the one installed.
        let makefile = try String(contentsOf: Self.root.appendingPathComponent("Makefile"), encoding: .utf8)
        for line in makefile.split(separator: "\n") where line.contains("ARCHIVER_TEST_HOOKS") && !line.hasPrefix("#") {
            #expect(line.contains("--scratch-path .build/timings"), "\(line)")
        }

        var reads = 0
        let sources = Self.root.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String } ?? []
        for file in files where [".swift", ".c", ".cpp", ".h"].contains(where: file.hasSuffix) {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            // One entry per open `#if`: whether the branch being read is compiled only with the hooks.
            var branches: [Bool] = []
            for (number, line) in text.components(separatedBy: "\n").enumerated() {
                let code = line.trimmingCharacters(in: .whitespaces)
                if code.hasPrefix("#if") {
                    branches.append(code == "#if ARCHIVER_TEST_HOOKS")
                } else if code.hasPrefix("#else") || code.hasPrefix("#elif") {
                    if !branches.isEmpty { branches[branches.count - 1] = false }
                } else if code.hasPrefix("#endif") {
                    _ = branches.popLast()
                } else if !code.hasPrefix("//"), !code.hasPrefix("/*"), !code.hasPrefix("*"),
                    Self.hooks.contains(where: code.contains)
                {
                    reads += 1
                    let inHooks = file.hasSuffix(".swift") && branches.contains(true)
                    #expect(inHooks, "Sources/\(file):\(number + 1) reads a test hook outside #if ARCHIVER_TEST_HOOKS")
                }
            }
        }
        // The scan sees the hooks that exist (a renamed hook must not pass by being found nowhere).
        #expect(reads >= 6, "only \(reads) hook reads found")
    }

    /// The byte search below finds a hook where there is one: in the debug executables the tests run.
    @Test func theDebugExecutablesUnderTestKeepTheirHooks() throws {
        let compress = try Data(contentsOf: URL(fileURLWithPath: try E2E.ours(E2E.compressName)))
        #expect(compress.range(of: Data("ARCHIVER_TEST_HANG".utf8)) != nil)
        #expect(compress.range(of: Data("ARCHIVER_STALL_SECONDS".utf8)) != nil)
    }

    static let releaseFolder = ProcessInfo.processInfo.environment["ARCHIVER_RELEASE_BIN_DIR"].flatMap { $0.isEmpty ? nil : $0 }
    static let slow = ProcessInfo.processInfo.environment["ARCHIVER_SLOW_TESTS"] == "1"

    @Test(.enabled(
        if: releaseFolder != nil || slow,
        "skipped: set ARCHIVER_RELEASE_BIN_DIR to installed executables, or ARCHIVER_SLOW_TESTS=1 to build release ones"))
    func releaseExecutablesHaveNoHook() throws {
        let folder = try Self.releaseFolder ?? Self.buildRelease()
        for name in try Self.executables() {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))
            for hook in Self.hooks {
                #expect(bytes.range(of: Data(hook.utf8)) == nil, "\(folder)/\(name) holds \(hook)")
            }
        }
    }

    /// Builds the release executables as `make release` does; their folder.
    static func buildRelease() throws -> String {
        let scratch = root.appendingPathComponent(".build/test-scratch/release").path
        let arguments = ["build", "-c", "release", "--static-swift-stdlib", "--scratch-path", scratch, "--package-path", root.path]
        let built = try Tool.run(["/usr/bin/env", "swift"] + arguments)
        try #require(built.status == 0, "swift build -c release failed: \(built.output)")
        let path = try Tool.run(["/usr/bin/env", "swift"] + arguments + ["--show-bin-path"], mergingErrors: false)
        return path.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
