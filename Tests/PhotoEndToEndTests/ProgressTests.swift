import ArchiverTestSupport
import Foundation
import Testing

/// `--progress-json` as the Compress Photos window reads it, and SIGUSR1/SIGUSR2 pause and resume.
@Suite struct PhotoProgressTests {
    private func temporaries(under folder: String) -> [String] {
        Photos.files(under: folder).filter { ($0 as NSString).lastPathComponent.hasPrefix(".archiver-") && $0.hasSuffix(".tmp") }
    }

    @Test func eachPhotoIsAnEventAndProgressCountsPhotos() throws {
        let scratch = try ScratchDirectory()
        let album = scratch.sub("Album")
        try Photos.makeMany(album, count: 3)
        try Photos.makeJPEG(scratch.sub("whole.jpg"), width: 1200, height: 900)
        let whole = try Data(contentsOf: URL(fileURLWithPath: scratch.sub("whole.jpg")))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: album + "/p04.jpg"))
        let run = try BackgroundRun(["--progress-json", "-o", scratch.sub("out"), album], in: scratch)
        #expect(run.finish() == 1, "one failed: exit 1; \(run.stderr)")
        let events = run.events
        #expect(events.last?["event"] as? String == "result")
        #expect((events.last?["photos"] as? Int) == 3)
        let photos = run.events("photo")
        #expect(photos.count == 4)
        let failed = photos.filter { $0["outcome"] as? String == "failed" }
        #expect(failed.count == 1 && failed[0]["path"] is NSNull && (failed[0]["source"] as? String)?.hasSuffix("/p04.jpg") == true)
        #expect((failed.first?["message"] as? String)?.contains("damaged") == true, "\(failed)")
        for photo in photos where photo["outcome"] as? String == "compressed" {
            let path = try #require(photo["path"] as? String)
            #expect(Photos.size(path) == photo["size"] as? Int64 ?? Int64(photo["size"] as? Int ?? -1))
            #expect(photo["width"] as? Int == 1600 && photo["height"] as? Int == 1200)
            #expect(photo["outWidth"] as? Int == 1500 && photo["outHeight"] as? Int == 1125)
            #expect((photo["inputSize"] as? Int ?? 0) > (photo["size"] as? Int ?? .max))
        }
        let progress = run.events("progress")
        #expect(progress.last?["done"] as? Int == 4 && progress.last?["total"] as? Int == 4, "\(progress.last ?? [:])")
        #expect((progress.last?["savedBytes"] as? Int ?? 0) > 0)
        #expect(progress.allSatisfy { ($0["current"] as? String)?.hasPrefix(album + "/") == true })
    }

    @Test func pauseHoldsTheWorkersAndResumeGoesOn() throws {
        let scratch = try ScratchDirectory()
        let (_, out, run) = try BackgroundRun.slowBatch(scratch, folder: "Album", count: 24)
        #expect(run.wait { !run.events("photo").isEmpty })
        run.signal(SIGUSR1)
        #expect(run.wait(timeout: 20) { !run.events("paused").isEmpty }, "\(run.stderr)")
        let atPause = run.events("photo").count
        usleep(1_500_000)
        #expect(run.events("photo").count == atPause, "nothing is finished while paused")
        #expect(temporaries(under: out).isEmpty, "no photo in hand while paused")
        #expect(atPause < 24)
        run.signal(SIGUSR2)
        #expect(run.wait(timeout: 10) { !run.events("resumed").isEmpty })
        #expect(run.finish() == 0, "\(run.stderr)")
        let names = run.events.compactMap { $0["event"] as? String }
        #expect(names.firstIndex(of: "paused")! < names.firstIndex(of: "resumed")!)
        #expect(run.events("photo").count == 24)
        #expect(Photos.files(under: out + "/Album").count == 24)
    }

    @Test func pausedTimeIsNotCountedByTheBudget() throws {
        let scratch = try ScratchDirectory()
        let album = scratch.sub("Album")
        try Photos.makeMany(album, count: 6)
        // Nor is it a stall: the watchdog's limit is 1 s here.
        let run = try BackgroundRun(
            ["--progress-json", "--workers", "1", "--time-budget", "3", "-o", scratch.sub("out"), album], in: scratch,
            environment: ["ARCHIVER_STALL_SECONDS": "1"])
        #expect(run.wait { !run.events("progress").isEmpty })
        run.signal(SIGUSR1)
        #expect(run.wait(timeout: 10) { !run.events("paused").isEmpty })
        usleep(4_500_000)
        run.signal(SIGUSR2)
        #expect(run.finish() == 0, "the 4.5 s paused are not work: \(run.stderr)")
        #expect(run.events("photo").count == 6)
    }

    @Test func cancelWhilePausedStopsAtOnceAndKeepsTheFinished() throws {
        let scratch = try ScratchDirectory()
        let (_, out, run) = try BackgroundRun.slowBatch(scratch, folder: "Album", count: 24, workers: 2)
        #expect(run.wait { run.events("photo").count >= 2 })
        run.signal(SIGUSR1)
        #expect(run.wait(timeout: 20) { !run.events("paused").isEmpty })
        let start = Date()
        run.signal(SIGTERM)
        #expect(run.finish() == 8, "\(run.stderr)")
        #expect(Date().timeIntervalSince(start) < 3, "stopped at once")
        let finished = run.events("photo").compactMap { $0["path"] as? String }
        #expect(finished.count < 24)
        #expect(Photos.files(under: out + "/Album").count == finished.count, "the finished copies are kept, nothing else")
        #expect(finished.allSatisfy { FileManager.default.fileExists(atPath: $0) })
        #expect(temporaries(under: out).isEmpty)
        #expect(Photos.journals(in: out).isEmpty, "a cancelled batch is not resumed")
        #expect(run.events.last?["event"] as? String == "result")
    }
}
