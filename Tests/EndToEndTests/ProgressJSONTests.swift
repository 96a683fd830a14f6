import ArchiverTestSupport
import Foundation
import Testing

/// `--progress-json`, the stream a window reads from its child: every line one JSON object, progress at
/// most ten times a second, entries as they are listed, and last the object `--json` prints.
@Suite struct ProgressJSONTests {
    /// Every line of `stdout` as a JSON object; an issue for each line that is not one.
    static func events(_ out: String, sourceLocation: SourceLocation = #_sourceLocation) -> [[String: Any]] {
        #expect(out.isEmpty || out.hasSuffix("\n"), "the last line is complete", sourceLocation: sourceLocation)
        return out.split(separator: "\n", omittingEmptySubsequences: false).dropLast().compactMap { line in
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            if object == nil { Issue.record("not a JSON object: \(line.prefix(300))", sourceLocation: sourceLocation) }
            return object
        }
    }

    /// The last event, which must be the only result; its object without `event`.
    static func result(_ events: [[String: Any]], sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        #expect(events.filter { $0["event"] as? String == "result" }.count == 1, "one result", sourceLocation: sourceLocation)
        var last = try #require(events.last, "no events", sourceLocation: sourceLocation)
        #expect(last["event"] as? String == "result", "the result is the last line: \(last)", sourceLocation: sourceLocation)
        last["event"] = nil
        return last
    }

    static func without(_ key: String, _ object: [String: Any]) -> NSDictionary {
        var object = object
        object[key] = nil
        return object as NSDictionary
    }

    /// About 50 MB of random data in five files: seconds of work, so progress has something to say.
    static func makeBigFolder(_ s: ScratchDirectory, at relative: String) throws {
        try SignalTests.makeRandomFolder(s, at: relative, files: 5, megabytesEach: 10)
    }

    @Test func compressAndExtractStreamRisingProgressThenTheJSONResult() throws {
        try E2E.withScratch { s in
            try Self.makeBigFolder(s, at: "w/Big")
            let out = try s.compress(["--progress-json", "--format", "zip", s.path("w/Big")])
            #expect(out.status == 0, "\(out)")
            let events = Self.events(out.stdout)
            let result = try Self.result(events)
            let progress = events.dropLast()
            #expect(progress.allSatisfy { $0["event"] as? String == "progress" }, "only progress before the result")
            #expect(progress.count >= 3, "\(progress.count) progress events")
            let done = progress.compactMap { E2E.int($0["done"]) }
            let fractions = progress.compactMap { E2E.double($0["fraction"]) }
            #expect(done.count == progress.count && fractions.count == progress.count, "done and fraction are numbers")
            #expect(zip(done, done.dropFirst()).allSatisfy { $0 < $1 }, "done rises: \(done)")
            #expect(fractions.allSatisfy { (0...1).contains($0) } && fractions.last == 1, "\(fractions)")
            #expect(progress.allSatisfy { E2E.int($0["total"]) == 50 << 20 && E2E.double($0["rate"]) != nil })
            #expect(progress.allSatisfy { $0["remaining"] is NSNull || E2E.double($0["remaining"]) != nil })
            // At most ten a second, plus the first and the one at 100 %.
            let seconds = try #require(E2E.double(result["durationSeconds"]))
            #expect(Double(progress.count) <= seconds * 10 + 3, "\(progress.count) events in \(seconds) s")

            #expect(E2E.int(result["exitCode"]) == 0 && E2E.isNull(result["error"]), "\(result)")
            let outputs = try #require(result["outputs"] as? [[String: Any]])
            #expect(outputs.first?["path"] as? String == s.path("w/Big.zip"))
            #expect(E2E.int(outputs.first?["size"]) == E2E.size(s.path("w/Big.zip")))
            // The same object --json prints, field for field.
            let json = try s.compress(["--json", "--format", "zip", s.path("w/Big")])
            let plain = try #require(json.json, "\(json)")
            #expect(Array(plain.keys).sorted() == Array(result.keys).sorted())
            #expect(!out.stderr.contains("\r"), "no terminal progress line")

            // Extraction streams the same way.
            let x = try s.extract(["--progress-json", "--to", s.path("dest"), s.path("w/Big.zip")])
            #expect(x.status == 0, "\(x)")
            let xEvents = Self.events(x.stdout)
            let xResult = try Self.result(xEvents)
            let xDone = xEvents.dropLast().compactMap { E2E.int($0["done"]) }
            #expect(xDone.count >= 2 && zip(xDone, xDone.dropFirst()).allSatisfy { $0 < $1 }, "\(xDone)")
            #expect(E2E.int(xResult["exitCode"]) == 0)
            #expect((xResult["results"] as? [[String: Any]])?.first?["output"] as? String == s.path("dest/Big"))
            #expect(E2E.list(s.path("dest/Big")).count == 5)
        }
    }

    @Test(arguments: ["zip", "tar.gz", "7z"])
    func listStreamsEveryEntryInOrderThenTheResult(format: String) throws {
        try E2E.withScratch("list-events-\(format)") { s in
            try Tree.makeRich(at: s.path("Tree"))
            let made = try s.compress(["--format", format, s.path("Tree")])
            #expect(made.status == 0, "\(made)")
            let archive = s.path("Tree.\(format)")
            let plain = try s.extract(["--list", "--json", archive])
            let expected = try #require(((plain.json?["archives"] as? [[String: Any]])?.first?["entries"]) as? [[String: Any]], "\(plain)")
            #expect(expected.count > 20, "\(expected.count) entries")

            let out = try s.extract(["--list", "--progress-json", archive])
            #expect(out.status == 0, "\(out)")
            let events = Self.events(out.stdout)
            let result = try Self.result(events)
            let entries = events.dropLast()
            #expect(entries.allSatisfy { $0["event"] as? String == "entry" })
            #expect(entries.map { Self.without("event", $0) } == expected.map { $0 as NSDictionary }, "the --list --json entries, in order")
            #expect(Array(result.keys).sorted() == (plain.json.map { Array($0.keys) } ?? []).sorted())
            let listed = try #require((result["archives"] as? [[String: Any]])?.first)
            #expect(listed["entries"] == nil, "the entries are the events, not repeated in the result")
            #expect(E2E.int(listed["entryCount"]) == expected.count)
            #expect(E2E.int(result["exitCode"]) == 0)
        }
    }

    /// A tar.gz whose listing must inflate 4 GiB: the entries before that work arrive while it is done.
    @Test func entriesArriveWhileTheListingRuns() throws {
        try E2E.withScratch { s in
            try s.mkdir("w")
            try SignalTests.makeSlowArchive(s, at: "w/huge.tar.gz", gib: 4)
            let running = try s.start(E2E.ours(E2E.extractName), ["--list", "--progress-json", s.path("w/huge.tar.gz")], localeUTF8: false)
            let deadline = Date().addingTimeInterval(30)
            var early = ""
            while Date() < deadline, running.isRunning, !early.contains("big/zeros.bin") {
                Thread.sleep(forTimeInterval: 0.01)
                early = running.stdoutSoFar
            }
            #expect(running.isRunning, "both entries were shown before the listing ended: \(early)")
            #expect(!early.contains("\"result\""))
            let out = running.wait()
            #expect(out.status == 0, "\(out)")
            let events = Self.events(out.stdout)
            #expect(events.compactMap { $0["path"] as? String } == ["big/", "big/zeros.bin"], "\(out.stdout.prefix(500))")
            #expect(E2E.int(try Self.result(events)["exitCode"]) == 0)
        }
    }

    /// A tar.gz cut short: listing shows what it could read, then a result that says "corrupt";
    /// extracting says so too and writes nothing.
    @Test func aCorruptArchiveEndsWithACorruptResult() throws {
        try E2E.withScratch { s in
            try Tree.makeRich(at: s.path("src/Data"))
            try s.write("src/Data/zz1.bin", data: SampleTree.randomData(300_000))
            try s.write("src/Data/zz2.bin", data: SampleTree.randomData(300_000))
            let made = try s.compress(["--format", "tar.gz", "--output", s.path("src/full.tar.gz"), s.path("src/Data")])
            #expect(made.status == 0, "\(made)")
            let full = try #require(E2E.read(s.path("src/full.tar.gz")))
            try s.write("w/broken.tar.gz", data: full.prefix(full.count * 3 / 4))

            let list = try s.extract(["--list", "--progress-json", s.path("w/broken.tar.gz")])
            #expect(list.status == 5, "\(list)")
            let listEvents = Self.events(list.stdout)
            let listResult = try Self.result(listEvents)
            #expect(listEvents.dropLast().count > 5, "the entries before the damage were streamed")
            #expect(E2E.int(listResult["exitCode"]) == 5)
            let listError = (listResult["archives"] as? [[String: Any]])?.first?["error"] as? [String: Any]
            #expect(listError?["kind"] as? String == "corrupt", "\(listResult)")
            #expect(list.stderr.contains("broken.tar.gz"), "the sentence for a person stays on stderr: \(list.stderr)")

            // A tar that breaks off keeps its whole entries (issue 34): done with a warning that says where.
            let x = try s.extract(["--progress-json", "--to", s.path("dest"), s.path("w/broken.tar.gz")])
            #expect(x.status == 1, "\(x)")
            let xEvents = Self.events(x.stdout)
            let xResult = try Self.result(xEvents)
            #expect(E2E.int(xResult["exitCode"]) == 1)
            #expect((xResult["warningCodes"] as? [String])?.contains("damaged-after-entries") == true, "\(xResult)")
            #expect(xEvents.contains { $0["event"] as? String == "warning" && $0["code"] as? String == "damaged-after-entries" })
            #expect(E2E.isNull((xResult["results"] as? [[String: Any]])?.first?["error"]), "\(xResult)")
            #expect(E2E.list(s.path("dest")) == ["Data"])
            #expect(E2E.leftovers(under: s.root).isEmpty)
        }
    }

    /// A refused entry is a warning event as well as a stderr line, and counts in the result.
    @Test func aRefusedEntryIsAWarningEvent() throws {
        try E2E.withScratch { s in
            try s.mkdir("w")
            try s.python(
                """
                import tarfile, io, sys
                with tarfile.open(sys.argv[1], 'w') as t:
                    for name in ['ok.txt', '../evil.txt']:
                        data = b'x'; i = tarfile.TarInfo(name); i.size = 1; i.mtime = 1600000000
                        t.addfile(i, io.BytesIO(data))
                """, [s.path("w/mixed.tar")])
            let out = try s.extract(["--progress-json", "--to", s.path("dest"), s.path("w/mixed.tar")])
            #expect(out.status == 1, "\(out)")
            let events = Self.events(out.stdout)
            let result = try Self.result(events)
            let warnings = events.filter { $0["event"] as? String == "warning" }
            #expect(warnings.count == 1, "\(out.stdout)")
            #expect(warnings.first?["code"] as? String == "entry-refused")
            #expect((warnings.first?["message"] as? String)?.contains("evil.txt") == true)
            #expect(result["warningCodes"] as? [String] == ["entry-refused"])
            #expect(out.stderr.contains("evil.txt"))
        }
    }

    /// SIGTERM once the job reports progress: exit 8, the last line a result saying "cancelled", nothing
    /// left behind. (Before the signal handlers are installed, at start-up, SIGTERM ends the process
    /// as any signal does, before it has written anything.)
    @Test func sigtermEndsWithACancelledResultAndLeavesNothing() throws {
        try E2E.withScratch { s in
            try SignalTests.makeSlowInput(s, at: "w/Big")
            let running = try s.start(
                E2E.ours(E2E.compressName), ["--progress-json", "--format", "tar.xz", "--level", "maximum", s.path("w/Big")],
                localeUTF8: false)
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline, running.isRunning, !running.stdoutSoFar.contains("\"done\":0,") {
                Thread.sleep(forTimeInterval: 0.02)
            }
            Thread.sleep(forTimeInterval: 0.5)
            #expect(running.isRunning, "the job ended before it could be stopped")
            let out = SignalTests.stop(running, with: "SIGTERM", leaving: ["Big"], in: s)
            let events = Self.events(out.stdout)
            let result = try Self.result(events)
            #expect(events.dropLast().allSatisfy { $0["event"] as? String == "progress" })
            #expect(E2E.int(result["exitCode"]) == 8, "\(result)")
            #expect((result["error"] as? [String: Any])?["kind"] as? String == "cancelled", "\(result)")
            #expect((result["outputs"] as? [Any])?.isEmpty == true)
        }
    }
}
