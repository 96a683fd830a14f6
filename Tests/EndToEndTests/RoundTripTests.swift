import ArchiverTestSupport
import Foundation
import Testing

/// Ours → ours: compress a rich tree, extract it, compare everything that matters.
@Suite struct RoundTripTests {
    static let archiveFormats = ["zip", "7z", "tar", "tar.gz", "tar.bz2", "tar.xz", "tar.zst"]

    @Test(arguments: archiveFormats)
    func richTreeRoundTrips(format: String) throws {
        try E2E.withScratch("roundtrip-\(format)") { s in
            try s.mkdir("src")
            try Tree.makeRich(at: s.path("src/Tree"))
            let made = try s.compress(["--format", format, s.path("src/Tree")])
            #expect(made.status == 0, "\(made)")
            let archive = s.path("src/Tree.\(format)")
            #expect(E2E.exists(archive), "expected \(archive); \(made)")
            #expect(E2E.list(s.path("src")) == ["Tree", "Tree.\(format)"])

            let out = try s.extract(["--to", s.path("out"), archive])
            #expect(out.status == 0, "\(out)")
            #expect(E2E.list(s.path("out")) == ["Tree"])
            // Everything: bytes, permission bits, file and folder mtimes, symlink targets, empty folders.
            // (The top folder itself is compared too: its mode and mtime are in the archive.)
            let problems = try TreeSnapshot.differences(expected: s.path("src/Tree"), actual: s.path("out/Tree"), .full)
            #expect(problems.isEmpty, "\(format): \(problems.joined(separator: "\n"))")
            #expect(E2E.mode(s.path("out/Tree")).map { $0 & 0o7777 } == E2E.mode(s.path("src/Tree")).map { $0 & 0o7777 })
            #expect(E2E.leftovers(under: s.root).isEmpty)
        }
    }

    /// Extraction writes from inside its staging folder (fewer system calls per entry), so everything it
    /// opens meanwhile must not depend on the folder it was started in: the later parts of a set named by a
    /// relative path, a relative destination, hard links and folder times applied at the end.
    @Test func relativePartsAndDestinationRoundTrip() throws {
        try E2E.withScratch("roundtrip-relative") { s in
            try s.mkdir("src")
            try Tree.makeRich(at: s.path("src/Tree"))
            // Enough bytes for several parts.
            try Data((0..<200_000).map { _ in UInt8.random(in: 0...255) }).write(to: URL(fileURLWithPath: s.path("src/Tree/big.bin")))
            let made = try s.compress(["--format", "tar.gz", "--level", "store", "--split", "64k", "Tree"], cwd: s.path("src"))
            #expect(made.status == 0, "\(made)")
            let parts = E2E.list(s.path("src")).filter { $0.hasPrefix("Tree.tar.gz.") }
            #expect(parts.count >= 3, "\(parts)")

            let out = try s.extract(["--to", "../out", "Tree.tar.gz.002"], cwd: s.path("src"))
            #expect(out.status == 0, "\(out)")
            let problems = try TreeSnapshot.differences(expected: s.path("src/Tree"), actual: s.path("out/Tree"), .full)
            #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
            #expect(E2E.leftovers(under: s.root).isEmpty)
        }
    }

    @Test(arguments: [("zip", "store"), ("zip", "maximum"), ("7z", "store"), ("7z", "fast"), ("tar.gz", "store"),
                      ("tar.xz", "fast"), ("tar.zst", "maximum"), ("tar.bz2", "fast")])
    func levelsRoundTrip(format: String, level: String) throws {
        try E2E.withScratch("levels-\(format)-\(level)") { s in
            try Tree.makeRich(at: s.path("Tree"))
            let made = try s.compress(["--format", format, "--level", level, s.path("Tree")])
            #expect(made.status == 0, "\(made)")
            let out = try s.extract(["--to", s.path("out"), s.path("Tree.\(format)")])
            #expect(out.status == 0, "\(out)")
            let problems = try TreeSnapshot.differences(expected: s.path("Tree"), actual: s.path("out/Tree"))
            #expect(problems.isEmpty, "\(format) \(level): \(problems.joined(separator: "\n"))")
        }
    }

    /// `store` really stores in zip (Info-ZIP says "Stored"), `maximum` compresses text much better.
    @Test func zipStoreIsStoredAndMaximumIsSmaller() throws {
        try E2E.withScratch { s in
            try s.write("text.txt", String(repeating: "the same line again and again\n", count: 4000))
            #expect(try s.compress(["--level", "store", "--name", "stored", s.path("text.txt")]).status == 0)
            #expect(try s.compress(["--level", "maximum", "--name", "max", s.path("text.txt")]).status == 0)
            let verbose = try s.must("/usr/bin/unzip", ["-v", s.path("stored.zip")])
            #expect(verbose.stdout.contains("Stored"), "\(verbose.stdout)")
            #expect(!verbose.stdout.contains("Defl"), "\(verbose.stdout)")
            let maxVerbose = try s.must("/usr/bin/unzip", ["-v", s.path("max.zip")])
            #expect(maxVerbose.stdout.contains("Defl"), "\(maxVerbose.stdout)")
            let stored = try #require(E2E.size(s.path("stored.zip")))
            let maximum = try #require(E2E.size(s.path("max.zip")))
            #expect(stored > 120_000)
            #expect(maximum < 5_000)
        }
    }

    static let streams: [(format: String, program: String)] = [
        ("gz", "/usr/bin/gzip"), ("bz2", "/usr/bin/bzip2"), ("xz", "/usr/bin/xz"), ("zst", "/usr/bin/zstd"),
    ]

    @Test(arguments: ["gz", "bz2", "xz", "zst"])
    func singleFileStreamRoundTrips(format: String) throws {
        try E2E.withScratch("stream-\(format)") { s in
            var content = Data(String(repeating: "a line of notes, café\n", count: 3000).utf8)
            content.append(SampleTree.randomData(3000))
            try s.write("in/note.txt", data: content)
            let made = try s.compress(["--format", format, s.path("in/note.txt")])
            #expect(made.status == 0, "\(made)")
            let archive = s.path("in/note.txt.\(format)")
            #expect(E2E.list(s.path("in")) == ["note.txt", "note.txt.\(format)"])

            // The reference decompressor reads it.
            let program = Self.streams.first { $0.format == format }!.program
            try s.must(program, ["-t", archive])
            #expect(try s.tool("/bin/sh", ["-c", "\(program) -dc \"$1\" | cmp - \"$2\"", "sh", archive, s.path("in/note.txt")]).status == 0,
                    "\(program) -dc output differs from the input")

            // Ours reads it back: x.txt.gz → x.txt.
            try FileManager.default.createDirectory(atPath: s.path("moved"), withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: archive, toPath: s.path("moved/note.txt.\(format)"))
            let out = try s.extract([s.path("moved/note.txt.\(format)")])
            #expect(out.status == 0, "\(out)")
            #expect(E2E.list(s.path("moved")) == ["note.txt", "note.txt.\(format)"])
            #expect(E2E.read(s.path("moved/note.txt")) == content)
            #expect(E2E.leftovers(under: s.root).isEmpty)
        }
    }

    /// Same with an explicit UTF-8 locale: names are not garbled either way.
    @Test(arguments: ["zip", "7z", "tar.gz"])
    func namesRoundTripWithUTF8Locale(format: String) throws {
        try E2E.withScratch("utf8-\(format)") { s in
            try Tree.makeRich(at: s.path("Ünïcödé 日本 🎉"))
            let env: [String: String?] = ["LANG": "C.UTF-8"]
            let made = try s.compress(["--format", format, s.path("Ünïcödé 日本 🎉")], env: env)
            #expect(made.status == 0, "\(made)")
            let archive = s.path("Ünïcödé 日本 🎉.\(format)")
            #expect(E2E.exists(archive), "\(E2E.list(s.root))")
            let out = try s.extract(["--to", s.path("out"), archive], env: env)
            #expect(out.status == 0, "\(out)")
            #expect(E2E.list(s.path("out")) == ["Ünïcödé 日本 🎉"])
            let problems = try TreeSnapshot.differences(expected: s.path("Ünïcödé 日本 🎉"), actual: s.path("out/Ünïcödé 日本 🎉"))
            #expect(problems.isEmpty, "\(problems)")
            // bsdtar (in a UTF-8 locale) sees the same names.
            let listing = try s.must("/usr/bin/bsdtar", ["-tf", archive])
            #expect(listing.stdout.contains("Ünïcödé 日本 🎉/日本語/ファイル.txt"), "\(listing.stdout)")
            #expect(listing.stdout.contains("Ünïcödé 日本 🎉/emoji 🎉/party 🎈.txt"), "\(listing.stdout)")
        }
    }

    /// Compressing relative paths from a working directory puts the archive in that directory.
    @Test func relativeInputsWork() throws {
        try E2E.withScratch { s in
            try Tree.makeRich(at: s.path("work/Photos"))
            let made = try s.compress(["--format", "tar", "Photos"], cwd: s.path("work"))
            #expect(made.status == 0, "\(made)")
            #expect(E2E.list(s.path("work")) == ["Photos", "Photos.tar"])
            let out = try s.extract(["Photos.tar", "--to", "out"], cwd: s.path("work"))
            #expect(out.status == 0, "\(out)")
            #expect(try TreeSnapshot.differences(expected: s.path("work/Photos"), actual: s.path("work/out/Photos")).isEmpty)
        }
    }

    /// Symlinks in the input are stored as links and never followed, even when they point outside; on the
    /// way back our extractor refuses the absolute one (exit 1, named) and keeps the rest.
    @Test(arguments: ["zip", "tar.gz", "7z"])
    func symlinksAreStoredNotFollowed(format: String) throws {
        try E2E.withScratch("symlinks-\(format)") { s in
            try s.write("outside/big.txt", String(repeating: "outside data ", count: 1000))
            try s.write("outside/inner/x.txt", "x")
            try s.write("T/real.txt", "real")
            try FileManager.default.createSymbolicLink(atPath: s.path("T/abs"), withDestinationPath: s.path("outside/big.txt"))
            try FileManager.default.createSymbolicLink(atPath: s.path("T/dirlink"), withDestinationPath: "../../outside")
            try FileManager.default.createSymbolicLink(atPath: s.path("T/dangling"), withDestinationPath: "no/such/file")
            let made = try s.compress(["--json", "--format", format, s.path("T")])
            #expect(made.status == 0, "\(made)")
            #expect(E2E.int(made.json?["symlinks"]) == 3)
            #expect(E2E.int(made.json?["files"]) == 1)
            let listing = try s.must("/usr/bin/bsdtar", ["-tvf", s.path("T.\(format)")])
            let lines = listing.stdout.split(separator: "\n").map(String.init)
            #expect(lines.count == 5, "T/, real.txt and three links only: \(listing.stdout)")
            #expect(lines.contains { $0.hasPrefix("l") && $0.hasSuffix("T/abs -> " + s.path("outside/big.txt")) }, "\(listing.stdout)")
            #expect(lines.contains { $0.hasPrefix("l") && $0.hasSuffix("T/dirlink -> ../../outside") }, "\(listing.stdout)")
            #expect(lines.contains { $0.hasPrefix("l") && $0.hasSuffix("T/dangling -> no/such/file") }, "\(listing.stdout)")
            #expect(!listing.stdout.contains("inner"))

            let out = try s.extract(["--to", s.path("out"), s.path("T.\(format)")])
            #expect(out.status == 1, "the absolute link and the one leaving the destination are refused: \(out)")
            #expect(out.stderr.contains("T/abs"), "\(out.stderr)")
            #expect(out.stderr.contains("T/dirlink"), "\(out.stderr)")
            #expect(E2E.text(s.path("out/T/real.txt")) == "real")
            #expect(!E2E.exists(s.path("out/T/abs")) && !E2E.exists(s.path("out/T/dirlink")))
            #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: s.path("out/T/dangling"))) == "no/such/file")
        }
    }
}
