import ArchiverTestSupport
import Foundation
import Testing

/// A stop that does not wait for the extracting thread (a second Ctrl-C at once) while worker threads are
/// creating small files (issue 32): the workers are halted before the staging folder is removed, so nothing is
/// left, under a final name or a hidden one.
@Suite struct ManyFilesStopTests {
    @Test func aSecondInterruptAmongManySmallFilesLeavesNothing() throws {
        try E2E.withScratch { s in
            try s.mkdir("w")
            try s.python(
                """
                import sys, zipfile
                with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_STORED) as archive:
                    for i in range(30000):
                        archive.writestr(f"many/d{i // 1000:02}/f{i:05}.txt", b"x" * (i % 200))
                """, [s.path("w/many.zip")])
            let running = try s.start(E2E.ours(E2E.extractName), [s.path("w/many.zip")], localeUTF8: false)
            SignalTests.waitUntilUnderWay(running, folder: s.path("w"), extra: 0.3)
            running.process.interrupt()
            running.process.interrupt()
            let out = running.wait(timeout: 60)
            #expect(out.status == 8 && !out.uncaughtSignal, "\(out)")
            #expect(E2E.list(s.path("w")) == ["many.zip"], "left behind: \(E2E.list(s.path("w")))")
            #expect(E2E.leftovers(under: s.root).isEmpty)
        }
    }

    /// The stall watch counts the extracting thread's own reads and writes; a tar.gz is read by another thread,
    /// and most files are written by workers, so the extracting thread must keep writing some itself.
    @Test func manySmallFilesFromATarGzAreNotTakenForAStall() throws {
        try E2E.withScratch { s in
            try s.mkdir("w")
            try s.python(
                """
                import io, sys, tarfile
                with tarfile.open(sys.argv[1], "w:gz") as archive:
                    for i in range(10000):
                        data = b"y" * (1 + i % 300)
                        info = tarfile.TarInfo(f"many/d{i // 1000:02}/f{i:05}.txt"); info.size = len(data)
                        archive.addfile(info, io.BytesIO(data))
                """, [s.path("w/many.tar.gz")])
            let started = Date()
            let out = try s.start(
                E2E.ours(E2E.extractName), ["--no-notify", "--to", s.path("dest"), s.path("w/many.tar.gz")], localeUTF8: false,
                env: ["ARCHIVER_STALL_SECONDS": "1"]
            ).wait(timeout: 300)
            let took = Date().timeIntervalSince(started)
            #expect(out.status == 0, "\(out)")
            #expect(E2E.list(s.path("dest")) == ["many"])
            // Shorter than the stall limit proves nothing.
            #expect(took > 1, "took only \(took) s")
        }
    }

    /// When decoding is the slow part (a tar.xz of files of 200 KB, literals that LZMA decodes slowest) the queue
    /// never fills, so the extracting thread only reads from memory (the file is read by `ReadAhead`'s thread)
    /// and never writes: the work of the helper threads must count as progress. Some 50 MB, so that it lasts
    /// over a second past the first one (when the sleep inhibitor's call writes on the extracting thread);
    /// shorter proves nothing.
    @Test func aSlowlyDecodedTarXzIsNotTakenForAStall() throws {
        try E2E.withScratch { s in
            try s.mkdir("w")
            try s.python(
                """
                import io, os, sys, tarfile
                table = bytes(i % 128 for i in range(256))
                with tarfile.open(sys.argv[1], "w:xz", preset=0) as archive:
                    for i in range(250):
                        data = os.urandom(200_000).translate(table)
                        info = tarfile.TarInfo(f"big/f{i:03}.bin"); info.size = len(data)
                        archive.addfile(info, io.BytesIO(data))
                """, [s.path("w/big.tar.xz")])
            let started = Date()
            let out = try s.start(
                E2E.ours(E2E.extractName), ["--no-notify", "--to", s.path("dest"), s.path("w/big.tar.xz")], localeUTF8: false,
                env: ["ARCHIVER_STALL_SECONDS": "1"]
            ).wait(timeout: 300)
            let took = Date().timeIntervalSince(started)
            #expect(out.status == 0, "\(out)")
            #expect(E2E.list(s.path("dest")) == ["big"])
            #expect(took > 2, "took only \(took) s")
        }
    }
}
