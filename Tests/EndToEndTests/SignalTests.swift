import ArchiverTestSupport
import Foundation
import Testing

/// Ctrl-C, SIGTERM and the time budget: exit 8 (or 9), no output under a final name, no `.archiver-*` left.
/// The signal is sent once the job is under way (its hidden temporary exists) so it lands mid-job.
@Suite struct SignalTests {
    /// ~48 MB of random bytes in 3 files: tar.xz/7z at `maximum` takes many seconds on it.
    static func makeSlowInput(_ s: ScratchDirectory, at relative: String) throws {
        try makeRandomFolder(s, at: relative, files: 3, megabytesEach: 16)
    }

    /// A folder of `files` files of random bytes (incompressible, so the work takes its time).
    static func makeRandomFolder(_ s: ScratchDirectory, at relative: String, files: Int, megabytesEach: Int) throws {
        try s.python(
            """
            import os, sys
            os.makedirs(sys.argv[1])
            for i in range(int(sys.argv[2])):
                with open(os.path.join(sys.argv[1], 'part%d.bin' % i), 'wb') as f:
                    f.write(os.urandom(int(sys.argv[3]) << 20))
            """, [s.path(relative), String(files), String(megabytesEach)])
    }

    /// A tar.gz holding one file of `gib` GiB of zeros, written cheaply as concatenated gzip members (a
    /// valid multi-member gzip stream): small on disk, seconds of work to extract.
    static func makeSlowArchive(_ s: ScratchDirectory, at relative: String, gib: Int) throws {
        try s.python(
            """
            import zlib, struct, sys, tarfile
            arc, gib = sys.argv[1], int(sys.argv[2])
            chunk = 64 << 20
            n = gib * 16
            def gz(data):
                c = zlib.compressobj(1, zlib.DEFLATED, -15)
                return (b'\\x1f\\x8b\\x08\\x00\\x00\\x00\\x00\\x00\\x00\\xff' + c.compress(data) + c.flush()
                        + struct.pack('<II', zlib.crc32(data), len(data) & 0xffffffff))
            info = tarfile.TarInfo('big/zeros.bin'); info.size = n * chunk; info.mtime = 1600000000; info.mode = 0o644
            d = tarfile.TarInfo('big'); d.type = tarfile.DIRTYPE; d.mode = 0o755; d.mtime = 1600000000
            member = gz(bytes(chunk))
            with open(arc, 'wb') as f:
                f.write(gz(d.tobuf(format=tarfile.PAX_FORMAT) + info.tobuf(format=tarfile.PAX_FORMAT)))
                for _ in range(n): f.write(member)
                f.write(gz(bytes(1024)))
            """, [s.path(relative), String(gib)])
    }

    /// Waits until a `.archiver-` temporary appears in `folder` (the job is under way), then `extra` seconds.
    /// Records an issue if the process ends first.
    static func waitUntilUnderWay(_ running: Running, folder: String, extra: TimeInterval = 0.5,
                                  sourceLocation: SourceLocation = #_sourceLocation) {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline && running.isRunning
            && !E2E.list(folder).contains(where: { $0.hasPrefix(".archiver-") })
        {
            Thread.sleep(forTimeInterval: 0.02)
        }
        if running.isRunning { Thread.sleep(forTimeInterval: extra) }
        #expect(running.isRunning, "the job ended before it could be interrupted; make the input bigger",
                sourceLocation: sourceLocation)
    }

    /// Sends `signal`, then expects exit 8 within 10 s, only `remaining` left in `w`, no temporaries anywhere.
    @discardableResult
    static func stop(_ running: Running, with signal: String, leaving remaining: [String], in s: ScratchDirectory,
                     sourceLocation: SourceLocation = #_sourceLocation) -> Outcome {
        let sent = Date()
        if signal == "SIGINT" { running.process.interrupt() } else { running.process.terminate() }
        let out = running.wait(timeout: 60)
        let took = Date().timeIntervalSince(sent)
        #expect(out.status == 8 && !out.uncaughtSignal, "\(signal): \(out)", sourceLocation: sourceLocation)
        #expect(took < 10, "cancellation took \(took) s", sourceLocation: sourceLocation)
        #expect(E2E.list(s.path("w")) == remaining, "left behind: \(E2E.list(s.path("w")))", sourceLocation: sourceLocation)
        #expect(E2E.leftovers(under: s.root).isEmpty, sourceLocation: sourceLocation)
        return out
    }

    @Test(arguments: [("tar.xz", "SIGINT"), ("7z", "SIGTERM"), ("tar.zst", "SIGINT")])
    func compressionIsCancelled(format: String, signal: String) throws {
        try E2E.withScratch("cancel-compress-\(format)") { s in
            try Self.makeSlowInput(s, at: "w/Big")
            let running = try s.start(
                E2E.ours(E2E.compressName), ["--json", "--format", format, "--level", "maximum", s.path("w/Big")], localeUTF8: false)
            Self.waitUntilUnderWay(running, folder: s.path("w"))
            let out = Self.stop(running, with: signal, leaving: ["Big"], in: s)
            if let json = out.json {
                #expect(E2E.int(json["exitCode"]) == 8, "\(json)")
                #expect(E2E.int((json["error"] as? [String: Any])?["code"]) == 8, "\(json)")
            } else {
                Issue.record("--json printed no JSON object when cancelled: \(out)")
            }
        }
    }

    /// A split archive's parts are all staged together: a stop leaves no part, whoever writes them.
    @Test(arguments: ["7z", "tar.xz"])
    func splitCompressionIsCancelled(format: String) throws {
        try E2E.withScratch("cancel-split-\(format)") { s in
            try Self.makeSlowInput(s, at: "w/Big")
            let running = try s.start(
                E2E.ours(E2E.compressName), ["--split", "1M", "--format", format, "--level", "maximum", s.path("w/Big")],
                localeUTF8: false)
            Self.waitUntilUnderWay(running, folder: s.path("w"), extra: 1.5)
            Self.stop(running, with: "SIGTERM", leaving: ["Big"], in: s)
        }
    }

    @Test(arguments: ["SIGTERM", "SIGINT"])
    func extractionIsCancelled(signal: String) throws {
        try E2E.withScratch("cancel-extract-\(signal)") { s in
            try s.mkdir("w")
            try Self.makeSlowArchive(s, at: "w/huge.tar.gz", gib: 4)
            let running = try s.start(E2E.ours(E2E.extractName), [s.path("w/huge.tar.gz")], localeUTF8: false)
            Self.waitUntilUnderWay(running, folder: s.path("w"), extra: 0.3)
            Self.stop(running, with: signal, leaving: ["huge.tar.gz"], in: s)
        }
    }

    @Test func compressionTimeBudget() throws {
        try E2E.withScratch { s in
            try Self.makeSlowInput(s, at: "w/Big")
            let started = Date()
            let out = try s.compress(["--json", "--time-budget", "1", "--format", "tar.xz", "--level", "maximum", s.path("w/Big")])
            let took = Date().timeIntervalSince(started)
            #expect(out.status == 9, "\(out)")
            #expect(took < 12, "a 1 s budget took \(took) s")
            #expect(E2E.list(s.path("w")) == ["Big"])
            #expect(E2E.leftovers(under: s.root).isEmpty)
            #expect(E2E.int(out.json?["exitCode"]) == 9, "\(out.stdout)")
        }
    }

    @Test func extractionTimeBudget() throws {
        try E2E.withScratch { s in
            try s.mkdir("w")
            try Self.makeSlowArchive(s, at: "w/huge.tar.gz", gib: 4)
            let started = Date()
            let out = try s.extract(["--time-budget", "1", "--to", s.path("dest"), s.path("w/huge.tar.gz")])
            let took = Date().timeIntervalSince(started)
            #expect(out.status == 9, "\(out)")
            #expect(took < 12, "a 1 s budget took \(took) s")
            #expect(E2E.list(s.path("dest")).isEmpty, "\(E2E.list(s.path("dest")))")
            #expect(E2E.list(s.path("w")) == ["huge.tar.gz"])
            #expect(E2E.leftovers(under: s.root).isEmpty)
        }
    }
}
