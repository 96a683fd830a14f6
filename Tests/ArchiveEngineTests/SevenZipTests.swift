import ArchiverCore
import ArchiverTestSupport
import Foundation
import Platform
import Synchronization
import SystemPackage
import Testing

@testable import ArchiveEngine

/// `7zz` run the way a person would, to make fixtures and check our output. Passwords on its command
/// line are fine here; the engine never does that.
private func sevenZip(_ arguments: [String], in folder: String? = nil) throws -> (status: Int32, output: String) {
    let outcome = try Tool.start([try #require(SevenZip.executable).string] + arguments, in: folder, mergingErrors: true)
        .wait(timeout: 3600)
    return (outcome.status, outcome.stdout)
}

private func write(_ text: String, to path: String, mode: Int = 0o644) throws {
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    chmod(path, mode_t(mode))
}

private func randomFile(_ path: String, megabytes: Int) throws {
    let source = try #require(FileHandle(forReadingAtPath: "/dev/urandom"))
    try source.readData(ofLength: megabytes << 20).write(to: URL(fileURLWithPath: path))
}

/// Archives made with 7zz itself from the sample tree: plain, file data encrypted, names encrypted.
private struct Fixtures {
    static let password = "pä ss"
    let plain: FilePath
    let contents: FilePath
    let names: FilePath

    init(_ scratch: ScratchDirectory) throws {
        try SampleTree.make(at: scratch.sub("Sample"))
        plain = FilePath(scratch.sub("plain.7z"))
        contents = FilePath(scratch.sub("contents.7z"))
        names = FilePath(scratch.sub("names.7z"))
        for (archive, extra) in [
            (plain, [String]()), (contents, ["-p" + Self.password]), (names, ["-p" + Self.password, "-mhe=on"]),
        ] {
            let made = try sevenZip(["a", "-snl"] + extra + ["--", archive.string, "Sample"], in: scratch.path)
            #expect(made.status == 0, "\(made.output)")
        }
    }
}

/// An empty private folder, as the extractor makes for staging.
private func makeStaging(_ path: String) throws -> String {
    try FileManager.default.createDirectory(
        atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    return path
}

private func secret(_ text: String) -> Secret { Secret(Array(text.utf8)) }

/// The numbers of all running processes, as named in /proc.
private func processIDs() -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return names.filter { $0.allSatisfy(\.isNumber) }
}

/// Every process whose command line contains `needle`.
private func processes(mentioning needle: String) -> [String] {
    processIDs().filter { id in
        guard let data = FileManager.default.contents(atPath: "/proc/\(id)/cmdline") else { return false }
        return data.range(of: Data(needle.utf8)) != nil
    }
}

@Suite(.enabled(if: SevenZip.executable != nil, "needs 7-Zip (the 7zip package)"))
struct SevenZipTests {
    @Test func createsWhat7ZipReadsBack() throws {
        let scratch = try ScratchDirectory()
        try SampleTree.make(at: scratch.sub("Sample"))
        try write("loose", to: scratch.sub("lösé.txt"))
        let output = FilePath(scratch.sub("made.7z"))
        var fractions: [Double] = []
        try SevenZip.create(
            items: [Array("Sample".utf8), Array("lösé.txt".utf8)], in: FilePath(scratch.path), output: output,
            level: .normal, password: nil, control: JobControl()
        ) { fractions.append($0) }
        #expect(fractions.first == 0 && fractions.last == 1)

        #expect(try sevenZip(["t", output.string]).status == 0)
        // 7-Zip 25 and later leave a symlink with `..` (nested/link-to-hello -> ../hello.txt) as a
        // placeholder file unless given -snld.
        let unpacked = try sevenZip(["x", "-snld", "-o" + scratch.sub("out"), output.string])
        #expect(unpacked.status == 0, "\(unpacked.output)")
        #expect(try TreeSnapshot.differences(expected: scratch.sub("Sample"), actual: scratch.sub("out/Sample")) == [])
        #expect(FileManager.default.contents(atPath: scratch.sub("out/lösé.txt")) == Data("loose".utf8))
        #expect(try sevenZip(["l", "-slt", output.string]).output.contains("Method = LZMA2"))
    }

    @Test func aPasswordHidesTheNamesToo() throws {
        let scratch = try ScratchDirectory()
        try SampleTree.make(at: scratch.sub("Sample"))
        let output = FilePath(scratch.sub("secret.7z"))
        try SevenZip.create(
            items: [Array("Sample".utf8)], in: FilePath(scratch.path), output: output, level: .fast,
            password: secret(Fixtures.password), control: JobControl(), progress: { _ in })

        let listed = try sevenZip(["l", output.string])
        #expect(listed.status != 0)
        #expect(!listed.output.contains("hello.txt"))
        #expect(try sevenZip(["t", "-p" + Fixtures.password, output.string]).status == 0)
        #expect(try sevenZip(["t", "-pwrong", output.string]).status != 0)
        #expect(try SevenZip.encryption(of: output) == .names)
    }

    @Test func aPasswordWithALineBreakIsRefused() throws {
        let scratch = try ScratchDirectory()
        try write("x", to: scratch.sub("x.txt"))
        let output = FilePath(scratch.sub("x.7z"))
        #expect {
            try SevenZip.create(
                items: [Array("x.txt".utf8)], in: FilePath(scratch.path), output: output, level: .normal,
                password: secret("ab\ncd"), control: JobControl(), progress: { _ in })
        } throws: { error in
            (error as? ArchiverError)?.code == .password
        }
        #expect(FileSystem.status(output) == nil)
    }

    @Test func storeIsCopyAndTheOtherLevelsLZMA2() throws {
        let scratch = try ScratchDirectory()
        try write(String(repeating: "compressible ", count: 10_000), to: scratch.sub("text.txt"))
        for (level, method) in [(CompressionLevel.store, "Copy"), (.maximum, "LZMA2")] {
            let output = FilePath(scratch.sub("\(level).7z"))
            try SevenZip.create(
                items: [Array("text.txt".utf8)], in: FilePath(scratch.path), output: output, level: level,
                password: nil, control: JobControl(), progress: { _ in })
            #expect(try sevenZip(["l", "-slt", output.string]).output.contains("Method = \(method)"))
        }
    }

    @Test func anExistingOutputIsNeverTouched() throws {
        let scratch = try ScratchDirectory()
        try write("mine", to: scratch.sub("taken.7z"))
        try write("x", to: scratch.sub("x.txt"))
        #expect(throws: ArchiverError.self) {
            try SevenZip.create(
                items: [Array("x.txt".utf8)], in: FilePath(scratch.path), output: FilePath(scratch.sub("taken.7z")),
                level: .normal, password: nil, control: JobControl(), progress: { _ in })
        }
        #expect(FileManager.default.contents(atPath: scratch.sub("taken.7z")) == Data("mine".utf8))
    }

    @Test func anUnreadableInputStopsTheJobAndLeavesNothing() throws {
        let scratch = try ScratchDirectory()
        let output = FilePath(scratch.sub("out.7z"))
        do {
            try SevenZip.create(
                items: [Array("missing.txt".utf8)], in: FilePath(scratch.path), output: output, level: .normal,
                password: nil, control: JobControl(), progress: { _ in })
            Issue.record("a missing input must fail")
        } catch {
            #expect(error.code == .inputUnreadable, "\(error)")
        }
        #expect(FileSystem.status(output) == nil)
    }

    /// A full disk is a real 1 MB tmpfs; mounting one needs root, which CI has.
    @Test(.enabled(if: getuid() == 0, "needs root to mount a tmpfs"))
    func aFullDiskIsADestinationErrorAndLeavesNothing() throws {
        let scratch = try ScratchDirectory()
        let disk = scratch.sub("disk")
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        let mount = try Process.run(
            URL(fileURLWithPath: "/bin/mount"), arguments: ["-t", "tmpfs", "-o", "size=1m", "tmpfs", disk])
        mount.waitUntilExit()
        try #require(mount.terminationStatus == 0)
        defer {
            try? Process.run(URL(fileURLWithPath: "/bin/umount"), arguments: [disk]).waitUntilExit()
            withExtendedLifetime(scratch) {}  // removed only once unmounted
        }
        try FileManager.default.createDirectory(atPath: disk + "/staging", withIntermediateDirectories: true)
        try randomFile(scratch.sub("big.bin"), megabytes: 3)
        let archive = FilePath(scratch.sub("big.7z"))
        func store(into output: FilePath) throws {
            try SevenZip.create(
                items: [Array("big.bin".utf8)], in: FilePath(scratch.path), output: output, level: .store,
                password: nil, control: JobControl(), progress: { _ in })
        }
        func isDiskFull(_ error: any Error) -> Bool {
            (error as? ArchiverError).map { $0.code == .destination && $0.message.english.contains("full") } ?? false
        }
        try store(into: archive)
        #expect(performing: { try store(into: FilePath(disk + "/full.7z")) }, throws: isDiskFull)
        // 290 files of 3500 bytes fit the 1 MiB by their sizes, not in 4 KiB pages: 7-Zip itself runs out.
        try FileManager.default.createDirectory(atPath: scratch.sub("many"), withIntermediateDirectories: true)
        let bytes = try #require(FileHandle(forReadingAtPath: "/dev/urandom")).readData(ofLength: 290 * 3500)
        for index in 0..<290 {
            try bytes.subdata(in: index * 3500..<(index + 1) * 3500).write(to: URL(fileURLWithPath: scratch.sub("many/\(index)")))
        }
        let many = FilePath(scratch.sub("many.7z"))
        try SevenZip.create(
            items: [Array("many".utf8)], in: FilePath(scratch.path), output: many, level: .store, password: nil,
            control: JobControl(), progress: { _ in })
        #expect(
            performing: {
                try SevenZip.extract(many, into: FilePath(disk + "/staging"), password: nil, control: JobControl(), progress: { _ in })
            },
            throws: isDiskFull)
        // The path encrypted 7z takes refuses up front, from the listed sizes, before 7-Zip writes anything.
        #expect(
            performing: {
                try SevenZip.extractTree(
                    archive, into: FilePath(disk + "/staging"), password: nil, control: JobControl(), progress: { _ in })
            },
            throws: { ($0 as? ArchiverError).map { $0.code == .destination && $0.message.english.contains("needs") } ?? false })
        #expect(try FileManager.default.contentsOfDirectory(atPath: disk) == ["staging"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: disk + "/staging").isEmpty)
    }

    @Test func findsWhatIsEncrypted() throws {
        let scratch = try ScratchDirectory()
        let fixtures = try Fixtures(scratch)
        #expect(try SevenZip.encryption(of: fixtures.plain) == .none)
        #expect(try SevenZip.encryption(of: fixtures.contents) == .contents)
        #expect(try SevenZip.encryption(of: fixtures.names) == .names)
    }

    @Test func checksPasswordsWithoutWriting() throws {
        let scratch = try ScratchDirectory()
        let fixtures = try Fixtures(scratch)
        let before = try FileManager.default.contentsOfDirectory(atPath: scratch.path).sorted()
        for archive in [fixtures.contents, fixtures.names] {
            #expect(try SevenZip.accepts(archive, password: secret(Fixtures.password)), "\(archive)")
            #expect(try !SevenZip.accepts(archive, password: secret("pä sS")), "\(archive)")
            #expect(try !SevenZip.accepts(archive, password: secret("")), "\(archive)")
        }
        #expect(try SevenZip.accepts(fixtures.plain, password: secret("anything")))
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).sorted() == before)
    }

    @Test func listsEntries() throws {
        let scratch = try ScratchDirectory()
        let fixtures = try Fixtures(scratch)
        let expected = try TreeSnapshot(scratch.sub("Sample"))
        for (archive, password) in [
            (fixtures.plain, nil), (fixtures.contents, nil), (fixtures.names, secret(Fixtures.password)),
        ] {
            let entries = try SevenZip.list(archive, password: password)
            let byPath = Dictionary(uniqueKeysWithValues: entries.map { ($0.path.displayName, $0) })
            #expect(Set(byPath.keys) == Set(expected.nodes.keys.map { "Sample/" + $0 } + ["Sample"]))
            let hello = try #require(byPath["Sample/hello.txt"])
            #expect(hello.kind == .file && hello.size == 16 && hello.permissions == 0o644)
            #expect(hello.encrypted == (archive != fixtures.plain))
            #expect(byPath["Sample/run.sh"]?.permissions == 0o755)
            #expect(byPath["Sample/日本語/ファイル 🎉.txt"]?.kind == .file)
            #expect(byPath["Sample/nested/link-to-hello"]?.kind == .symlink)
            #expect(byPath["Sample/empty folder"]?.kind == .directory)
            #expect(byPath["Sample/empty folder"]?.encrypted == false)
            if case .file(_, _, let mtime) = expected.nodes["hello.txt"] { #expect(hello.modified == Int64(mtime)) }
            // One solid block: no file has a packed size of its own.
            #expect(entries.filter { $0.kind == .file && ($0.size ?? 0) > 0 }.allSatisfy { $0.packedSize == nil })
        }
        #expect(try SevenZip.encryption(of: fixtures.names) == .names)
        for password in [nil, secret("wrong")] {
            #expect {
                try SevenZip.list(fixtures.names, password: password)
            } throws: { error in
                (error as? ArchiverError)?.code == .password
            }
        }
    }

    @Test func reportsPackedSizesOfFilesAloneInTheirBlock() throws {
        let scratch = try ScratchDirectory()
        try write(String(repeating: "a", count: 5000), to: scratch.sub("a.txt"))
        try write(String(repeating: "b", count: 7000), to: scratch.sub("b.txt"))
        let archive = scratch.sub("nonsolid.7z")
        #expect(try sevenZip(["a", "-ms=off", archive, "a.txt", "b.txt"], in: scratch.path).status == 0)
        let entries = try SevenZip.list(FilePath(archive), password: nil)
        #expect(entries.count == 2)
        #expect(entries.allSatisfy { (1..<200).contains($0.packedSize ?? 0) })
    }

    @Test func errorsSayWhatIsWrong() throws {
        let scratch = try ScratchDirectory()
        let fixtures = try Fixtures(scratch)
        try write("just text, not an archive", to: scratch.sub("text.7z"))
        let truncated = try Data(contentsOf: URL(fileURLWithPath: fixtures.plain.string)).prefix(200)
        try truncated.write(to: URL(fileURLWithPath: scratch.sub("cut.7z")))
        let cases: [(String, ArchiverError.Code)] = [
            ("missing.7z", .inputUnreadable), ("Sample", .inputUnreadable), ("text.7z", .notAnArchive),
            ("cut.7z", .corrupt),
        ]
        for (name, code) in cases {
            #expect {
                try SevenZip.list(FilePath(scratch.sub(name)), password: nil)
            } throws: { error in
                (error as? ArchiverError)?.code == code
            }
        }
        #expect {
            try SevenZip.list(fixtures.names, password: secret("wrong"))
        } throws: { error in
            (error as? ArchiverError)?.message.english == "Wrong password for “names.7z”."
        }
    }

    @Test func extractsEncryptedArchives() throws {
        let scratch = try ScratchDirectory()
        let fixtures = try Fixtures(scratch)
        for archive in [fixtures.contents, fixtures.names] {
            let staging = try makeStaging(scratch.sub("staging-\(archive.stem ?? "")"))
            var fractions: [Double] = []
            let report = try SevenZip.extractTree(
                archive, into: FilePath(staging), password: secret(Fixtures.password), control: JobControl()
            ) { fractions.append($0) }
            #expect(report.messages.isEmpty, "\(report.messages)")
            #expect(report.files == 6 && report.symlinks == 1 && report.folders == 6)
            #expect(!report.linksReachTop)
            #expect(fractions.first == 0 && fractions.last == 1)
            #expect(try TreeSnapshot.differences(expected: scratch.sub("Sample"), actual: staging + "/Sample") == [])
        }
    }

    /// A wrong password fails before (names encrypted) or while (contents only) 7-Zip writes; either way
    /// the staging folder is left empty, for the caller to remove.
    @Test func aWrongPasswordLeavesStagingEmpty() throws {
        let scratch = try ScratchDirectory()
        let fixtures = try Fixtures(scratch)
        for archive in [fixtures.contents, fixtures.names] {
            let staging = try makeStaging(scratch.sub("staging-\(archive.stem ?? "")"))
            do {
                try SevenZip.extract(
                    archive, into: FilePath(staging), password: secret("wrong"), control: JobControl(),
                    progress: { _ in })
                Issue.record("a wrong password must fail")
            } catch {
                #expect(error.code == .password)
                #expect(error.message.english == "Wrong password for “\(archive.lastComponent?.string ?? "")”.")
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: staging).isEmpty)
            do {
                try SevenZip.extract(archive, into: FilePath(staging), password: nil, control: JobControl()) { _ in }
                Issue.record("a missing password must fail")
            } catch {
                #expect(error.code == .password)
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: staging).isEmpty)
        }
    }

    @Test func cancellingCreateStopsSevenZipAndLeavesNothing() throws {
        let scratch = try ScratchDirectory()
        try randomFile(scratch.sub("big.bin"), megabytes: 64)
        let output = FilePath(scratch.sub("cancelled.7z"))
        let control = JobControl()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.5) { control.cancel() }
        let started = ContinuousClock.now
        do {
            try SevenZip.create(
                items: [Array("big.bin".utf8)], in: FilePath(scratch.path), output: output, level: .maximum,
                password: secret("x"), control: control, progress: { _ in })
            Issue.record("64 MB at maximum takes seconds; the cancel must win")
        } catch {
            #expect(error.code == .cancelled)
        }
        #expect(ContinuousClock.now - started < .seconds(3))
        #expect(FileSystem.status(output) == nil)
        #expect(processes(mentioning: output.string).isEmpty)
    }

    @Test func runningOutOfBudgetStopsAnExtraction() throws {
        let scratch = try ScratchDirectory()
        // PPMd decodes random bytes slowly (about 1 MB/s), so the extraction lasts long enough to stop.
        try randomFile(scratch.sub("slow.bin"), megabytes: 3)
        let archive = scratch.sub("slow.7z")
        #expect(try sevenZip(["a", "-m0=PPMd", "-mx9", "-pX", archive, "slow.bin"], in: scratch.path).status == 0)
        let staging = try makeStaging(scratch.sub("staging"))
        let started = ContinuousClock.now
        do {
            try SevenZip.extract(
                FilePath(archive), into: FilePath(staging), password: secret("X"), control: JobControl(budget: 0.3)
            ) { _ in }
            Issue.record("the budget must stop it")
        } catch {
            #expect(error.code == .budget)
        }
        #expect(ContinuousClock.now - started < .seconds(1))
        #expect(processes(mentioning: archive).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: staging).isEmpty)
    }

    @Test func thePasswordIsNeverInAnyCommandLineOrEnvironment() throws {
        let scratch = try ScratchDirectory()
        try randomFile(scratch.sub("big.bin"), megabytes: 24)
        let password = "pw-" + UUID().uuidString
        let output = FilePath(scratch.sub("scanned.7z"))
        let scan = ProcessScan()
        let scanner = Thread {
            while !scan.done.load(ordering: .relaxed) {
                var leaks: [String] = []
                var sawSevenZip = false
                for id in processIDs() {
                    for file in ["cmdline", "environ"] {
                        guard let data = FileManager.default.contents(atPath: "/proc/\(id)/\(file)") else { continue }
                        if data.range(of: Data(password.utf8)) != nil { leaks.append("\(id)/\(file)") }
                        if file == "cmdline", data.range(of: Data(output.string.utf8)) != nil { sawSevenZip = true }
                    }
                }
                scan.findings.withLock {
                    $0.scans += 1
                    $0.sawSevenZip = $0.sawSevenZip || sawSevenZip
                    $0.leaks += leaks
                }
            }
        }
        scanner.start()
        try SevenZip.create(
            items: [Array("big.bin".utf8)], in: FilePath(scratch.path), output: output, level: .normal,
            password: secret(password), control: JobControl(), progress: { _ in })
        scan.done.store(true, ordering: .relaxed)
        let result = scan.findings.withLock { $0 }
        #expect(result.sawSevenZip, "the scan must overlap 7zz's run (\(result.scans) scans)")
        #expect(result.leaks.isEmpty)
        #expect(try sevenZip(["t", "-p" + password, output.string]).status == 0)
    }

    /// 7zz 26 stores links as they are (-snl). On extraction it refuses the one that climbs out (leaving an
    /// empty placeholder, which the sweep removes) and turns the absolute one into an absolute link into
    /// the output folder, which the sweep removes too.
    @Test func linksOutOfTheStagingFolderAreRemoved() throws {
        let scratch = try ScratchDirectory()
        let tree = scratch.sub("Hostile")
        try FileManager.default.createDirectory(atPath: tree + "/dir", withIntermediateDirectories: true)
        try write("inside", to: tree + "/file.txt")
        try write("#!/bin/sh\n", to: tree + "/setuid", mode: 0o4755)
        let fm = FileManager.default
        try fm.createSymbolicLink(atPath: tree + "/passwd", withDestinationPath: "/etc/passwd")
        try fm.createSymbolicLink(atPath: tree + "/dir/up", withDestinationPath: "../../../../../etc/passwd")
        try fm.createSymbolicLink(atPath: tree + "/dir/back", withDestinationPath: "../file.txt")
        try fm.createSymbolicLink(atPath: tree + "/same", withDestinationPath: "file.txt")
        let archive = scratch.sub("hostile.7z")
        #expect(try sevenZip(["a", "-snl", archive, "Hostile"], in: scratch.path).status == 0)

        let staging = try makeStaging(scratch.sub("staging"))
        let report = try SevenZip.extractTree(
            FilePath(archive), into: FilePath(staging), password: nil, control: JobControl()
        ) { _ in }
        let linkReason = EntryPath.Refusal.linkLeavesDestination.text.english
        #expect(
            Set(report.messages.map(\.english)) == [
                "Refused “Hostile/passwd”: \(linkReason).", "Refused “Hostile/dir/up”: \(linkReason).",
            ])
        #expect(try fm.destinationOfSymbolicLink(atPath: staging + "/Hostile/dir/back") == "../file.txt")
        #expect(try fm.destinationOfSymbolicLink(atPath: staging + "/Hostile/same") == "file.txt")
        #expect(FileSystem.status(FilePath(staging + "/Hostile/passwd")) == nil)
        #expect(FileSystem.status(FilePath(staging + "/Hostile/dir/up")) == nil)
        try expectEverythingInside(staging)
    }

    /// bsdtar writes what 7zz will not: `../` and absolute names, and a named pipe. 7zz would strip the
    /// `..` and the `/` and write the entries inside; they are left out and named instead.
    @Test func unsafeNamesAndSpecialFilesAreLeftOut() throws {
        let scratch = try ScratchDirectory()
        let tree = scratch.sub("src")
        try FileManager.default.createDirectory(atPath: tree, withIntermediateDirectories: true)
        try write("bad", to: tree + "/escape.txt")
        try write("bad", to: tree + "/absolute.txt")
        try write("good", to: tree + "/good.txt")
        #expect(mkfifo(tree + "/pipe", 0o644) == 0)
        let absolute = scratch.sub("absolute-target.txt")
        let archive = scratch.sub("names.7z")
        let bsdtar = try Tool.start(
            [
                "/usr/bin/bsdtar", "--format", "7zip", "-P", "-cf", archive, "-s", ",^escape,../escape,", "-s",
                ",^absolute.txt,\(absolute),", "escape.txt", "absolute.txt", "good.txt", "pipe",
            ], in: tree
        ).wait()
        #expect(bsdtar.status == 0)

        let staging = try makeStaging(scratch.sub("out/staging"))
        let report = try SevenZip.extractTree(
            FilePath(archive), into: FilePath(staging), password: nil, control: JobControl()
        ) { _ in }
        #expect(
            Set(report.messages.map(\.english)) == [
                "Refused “../escape.txt”: \(EntryPath.Refusal.parentReference.text.english).",
                "Refused “\(absolute)”: \(EntryPath.Refusal.absolutePath.text.english).",
                "Refused “pipe”: \(EntryPath.Refusal.specialFile(.namedPipe).text.english).",
            ])
        #expect(try FileManager.default.contentsOfDirectory(atPath: staging) == ["good.txt"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.sub("out")) == ["staging"])
        #expect(!FileManager.default.fileExists(atPath: absolute))
    }

    @Test func readsProgressOnlyAtTheStartOfAnUpdate() {
        var reader = SevenZip.ProgressReader()
        var seen: [Double] = []
        let output =
            "  0M Scan\u{8}\u{8}  0%\u{8}\u{8}\u{8}\u{8}    \u{8}\u{8}\u{8}\u{8} 25% 3 + 50% off.txt\u{8}\u{8}100%\n"
        Array(output.utf8).withUnsafeBytes { reader.read($0) { seen.append($0) } }
        #expect(seen == [0, 0.25, 1])
    }

    @Test func readsModeStringsAndTimes() {
        let listing = """

            Enter password (will not be echoed):
            Path = a/tool
            Size = 3
            Packed Size = 9
            Modified = 2020-09-13 12:26:40.1234567
            Attributes = A -rwsr-x--T
            Encrypted = +
            Block = 0

            Path = a
            Size = 0
            Packed Size = 0
            Modified =
            Attributes = D
            Encrypted = -
            Block =

            """
        let entries = SevenZip.parseListing(Array(listing.utf8))
        #expect(entries.count == 2)
        #expect(entries[0].info.permissions == 0o5750 && entries[0].info.kind == .file && entries[0].info.encrypted)
        #expect(entries[0].info.modified == 1_600_000_000 && entries[0].info.packedSize == 9)
        #expect(
            entries[1].info.kind == .directory && entries[1].info.permissions == 0o755
                && entries[1].info.modified == nil)
    }
}

/// What the /proc scanner thread found.
private final class ProcessScan: Sendable {
    let done = Atomic(false)
    let findings = Mutex<(scans: Int, sawSevenZip: Bool, leaks: [String])>((0, false, []))
}

/// Fails for any symlink under `root` that is absolute or resolves outside it, and any setuid, setgid or
/// sticky bit.
private func expectEverythingInside(_ root: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let base = try #require(FileSystem.resolve(FilePath(root))).string
    for relative in try FileManager.default.subpathsOfDirectory(atPath: root) {
        let path = root + "/" + relative
        var info = stat()
        lstat(path, &info)
        #expect(info.st_mode & 0o7000 == 0, "\(relative)", sourceLocation: sourceLocation)
        guard info.st_mode & S_IFMT == S_IFLNK else { continue }
        let target = try FileManager.default.destinationOfSymbolicLink(atPath: path)
        #expect(!target.hasPrefix("/"), "\(relative) -> \(target)", sourceLocation: sourceLocation)
        if let resolved = FileSystem.resolve(FilePath(path)) {
            #expect(resolved.string.hasPrefix(base + "/"), "\(relative) -> \(resolved)", sourceLocation: sourceLocation)
        }
    }
}
