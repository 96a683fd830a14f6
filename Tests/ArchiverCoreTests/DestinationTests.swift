import ArchiverCore
import Glibc
import SystemPackage
import Testing

@Suite struct ExtractDestinationTests {
    let rule = ExtractDestination(home: "/home/ann", environment: ["XDG_RUNTIME_DIR": "/run/user/1000"])
    /// A session whose programs are told to put temporary files in /scratch/tmp.
    let tmpdirRule = ExtractDestination(
        home: "/home/ann", environment: ["TMPDIR": "/scratch/tmp", "XDG_RUNTIME_DIR": "/run/user/1000"])

    @Test(arguments: ["/tmp", "/tmp/mail-attach", "/var/tmp/x", "/run/user/1000/x", "/home/ann/.cache/thunderbird/a", "/dev/shm"])
    func temporaryPlaces(path: String) {
        #expect(rule.isTemporary(FilePath(path)))
    }

    /// $TMPDIR replaces /tmp, as for every program that honours it; the other places stay temporary.
    @Test func tmpdirReplacesTmp() {
        #expect(tmpdirRule.isTemporary("/scratch/tmp/dl"))
        #expect(!tmpdirRule.isTemporary("/tmp/checkout/w"))
        #expect(!tmpdirRule.isTemporary("/tmp"))
        for path in ["/var/tmp/x", "/dev/shm", "/run/user/1000/x", "/home/ann/.cache/a"] {
            #expect(tmpdirRule.isTemporary(FilePath(path)), "\(path)")
        }
        #expect(!rule.isTemporary("/scratch/tmp/dl"))
        #expect(!ExtractDestination(home: "/h", environment: ["TMPDIR": "relative"]).isTemporary("/scratch"))
        #expect(ExtractDestination(home: "/h", environment: ["TMPDIR": "relative"]).isTemporary("/tmp/x"))
    }

    @Test(arguments: ["/home/ann", "/home/ann/Documents", "/tmpfoo", "/home/ann/.cachex", "/run/user/1000/gvfs/smb-share:server=nas/x"])
    func placesThatAreNotTemporary(path: String) {
        #expect(!rule.isTemporary(FilePath(path)))
    }

    /// Without --here a temporary place sends the archive to the extract location; with it (the menus'
    /// "Extract Here") the archive's own folder wins whenever it can be written.
    @Test(arguments: [
        // folder, here, writable, beside
        ("/home/ann/Documents", false, true, true),
        ("/home/ann/Documents", true, true, true),
        ("/home/ann/Documents", false, false, false),
        ("/home/ann/Documents", true, false, false),
        ("/tmp/mail-attach", false, true, false),
        ("/tmp/mail-attach", true, true, true),
        ("/tmp/mail-attach", true, false, false),
        ("/run/user/1000/x", true, true, true),
        ("/home/ann/.cache/thunderbird/a", false, true, false),
        ("/home/ann/.cache/thunderbird/a", true, true, true),
        ("/var/tmp/dl", true, false, false),
    ])
    func besideTheArchiveOrTheExtractLocation(folder: String, here: Bool, writable: Bool, beside: Bool) {
        #expect(rule.extractsBeside(in: FilePath(folder), here: here, writable: writable) == beside)
    }

    @Test func cacheFolderFollowsXDG() {
        let custom = ExtractDestination(home: "/home/ann", environment: ["XDG_CACHE_HOME": "/var/cache/ann"])
        #expect(custom.isTemporary("/var/cache/ann/x"))
        #expect(!custom.isTemporary("/home/ann/.cache-not/x"))
    }

    @Test func downloadsFromUserDirs() {
        let userDirs = """
            # written by xdg-user-dirs-update
            XDG_DESKTOP_DIR="$HOME/Desktop"
            XDG_DOWNLOAD_DIR="$HOME/Téléchargements"
            """
        #expect(rule.downloadsFolder(userDirs: userDirs) == "/home/ann/Téléchargements")
        #expect(rule.downloadsFolder(userDirs: "XDG_DOWNLOAD_DIR=\"/data/dl\"") == "/data/dl")
        #expect(rule.downloadsFolder(userDirs: nil) == "/home/ann/Downloads")
        #expect(rule.downloadsFolder(userDirs: "XDG_MUSIC_DIR=\"$HOME/Music\"") == "/home/ann/Downloads")
    }
}

@Suite struct TemporaryNameTests {
    @Test func namesCarryThePID() {
        let name = TemporaryName.make(pid: 4242, token: "abc", isDirectory: false)
        #expect(name.hasPrefix(".archiver-"))
        #expect(TemporaryName.pid(in: Array(name.utf8)) == 4242)
        #expect(TemporaryName.pid(in: Array(TemporaryName.make(pid: 7, token: "z", isDirectory: true).utf8)) == 7)
    }

    @Test func otherNamesAreNotOurs() {
        #expect(TemporaryName.pid(in: Array(".archiver-sample.x".utf8)) == nil)
        #expect(TemporaryName.pid(in: Array("archiver-12-x".utf8)) == nil)
        #expect(TemporaryName.pid(in: Array(".archiver-12".utf8)) == nil)
        // Files of ours that are no temporaries (the photo batch's resume journal) carry no PID.
        #expect(TemporaryName.pid(in: Array(".archiver-photos-journal".utf8)) == nil)
        #expect(TemporaryName.pid(in: Array(".archiver-journal-12-x".utf8)) == nil)
    }
}

@Suite struct ProgressTests {
    @Test func percentRateAndTimeLeft() throws {
        var meter = ProgressMeter(total: 1000, start: 0)
        let update = meter.update(done: 100, now: 1)
        let first = try #require(update)
        #expect(first.fraction == 0.1)
        #expect(first.rate == 100)
        #expect(first.remaining == 9)
        #expect(meter.update(done: 150, now: 1.05) == nil, "at most ten updates a second")
        let second = meter.update(done: 500, now: 2)
        let later = try #require(second)
        #expect(later.fraction == 0.5)
        #expect(later.remaining.map { $0 > 0 && $0 < 10 } == true)
    }

    @Test func unknownTotalHasNoPercent() throws {
        var meter = ProgressMeter(total: nil, start: 0)
        let update = meter.update(done: 5000, now: 1)
        let snapshot = try #require(update)
        #expect(snapshot.fraction == nil && snapshot.remaining == nil)
        #expect(HumanFormat.progressLine(snapshot).english == "5.0 kB  5.0 kB/s")
    }

    @Test func humanFormats() {
        #expect(HumanFormat.bytes(1) == "1 byte")
        #expect(HumanFormat.bytes(999) == "999 bytes")
        #expect(HumanFormat.bytes(1234) == "1.2 kB")
        #expect(HumanFormat.bytes(38_000_000) == "38.0 MB")
        #expect(HumanFormat.bytes(123_456_789) == "123 MB")
        #expect(HumanFormat.duration(7) == "0:07")
        #expect(HumanFormat.duration(3723) == "1:02:03")
        #expect(HumanFormat.iso8601(0) == "1970-01-01T00:00:00Z")
        #expect(HumanFormat.iso8601(1_704_067_200 + 3661) == "2024-01-01T01:01:01Z")
        #expect(HumanFormat.iso8601(951_782_400) == "2000-02-29T00:00:00Z")
    }

    @Test func iso8601ReadsBackWhatItWrites() {
        for seconds: Int64 in [0, 59, 951_782_400, 1_704_067_200 + 3661, -1, -86_401, 315_532_800, 4_102_444_799, -2_208_988_800, 253_402_300_799] {
            #expect(HumanFormat.seconds(iso8601: HumanFormat.iso8601(seconds)) == seconds, "\(HumanFormat.iso8601(seconds))")
        }
        for bad in ["", "2024-01-31", "2024-01-31T09:05:00", "2024-13-01T00:00:00Z", "2024-01-31 09:05:00Z", "2024-0a-31T09:05:00Z", "2024-01-31T24:00:00Z", "2026-02-30T00:00:00Z", "2024-01-31T09:05:0aZ", "２０２４-01-31T09:05:00Z"] {
            #expect(HumanFormat.seconds(iso8601: bad) == nil, "\(bad)")
        }
    }
}

@Suite struct JobControlTests {
    @Test func cancelStopsTheNextCheck() {
        let control = JobControl()
        #expect(throws: Never.self) { try control.check() }
        control.cancel()
        do {
            try control.check()
            Issue.record("expected cancellation")
        } catch {
            #expect(error.code == .cancelled)
            #expect(error.code.exitStatus == 8)
        }
    }

    @Test func budgetExpires() throws {
        let control = JobControl(budget: 0.01)
        var caught: ArchiverError?
        let deadline = ContinuousClock.now.advanced(by: .seconds(2))
        while caught == nil, ContinuousClock.now < deadline {
            do { try control.check() } catch { caught = error }
        }
        #expect(caught?.code == .budget)
        #expect(caught?.code.exitStatus == 9)
        #expect(JobControl(budget: 0).budget == nil)
    }

    /// The watchdog's verdict on a reader without progress reads as a malformed archive (exit 5).
    @Test func aStallIsMalformed() {
        let control = JobControl()
        #expect(control.stopReason == nil)
        control.stall(seconds: 10)
        #expect(control.stopReason?.code == .corrupt)
        #expect(control.stopReason?.message.english.contains("for 10 s,") == true)
        control.cancel()
        #expect(control.stopReason?.code == .cancelled)
    }

    /// While a person is asked for a password, the budget does not run out, whoever looks.
    @Test func theBudgetWaitsWhileAPersonIsAsked() {
        let control = JobControl(budget: 0.05)
        control.notCounting {
            usleep(150_000)
            #expect(control.isWaitingForPerson)
            #expect(control.stopReason == nil)
        }
        #expect(!control.isWaitingForPerson)
        #expect(control.stopReason == nil)
        usleep(100_000)
        #expect(control.stopReason?.code == .budget)
    }
}

@Suite struct FailureClassifierTests {
    @Test func messagesMapToExitCodes() {
        #expect(FailureClassifier.readFailure(message: "Unrecognized archive format") == .notAnArchive)
        #expect(FailureClassifier.readFailure(message: "Unsupported ZIP compression method (9: deflation-64-bit)") == .notAnArchive)
        #expect(FailureClassifier.readFailure(message: "Truncated ZIP file data") == .corrupt)
        #expect(FailureClassifier.readFailure(message: "Damaged tar archive") == .corrupt)
        #expect(FailureClassifier.readFailure(message: "Passphrase required for this entry") == .password)
        #expect(FailureClassifier.readFailure(message: "The archive header is encrypted, but currently not supported") == .password)
        #expect(FailureClassifier.readFailure(message: "Unsupported block header size (was 4, max is 2)") == .password)
    }

    @Test func exitStatusesMatchDesign() {
        let expected: [(ArchiverError.Code, Int32)] = [
            (.usage, 2), (.inputUnreadable, 3), (.notAnArchive, 4), (.corrupt, 5), (.password, 6), (.destination, 7),
            (.cancelled, 8), (.budget, 9),
        ]
        for (code, status) in expected { #expect(code.exitStatus == status) }
    }

    @Test func deflate64GetsAHint() {
        let error = FailureClassifier.describeReadFailure(
            message: "Unsupported ZIP compression method (9: deflation-64-bit)", archive: "old.zip", place: .at("a.doc"))
        #expect(error.message.english.contains("at “a.doc”"))
        #expect(error.message.english.contains("Deflate64"))
        #expect(error.hint?.english.contains("7zz") == true)
    }
}

/// Where a window says the result went: short, as the file manager says it.
@Suite struct ShortLocationTests {
    @Test func homeAndBelowItAreShortElsewhereTheWholePath() {
        let home = FilePath("/home/ana")
        #expect(ShortLocation.text("/home/ana", home: home).english == "Home")
        #expect(ShortLocation.text("/home/ana/Documents/Reports", home: home).english == "Documents/Reports")
        #expect(ShortLocation.text("/home/ana/./Downloads/", home: home).english == "Downloads")
        #expect(ShortLocation.text("/home/anabel/x", home: home).english == "/home/anabel/x")
        #expect(ShortLocation.text("/media/usb", home: home).english == "/media/usb")
    }
}
