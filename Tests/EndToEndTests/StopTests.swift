import ArchiverTestSupport
import Foundation
import Testing

/// Stop always means stop: a signal, Ctrl-C or the time budget ends every tool within 2 s even when the
/// engine is stuck in a call that never returns, leaving nothing under a final name, no temporary and no
/// child program; a reader that makes no progress is given up as malformed (exit 5).
///
/// The stuck call is real for the reader: a 554-byte xar whose files link to each other loops forever in
/// Debian 12's libarchive 3.6.2 (libarchive PR #2123, fixed in 3.7.4). For the writers, the PDF and photo
/// tools, `ARCHIVER_TEST_HANG=1` makes the first progress report (inside the engine's work, with the
/// temporary outputs and 7-Zip running) never return.
@Suite struct StopTests {
    /// libarchive PR #2123's proof of concept: listing or extracting it never ends in 3.6.2.
    static let loopingXar = """
        eGFyIQAcAAEAAAAAAAAB1gAAAAAAAAU8AAAAAXic7VTLcqMwELznKyjuRA9kLKdkcssXZC97E9KA\
        VeHhAtlF8vWRxMPrsr2pve+JmZ5Wa5jpkngdmzo6Qz+Yrt3H5BnHEbSq06at9vGv97eEx6/5kxhl\
        nz9FwnbKfSKhepDWnUisaSCnmLIEs4Tgd4pfNvxlwwS6poRDB1Afw6mJBvtZwz4eDpLEvhKJriwH\
        sDkWaI4COpgvLy5QCLwEWjRCVpoaIqNd27NMK91VHn22oxUopKFgP48Q1ab92MddbyrTyjrOD7LX\
        HhPIl/+RaNpOQ84Y54wLNGWhoOFsFLSda5ztBFrTUGw8DWfMzadZT5yMzgnG7j99NEED9LntCiMH\
        h/okwNXKrBZm1Xen40qdslBQ91dD2W83xWUnrqP7NEwcrbnQ5AO1raPJC01LK0MUiRrayh5ykgk0\
        hxM+L5he73peNr/s2kGLERfDyOOxNiq4Co1J9WWOMZqpslcHcwad3DcZ6LIgjDJebPSuTLMy1UBp\
        udvgXbpR2xKrIgVauF5vhJZeRttLZR/esC1hiznFgLkkUioMJaVM71SWySLLeEqUYrIgAt0qTbND\
        y/AE8ha+djj90+GLH//icvKjvR8w/vv61tfrQtyg/AMoUHgOvwGsBYwuAtBf07YHHCCVifUe8mGg\
        CXTEPed4nEvOzytJzSvhAgAO0QMGeJztVMtyozAQvOcrKO5ED2Qsp2Q=
        """

    static func writeLoopingXar(_ s: ScratchDirectory, at relative: String) throws {
        guard let data = Data(base64Encoded: loopingXar) else { throw E2E.E2EError.failed("bad base64") }
        try s.write(relative, data: data)
    }

    /// The environment that makes the engine's first progress report hang.
    static let hang: [String: String?] = ["ARCHIVER_TEST_HANG": "1"]

    /// Sends `signal` (or waits for the budget when nil) and expects `status` within `limit` seconds of it
    /// (of `start` when given: the budget counts from the job's start, so the limit then allows for the
    /// process's start-up too), only `remaining` in `w`, and no temporary anywhere.
    static func expectStop(
        _ running: Running, signal: String?, status: Int32, within limit: TimeInterval = 2, from start: Date? = nil,
        leaving remaining: [String], in s: ScratchDirectory, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let sent = start ?? Date()
        switch signal {
        case "SIGINT": running.process.interrupt()
        case "SIGTERM": running.process.terminate()
        default: break
        }
        let out = running.wait(timeout: 60)
        let took = Date().timeIntervalSince(sent)
        #expect(out.status == status && !out.uncaughtSignal, "\(signal ?? "budget"): \(out)", sourceLocation: sourceLocation)
        #expect(took < limit, "\(signal ?? "budget") took \(took) s", sourceLocation: sourceLocation)
        #expect(E2E.list(s.path("w")) == remaining, "left behind: \(E2E.list(s.path("w")))", sourceLocation: sourceLocation)
        #expect(E2E.leftovers(under: s.root).isEmpty, "\(E2E.leftovers(under: s.root))", sourceLocation: sourceLocation)
    }

    /// Process ids of `parent`'s children named `name` (from /proc).
    static func children(of parent: Int32, named name: String) -> [Int32] {
        E2E.list("/proc").compactMap(Int32.init).filter { pid in
            guard let stat = E2E.text("/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")") else { return false }
            let command = stat[stat.index(after: stat.firstIndex(of: "(")!)..<close]
            let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
            return command == name && fields.count > 1 && Int32(fields[1]) == parent
        }
    }

    /// Whether `pid` has ended (gone, or a zombie nobody reaped yet).
    static func hasEnded(_ pid: Int32) -> Bool {
        guard let stat = E2E.text("/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")") else { return true }
        return stat[stat.index(close, offsetBy: 2)] == "Z"
    }

    // MARK: a real loop inside libarchive

    @Test(arguments: ["SIGTERM", "SIGINT"])
    func aLoopingReaderIsStopped(signal: String) throws {
        try E2E.withScratch { s in
            try Self.writeLoopingXar(s, at: "w/loop.xar")
            let running = try s.start(E2E.ours(E2E.extractName), ["--json", s.path("w/loop.xar")], localeUTF8: false)
            Thread.sleep(forTimeInterval: 1)
            #expect(running.isRunning, "the looping archive did not loop")
            Self.expectStop(running, signal: signal, status: 8, leaving: ["loop.xar"], in: s)
        }
    }

    @Test func aLoopingListingIsStopped() throws {
        try E2E.withScratch { s in
            try Self.writeLoopingXar(s, at: "w/loop.xar")
            let running = try s.start(E2E.ours(E2E.extractName), ["--list", s.path("w/loop.xar")], localeUTF8: false)
            Thread.sleep(forTimeInterval: 1)
            Self.expectStop(running, signal: "SIGTERM", status: 8, leaving: ["loop.xar"], in: s)
        }
    }

    @Test func theBudgetEndsALoopingReader() throws {
        try E2E.withScratch { s in
            try Self.writeLoopingXar(s, at: "w/loop.xar")
            let running = try s.start(
                E2E.ours(E2E.extractName), ["--time-budget", "1", "--json", s.path("w/loop.xar")], localeUTF8: false)
            Self.expectStop(running, signal: nil, status: 9, within: 3, leaving: ["loop.xar"], in: s)
            #expect(E2E.int(running.wait().json?["exitCode"]) == 9, "\(running.wait())")
        }
    }

    /// No input read and no output written for 10 s: "the archive is malformed", exit 5, by ~12 s.
    @Test func aReaderWithoutProgressIsMalformed() throws {
        try E2E.withScratch { s in
            try Self.writeLoopingXar(s, at: "w/loop.xar")
            let running = try s.start(E2E.ours(E2E.extractName), ["--json", s.path("w/loop.xar")], localeUTF8: false)
            Self.expectStop(running, signal: nil, status: 5, within: 12.5, leaving: ["loop.xar"], in: s)
            let out = running.wait()
            #expect(out.stderr.contains("malformed"), "\(out)")
            #expect(E2E.int(out.json?["exitCode"]) == 5, "\(out)")
        }
    }

    @Test func aListingWithoutProgressIsMalformed() throws {
        try E2E.withScratch { s in
            try Self.writeLoopingXar(s, at: "w/loop.xar")
            let running = try s.start(
                E2E.ours(E2E.extractName), ["--list", s.path("w/loop.xar")], localeUTF8: false,
                env: ["ARCHIVER_STALL_SECONDS": "2"])
            Self.expectStop(running, signal: nil, status: 5, within: 4, leaving: ["loop.xar"], in: s)
        }
    }

    /// A slow but working reader is not malformed: 4 GiB of zeros take longer than the 1 s limit here.
    @Test func aSlowReaderThatProgressesIsNotStopped() throws {
        try E2E.withScratch { s in
            try s.mkdir("w")
            try SignalTests.makeSlowArchive(s, at: "w/huge.tar.gz", gib: 1)
            let out = try s.extract(["--to", s.path("out"), s.path("w/huge.tar.gz")], env: ["ARCHIVER_STALL_SECONDS": "1"])
            #expect(out.status == 0, "\(out)")
            #expect(E2E.size(s.path("out/big/zeros.bin")) == 1 << 30)
        }
    }

    // MARK: a stuck call in every tool

    @Test func compressionStuckWith7ZipRunning() throws {
        try E2E.withScratch { s in
            // 7-Zip is a dependency of the tool (CI installs the package 7zip): without it this test fails, not skips.
            try #require(
                FileManager.default.isExecutableFile(atPath: "/usr/bin/7zz"), "/usr/bin/7zz is missing: install the package 7zip")
            try SignalTests.makeRandomFolder(s, at: "w/Big", files: 2, megabytesEach: 16)
            let running = try s.start(
                E2E.ours(E2E.compressName), ["--format", "7z", s.path("w/Big")], localeUTF8: false, env: Self.hang)
            SignalTests.waitUntilUnderWay(running, folder: s.path("w"))
            var sevenZip: [Int32] = []
            let deadline = Date().addingTimeInterval(10)
            while sevenZip.isEmpty, Date() < deadline {
                sevenZip = Self.children(of: running.process.processIdentifier, named: "7zz")
                Thread.sleep(forTimeInterval: 0.05)
            }
            #expect(!sevenZip.isEmpty, "7zz was not running")
            Self.expectStop(running, signal: "SIGTERM", status: 8, leaving: ["Big"], in: s)
            for pid in sevenZip { #expect(Self.hasEnded(pid), "7zz \(pid) still runs") }
        }
    }

    @Test(arguments: [("zip", "SIGINT"), ("tar.zst", "SIGTERM")])
    func compressionStuck(format: String, signal: String) throws {
        try E2E.withScratch { s in
            try SignalTests.makeRandomFolder(s, at: "w/Big", files: 2, megabytesEach: 8)
            let running = try s.start(
                E2E.ours(E2E.compressName), ["--json", "--format", format, s.path("w/Big")], localeUTF8: false, env: Self.hang)
            SignalTests.waitUntilUnderWay(running, folder: s.path("w"))
            Self.expectStop(running, signal: signal, status: 8, leaving: ["Big"], in: s)
            #expect(E2E.int(running.wait().json?["exitCode"]) == 8, "\(running.wait())")
        }
    }

    @Test func compressionStuckRunsOutOfBudget() throws {
        try E2E.withScratch { s in
            try SignalTests.makeRandomFolder(s, at: "w/Big", files: 2, megabytesEach: 8)
            let started = Date()
            let out = try s.compress(["--time-budget", "2", "--format", "tar.xz", s.path("w/Big")], env: Self.hang)
            #expect(out.status == 9, "\(out)")
            #expect(Date().timeIntervalSince(started) < 4, "a 2 s budget took \(Date().timeIntervalSince(started)) s")
            #expect(E2E.list(s.path("w")) == ["Big"])
            #expect(E2E.leftovers(under: s.root).isEmpty)
        }
    }

    @Test(arguments: ["SIGTERM", "budget"])
    func extractionStuck(signal: String) throws {
        try E2E.withScratch { s in
            try s.mkdir("w")
            try SignalTests.makeSlowArchive(s, at: "w/huge.tar.gz", gib: 1)
            let budget = signal == "budget" ? ["--time-budget", "2"] : []
            let started = Date()
            let running = try s.start(
                E2E.ours(E2E.extractName), budget + [s.path("w/huge.tar.gz")], localeUTF8: false, env: Self.hang)
            SignalTests.waitUntilUnderWay(running, folder: s.path("w"), extra: 0.2)
            Self.expectStop(
                running, signal: signal == "budget" ? nil : signal, status: signal == "budget" ? 9 : 8,
                within: signal == "budget" ? 2 + 3 : 2, from: signal == "budget" ? started : nil, leaving: ["huge.tar.gz"], in: s)
        }
    }

    /// A PDF with pages of noisy photos, and the photos themselves, in `w`.
    static func makePhotosAndPDF(_ s: ScratchDirectory) throws {
        try s.mkdir("w")
        try s.python(
            """
            import sys
            from PIL import Image
            from reportlab.pdfgen import canvas
            from reportlab.lib.units import inch
            c = canvas.Canvas(sys.argv[1] + '/report.pdf', invariant=1)
            for i in range(3):
                Image.merge('RGB', [Image.effect_noise((2400, 1600), 60)] * 3).save(sys.argv[1] + '/photo%d.jpg' % i, quality=95)
                c.drawImage(sys.argv[1] + '/photo%d.jpg' % i, 72, 300, width=3 * inch, height=2 * inch)
                c.showPage()
            c.save()
            """, [s.path("w")])
    }

    @Test(arguments: ["SIGTERM", "budget"])
    func pdfCompressionStuck(signal: String) throws {
        try E2E.withScratch { s in
            try Self.makePhotosAndPDF(s)
            let before = E2E.list(s.path("w"))
            let budget = signal == "budget" ? ["--time-budget", "2"] : []
            let started = Date()
            let running = try s.start(
                E2E.ours("compress-pdf-with-archiver"), budget + [s.path("w/report.pdf")], localeUTF8: false, env: Self.hang)
            SignalTests.waitUntilUnderWay(running, folder: s.path("w"), extra: 0.2)
            Self.expectStop(
                running, signal: signal == "budget" ? nil : signal, status: signal == "budget" ? 9 : 8,
                within: signal == "budget" ? 2 + 3 : 2, from: signal == "budget" ? started : nil, leaving: before, in: s)
        }
    }

    @Test func photoCompressionStuck() throws {
        try E2E.withScratch { s in
            try Self.makePhotosAndPDF(s)
            let photos = ["photo0.jpg", "photo1.jpg", "photo2.jpg"].map { s.path("w/" + $0) }
            let running = try s.start(
                E2E.ours("compress-photos-with-archiver"), ["--json"] + photos, localeUTF8: false, env: Self.hang)
            let deadline = Date().addingTimeInterval(30)
            while running.isRunning, Date() < deadline, !E2E.list(s.path("w")).contains(where: { $0.contains("(compressed)") }) {
                Thread.sleep(forTimeInterval: 0.05)
            }
            Thread.sleep(forTimeInterval: 0.3)
            let sent = Date()
            running.process.interrupt()
            let out = running.wait(timeout: 60)
            #expect(out.status == 8, "\(out)")
            #expect(Date().timeIntervalSince(sent) < 2)
            #expect(E2E.leftovers(under: s.root).isEmpty)
            // The photos already finished are kept, complete; the one in progress is gone.
            for name in E2E.list(s.path("w")) where name.contains("(compressed)") {
                let check = try s.python("import sys; from PIL import Image; Image.open(sys.argv[1]).load()", [s.path("w/" + name)])
                #expect(check.status == 0, "\(name) is not a whole JPEG")
            }
        }
    }
}
