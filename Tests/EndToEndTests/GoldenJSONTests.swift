import ArchiverTestSupport
import Foundation
import Testing

/// `--json` and `--progress-json` pinned byte for byte: each case's standard output, with the scratch folder
/// written `$DIR` and times (`durationSeconds`, `elapsed`, `rate`, `remaining`) normalised, against a file in
/// Golden/. The files were written by the tools as they were before the job pipeline was reshaped, so the
/// reshaping provably changed nothing a script reads. `ARCHIVER_UPDATE_GOLDEN=1` rewrites them (review the diff).
@Suite struct GoldenJSONTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden").path

    /// A tree with fixed contents, modes and times: its archives are the same bytes on every run.
    static func makeTree(_ s: ScratchDirectory, _ name: String) throws {
        let fm = FileManager.default
        let root = s.path(name)
        try fm.createDirectory(atPath: root + "/docs/empty", withIntermediateDirectories: true)
        let files = ["a.txt": "alpha\n", "docs/b.txt": String(repeating: "bravo ", count: 400), "docs/c.bin": "\u{1}\u{2}"]
        for (index, (path, text)) in files.sorted(by: { $0.key < $1.key }).enumerated() {
            fm.createFile(atPath: root + "/" + path, contents: Data(text.utf8))
            try fm.setAttributes(
                [.posixPermissions: 0o644, .modificationDate: Date(timeIntervalSince1970: 1_700_000_000 + Double(index) * 60)],
                ofItemAtPath: root + "/" + path)
        }
        try fm.createSymbolicLink(atPath: root + "/docs/link", withDestinationPath: "b.txt")
        _ = try s.run("/usr/bin/touch", ["-h", "-d", "@1700000000", root + "/docs/link"])
        for folder in ["docs/empty", "docs", ""] {
            try fm.setAttributes(
                [.posixPermissions: 0o755, .modificationDate: Date(timeIntervalSince1970: 1_700_000_000)],
                ofItemAtPath: folder.isEmpty ? root : root + "/" + folder)
        }
    }

    /// Standard output as the golden file holds it, then the exit status.
    static func normalised(_ outcome: Outcome, root: String, lastProgressOnly: Bool = false) -> String {
        var lines = outcome.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lastProgressOnly {
            // How many progress lines a tiny job writes depends on the clock; the last one does not.
            let progress = lines.indices.filter { lines[$0].hasPrefix(#"{"event":"progress""#) }
            for index in progress.dropLast().reversed() { lines.remove(at: index) }
        }
        var text = lines.joined(separator: "\n").replacingOccurrences(of: root, with: "$DIR")
        for (key, value) in [("durationSeconds", "0"), ("elapsed", "0"), ("rate", "0"), ("remaining", "null")] {
            text = text.replacingOccurrences(of: #""\#(key)":[-0-9.e]+"#, with: #""\#(key)":\#(value)"#, options: .regularExpression)
        }
        return text + "exit \(outcome.status)\n"
    }

    static func check(_ name: String, _ actual: String) throws {
        let path = folder + "/" + name + ".txt"
        if ProcessInfo.processInfo.environment["ARCHIVER_UPDATE_GOLDEN"] == "1" {
            try actual.write(toFile: path, atomically: true, encoding: .utf8)
            return
        }
        let expected = try #require(try? String(contentsOfFile: path, encoding: .utf8), "golden file \(path)")
        #expect(actual == expected, "\(name): the JSON changed")
    }

    @Test func archiveToolsWriteTheSameJSON() throws {
        try E2E.withScratch("golden") { s in
            try Self.makeTree(s, "Tree")
            let root = s.root
            let run = { (name: String, outcome: Outcome, lastProgressOnly: Bool) in
                try Self.check(name, Self.normalised(outcome, root: root, lastProgressOnly: lastProgressOnly))
            }
            try run("compress-zip", try s.compress(["--json", "--format", "zip", s.path("Tree")]), false)
            try run("compress-tar-progress", try s.compress(["--progress-json", "--format", "tar", s.path("Tree")]), true)
            try run("extract", try s.extract(["--json", "--to", s.path("out"), s.path("Tree.zip")]), false)
            try run("list", try s.extract(["--list", "--json", s.path("Tree.zip")]), false)
            try run("list-progress", try s.extract(["--list", "--progress-json", s.path("Tree.tar")]), false)
            // A zip cut short, then a batch of it and a good one.
            let whole = try #require(E2E.read(s.path("Tree.zip")))
            FileManager.default.createFile(atPath: s.path("cut.zip"), contents: whole.prefix(200))
            try run("extract-corrupt", try s.extract(["--json", "--to", s.path("out2"), s.path("cut.zip")]), false)
            try run(
                "extract-batch", try s.extract(["--json", "--to", s.path("out3"), s.path("cut.zip"), s.path("Tree.tar")]), false)
            try run("list-corrupt", try s.extract(["--list", "--json", s.path("cut.zip")]), false)
            try run("compress-missing", try s.compress(["--json", s.path("nothing-here")]), false)
            try run("compress-each", try s.compress(["--json", "--each", "--format", "tar", s.path("Tree/a.txt"), s.path("gone")]), false)
            try run("extract-missing", try s.extract(["--progress-json", s.path("gone.zip")]), false)
        }
    }

    @Test func mediaToolsWriteTheSameJSON() throws {
        try E2E.withScratch("golden-media") { s in
            FileManager.default.createFile(atPath: s.path("not.pdf"), contents: Data("plain text\n".utf8))
            FileManager.default.createFile(atPath: s.path("not.jpg"), contents: Data("plain text\n".utf8))
            let pdf = try E2E.ours("compress-pdf-with-archiver")
            let photos = try E2E.ours("compress-photos-with-archiver")
            let cases: [(String, String, [String])] = [
                ("pdf-not-a-pdf", pdf, ["--json", s.path("not.pdf")]),
                ("pdf-estimate-not-a-pdf", pdf, ["--estimate", "--json", s.path("not.pdf")]),
                ("pdf-missing", pdf, ["--progress-json", s.path("gone.pdf")]),
                ("photos-not-a-photo", photos, ["--json", s.path("not.jpg")]),
                ("photos-missing", photos, ["--json", s.path("gone.jpg")]),
            ]
            for (name, program, arguments) in cases {
                try Self.check(name, Self.normalised(try s.run(program, arguments, localeUTF8: false), root: s.root))
            }
        }
    }
}
