import ArchiverTestSupport
import Foundation
import Testing

/// Crash loops: each tool is killed with SIGKILL at random moments of its work. After every kill the
/// inputs are byte-identical, whatever sits under a final name is complete, and the next run removes the
/// dead process's temporaries (`.archiver-PID-…`) and succeeds. 8 kills per tool here; with
/// `ARCHIVER_SLOW_TESTS=1`, 50 for compress and extract and 20 for the PDF and photo tools.
@Suite struct CrashLoopTests {
    static let slow = ProcessInfo.processInfo.environment["ARCHIVER_SLOW_TESTS"] == "1"

    /// What one tool's loop needs: how to run it, and how to tell a complete output.
    struct Target {
        var executable: String
        var arguments: [String]
        /// Whether a file or folder of `w` is one of the tool's outputs (not an input).
        var isOutput: (String) -> Bool
        /// Whether that output is complete; records nothing itself.
        var isComplete: (ScratchDirectory, String) throws -> Bool
    }

    /// Kills `target` `kills` times at random moments within its usual running time, checking after each.
    static func loop(_ target: Target, kills: Int, in s: ScratchDirectory, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let inputs = inputsOf(target, in: s)
        // One whole run first: how long the work takes, where the kills land.
        let started = Date()
        let first = try s.run(E2E.ours(target.executable), target.arguments, localeUTF8: false)
        let duration = Date().timeIntervalSince(started)
        #expect(first.status == 0, "\(first)", sourceLocation: sourceLocation)
        try clearOutputs(target, in: s)
        var landed = (leftovers: 0, complete: 0, nothing: 0)
        for round in 1...kills {
            let running = try s.start(E2E.ours(target.executable), target.arguments, localeUTF8: false)
            Thread.sleep(forTimeInterval: Double.random(in: 0...(duration * 1.1)))
            kill(running.process.processIdentifier, SIGKILL)
            _ = running.wait(timeout: 30)
            #expect(inputsOf(target, in: s) == inputs, "round \(round): the inputs changed", sourceLocation: sourceLocation)
            let outputs = E2E.list(s.path("w")).filter(target.isOutput)
            for output in outputs {
                #expect(try target.isComplete(s, output), "round \(round): “\(output)” is incomplete", sourceLocation: sourceLocation)
            }
            let dead = E2E.leftovers(under: s.path("w"))
            if !dead.isEmpty { landed.leftovers += 1 } else if outputs.isEmpty { landed.nothing += 1 } else { landed.complete += 1 }
            try clearOutputs(target, in: s)

            // The next run removes what the dead one left, and succeeds.
            let next = try s.run(E2E.ours(target.executable), target.arguments, localeUTF8: false)
            #expect(next.status == 0, "round \(round): \(next)", sourceLocation: sourceLocation)
            #expect(E2E.leftovers(under: s.path("w")).isEmpty, "round \(round): \(dead) stayed", sourceLocation: sourceLocation)
            for output in E2E.list(s.path("w")).filter(target.isOutput) {
                #expect(try target.isComplete(s, output), "round \(round): “\(output)” is incomplete", sourceLocation: sourceLocation)
            }
            try clearOutputs(target, in: s)
        }
        let options = target.arguments.filter { !$0.hasPrefix("/") }.joined(separator: " ")
        print("crash loop \(target.executable) \(options): \(kills) kills in runs of \(String(format: "%.2f", duration)) s: "
              + "\(landed.leftovers) left temporaries (removed by the next run), \(landed.complete) after the output was complete, "
              + "\(landed.nothing) before anything was made")
    }

    /// Everything in `w` but the outputs and temporaries, with contents, modes and times.
    static func inputsOf(_ target: Target, in s: ScratchDirectory) -> [String: TreeSnapshot.Node] {
        TreeSnapshot.of(s.path("w")).nodes.filter { path, _ in
            let top = String(path.split(separator: "/").first ?? "")
            return !target.isOutput(top) && !top.hasPrefix(".archiver-")
        }
    }

    /// The files under `root` and their bytes.
    static func contents(_ root: String) -> [String: Data] {
        TreeSnapshot.of(root).nodes.compactMapValues { node in
            if case .file(let data, _, _) = node { data } else { nil }
        }
    }

    static func clearOutputs(_ target: Target, in s: ScratchDirectory) throws {
        for name in E2E.list(s.path("w")) where target.isOutput(name) {
            _ = try s.tool("/bin/chmod", ["-R", "u+rwX", s.path("w/" + name)])
            try FileManager.default.removeItem(atPath: s.path("w/" + name))
        }
    }

    /// A folder of a few random files (some MB, so that the work takes a moment) and small ones.
    static func makeInput(_ s: ScratchDirectory) throws {
        try SignalTests.makeRandomFolder(s, at: "w/Data", files: 3, megabytesEach: 3)
        for index in 0..<20 { try s.write("w/Data/small/\(index).txt", String(repeating: "line \(index)\n", count: 200)) }
    }

    @Test(arguments: ["zip", "tar.zst", "tar.gz"])
    func compressSurvivesKills(format: String) throws {
        try E2E.withScratch { s in
            try Self.makeInput(s)
            let target = Target(
                executable: E2E.compressName, arguments: ["--no-notify", "--format", format, s.path("w/Data")],
                isOutput: { $0.hasPrefix("Data.") || $0.hasPrefix("Data (") },
                isComplete: { s, name in try s.tool("/usr/bin/bsdtar", ["-tf", s.path("w/" + name)]).status == 0 })
            try Self.loop(target, kills: Self.slow ? 50 / 3 + 1 : 3, in: s)
        }
    }

    @Test func extractSurvivesKills() throws {
        try E2E.withScratch { s in
            try Self.makeInput(s)
            try s.must("/usr/bin/bsdtar", ["-czf", s.path("w/Data.tar.gz"), "-C", s.path("w"), "Data"])
            try FileManager.default.moveItem(atPath: s.path("w/Data"), toPath: s.path("source"))
            let source = Self.contents(s.path("source"))
            let target = Target(
                executable: E2E.extractName, arguments: ["--no-notify", s.path("w/Data.tar.gz")],
                isOutput: { $0 != "Data.tar.gz" && !$0.hasPrefix(".archiver-") },
                isComplete: { s, name in Self.contents(s.path("w/" + name)) == source })
            try Self.loop(target, kills: Self.slow ? 50 : 8, in: s)
        }
    }

    @Test func pdfToolSurvivesKills() throws {
        try E2E.withScratch { s in
            try StopTests.makePhotosAndPDF(s)
            for photo in ["photo0.jpg", "photo1.jpg", "photo2.jpg"] { try FileManager.default.removeItem(atPath: s.path("w/" + photo)) }
            let target = Target(
                executable: "compress-pdf-with-archiver", arguments: ["--no-notify", s.path("w/report.pdf")],
                isOutput: { $0 != "report.pdf" && !$0.hasPrefix(".archiver-") },
                isComplete: { s, name in try s.tool("/usr/bin/qpdf", ["--check", s.path("w/" + name)]).status == 0 })
            try Self.loop(target, kills: Self.slow ? 20 : 8, in: s)
        }
    }

    @Test func photoToolSurvivesKills() throws {
        try E2E.withScratch { s in
            try StopTests.makePhotosAndPDF(s)
            try FileManager.default.removeItem(atPath: s.path("w/report.pdf"))
            let photos = ["photo0.jpg", "photo1.jpg", "photo2.jpg"]
            let target = Target(
                executable: "compress-photos-with-archiver", arguments: ["--no-notify"] + photos.map { s.path("w/" + $0) },
                isOutput: { !photos.contains($0) && !$0.hasPrefix(".archiver-") },
                isComplete: { s, name in
                    try s.run("/usr/bin/python3", ["-c", "import sys; from PIL import Image; Image.open(sys.argv[1]).load()", s.path("w/" + name)])
                        .status == 0
                })
            try Self.loop(target, kills: Self.slow ? 20 : 8, in: s)
        }
    }
}
