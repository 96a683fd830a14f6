import ArchiverCore
import ArchiverTestSupport
import Foundation
import SystemPackage
import Testing

@testable import ArchiveEngine

@Suite struct SafetyTests {
    @Test func nothingEscapesTheDestination() throws {
        let scratch = try ScratchDirectory()
        let outside = scratch.sub("outside")
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        let archive = scratch.sub("evil.tar")
        try HostileTar.write([
            .file("good.txt", "good"),
            .file("../escape.txt", "bad"),
            .file(outside + "/absolute.txt", "bad"),
            .file("sub/../../escape2.txt", "bad"),
            .symlink("out", target: outside),
            .file("out/through-link.txt", "bad"),
            .symlink("up", target: ".."),
            .file("up/through-up.txt", "bad"),
            .symlink("dot", target: "."),
            .symlink("climb", target: "dot/dot/../../outside"),
            .symlink("inner/ok", target: "../good.txt"),
            .hardlink("hard-out", target: "../outside/victim"),
            .hardlink("hard-abs", target: "/etc/passwd"),
            .hardlink("hard-ok", target: "good.txt"),
            .device("null"),
            .fifo("pipe"),
            .file("suid", "#!/bin/sh\n", mode: 0o6755),
        ], to: archive)

        let result = try Extractor.run(archive: FilePath(archive), options: options(into: scratch.sub("dest")), control: JobControl())
        #expect(result.output == FilePath(scratch.sub("dest/evil")))
        let refused = Set(result.refused.map(\.path))
        #expect(refused == [
            "../escape.txt", outside + "/absolute.txt", "sub/../../escape2.txt", "out", "up", "climb", "hard-out",
            "hard-abs", "null", "pipe",
        ])
        #expect(result.hasWarnings)
        // Nothing outside: the scratch folder holds only what it held, and `outside` stays empty.
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).sorted() == ["dest", "evil.tar", "outside"])
        let dest = scratch.sub("dest/evil")
        #expect(try String(contentsOfFile: dest + "/good.txt", encoding: .utf8) == "good")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: dest + "/inner/ok") == "../good.txt")
        #expect(try String(contentsOfFile: dest + "/hard-ok", encoding: .utf8) == "good")
        // `out/through-link.txt` and `up/through-up.txt` became plain folders inside, since their links were refused.
        #expect(try String(contentsOfFile: dest + "/out/through-link.txt", encoding: .utf8) == "bad")
        let mode = try #require(FileManager.default.attributesOfItem(atPath: dest + "/suid")[.posixPermissions] as? Int)
        #expect(mode & 0o7000 == 0, "setuid/setgid dropped")
        #expect(mode & 0o100 != 0, "still executable")
    }

    @Test func aHardLinkToASymlinkIsRefused() throws {
        let scratch = try ScratchDirectory()
        try HostileTar.write([
            .symlink("a/b/l", target: "../.."),
            .hardlink("h", target: "a/b/l"),
        ], to: scratch.sub("h.tar"))
        let result = try Extractor.run(archive: FilePath(scratch.sub("h.tar")), options: options(into: scratch.sub("dest")), control: JobControl())
        #expect(result.refused.map(\.path) == ["h"])
    }

    @Test func linksThroughTheTopLevelKeepTheArchiveInItsOwnFolder() throws {
        let scratch = try ScratchDirectory()
        try HostileTar.write([.symlink("notes.txt", target: ".bashrc")], to: scratch.sub("one.tar"))
        try HostileTar.write([.directory("dir"), .symlink("dir/k", target: "../.ssh/authorized_keys")], to: scratch.sub("two.tar"))
        let one = try Extractor.run(archive: FilePath(scratch.sub("one.tar")), options: options(into: scratch.sub("dest")), control: JobControl())
        #expect(one.output == FilePath(scratch.sub("dest/one")))
        let two = try Extractor.run(archive: FilePath(scratch.sub("two.tar")), options: options(into: scratch.sub("dest")), control: JobControl())
        #expect(two.output == FilePath(scratch.sub("dest/two")))
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.sub("dest")).sorted() == ["one", "two"])
    }

    @Test func aLaterEntryCannotWriteThroughAnAcceptedSymlink() throws {
        let scratch = try ScratchDirectory()
        let archive = scratch.sub("sneaky.tar")
        try HostileTar.write([
            .directory("real"),
            .symlink("alias", target: "real"),
            .file("alias/x.txt", "through"),
            .hardlink("alias-hard", target: "alias/x.txt"),
        ], to: archive)
        let result = try Extractor.run(archive: FilePath(archive), options: options(into: scratch.sub("dest")), control: JobControl())
        #expect(Set(result.refused.map(\.path)) == ["alias/x.txt", "alias-hard"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.sub("dest/sneaky/real")).isEmpty)
    }
}

@Suite struct CleanupTests {
    private func leftovers(_ folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix(".archiver-") }
    }

    /// A truncated zip or 7z fails and leaves nothing; a tar keeps the whole entries before the break, as
    /// a result with a warning saying where it broke, and no temporaries.
    @Test func corruptArchivesLeaveNothing() throws {
        let scratch = try ScratchDirectory()
        try SampleTree.make(at: scratch.sub("Sample"))
        for format in [ArchiveFormat.zip, .tarGz, .sevenZip, .tarXz] {
            let made = try Compressor.run(inputs: [FilePath(scratch.sub("Sample"))], format: format, level: .normal, control: JobControl())
            let data = try Data(contentsOf: URL(fileURLWithPath: made.output.string))
            let cut = scratch.sub("cut" + format.fileExtension)
            try data.prefix(data.count * 2 / 3).write(to: URL(fileURLWithPath: cut))
            let isTar = format == .tarGz || format == .tarXz
            do {
                let result = try Extractor.run(archive: FilePath(cut), options: options(into: scratch.sub("dest")), control: JobControl())
                if !isTar { Issue.record("\(format.rawValue): a truncated archive must fail") }
                #expect(result.warnings.map(\.code).contains("damaged-after-entries"), "\(format.rawValue): \(result.warnings)")
                #expect(result.output != nil)
            } catch {
                #expect(error.code == .corrupt || error.code == .notAnArchive, "\(format.rawValue): \(error)")
                let left = (try? FileManager.default.contentsOfDirectory(atPath: scratch.sub("dest"))) ?? []
                #expect(left.isEmpty, "\(format.rawValue)")
            }
            #expect(((try? leftovers(scratch.sub("dest"))) ?? []).isEmpty, "\(format.rawValue)")
            try? FileManager.default.removeItem(atPath: scratch.sub("dest"))
        }
    }

    @Test func cancellingLeavesNothing() throws {
        let scratch = try ScratchDirectory()
        try SampleTree.make(at: scratch.sub("Sample"))
        let control = JobControl()
        control.cancel()
        #expect(throws: ArchiverError.self) {
            try Compressor.run(inputs: [FilePath(scratch.sub("Sample"))], format: .zip, level: .normal, control: control)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path) == ["Sample"])

        let made = try Compressor.run(inputs: [FilePath(scratch.sub("Sample"))], format: .zip, level: .normal, control: JobControl())
        var calls = 0
        let stopping = JobControl()
        do {
            _ = try Extractor.run(archive: made.output, options: options(into: scratch.sub("dest")), control: stopping) { _, _ in
                calls += 1
                if calls == 3 { stopping.cancel() }
            }
            Issue.record("cancel must stop the extraction")
        } catch {
            #expect(error.code == .cancelled)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.sub("dest")).isEmpty)
    }

    @Test func staleTemporariesOfDeadProcessesAreRemoved() throws {
        let scratch = try ScratchDirectory()
        try Data("x".utf8).write(to: URL(fileURLWithPath: scratch.sub("a.txt")))
        // A PID above the kernel's maximum is never alive; our parent (the test runner's) always is.
        let dead = TemporaryName.make(pid: 4_194_304 + 7, token: "old", isDirectory: false)
        let deadFolder = TemporaryName.make(pid: 4_194_304 + 8, token: "old", isDirectory: true)
        let alive = TemporaryName.make(pid: getppid(), token: "busy", isDirectory: false)
        try Data("partial".utf8).write(to: URL(fileURLWithPath: scratch.sub(dead)))
        try FileManager.default.createDirectory(atPath: scratch.sub(deadFolder + "/inner"), withIntermediateDirectories: true)
        try Data("working".utf8).write(to: URL(fileURLWithPath: scratch.sub(alive)))
        _ = try Compressor.run(inputs: [FilePath(scratch.sub("a.txt"))], format: .zip, level: .normal, control: JobControl())
        #expect(try leftovers(scratch.path) == [alive])
    }

    @Test func emptyArchiveExtractsNothing() throws {
        let scratch = try ScratchDirectory()
        try HostileTar.write([], to: scratch.sub("empty.tar"))
        let result = try Extractor.run(archive: FilePath(scratch.sub("empty.tar")), options: options(into: scratch.sub("dest")), control: JobControl())
        #expect(result.output == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.sub("dest")).isEmpty)
    }

    @Test func inputsThatAreNotArchives() throws {
        let scratch = try ScratchDirectory()
        try Data().write(to: URL(fileURLWithPath: scratch.sub("empty.zip")))
        try Data((0..<20_000).map { _ in UInt8.random(in: 0...255) }).write(to: URL(fileURLWithPath: scratch.sub("noise.bin")))
        let cases: [(String, ArchiverError.Code)] = [
            ("empty.zip", .notAnArchive), ("noise.bin", .notAnArchive), ("missing.zip", .inputUnreadable), ("", .inputUnreadable),
        ]
        for (name, code) in cases {
            do {
                _ = try Extractor.run(archive: FilePath(scratch.sub(name)), options: options(into: scratch.sub("dest")), control: JobControl())
                Issue.record("\(name) must fail")
            } catch {
                #expect(error.code == code, "\(name): \(error)")
            }
        }
        let left = (try? FileManager.default.contentsOfDirectory(atPath: scratch.sub("dest"))) ?? []
        #expect(left.isEmpty)
    }
}
