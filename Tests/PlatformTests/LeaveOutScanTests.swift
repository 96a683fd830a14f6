import ArchiverCore
import ArchiverTestSupport
import Foundation
import SystemPackage
import Testing

@testable import Platform

/// The scan's figures, and the pattern matcher against git itself (`git check-ignore`) over a matrix of
/// patterns and paths.
@Suite struct LeaveOutScanTests {
    private func write(_ scratch: ScratchDirectory, _ paths: [String: Int]) throws {
        for (path, size) in paths {
            let url = scratch.url.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(count: size).write(to: url)
        }
    }

    @Test func figuresPerRuleAndSelectedItemsStay() throws {
        let scratch = try ScratchDirectory()
        try write(scratch, [
            "app/index.js": 10, "app/node_modules/a/x.js": 100, "app/node_modules/b.js": 50, "app/.DS_Store": 7,
            "app/.git/HEAD": 3, "app/z.txt~": 4, "node_modules/own.js": 9,
        ])
        let app = FilePath(scratch.sub("app")), chosen = FilePath(scratch.sub("node_modules"))
        var partial = 0
        let result = try LeaveOutScan.run(
            [app, chosen], choice: LeaveOutChoice(rules: [.junk, .nodeModules]), considering: Set(LeaveOutRule.allCases)
        ) { report in if !report.finished { partial += 1 } }
        let report = result.report
        #expect(report.finished)
        #expect(report.available[.nodeModules] == LeaveOutFigures(items: 4, bytes: 150))
        #expect(report.available[.vcs] == LeaveOutFigures(items: 2, bytes: 3) && report.available[.editor] == LeaveOutFigures(items: 1, bytes: 4))
        #expect(report.leftOut == [.nodeModules: LeaveOutFigures(items: 4, bytes: 150), .junk: LeaveOutFigures(items: 1, bytes: 7)])
        // app, index.js, .git, HEAD, z.txt~; node_modules (selected), own.js.
        #expect(report.kept == LeaveOutFigures(items: 7, bytes: 26))
        #expect(result.leftOut == [Array(scratch.sub("app/node_modules").utf8), Array(scratch.sub("app/.DS_Store").utf8)])
        #expect(report.summary?.localized == "Left out 5 items (157 bytes)")
        // The scratch folder is inside this package's own work tree.
        #expect(result.inGitWorkTree == FileManager.default.fileExists(atPath: packageRoot.appendingPathComponent(".git").path))
    }

    /// Each pattern in a `.gitignore` of its own, each path asked of git and of us; folders end in `/`.
    @Test func patternsDecideAsGitCheckIgnoreDoes() throws {
        let patterns = [
            "*.log", "!keep.log", "/build", "build/", "doc/*.txt", "**/cache", "a/**/z", "a/**", "*.[oa]", "[!x]*.c",
            "\\#hash", "\\!bang", "trail   ", "sp\\ ", "foo/*", "**/foo/bar", "deep/*/x", "n?me", "*", "[[:digit:]]*",
        ]
        let paths = [
            "x.log", "keep.log", "sub/keep.log", "build/", "build/f", "sub/build/", "sub/build/f", "doc/a.txt",
            "doc/sub/a.txt", "sub/doc/a.txt", "cache/", "q/r/cache/", "a/z", "a/b/c/z", "a/q", "m.o", "m.a", "m.c",
            "xm.c", "ym.c", "#hash", "!bang", "trail", "trail   ", "sp ", "sp", "foo/w", "foo/x/y", "q/foo/bar",
            "deep/a/x", "deep/a/b/x", "name", "nme", "1st", "first",
        ]
        let scratch = try ScratchDirectory()
        let repo = scratch.sub("repo")
        #expect(try Tool.run(["/usr/bin/git", "init", "-q", repo]).status == 0)
        for path in paths {
            let url = URL(fileURLWithPath: repo + "/" + path)
            if path.hasSuffix("/") {
                try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            } else {
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                FileManager.default.createFile(atPath: url.path, contents: Data())
            }
        }
        var disagreements: [String] = []
        for line in patterns {
            try Data((line + "\n").utf8).write(to: URL(fileURLWithPath: repo + "/.gitignore"))
            let asked = paths.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
            let git = try Tool.run(
                ["/bin/sh", "-c", "cd \"$1\" && shift && git -c core.excludesFile=/dev/null check-ignore --no-index \"$@\"; true", "sh", repo]
                    + asked, mergingErrors: false)
            let ignoredByGit = Set(git.output.split(separator: "\n").map(String.init))
            let list = IgnoreStack([IgnoreList(base: [], patterns: IgnorePattern.lines(of: Array((line + "\n").utf8)))])
            for path in paths {
                let isDirectory = path.hasSuffix("/")
                let name = isDirectory ? String(path.dropLast()) : path
                // A folder left out takes what is inside along, as the scan does.
                let parts = name.split(separator: "/").map(String.init)
                let ours = (1...parts.count).contains { count in
                    list.isIgnored(Array(parts.prefix(count).joined(separator: "/").utf8), isDirectory: count < parts.count || isDirectory)
                }
                if ours != ignoredByGit.contains(name) { disagreements.append("\(line) ~ \(path): ours \(ours)") }
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements)")
    }

    /// Issue 31: the first figures come before the scan ends, timed rather than counted, and they already hold
    /// what sits at the top of the selection (node_modules, .DS_Store) however large its siblings are.
    @Test func firstFiguresComeEarlyAndHoldTheTop() throws {
        let scratch = try ScratchDirectory()
        var files: [String: Int] = ["app/node_modules/a.js": 5, "app/.DS_Store": 3]
        for index in 0..<600 { files["app/src/part-\(index / 20)/file-\(index % 20).ts"] = 10 }
        try write(scratch, files)
        var reports: [LeaveOutReport] = []
        let result = try LeaveOutScan.run(
            [FilePath(scratch.sub("app"))], choice: LeaveOutChoice(rules: [.junk, .nodeModules]), considering: [.nodeModules, .junk],
            reportEvery: .zero
        ) { reports.append($0) }
        let first = try #require(reports.first)
        #expect(!first.finished && reports.count > 2, "\(reports.count) reports")
        #expect(first.available[.nodeModules]?.items ?? 0 >= 1 && first.available[.junk] == LeaveOutFigures(items: 1, bytes: 3),
                "\(first.available)")
        #expect(result.report.kept.items == 1 + 1 + 30 + 600 && result.report.finished)
        // The default: a partial report at least every 0.5 s of scanning.
        #expect(LeaveOutScan.reportEvery <= .milliseconds(500))
        // The sample for the size estimate: kept regular files only, spread over the walk, at most 32.
        #expect(result.sample.count > 16 && result.sample.count <= 32)
        #expect(result.sample.allSatisfy { String(decoding: $0, as: UTF8.self).hasSuffix(".ts") })
        #expect(Set(result.sample.map { String(decoding: $0, as: UTF8.self).split(separator: "/").dropLast().last! }).count > 8)
    }
}
