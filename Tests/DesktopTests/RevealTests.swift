import ArchiverCore
import ArchiverTestSupport
import Foundation
import SystemPackage
import Testing

@testable import Desktop

@Suite struct RevealTests {
    private static let fileManager = ("org.freedesktop.FileManager1", "/org/freedesktop/FileManager1")

    /// A stand-in for `xdg-open` or `xdg-email` that writes its arguments, one a line, to `record`.
    private func recordingStub(in scratch: ScratchDirectory) throws -> (program: String, record: String) {
        let program = scratch.sub("stub")
        let record = scratch.sub("stub.args")
        try Tool.installScript("#!/bin/sh\nprintf '%s\\n' \"$@\" > '\(record).tmp' && mv '\(record).tmp' '\(record)'\n", at: program)
        return (program, record)
    }

    private func recorded(_ record: String) -> [String]? {
        guard eventually(within: 3, { FileManager.default.fileExists(atPath: record) }) else { return nil }
        return (try? String(contentsOfFile: record, encoding: .utf8))?.split(separator: "\n").map(String.init)
    }

    @Test func asksTheFileManagerToShowTheItem() throws {
        let scratch = try ScratchDirectory()
        let bus = try PrivateBus()
        let log = scratch.sub("fm.log")
        try bus.startMock(
            owning: Self.fileManager.0, ["-l", log, Self.fileManager.0, Self.fileManager.1, Self.fileManager.0])
        _ = try bus.call(
            Self.fileManager.0, Self.fileManager.1, "org.freedesktop.DBus.Mock.AddMethod", Self.fileManager.0,
            "ShowItems",
            "ass", "", "")
        let item = scratch.sub("Photos 2024.zip")
        #expect(FileManager.default.createFile(atPath: item, contents: Data("zip".utf8)))
        let stub = try recordingStub(in: scratch)

        #expect(Reveal.show(FilePath(item), sessionBus: bus.address, opener: stub.program))
        let uri = "file://" + item.replacingOccurrences(of: " ", with: "%20")
        #expect(
            eventually {
                (try? String(contentsOfFile: log, encoding: .utf8))?.contains(#"ShowItems ["\#(uri)"] """#) == true
            })
        // The file manager answered, so no folder window opens as well.
        usleep(300_000)
        #expect(!FileManager.default.fileExists(atPath: stub.record))
    }

    @Test func opensTheContainingFolderWhenNoFileManagerIsOnTheBus() throws {
        let scratch = try ScratchDirectory()
        let bus = try PrivateBus()
        let stub = try recordingStub(in: scratch)
        let item = scratch.sub("out.tar.xz")
        #expect(FileManager.default.createFile(atPath: item, contents: Data()))

        let start = Date()
        #expect(Reveal.show(FilePath(item), sessionBus: bus.address, opener: stub.program))
        #expect(Date().timeIntervalSince(start) < 3)
        #expect(recorded(stub.record) == [scratch.path])
    }

    @Test func opensAFolderItselfWithoutABus() throws {
        let scratch = try ScratchDirectory()
        let stub = try recordingStub(in: scratch)
        let folder = scratch.sub("Extracted")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)

        #expect(Reveal.show(FilePath(folder), sessionBus: nil, opener: stub.program))
        #expect(recorded(stub.record) == [folder])
        #expect(!Reveal.show(FilePath(folder), sessionBus: nil, opener: scratch.sub("missing-program")))
    }

    @Test func emailAttachesTheFileByItsAbsolutePath() throws {
        let scratch = try ScratchDirectory()
        let stub = try recordingStub(in: scratch)
        let file = scratch.sub("Report & notes.zip")
        #expect(FileManager.default.createFile(atPath: file, contents: Data()))

        #expect(Reveal.email(FilePath(file), mailer: stub.program))
        #expect(recorded(stub.record) == ["--attach", file])
    }

    @Test func nonUTF8NamesReachTheOpenerAsTheirBytes() throws {
        let scratch = try ScratchDirectory()
        let stub = try recordingStub(in: scratch)
        let folder = FilePath(scratch.path).appending(bytes: [0x66, 0xFF, 0x20, 0x64])
        _ = folder.withPlatformString { mkdir($0, 0o755) }

        #expect(Reveal.show(folder, sessionBus: nil, opener: stub.program))
        let record = stub.record
        #expect(eventually(within: 3) { FileManager.default.fileExists(atPath: record) })
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: record)))
        #expect(bytes == folder.bytes + [0x0A])
    }
}
