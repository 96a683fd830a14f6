import ArchiverTestSupport
import Foundation
import Testing

/// The statistics store (`$XDG_DATA_HOME/io.github.archiver/statistics.ini`) as the real executables write
/// it, read back by GLib's own GKeyFile: the figures add up, concurrent writers lose nothing, and a killed,
/// busy, damaged or unwritable store never fails a job.
@Suite struct StatisticsTests {
    static let lockHeld = "/usr/bin/flock"

    /// The scratch's own store, and the environment that points the executables at it.
    static func store(_ s: ScratchDirectory) -> (data: String, env: [String: String?]) {
        let data = s.path("data")
        return (data, ["XDG_DATA_HOME": data])
    }

    static func size(_ path: String) -> Int64 { Int64(E2E.size(path) ?? -1) }

    /// The local date as the store names its day groups.
    static func today() -> String {
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.dateFormat = "yyyy-MM-dd"
        return format.string(from: Date())
    }

    @Test func archivesMadeAndExtractedAddUpAndForgetStatisticsClearsThem() throws {
        try E2E.withScratch { s in
            let (data, env) = Self.store(s)
            let text = String(repeating: "statistics add up, and this compresses well. ", count: 3000)
            let a = try s.write("Docs/a.txt", text)
            let b = try s.write("Docs/b.txt", text + "b")
            let one = try s.write("one.txt", text + "one")
            let random = try s.write("random.bin", data: SampleTree.randomData(20_000))
            let dayBefore = Self.today()
            // Four archives from three jobs: a folder, --each (the random one grows), two items in a tar.gz.
            for arguments in [["Docs"], ["--each", "one.txt", "random.bin"], ["--format", "tar.gz", "--name", "Both", "one.txt", "random.bin"]] {
                let job = try s.compress(arguments, env: env)
                #expect(job.status == 0, "\(job)")
                #expect(!job.stderr.contains("statistics"), "\(job)")
            }
            try s.mkdir("out")
            for archive in ["Docs.zip", "Both.tar.gz"] {
                let job = try s.extract(["--to", s.path("out"), archive], env: env)
                #expect(job.status == 0, "\(job)")
            }
            let dayAfter = Self.today()

            let sizes = (a: Self.size(a), b: Self.size(b), one: Self.size(one), random: Self.size(random))
            let made = StatisticsFile.expected(
                "archives-made",
                [
                    (sizes.a + sizes.b, Self.size(s.path("Docs.zip"))), (sizes.one, Self.size(s.path("one.zip"))),
                    (sizes.random, Self.size(s.path("random.zip"))), (sizes.one + sizes.random, Self.size(s.path("Both.tar.gz"))),
                ])
            let extracted = StatisticsFile.expected(
                "archives-extracted",
                [(Self.size(s.path("Docs.zip")), sizes.a + sizes.b), (Self.size(s.path("Both.tar.gz")), sizes.one + sizes.random)])
            let store = try StatisticsFile.read(dataHome: data)
            #expect(store["all-time"] == made.merging(extracted) { $1 }, "\(store)")
            #expect(made["archives-made-smaller"] == 3 && (made["archives-made-bytes-saved"] ?? 0) > 100_000)
            // One day so far, holding the same figures as all time.
            let days = store.keys.filter { $0 != "all-time" && $0 != "store" }
            #expect(days.count == 1 && [dayBefore, dayAfter].contains(days.first ?? ""), "\(days)")
            #expect(days.first.flatMap { store[$0] } == store["all-time"])
            #expect(store["store"]?["version"] == 1)

            let forget = try s.compress(["--forget-statistics"], env: env)
            #expect(forget.status == 0, "\(forget)")
            #expect(forget.stdout.contains("Cleared Archiver's statistics."), "\(forget)")
            #expect(try StatisticsFile.read(dataHome: data).isEmpty)
            #expect(!FileManager.default.fileExists(atPath: StatisticsFile.path(dataHome: data)))
        }
    }

    @Test func rememberRecentOffKeepsNoStatistics() throws {
        try E2E.withScratch { s in
            let (data, env) = Self.store(s)
            try s.write("a.txt", "not counted")
            let settings: [String: String?] = ["GSETTINGS_BACKEND": "keyfile", "XDG_CONFIG_HOME": s.path("config")]
            let set = try s.run("/usr/bin/gsettings", ["set", "io.github.archiver", "remember-recent", "false"], env: settings)
            #expect(set.status == 0, "\(set)")
            let job = try s.compress(["a.txt"], env: env.merging(settings) { $1 })
            #expect(job.status == 0, "\(job)")
            #expect(E2E.exists(s.path("a.zip")))
            #expect(!E2E.exists(StatisticsFile.path(dataHome: data)))
        }
    }

    @Test func twentyConcurrentWritersLoseNoUpdate() throws {
        try E2E.withScratch { s in
            let (data, env) = Self.store(s)
            let count = 20
            let inputs = try (1...count).map { try s.write("f\($0).txt", String(repeating: "x", count: 100 * $0)) }
            let jobs = try inputs.map { try s.start(E2E.ours(E2E.compressName), [$0], localeUTF8: false, env: env) }
            let outcomes = jobs.map { $0.wait() }
            for outcome in outcomes {
                #expect(outcome.status == 0, "\(outcome)")
                #expect(!outcome.stderr.contains("statistics"), "\(outcome)")
            }
            let figures = try StatisticsFile.allTime(dataHome: data)
            #expect(figures["archives-made"] == Int64(count), "\(figures)")
            #expect(figures["archives-made-bytes-before"] == Int64(100 * count * (count + 1) / 2), "\(figures)")
            let after = (1...count).reduce(Int64(0)) { $0 + Self.size(s.path("f\($1).zip")) }
            #expect(figures["archives-made-bytes-after"] == after)
        }
    }

    /// Starts a job that stops inside the store's lock (the test hook), once the lock is seen held.
    static func writerHoldingTheLock(_ s: ScratchDirectory, data: String, env: [String: String?], input: String) throws -> Running {
        let paused = try s.start(
            E2E.ours(E2E.compressName), [input], localeUTF8: false,
            env: env.merging(["ARCHIVER_STATISTICS_PAUSE": "60"]) { $1 })
        let lock = data + "/io.github.archiver/statistics.lock"
        let deadline = Date().addingTimeInterval(60)
        // util-linux's flock -n fails (1) while another process holds the lock.
        while Date() < deadline, paused.isRunning {
            if E2E.exists(lock), try s.run(lockHeld, ["-n", lock, "/bin/true"]).status == 1 { return paused }
            Thread.sleep(forTimeInterval: 0.05)
        }
        Issue.record("the paused writer never held the lock: \(paused.wait(timeout: 1))")
        throw E2E.E2EError.failed("no writer in the lock")
    }

    @Test func aWriterKilledInsideTheLockLeavesTheStoreValidAndTheNextWriterCounts() throws {
        try E2E.withScratch { s in
            let (data, env) = Self.store(s)
            for name in ["first", "killed", "next"] { try s.write("\(name).txt", "counted \(name)") }
            #expect(try s.compress(["first.txt"], env: env).status == 0)
            let stored = try StatisticsFile.read(dataHome: data)
            #expect(stored["all-time"]?["archives-made"] == 1)

            let paused = try Self.writerHoldingTheLock(s, data: data, env: env, input: "killed.txt")
            #expect(try s.run("/bin/kill", ["-KILL", String(paused.process.processIdentifier)]).status == 0)
            let killed = paused.wait(timeout: 30)
            #expect(killed.uncaughtSignal, "\(killed)")
            // The archive was made before the kill; the store is as the first job left it, whole.
            #expect(E2E.exists(s.path("killed.zip")))
            #expect(try StatisticsFile.read(dataHome: data) == stored)
            #expect(E2E.list(data + "/io.github.archiver") == ["statistics.ini", "statistics.lock"])

            let next = try s.compress(["next.txt"], env: env)
            #expect(next.status == 0, "\(next)")
            #expect(!next.stderr.contains("statistics"), "\(next)")
            #expect(try StatisticsFile.allTime(dataHome: data)["archives-made"] == 2)
        }
    }

    @Test func aBusyStoreDelaysAJobAtMostASecondAndDoesNotFailIt() throws {
        try E2E.withScratch { s in
            let (data, env) = Self.store(s)
            for name in ["held", "busy", "after"] { try s.write("\(name).txt", "counted \(name)") }
            let paused = try Self.writerHoldingTheLock(s, data: data, env: env, input: "held.txt")
            defer { _ = try? s.run("/bin/kill", ["-KILL", String(paused.process.processIdentifier)]) }
            let start = Date()
            let busy = try s.compress(["busy.txt"], env: env)
            let elapsed = Date().timeIntervalSince(start)
            #expect(busy.status == 0, "\(busy)")
            #expect(E2E.exists(s.path("busy.zip")))
            #expect(busy.stderr.contains("warning: This job is not counted in Archiver's statistics: another Archiver job held the statistics file for too long."), "\(busy)")
            // The lock is tried for one second; the paused writer would hold it for a minute.
            #expect(elapsed < 15, "took \(elapsed) s")
            #expect(try StatisticsFile.allTime(dataHome: data).isEmpty)
            _ = try s.run("/bin/kill", ["-KILL", String(paused.process.processIdentifier)])
            _ = paused.wait(timeout: 30)
            #expect(try s.compress(["after.txt"], env: env).status == 0)
            #expect(try StatisticsFile.allTime(dataHome: data)["archives-made"] == 1)
        }
    }

    @Test(arguments: [
        ("not a key file", Data("garbage\u{0}[[[\n".utf8) + Data([0xFF, 0xFE])),
        ("a figure that is no number", Data("[all-time]\narchives-made=many\n".utf8)),
        ("a negative figure", Data("[all-time]\narchives-made=-4\n".utf8)),
        ("a group that is no date", Data("[yesterday]\narchives-made=1\n".utf8)),
    ])
    func aDamagedStoreIsKeptAsideWithAWarningAndTheJobSucceeds(_ damage: String, _ content: Data) throws {
        try E2E.withScratch { s in
            let (data, env) = Self.store(s)
            try s.write("a.txt", "counted after \(damage)")
            let file = StatisticsFile.path(dataHome: data)
            try s.write("data/io.github.archiver/statistics.ini", data: content)
            let job = try s.compress(["a.txt"], env: env)
            #expect(job.status == 0, "\(damage): \(job)")
            #expect(E2E.exists(s.path("a.zip")))
            #expect(job.stderr.contains("warning: The statistics file \(file) was damaged"), "\(damage): \(job)")
            #expect(job.stderr.contains("it is kept as \(file).corrupt"), "\(job)")
            #expect(E2E.read(file + ".corrupt") == content, "\(damage)")
            #expect(try StatisticsFile.allTime(dataHome: data)["archives-made"] == 1, "\(damage)")
        }
    }

    @Test func anUnwritableStoreDoesNotFailTheJob() throws {
        try E2E.withScratch { s in
            let (data, env) = Self.store(s)
            try s.write("a.txt", "not counted")
            // A file where the store's folder belongs: no process, root included, can make the store there.
            try s.write("data/io.github.archiver", "in the way")
            let job = try s.compress(["a.txt"], env: env)
            #expect(job.status == 0, "\(job)")
            #expect(E2E.exists(s.path("a.zip")))
            #expect(job.stderr.contains("warning: This job is not counted in Archiver's statistics: Not a directory."), "\(job)")
            #expect(E2E.text(data + "/io.github.archiver") == "in the way")
            // Clearing what cannot be reached is a failure a script sees: 7, the destination cannot be written.
            let forget = try s.extract(["--forget-statistics"], env: env)
            #expect(forget.status == 7, "\(forget)")
        }
    }
}
