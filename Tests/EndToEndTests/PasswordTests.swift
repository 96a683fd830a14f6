import ArchiverTestSupport
import Foundation
import Testing

/// Passwords through the real executables: `--password-stdin`, an askpass program, a terminal (a pty),
/// and no way to ask at all. 7-Zip and Python are the oracles for what was written.
@Suite struct PasswordTests {
    static func docs(_ s: ScratchDirectory) throws {
        try FileManager.default.createDirectory(atPath: s.sub("Docs"), withIntermediateDirectories: true)
        try Data(String(repeating: "secret plans ", count: 4000).utf8).write(to: URL(fileURLWithPath: s.sub("Docs/plans.txt")))
        try Data("short".utf8).write(to: URL(fileURLWithPath: s.sub("Docs/note.txt")))
    }

    /// An ssh-askpass-style program answering `password` that records each prompt (argv[1]) in `asked`.
    static func askpass(_ s: ScratchDirectory, password: String, exit status: Int = 0) throws -> String {
        let path = s.sub("askpass")
        try Tool.installScript(
            """
            #!/bin/sh
            printf '%s\\n' "$1" >> '\(s.sub("asked"))'
            printf '%s\\n' '\(password)'
            exit \(status)
            """, at: path)
        return path
    }

    static func asked(_ s: ScratchDirectory) -> [String] {
        ((try? String(contentsOfFile: s.sub("asked"), encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    @Test func passwordFromStandardInputRoundTripsAndAWrongOneWritesNothing() throws {
        let s = try ScratchDirectory()
        try Self.docs(s)
        let made = try E2E.run("compress-with-archiver", ["--encrypt", "--password-stdin", s.sub("Docs")], input: "open sesame\n")
        #expect(made.status == 0, "\(made.stderr)")
        #expect(try E2E.run("/usr/bin/7zz", ["t", "-popen sesame", s.sub("Docs.zip")]).status == 0)
        #expect(try E2E.run("/usr/bin/7zz", ["t", "-popen", s.sub("Docs.zip")]).status != 0)

        let wrong = try E2E.run("extract-with-archiver", ["--password-stdin", "--to", s.sub("out"), s.sub("Docs.zip")], input: "open\n")
        #expect(wrong.status == 6)
        #expect(wrong.stderr.contains("Wrong password"), "\(wrong.stderr)")
        #expect(s.list("out").isEmpty, "nothing written: \(s.list("out"))")

        let right = try E2E.run("extract-with-archiver", ["--password-stdin", "--to", s.sub("out"), s.sub("Docs.zip")], input: "open sesame\n")
        #expect(right.status == 0, "\(right.stderr)")
        #expect(try String(contentsOfFile: s.sub("out/Docs/note.txt"), encoding: .utf8) == "short")
        #expect(!right.stderr.contains("open sesame") && !made.stderr.contains("open sesame"))
    }

    @Test func anAskpassProgramIsAskedTwiceToCreateAndOnceToOpen() throws {
        let s = try ScratchDirectory()
        try Self.docs(s)
        let askpass = try Self.askpass(s, password: "pä ss wörd")
        let environment = ["ARCHIVER_ASKPASS": askpass]
        let made = try E2E.run("compress-with-archiver", ["--encrypt", s.sub("Docs")], environment: environment)
        #expect(made.status == 0, "\(made.stderr)")
        #expect(Self.asked(s) == ["Password to protect “Docs”", "Password to protect “Docs” (again)"])
        // 7-Zip takes the UTF-8 bytes as they are for AES zip.
        #expect(try E2E.run("/usr/bin/7zz", ["t", "-ppä ss wörd", s.sub("Docs.zip")]).status == 0)

        let opened = try E2E.run("extract-with-archiver", ["--to", s.sub("out"), s.sub("Docs.zip")], environment: environment)
        #expect(opened.status == 0, "\(opened.stderr)")
        #expect(Self.asked(s).last == "Password for “Docs.zip”")
        #expect(Self.asked(s).count == 3)
        #expect(s.list("out/Docs") == ["note.txt", "plans.txt"])
    }

    /// The time budget is for the work: a person slower to answer than the whole budget still gets the
    /// files (the same job without the prompt's time would fit many times over).
    @Test func timeSpentAtThePromptIsNotCountedAgainstTheBudget() throws {
        let s = try ScratchDirectory()
        try Self.docs(s)
        #expect(try E2E.run("compress-with-archiver", ["--encrypt", "--password-stdin", s.sub("Docs")], input: "slow\n").status == 0)
        let askpass = s.sub("slow-askpass")
        try Tool.installScript("#!/bin/sh\nsleep 3\nprintf '%s\\n' slow\n", at: askpass)
        let out = try E2E.run(
            "extract-with-archiver", ["--time-budget", "2", "--to", s.sub("out"), s.sub("Docs.zip")],
            environment: ["ARCHIVER_ASKPASS": askpass])
        #expect(out.status == 0, "\(out.stderr)")
        #expect(s.list("out/Docs") == ["note.txt", "plans.txt"])
    }

    @Test func threeWrongAnswersAreExit6AndLeaveNothing() throws {
        let s = try ScratchDirectory()
        try Self.docs(s)
        #expect(try E2E.run("compress-with-archiver", ["--encrypt", "--password-stdin", s.sub("Docs")], input: "right\n").status == 0)
        let askpass = try Self.askpass(s, password: "wrong")
        let out = try E2E.run("extract-with-archiver", ["--to", s.sub("out"), s.sub("Docs.zip")], environment: ["ARCHIVER_ASKPASS": askpass])
        #expect(out.status == 6)
        #expect(out.stderr.contains("Wrong password for “Docs.zip”"), "\(out.stderr)")
        #expect(Self.asked(s) == ["Password for “Docs.zip”"] + Array(repeating: "Wrong password. Password for “Docs.zip”", count: 2))
        #expect(s.list("out").isEmpty)
    }

    @Test func aCancelledPromptIsExit6AndLeavesNothing() throws {
        let s = try ScratchDirectory()
        try Self.docs(s)
        let askpass = try Self.askpass(s, password: "", exit: 1)
        let out = try E2E.run("compress-with-archiver", ["--encrypt", s.sub("Docs")], environment: ["ARCHIVER_ASKPASS": askpass])
        #expect(out.status == 6)
        #expect(out.stderr.contains("No password was given"), "\(out.stderr)")
        #expect(s.list() == ["Docs", "asked", "askpass"])
    }

    @Test func tarIsRefusedBeforeAnyoneIsAsked() throws {
        let s = try ScratchDirectory()
        try Self.docs(s)
        let askpass = try Self.askpass(s, password: "x")
        let out = try E2E.run("compress-with-archiver", ["--encrypt", "--format", "tar.xz", s.sub("Docs")], environment: ["ARCHIVER_ASKPASS": askpass])
        #expect(out.status == 2)
        #expect(out.stderr.contains("no standard encryption") && out.stderr.contains("--format zip"), "\(out.stderr)")
        #expect(Self.asked(s).isEmpty)
        #expect(s.list() == ["Docs", "askpass"])
    }

    @Test func withNoWayToAskANotificationSaysWhatToInstall() throws {
        let s = try ScratchDirectory()
        try Self.docs(s)
        #expect(try E2E.run("compress-with-archiver", ["--encrypt", "--password-stdin", s.sub("Docs")], input: "pw\n").status == 0)
        let bus = try PrivateBus()
        defer { bus.stop() }
        let log = s.sub("notify.log")
        try bus.startNotificationServer(log: log)
        let empty = s.sub("no-programs")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        var environment = bus.environment
        environment["PATH"] = empty
        let out = try E2E.run("extract-with-archiver", ["--to", s.sub("out"), s.sub("Docs.zip")], environment: environment)
        #expect(out.status == 6)
        #expect(out.stderr.contains("Install zenity"), "\(out.stderr)")
        let calls = DesktopFeedbackTests.waitFor(log, seconds: 10) { $0.contains { $0.urgency == 2 } }
        let failure = try #require(calls.last)
        #expect(failure.urgency == 2 && failure.body.contains("zenity"), "\(failure)")
        #expect(s.list("out").isEmpty)
    }

    /// At a terminal the prompt does not echo, and the confirmation is asked for.
    @Test func aTerminalPromptDoesNotEcho() throws {
        let s = try ScratchDirectory()
        try Self.docs(s)
        let script = """
            import os, pty, signal, sys
            signal.alarm(60)  # a prompt that never comes must not hang the suite
            pid, fd = pty.fork()
            if pid == 0:
                os.execv(sys.argv[1], [sys.argv[1], '--encrypt', sys.argv[2]])
            seen = b''
            def until(text):
                global seen
                while text not in seen:
                    chunk = os.read(fd, 1024)
                    if not chunk: break
                    seen += chunk
            until(b'Password to protect'); os.write(fd, b'typed secret\\n')
            until(b'(again)'); os.write(fd, b'typed secret\\n')
            try:
                while True:
                    chunk = os.read(fd, 1024)
                    if not chunk: break
                    seen += chunk
            except OSError:
                pass
            _, status = os.waitpid(pid, 0)
            print('status', os.waitstatus_to_exitcode(status))
            print('echoed', b'typed secret' in seen)
            """
        let result = try E2E.python(script, [E2E.binDir + "/compress-with-archiver", s.sub("Docs")])
        #expect(result.stdout.contains("status 0"), "\(result.stdout) \(result.stderr)")
        #expect(result.stdout.contains("echoed False"), "\(result.stdout)")
        #expect(try E2E.run("/usr/bin/7zz", ["t", "-ptyped secret", s.sub("Docs.zip")]).status == 0)
    }

    /// 7z goes through 7-Zip: names hidden, the password only ever on 7-Zip's standard input.
    @Test func encrypted7zHidesNamesAndOpensWithOursOnly() throws {
        let s = try ScratchDirectory()
        try Self.docs(s)
        let made = try E2E.run("compress-with-archiver", ["--format", "7z", "--encrypt", "--password-stdin", s.sub("Docs")], input: "sieben zip\n")
        #expect(made.status == 0, "\(made.stderr)")
        let blind = try E2E.run("/usr/bin/7zz", ["l", "-p", s.sub("Docs.7z")])
        #expect(blind.status != 0 && !blind.stdout.contains("plans.txt"), "names are encrypted: \(blind.stdout)")
        #expect(try E2E.run("/usr/bin/7zz", ["t", "-psieben zip", s.sub("Docs.7z")]).status == 0)

        let wrong = try E2E.run("extract-with-archiver", ["--password-stdin", "--to", s.sub("out"), s.sub("Docs.7z")], input: "acht\n")
        #expect(wrong.status == 6 && wrong.stderr.contains("Wrong password"), "\(wrong.stderr)")
        #expect(s.list("out").isEmpty)

        let askpass = try Self.askpass(s, password: "sieben zip")
        let right = try E2E.run("extract-with-archiver", ["--to", s.sub("out"), s.sub("Docs.7z")], environment: ["ARCHIVER_ASKPASS": askpass])
        #expect(right.status == 0, "\(right.stderr)")
        #expect(Self.asked(s) == ["Password for “Docs.7z”"])
        #expect(s.list("out") == ["Docs"] && s.list("out/Docs") == ["note.txt", "plans.txt"])
        #expect(try String(contentsOfFile: s.sub("out/Docs/note.txt"), encoding: .utf8) == "short")

        // Listing needs the password too, since the names are encrypted.
        let listed = try E2E.run("extract-with-archiver", ["--list", "--json", "--password-stdin", s.sub("Docs.7z")], input: "sieben zip\n")
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains("Docs/plans.txt") && listed.stdout.contains("\"encrypted\":true"), "\(listed.stdout)")
        let refused = try E2E.run("extract-with-archiver", ["--list", s.sub("Docs.7z")])
        #expect(refused.status == 6 && !refused.stdout.contains("plans.txt"), "\(refused.stdout)")

        // --entry picks from an encrypted 7z too; an unknown name is refused before anything is written.
        let one = try E2E.run(
            "extract-with-archiver", ["--password-stdin", "--entry", "Docs/plans.txt", "--to", s.sub("one"), s.sub("Docs.7z")],
            input: "sieben zip\n")
        #expect(one.status == 0, "\(one.stderr)")
        #expect(s.list("one") == ["Docs"] && s.list("one/Docs") == ["plans.txt"], "\(s.list("one"))")
        let unknown = try E2E.run(
            "extract-with-archiver", ["--password-stdin", "--entry", "Docs/plan.txt", "--to", s.sub("none"), s.sub("Docs.7z")],
            input: "sieben zip\n")
        #expect(unknown.status == 2 && unknown.stderr.contains("Docs/plans.txt"), "\(unknown.stderr)")
        #expect(s.list("none").isEmpty)
    }

    /// "Compress with Password…" keeps a default format that can be encrypted, and uses zip otherwise.
    @Test func thePasswordMenuEntryFallsBackToZip() throws {
        let s = try ScratchDirectory()
        try Self.docs(s)
        let tarDefault = try SettingsBudgetRecentTests.keyfile(s, [("default-format", "'tar.xz'")])
        let zipped = try E2E.run("compress-with-archiver", ["--encrypt", "--password-stdin", s.sub("Docs")], environment: tarDefault, input: "pw\n")
        #expect(zipped.status == 0, "\(zipped.stderr)")
        #expect(s.list().contains("Docs.zip"))
        let sevenDefault = try SettingsBudgetRecentTests.keyfile(s, [("default-format", "'7z'")])
        let seven = try E2E.run("compress-with-archiver", ["--encrypt", "--password-stdin", s.sub("Docs")], environment: sevenDefault, input: "pw\n")
        #expect(seven.status == 0, "\(seven.stderr)")
        #expect(s.list().contains("Docs.7z"))
    }

    @Test func sevenZipsOwnEncrypted7zExtracts() throws {
        let s = try ScratchDirectory()
        try Self.docs(s)
        // Contents encrypted, names visible: libarchive lists it, 7-Zip decrypts it.
        #expect(try E2E.run("/usr/bin/7zz", ["a", "-pkey", s.sub("theirs.7z"), "Docs"], in: s.path).status == 0)
        let out = try E2E.run("extract-with-archiver", ["--password-stdin", "--to", s.sub("out"), s.sub("theirs.7z")], input: "key\n")
        #expect(out.status == 0, "\(out.stderr)")
        #expect(try TreeSnapshot.differences(expected: s.sub("Docs"), actual: s.sub("out/Docs")) == [])
    }

    /// 7-Zip extracts everything; macOS junk is taken out afterwards unless kept, as for other archives.
    @Test func macJunkLeavesEncrypted7zToo() throws {
        let s = try ScratchDirectory()
        try Self.docs(s)
        try FileManager.default.createDirectory(atPath: s.sub("Docs/__MACOSX/sub"), withIntermediateDirectories: true)
        try Data("junk".utf8).write(to: URL(fileURLWithPath: s.sub("Docs/__MACOSX/sub/._plans.txt")))
        try Data("junk".utf8).write(to: URL(fileURLWithPath: s.sub("Docs/.DS_Store")))
        #expect(try E2E.run("/usr/bin/7zz", ["a", "-pkey", "-mhe=on", s.sub("j.7z"), "Docs"], in: s.path).status == 0)
        let out = try E2E.run("extract-with-archiver", ["--json", "--password-stdin", "--to", s.sub("out"), s.sub("j.7z")], input: "key\n")
        #expect(out.status == 0, "\(out.stderr)")
        #expect(s.list("out/Docs") == ["note.txt", "plans.txt"])
        let result = try #require((out.json?["results"] as? [[String: Any]])?.first)
        #expect((result["skippedJunk"] as? [String])?.sorted() == ["Docs/.DS_Store", "Docs/__MACOSX"], "\(result)")
        #expect(result["files"] as? Int == 2 && result["folders"] as? Int == 1, "\(result)")

        let kept = try E2E.run("extract-with-archiver", ["--keep-junk", "--password-stdin", "--to", s.sub("kept"), s.sub("j.7z")], input: "key\n")
        #expect(kept.status == 0)
        #expect(s.list("kept/Docs") == [".DS_Store", "__MACOSX", "note.txt", "plans.txt"])
    }

    /// Debian has no free rar decrypter: without unrar the message says so and nothing is written.
    @Test(arguments: ["rar4_encrypted.rar", "rar5_encrypted.rar"])
    func encryptedRarNeedsUnrar(fixture: String) throws {
        guard RarFixtureTests.present else {
            print("skipped: fixtures not present (\(RarFixtureTests.fixtures))")
            return
        }
        if let unrar = UnrarTests.installed { return print("skipped: unrar is installed here (\(unrar))") }
        let s = try ScratchDirectory("rar-\(fixture)")
        let out = try E2E.run("extract-with-archiver", ["--password-stdin", "--to", s.sub("out"), RarFixtureTests.fixtures + "/" + fixture], input: "password\n")
        #expect(out.status == 6, "\(out.stderr)")
        #expect(out.stderr.contains("unrar"), "\(out.stderr)")
        #expect(s.list("out").isEmpty)
    }
}
