import ArchiverTestSupport
import Foundation
import Testing

/// `--resume` after a `kill -9`: every photo done exactly once, the copies those of an uninterrupted run.
@Suite struct PhotoResumeTests {
    /// 60 photos in `in/`, and the copies of an uninterrupted run in `reference/in/`.
    private func batch(_ scratch: ScratchDirectory) throws -> (input: String, reference: String) {
        let input = scratch.sub("in")
        try Photos.makeMany(input, count: 60)
        let reference = try Photos.run(["--no-notify", "-o", scratch.sub("reference"), input], in: scratch)
        #expect(reference.status == 0, "\(reference.stderr)")
        #expect(Photos.journals(in: scratch.sub("reference")).isEmpty, "a completed batch leaves no journal")
        return (input, scratch.sub("reference/in"))
    }

    /// The same 60 copies, byte for byte, and nothing else (no temporaries, no journal).
    private func expectComplete(_ out: String, like reference: String) throws {
        #expect(Photos.files(under: out + "/in") == Photos.files(under: reference))
        #expect(Photos.files(under: out + "/in").count == 60)
        for name in Photos.files(under: reference) {
            #expect(FileManager.default.contentsEqual(atPath: out + "/in/" + name, andPath: reference + "/" + name), "\(name)")
        }
        #expect(Photos.journals(in: out).isEmpty, "the journal goes when the batch completes")
        #expect(!FileManager.default.fileExists(atPath: out + "/in (2)"), "every run used the folder the first one claimed")
    }

    @Test func aKilledBatchIsResumedWithNothingDoneTwice() throws {
        let scratch = try ScratchDirectory()
        let (input, reference) = try batch(scratch)
        let out = scratch.sub("out")
        let first = try BackgroundRun(["--progress-json", "-o", out, input], in: scratch, log: "first")
        #expect(first.wait { Photos.journalSources(in: out).count >= 15 })
        first.signal(SIGKILL)
        _ = first.finish()
        let journaled = Set(Photos.journalSources(in: out))
        #expect(journaled.count >= 15 && journaled.count < 60, "killed in the middle: \(journaled.count)")
        let firstPhotos = Set(first.events("photo").compactMap { $0["source"] as? String })
        #expect(firstPhotos.isSubset(of: journaled), "every copy told was journaled first")

        let second = try BackgroundRun(["--resume", "--progress-json", "-o", out, input], in: scratch, log: "second")
        #expect(second.finish() == 0, "\(second.stderr)")
        let redone = second.events("photo").compactMap { $0["source"] as? String }
        #expect(Set(redone).isDisjoint(with: journaled), "nothing done twice")
        #expect(redone.count + journaled.count == 60 && Set(redone).count == redone.count)
        #expect(second.events.last?["resumed"] as? Int == journaled.count)
        #expect(second.events("progress").last?["done"] as? Int == 60)
        try expectComplete(out, like: reference)
    }

    @Test func aCrashLoopStillEndsWithEveryPhotoOnce() throws {
        let scratch = try ScratchDirectory()
        let (input, reference) = try batch(scratch)
        let out = scratch.sub("out")
        var done = Set<String>()
        // Killed at the start, then after a few photos, then half-way; each run resumes the last.
        for (index, atLeast) in [0, 5, 30].enumerated() {
            let run = try BackgroundRun(["--resume", "--progress-json", "-o", out, input], in: scratch, log: "run\(index)")
            if atLeast == 0 { usleep(150_000) } else { #expect(run.wait { Photos.journalSources(in: out).count >= atLeast }) }
            run.signal(SIGKILL)
            _ = run.finish()
            let told = run.events("photo").compactMap { $0["source"] as? String }
            #expect(Set(told).isDisjoint(with: done), "run \(index) redid a finished photo")
            done.formUnion(Photos.journalSources(in: out))
        }
        #expect(done.count < 60)
        let last = try BackgroundRun(["--resume", "--progress-json", "-o", out, input], in: scratch, log: "last")
        #expect(last.finish() == 0, "\(last.stderr)")
        let told = last.events("photo").compactMap { $0["source"] as? String }
        #expect(Set(told).isDisjoint(with: done) && told.count + done.count == 60)
        try expectComplete(out, like: reference)
    }

    @Test func withoutResumeAnInterruptedBatchIsMentioned() throws {
        let scratch = try ScratchDirectory()
        let (input, out, killed) = try BackgroundRun.slowBatch(scratch, folder: "in", count: 12)
        #expect(killed.wait { !Photos.journalSources(in: out).isEmpty })
        killed.signal(SIGKILL)
        _ = killed.finish()
        #expect(Photos.journals(in: out).count == 1)
        // A fresh start is the person's choice: it is made, and the way to resume is named.
        let fresh = try Photos.run(["--json", "-o", out, input], in: scratch)
        #expect(fresh.status == 0, "\(fresh.stderr)")
        #expect(fresh.stderr.contains("--resume"), "\(fresh.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(fresh.stdout.utf8)) as? [String: Any]
        #expect((json?["warningCodes"] as? [String]) == ["resumable"], "\(fresh.stdout)")
        #expect(Photos.files(under: out + "/in (2)").count == 12)
    }

    @Test func aLogoutLeavesTheBatchResumable() throws {
        let scratch = try ScratchDirectory()
        let (input, out, run) = try BackgroundRun.slowBatch(scratch, folder: "in", count: 16)
        #expect(run.wait { Photos.journalSources(in: out).count >= 2 })
        // SIGHUP is the session ending: the batch stops as on SIGTERM, but its journal stays.
        run.signal(SIGHUP)
        #expect(run.finish() == 8, "\(run.stderr)")
        let done = Photos.journalSources(in: out)
        #expect(Photos.journals(in: out).count == 1 && done.count < 16)
        let resumed = try Photos.run(["--resume", "--json", "-o", out, input], in: scratch)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(resumed.stdout.utf8)) as? [String: Any]
        #expect(json?["resumed"] as? Int == done.count && json?["photos"] as? Int == 16 - done.count, "\(resumed.stdout)")
        #expect(Photos.files(under: out + "/in").count == 16 && Photos.journals(in: out).isEmpty)
    }
}
