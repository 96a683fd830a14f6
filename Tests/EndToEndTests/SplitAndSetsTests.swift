import ArchiverTestSupport
import Foundation
import Testing

/// `--split` (parts of a fixed size, read back by 7-Zip) and multi-part sets given by any part: 7-Zip's
/// volumes, `split -b` of a tar.gz, our own, RAR sets; a missing or short part names itself.
@Suite struct SplitAndSetsTests {
    /// A tree of about 600 KB that does not compress (random bytes) plus some text.
    static func source(_ s: ScratchDirectory) throws {
        try E2E.python(
            """
            import os, sys
            r = sys.argv[1]
            os.makedirs(r + '/docs', exist_ok=True)
            open(r + '/random.bin', 'wb').write(os.urandom(600000))
            open(r + '/docs/notes.txt', 'w').write('line\\n' * 20000)
            """, [s.sub("in/Big")])
    }

    static func sizes(_ s: ScratchDirectory, _ names: [String]) -> [Int] {
        names.map { ((try? FileManager.default.attributesOfItem(atPath: s.sub("in/" + $0)))?[.size] as? Int) ?? -1 }
    }

    @Test(arguments: ["zip", "7z", "tar.xz"])
    func ourPartsHaveExactlyTheSizeAnd7ZipReadsThem(format: String) throws {
        let s = try ScratchDirectory("split-\(format)")
        try Self.source(s)
        let out = try E2E.run("compress-with-archiver", ["--split", "100k", "--format", format, "--json", s.sub("in/Big")])
        #expect(out.status == 0, "\(out.stderr)")
        let parts = s.list("in").filter { $0.hasPrefix("Big.\(format).") }
        #expect(parts.count >= 6 && parts.first == "Big.\(format).001", "\(s.list("in"))")
        #expect(parts == (1...parts.count).map { String(format: "Big.\(format).%03d", $0) })
        let sizes = Self.sizes(s, parts)
        #expect(sizes.dropLast().allSatisfy { $0 == 102_400 }, "\(sizes)")
        #expect(sizes.last! > 0 && sizes.last! <= 102_400)
        let reported = (out.json?["outputs"] as? [[String: Any]])?.first?["parts"] as? [String]
        #expect(reported == parts.map { s.sub("in/" + $0) })
        #expect(!s.list("in").contains { $0.hasPrefix(".archiver-") }, "no staging left")

        // 7-Zip reads the set from its first part; for tar.xz it unpacks the xz stream to the tar.
        let seven = try E2E.run("/usr/bin/7zz", ["x", "-o" + s.sub("by7z"), s.sub("in/Big.\(format).001")])
        #expect(seven.status == 0, "\(seven.stdout)")
        if format == "tar.xz" {
            let tarred = try E2E.run("/bin/tar", ["xf", s.sub("by7z/Big.tar"), "-C", s.sub("by7z")])
            #expect(tarred.status == 0, "\(tarred.stderr)")
        }
        #expect(try TreeSnapshot.differences(expected: s.sub("in/Big"), actual: s.sub("by7z/Big")) == [])

        // Ours reads it back from a middle part.
        let back = try E2E.run("extract-with-archiver", ["--to", s.sub("ours"), s.sub("in/Big.\(format).003")])
        #expect(back.status == 0, "\(back.stderr)")
        #expect(try TreeSnapshot.differences(expected: s.sub("in/Big"), actual: s.sub("ours/Big")) == [])
    }

    @Test func aSplitNameThatIsTakenMovesTheWholeSetToTheNextName() throws {
        let s = try ScratchDirectory()
        try Self.source(s)
        try Data("someone else's".utf8).write(to: URL(fileURLWithPath: s.sub("in/Big.zip.002")))
        let out = try E2E.run("compress-with-archiver", ["--split", "300k", s.sub("in/Big")])
        #expect(out.status == 0, "\(out.stderr)")
        let listed = s.list("in")
        #expect(listed.filter { $0.hasPrefix("Big.zip") } == ["Big.zip.002"], "\(listed)")
        let moved = listed.filter { $0.hasPrefix("Big (2).zip.") }
        #expect(moved.count >= 2 && moved == (1...moved.count).map { String(format: "Big (2).zip.%03d", $0) }, "\(listed)")
        #expect(try String(contentsOfFile: s.sub("in/Big.zip.002"), encoding: .utf8) == "someone else's")

        // A leftover part of an older, longer set would join the new one: the name counts as taken.
        try Data("stale".utf8).write(to: URL(fileURLWithPath: s.sub("in/Big (2).zip.009")))
        let again = try E2E.run("compress-with-archiver", ["--split", "300k", s.sub("in/Big")])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(s.list("in").contains("Big (3).zip.001"), "\(s.list("in"))")
        let back = try E2E.run("extract-with-archiver", ["--to", s.sub("out3"), s.sub("in/Big (3).zip.001")])
        #expect(back.status == 0, "\(back.stderr)")
        let listedNow = s.list("in")

        // --output names the set exactly, and refuses when a part of that name exists.
        let exact = try E2E.run("compress-with-archiver", ["--split", "300k", "--output", s.sub("in/Big.zip"), s.sub("in/Big")])
        #expect(exact.status == 7, "\(exact.stderr)")
        #expect(s.list("in") == listedNow)
    }

    /// Past `.999` 7-Zip counts on to `.1000`: the parts keep their order both ways, and reading more
    /// than a thousand parts needs one descriptor at a time (a desktop's soft limit is often 1024).
    @Test(arguments: ["7z", "zip"])
    func overAThousandPartsKeepTheirOrder(format: String) throws {
        let s = try ScratchDirectory("thousand-\(format)")
        try E2E.python("import os, sys; os.makedirs(sys.argv[1]); open(sys.argv[1] + '/r.bin', 'wb').write(os.urandom(1_100_000))", [s.sub("in/R")])
        let out = try E2E.run("compress-with-archiver", ["--split", "1k", "--level", "store", "--format", format, s.sub("in/R")])
        #expect(out.status == 0, "\(out.stderr)")
        let parts = s.list("in").filter { $0.hasPrefix("R.\(format).") }
        #expect(parts.count > 1000 && parts.contains("R.\(format).1000") && parts.contains("R.\(format).001"), "\(parts.count)")
        let seven = try E2E.run("/usr/bin/7zz", ["t", s.sub("in/R.\(format).001")])
        #expect(seven.status == 0, "\(seven.stdout)")
        let back = try E2E.run("/bin/sh", ["-c", "ulimit -n 64 && exec \"$0\" --to \"$1\" \"$2\"", E2E.binDir + "/extract-with-archiver", s.sub("out"), s.sub("in/R.\(format).1000")])
        #expect(back.status == 0, "\(back.stderr)")
        #expect(try TreeSnapshot.differences(expected: s.sub("in/R"), actual: s.sub("out/R")) == [])
    }

    /// A part may be a symlink to the real file (sizes are the target's); `x.zip.bak` is a plain file,
    /// not a part of a set `split` never wrote.
    @Test func symlinkedPartsAndLookalikeNames() throws {
        let s = try ScratchDirectory()
        try Self.source(s)
        #expect(try E2E.run("compress-with-archiver", ["--split", "300k", s.sub("in/Big")]).status == 0)
        try FileManager.default.createDirectory(atPath: s.sub("real"), withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: s.sub("in/Big.zip.002"), toPath: s.sub("real/Big.zip.002"))
        try FileManager.default.createSymbolicLink(atPath: s.sub("in/Big.zip.002"), withDestinationPath: s.sub("real/Big.zip.002"))
        let linked = try E2E.run("extract-with-archiver", ["--to", s.sub("out"), s.sub("in/Big.zip.001")])
        #expect(linked.status == 0, "\(linked.stderr)")
        #expect(try TreeSnapshot.differences(expected: s.sub("in/Big"), actual: s.sub("out/Big")) == [])

        try FileManager.default.createDirectory(atPath: s.sub("bak"), withIntermediateDirectories: true)
        #expect(try E2E.run("compress-with-archiver", ["--output", s.sub("bak/photos.zip"), s.sub("in/Big")]).status == 0)
        try FileManager.default.moveItem(atPath: s.sub("bak/photos.zip"), toPath: s.sub("bak/photos.zip.bak"))
        let bak = try E2E.run("extract-with-archiver", ["--to", s.sub("fromBak"), s.sub("bak/photos.zip.bak")])
        #expect(bak.status == 0, "\(bak.stderr)")
        #expect(s.list("fromBak") == ["Big"])
    }

    @Test func badSizesAreUsageErrors() throws {
        let s = try ScratchDirectory()
        try Self.source(s)
        for size in ["12X", "-5M", "100", ""] {
            let out = try E2E.run("compress-with-archiver", ["--split", size, s.sub("in/Big")])
            #expect(out.status == 2, "\(size): \(out.stderr)")
        }
        #expect(s.list("in") == ["Big"])
    }

    @Test func theSettingSplitsAndZeroTurnsItOff() throws {
        let s = try ScratchDirectory()
        try Self.source(s)
        let environment = try SettingsBudgetRecentTests.keyfile(s, [("split-size", "'200k'")])
        #expect(try E2E.run("compress-with-archiver", [s.sub("in/Big")], environment: environment).status == 0)
        #expect(s.list("in").filter { $0.hasPrefix("Big.zip.") }.count >= 3, "\(s.list("in"))")
        #expect(Self.sizes(s, ["Big.zip.001"]) == [204_800])
        #expect(try E2E.run("compress-with-archiver", ["--split", "0", "-f", "7z", s.sub("in/Big")], environment: environment).status == 0)
        #expect(s.list("in").contains("Big.7z"))
    }

    /// "Compress in parts…" runs `--split ask`: a list of presets from zenity (kdialog on KDE).
    @Test func theMenuAsksForTheSizeAndCancelLeavesNothing() throws {
        let s = try ScratchDirectory()
        try Self.source(s)
        let bin = try ChooseFolderTests.dialogs(s, answer: "200k")
        let out = try E2E.run(
            "compress-with-archiver", ["--split", "ask", s.sub("in/Big")],
            environment: ["PATH": bin + ":/usr/bin:/bin", "XDG_CURRENT_DESKTOP": "GNOME"])
        #expect(out.status == 0, "\(out.stderr)")
        let asked = ((try? String(contentsOfFile: s.sub("asked"), encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        #expect(asked.first == "zenity" && asked.contains("--list") && asked.contains("4092M"), "\(asked)")
        #expect(asked.contains("--title=Compress “Big” in parts") && asked.contains("--no-markup"), "\(asked)")
        #expect(s.list("in").filter { $0.hasPrefix("Big.zip.") }.count >= 3, "\(s.list("in"))")
        #expect(Self.sizes(s, ["Big.zip.001"]) == [204_800])

        let kde = try E2E.run(
            "compress-with-archiver", ["--split", "ask", "-f", "7z", s.sub("in/Big")],
            environment: ["PATH": bin + ":/usr/bin:/bin", "XDG_CURRENT_DESKTOP": "KDE"])
        #expect(kde.status == 0, "\(kde.stderr)")
        let kdeAsked = ((try? String(contentsOfFile: s.sub("asked"), encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        #expect(kdeAsked.first == "kdialog" && kdeAsked.contains("--menu"), "\(kdeAsked)")

        let cancelBin = try ChooseFolderTests.dialogs(s, answer: nil)
        let cancelled = try E2E.run(
            "compress-with-archiver", ["--split", "ask", "-f", "tar.xz", s.sub("in/Big")],
            environment: ["PATH": cancelBin + ":/usr/bin:/bin"])
        #expect(cancelled.status == 8, "\(cancelled.stderr)")
        #expect(!s.list("in").contains { $0.hasPrefix("Big.tar.xz") })
    }

    /// 7-Zip's own volumes (`7zz a -v`) and `split -b` pieces of a tar.gz, each given by every part.
    @Test func othersSetsExtractFromAnyPart() throws {
        let s = try ScratchDirectory()
        try Self.source(s)
        #expect(try E2E.run("/usr/bin/7zz", ["a", "-v150k", s.sub("sets/v.7z"), s.sub("in/Big")]).status == 0)
        #expect(try E2E.run("/usr/bin/7zz", ["a", "-tzip", "-v150k", s.sub("sets/z.zip"), s.sub("in/Big")]).status == 0)
        #expect(try E2E.run("/bin/tar", ["czf", s.sub("t.tar.gz"), "-C", s.sub("in"), "Big"]).status == 0)
        #expect(try E2E.run("/usr/bin/split", ["-b", "150k", s.sub("t.tar.gz"), s.sub("sets/t.tar.gz.")]).status == 0)
        #expect(try E2E.run("/usr/bin/split", ["-b", "150k", "-d", "-a", "3", "--numeric-suffixes=1", s.sub("t.tar.gz"), s.sub("sets/n.tar.gz.")]).status == 0)
        let sets = s.list("sets")
        #expect(sets.contains("v.7z.004") && sets.contains("t.tar.gz.ab") && sets.contains("n.tar.gz.003"), "\(sets)")
        for part in sets {
            let out = try E2E.run("extract-with-archiver", ["--to", s.sub("out/" + part), s.sub("sets/" + part)])
            #expect(out.status == 0, "\(part): \(out.stderr)")
            // Contents only: 7-Zip's zip writer keeps neither Unix modes nor exact times.
            let compared = try E2E.run("/usr/bin/diff", ["-r", s.sub("in/Big"), s.sub("out/\(part)/Big")])
            #expect(compared.status == 0, "\(part): \(compared.stdout)")
        }
    }

    /// Several top-level items: the folder is named after the set, not the part.
    @Test func theFolderIsNamedAfterTheSetAndAllPartsSelectedExtractOnce() throws {
        let s = try ScratchDirectory()
        try Self.source(s)
        try Data("loose".utf8).write(to: URL(fileURLWithPath: s.sub("in/loose.txt")))
        #expect(try E2E.run("compress-with-archiver", ["--split", "200k", "-f", "7z", "--name", "Both", s.sub("in/Big"), s.sub("in/loose.txt")]).status == 0)
        let parts = s.list("in").filter { $0.hasPrefix("Both.7z.") }
        #expect(parts.count >= 3, "\(s.list("in"))")
        let environment = ["XDG_DATA_HOME": s.sub("data")]
        let out = try E2E.run(
            "extract-with-archiver", ["--trash-archive", "--to", s.sub("out")] + parts.reversed().map { s.sub("in/" + $0) },
            environment: environment)
        #expect(out.status == 0, "\(out.stderr)")
        #expect(s.list("out") == ["Both"], "one extraction, named after the set")
        #expect(s.list("out/Both") == ["Big", "loose.txt"])
        // Every part went to the trash, none stayed.
        #expect(s.list("data/Trash/files") == parts)
        #expect(!s.list("in").contains { $0.hasPrefix("Both.7z") })
    }

    @Test func aMissingOrShortPartIsNamedAndNothingIsExtracted() throws {
        let s = try ScratchDirectory()
        try Self.source(s)
        #expect(try E2E.run("compress-with-archiver", ["--split", "150k", "-f", "tar.gz", s.sub("in/Big")]).status == 0)
        #expect(try E2E.run("compress-with-archiver", ["--split", "150k", "-f", "7z", s.sub("in/Big")]).status == 0)
        let manager = FileManager.default

        try manager.moveItem(atPath: s.sub("in/Big.7z.002"), toPath: s.sub("aside.002"))
        let missing = try E2E.run("extract-with-archiver", ["--to", s.sub("out"), s.sub("in/Big.7z.003")])
        #expect(missing.status == 3, "\(missing.stderr)")
        #expect(missing.stderr.contains("“Big.7z.002”") && missing.stderr.contains("missing"), "\(missing.stderr)")
        try manager.moveItem(atPath: s.sub("aside.002"), toPath: s.sub("in/Big.7z.002"))

        // Without its last part, no name says the set is short; the reader finds the end too early.
        let parts7z = s.list("in").filter { $0.hasPrefix("Big.7z.") }
        try manager.removeItem(atPath: s.sub("in/" + parts7z.last!))
        let lastGone = try E2E.run("extract-with-archiver", ["--to", s.sub("out"), s.sub("in/Big.7z.001")])
        #expect(lastGone.status == 5, "\(lastGone.stderr)")
        #expect(lastGone.stderr.contains("“\(parts7z[parts7z.count - 2])”") && lastGone.stderr.contains("missing"), "\(lastGone.stderr)")

        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: s.sub("in/Big.tar.gz.002")))
        try handle.truncate(atOffset: 50_000)
        try handle.close()
        let short = try E2E.run("extract-with-archiver", ["--to", s.sub("out"), s.sub("in/Big.tar.gz.001")])
        #expect(short.status == 5, "\(short.stderr)")
        #expect(short.stderr.contains("“Big.tar.gz.002”") && short.stderr.contains("cut short"), "\(short.stderr)")
        #expect(s.list("out").isEmpty, "nothing extracted")
        #expect(!s.list("in").contains { $0.hasPrefix(".archiver-") })
    }

    /// RAR cannot be written with free tools: multi-volume RAR4 and RAR5 sets from libarchive's tests.
    @Test func rarSetsFromAnyPartAndAMissingPartNamed() throws {
        guard RarFixtureTests.present else {
            print("skipped: fixtures not present (\(RarFixtureTests.fixtures))")
            return
        }
        let s = try ScratchDirectory()
        let manager = FileManager.default
        try manager.createDirectory(atPath: s.sub("rar"), withIntermediateDirectories: true)
        let names = try manager.contentsOfDirectory(atPath: RarFixtureTests.fixtures).filter {
            $0.hasPrefix("rar5_multiarchive.part") || $0.hasPrefix("rar_multivolume_single_file.part")
        }.sorted()
        #expect(names.count == 11)
        for name in names { try manager.copyItem(atPath: RarFixtureTests.fixtures + "/" + name, toPath: s.sub("rar/" + name)) }
        let expected = [
            "rar5_multiarchive": "home/antek/temp/build/unrar5/libarchive/bin/bsdcat_test",
            "rar_multivolume_single_file": "LibarchiveAddingTest.html",
        ]
        for name in names {
            let set = String(name[..<name.range(of: ".part")!.lowerBound])
            let out = try E2E.run("extract-with-archiver", ["--to", s.sub("out/" + name), s.sub("rar/" + name)])
            #expect(out.status == 0, "\(name): \(out.stderr)")
            #expect(manager.fileExists(atPath: s.sub("out/\(name)/\(expected[set]!)")), "\(name): \(s.list("out/" + name))")
        }
        try manager.removeItem(atPath: s.sub("rar/rar5_multiarchive.part04.rar"))
        let missing = try E2E.run("extract-with-archiver", ["--to", s.sub("gone"), s.sub("rar/rar5_multiarchive.part07.rar")])
        #expect(missing.status == 3, "\(missing.stderr)")
        #expect(missing.stderr.contains("“rar5_multiarchive.part04.rar”"), "\(missing.stderr)")
        #expect(!manager.fileExists(atPath: s.sub("gone")) || s.list("gone").isEmpty)
    }
}
