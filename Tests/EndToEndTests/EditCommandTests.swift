import ArchiverTestSupport
import Foundation
import JobProtocol
import SystemPackage
import Testing

/// `edit-with-archiver` run as built: its flags, clashes, missing and hostile names, JSON, German, and a
/// kill -9 loop on zip, 7z and tar.gz.
@Suite struct EditCommandTests {
    static let name = "edit-with-archiver"

    func edit(_ s: ScratchDirectory, _ arguments: [String], env: [String: String?] = [:]) throws -> Outcome {
        try s.run(E2E.ours(Self.name), arguments, localeUTF8: false, env: env)
    }

    /// w/x.zip holding a.txt, docs/b.txt, z.txt, made by Python.
    func makeZip(_ s: ScratchDirectory) throws -> String {
        try s.mkdir("w")
        let zip = s.path("w/x.zip")
        try E2E.python(
            "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:\n z.writestr('a.txt', 'alpha')\n z.writestr('docs/b.txt', 'bravo')\n z.writestr('z.txt', 'zulu')",
            [zip])
        return zip
    }

    func names(_ zip: String) throws -> [String] {
        try E2E.python("import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); assert z.testzip() is None; print('\\n'.join(z.namelist()))", [zip])
            .stdout.split(separator: "\n").map(String.init)
    }

    @Test func addDeleteRenameWithJSON() throws {
        try E2E.withScratch { s in
            let zip = try makeZip(s)
            try s.write("new.txt", "new")
            try s.write("folder/inner.txt", "inner")
            let out = try edit(s, [zip, "--add", s.path("new.txt"), s.path("folder"), "--into", "docs", "--delete", "z.txt", "--rename", "a.txt", "moved/a.txt", "--json"])
            #expect(out.status == 0, "\(out)")
            let json = try #require(E2E.json(out.stdout))
            #expect(json["operation"] as? String == "edit")
            #expect(json["added"] as? [String] == ["docs/new.txt", "docs/folder", "docs/folder/inner.txt"])
            #expect(json["deleted"] as? [String] == ["z.txt"])
            #expect((json["renamed"] as? [[String: String]])?.first == ["from": "a.txt", "to": "moved/a.txt"])
            #expect(json["output"] as? String == zip)
            #expect(E2E.isNull(json["previous"]))
            #expect(Set(try names(zip)) == ["moved/a.txt", "docs/b.txt", "docs/new.txt", "docs/folder/", "docs/folder/inner.txt"])
            #expect(E2E.list(s.path("w")) == ["x.zip"])
        }
    }

    @Test func aClashIsExit7AndChangesNothing() throws {
        try E2E.withScratch { s in
            let zip = try makeZip(s)
            let original = E2E.read(zip)
            try s.write("a.txt", "other")
            let out = try edit(s, [zip, "--add", s.path("a.txt")])
            #expect(out.status == 7 && out.stderr.contains("a.txt") && out.stderr.contains("--replace"), "\(out)")
            #expect(E2E.read(zip) == original)
            let replaced = try edit(s, [zip, "--add", s.path("a.txt"), "--replace", "--json"])
            #expect(replaced.status == 0, "\(replaced)")
            #expect(E2E.json(replaced.stdout)?["replaced"] as? [String] == ["a.txt"])
            let renamed = try edit(s, [zip, "--rename", "z.txt", "a.txt"])
            #expect(renamed.status == 7, "\(renamed)")
        }
    }

    @Test func aMissingNameIsExit2WithTheClosestNames() throws {
        try E2E.withScratch { s in
            let zip = try makeZip(s)
            let original = E2E.read(zip)
            let out = try edit(s, [zip, "--delete", "docs/b.tx"])
            #expect(out.status == 2 && out.stderr.contains("Did you mean") && out.stderr.contains("docs/b.txt"), "\(out)")
            let rename = try edit(s, [zip, "--rename", "nothing", "x"])
            #expect(rename.status == 2, "\(rename)")
            #expect(E2E.read(zip) == original)
        }
    }

    @Test(arguments: [["--into", "../up"], ["--into", "/abs"], ["--rename", "a.txt", "../a.txt"], ["--rename", "a.txt", "a\u{7}b"]])
    func hostileNamesAreExit2(flags: [String]) throws {
        try E2E.withScratch { s in
            let zip = try makeZip(s)
            let original = E2E.read(zip)
            try s.write("new.txt", "new")
            let add = flags[0] == "--into" ? ["--add", s.path("new.txt")] : []
            let out = try edit(s, [zip] + add + flags)
            #expect(out.status == 2, "\(out)")
            #expect(E2E.read(zip) == original)
        }
    }

    /// The windows' command lines (`Arguments.edit`, `.extract`) carry names that start with "-": each value
    /// is one word with its option, never taken for a flag (the Extract… window could not rename to "-x").
    @Test func theWindowsCommandLinesCarryNamesThatStartWithADash() throws {
        try E2E.withScratch { s in
            try s.mkdir("w")
            let zip = s.path("w/x.zip")
            try E2E.python(
                "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w') as z:\n z.writestr('-a.txt', 'alpha')\n z.writestr('-b.txt', 'bravo')",
                [zip])
            try s.write("-new.txt", "new")
            func words(_ arguments: Arguments) -> [String] { arguments.argv.map { String(decoding: $0, as: UTF8.self) } }
            let changes: [WindowEdit] = [.rename("-a.txt", to: "-moved/-a.txt"), .delete(["-b.txt"]), .add([FilePath(s.path("-new.txt"))], into: "-in")]
            for change in changes {
                let out = try edit(s, words(.edit(FilePath(zip), change, keepPrevious: false)))
                #expect(out.status == 0, "\(change): \(out)")
            }
            let after = Set(try names(zip))
            #expect(after.isSuperset(of: ["-moved/-a.txt", "-in/-new.txt"]) && !after.contains("-a.txt") && !after.contains("-b.txt"), "\(after)")
            let extract = Arguments.extract(FilePath(zip), to: FilePath(s.path("out")), entries: ["-in/-new.txt"], trash: false, skipJunk: false)
            let out = try s.run(E2E.ours(E2E.extractName), words(extract), localeUTF8: false)
            #expect(out.status == 0, "\(out)")
            let extracted = FileManager.default.enumerator(atPath: s.path("out"))?.allObjects as? [String] ?? []
            #expect(extracted.contains { $0.hasSuffix("-in/-new.txt") } && !extracted.contains { $0.hasSuffix("-moved/-a.txt") }, "\(extracted)")
        }
    }

    @Test func keepPreviousPutsTheOldVersionInTheTrash() throws {
        try E2E.withScratch { s in
            let zip = try makeZip(s)
            let original = E2E.read(zip)
            let out = try edit(s, [zip, "--delete", "z.txt", "--keep-previous", "--json"], env: ["XDG_DATA_HOME": s.path("home/.local/share")])
            #expect(out.status == 0, "\(out)")
            #expect(E2E.json(out.stdout)?["previous"] as? String == zip)
            #expect(E2E.read(s.path("home/.local/share/Trash/files/x.zip")) == original)
            #expect(try names(zip) == ["a.txt", "docs/b.txt"])
        }
    }

    @Test func unsupportedFormatsAreExit4() throws {
        try E2E.withScratch { s in
            try s.write("src/a.txt", "alpha")
            let iso = s.path("x.iso")
            #expect(try s.run("/usr/bin/xorriso", ["-as", "mkisofs", "-quiet", "-o", iso, s.path("src")]).status == 0)
            let original = E2E.read(iso)
            let out = try edit(s, [iso, "--delete", "a.txt"])
            #expect(out.status == 4 && out.stderr.contains("cannot change"), "\(out)")
            #expect(E2E.read(iso) == original)
            let gz = try s.write("single.gz", "")
            #expect(try s.run("/bin/sh", ["-c", "echo hello | gzip > " + gz]).status == 0)
            #expect(try edit(s, [gz, "--delete", "a"]).status == 4)
        }
    }

    @Test func germanMessages() throws {
        try E2E.withScratch { s in
            let zip = try makeZip(s)
            let german = try TestLanguages.german()
            let out = try edit(s, [zip, "--delete", "docs/b.tx"], env: german)
            #expect(out.status == 2 && out.stderr.contains("Meinten Sie"), "\(out)")
            try s.write("a.txt", "other")
            let clash = try edit(s, [zip, "--add", s.path("a.txt")], env: german)
            #expect(clash.status == 7 && clash.stderr.contains("enthält bereits"), "\(clash)")
            let done = try edit(s, [zip, "--delete", "z.txt"], env: german)
            #expect(done.status == 0 && done.stdout.contains("„x.zip“ geändert"), "\(done)")
        }
    }

    @Test func anEncryptedZipTakesThePasswordFromStandardInput() throws {
        try E2E.withScratch { s in
            try s.write("in/a.txt", "secret")
            let zip = s.path("x.zip")
            #expect(try s.run("/usr/bin/7zz", ["a", "-tzip", "-mem=AES256", "-ppw", zip, "a.txt"], cwd: s.path("in")).status == 0)
            try s.write("b.txt", "more")
            let run = try Tool.start(
                [try E2E.ours(Self.name), zip, "--add", s.path("b.txt"), "--password-stdin", "--replace"],
                environment: s.environment(localeUTF8: false, overrides: [:]), input: "pw\n"
            ).wait(timeout: 120)
            #expect(run.status == 0, "\(run)")
            #expect(try s.run("/usr/bin/7zz", ["t", "-ppw", zip]).status == 0)
        }
    }

    /// kill -9 at random moments of a commit: the archive under its name is always the whole old one or
    /// the whole new one, and the next run removes what the killed one left.
    @Test(arguments: ["zip", "7z", "tar.gz"])
    func crashLoop(format: String) throws {
        let kills = CrashLoopTests.slow ? 50 : 8
        try E2E.withScratch { s in
            try s.mkdir("w")
            try s.write("src/a.txt", String(repeating: "alpha ", count: 1000))
            try s.write("src/b.txt", "bravo")
            let archive = s.path("w/x." + format)
            #expect(try s.compress(["--format", format, "--output", archive, s.path("src/a.txt"), s.path("src/b.txt")]).status == 0)
            // Enough new data for the commit to take a moment.
            try s.write("big.bin", data: Data((0..<(6 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }))
            let original = E2E.read(archive)
            let arguments = [archive, "--add", s.path("big.bin"), "--replace", "--delete", "b.txt"]
            func isComplete() throws -> (old: Bool, new: Bool) {
                if E2E.read(archive) == original { return (true, false) }
                let listing = try s.run("/usr/bin/bsdtar", ["-tf", archive])
                let tested = try s.run("/usr/bin/7zz", ["t", archive])
                return (false, listing.status == 0 && tested.status == 0 && listing.stdout.contains("big.bin") && !listing.stdout.contains("b.txt"))
            }
            let started = Date()
            #expect(try edit(s, arguments).status == 0)
            let duration = Date().timeIntervalSince(started)
            var landed = (old: 0, new: 0)
            for round in 1...kills {
                try FileManager.default.removeItem(atPath: archive)
                #expect(FileManager.default.createFile(atPath: archive, contents: original))
                let running = try s.start(E2E.ours(Self.name), arguments, localeUTF8: false)
                Thread.sleep(forTimeInterval: Double.random(in: 0...(duration * 1.1)))
                kill(running.process.processIdentifier, SIGKILL)
                _ = running.wait(timeout: 30)
                let state = try isComplete()
                #expect(state.old || state.new, "round \(round): the archive is neither the old nor the new one")
                if state.old { landed.old += 1 } else { landed.new += 1 }
                // Already the new one: b.txt is gone, so only the addition is asked again.
                let next = try edit(s, state.new ? Array(arguments.prefix(4)) : arguments)
                #expect(next.status == 0, "round \(round): \(next)")
                #expect(E2E.leftovers(under: s.path("w")).isEmpty, "round \(round): leftovers stayed")
                #expect(try isComplete().new, "round \(round)")
            }
            print("edit crash loop \(format): \(kills) kills in runs of \(String(format: "%.2f", duration)) s: \(landed.old) before the commit, \(landed.new) after")
        }
    }
}
