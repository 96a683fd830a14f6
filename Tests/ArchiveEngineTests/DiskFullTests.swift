import ArchiverCore
import ArchiverTestSupport
import Foundation
import SystemPackage
import Testing

@testable import ArchiveEngine

@Suite(.serialized, .enabled(if: TinyDisk.available, "needs root to mount a small tmpfs"))
struct DiskFullTests {
    private func incompressibleTree(_ scratch: ScratchDirectory) throws -> FilePath {
        let folder = scratch.sub("Big")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for index in 0..<4 {
            let bytes = (0..<1_000_000).map { _ in UInt8.random(in: 0...255) }
            try Data(bytes).write(to: URL(fileURLWithPath: folder + "/part\(index).bin"))
        }
        return FilePath(folder)
    }

    @Test func compressingOntoAFullDiskLeavesNothing() throws {
        let scratch = try ScratchDirectory()
        let disk = try #require(TinyDisk(in: scratch))
        let tree = try incompressibleTree(scratch)
        do {
            _ = try Compressor.run(
                inputs: [tree], format: .zip, level: .normal, destination: .path(FilePath(disk.path + "/Big.zip")),
                control: JobControl())
            Issue.record("4 MB cannot fit on a 2 MB disk")
        } catch {
            #expect(error.code == .destination)
            #expect(error.message.english.contains("full"))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: disk.path).isEmpty)
    }

    @Test(arguments: [ArchiveFormat.zip, .tarGz])
    func extractingOntoAFullDiskLeavesNothing(format: ArchiveFormat) throws {
        let scratch = try ScratchDirectory("full-\(format.rawValue)")
        let disk = try #require(TinyDisk(in: scratch))
        let made = try Compressor.run(inputs: [try incompressibleTree(scratch)], format: format, level: .fast, control: JobControl())
        do {
            _ = try Extractor.run(archive: made.output, options: options(into: disk.path), control: JobControl())
            Issue.record("4 MB cannot fit on a 2 MB disk")
        } catch {
            // zip records sizes up front, so it is refused before writing; tar.gz fills the disk and stops.
            #expect(error.code == .destination, "\(error)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: disk.path).isEmpty)
    }

}

/// What a FAT disk cannot hold is refused from the recorded size, before anything is written (the
/// end-to-end test needs a vfat mount, which not every kernel offers).
@Suite struct FileSizeLimitTests {
    private func entry(_ size: Int64, kind: ArchiveEntryInfo.Kind = .file) -> ArchiveEntryInfo {
        ArchiveEntryInfo(
            path: Array("huge.bin".utf8), kind: kind, size: size, packedSize: nil, modified: nil, encrypted: false,
            linkTarget: nil, permissions: 0o644)
    }

    @Test func filesOf4GiBAndMoreAreRefusedOnFAT() throws {
        let fat = FileSystemTraits.of(typeName: "vfat")
        try Extractor.checkFits(entry((1 << 32) - 1), traits: fat, folder: "/media/stick")
        #expect(throws: ArchiverError.self) { try Extractor.checkFits(entry(1 << 32), traits: fat, folder: "/media/stick") }
        do {
            try Extractor.checkFits(entry(5 << 30), traits: fat, folder: "/media/stick")
        } catch {
            #expect(error.code == .destination)
            #expect(error.message.english.contains("“huge.bin” is 5.4 GB"), "\(error.message.english)")
            #expect(error.message.english.contains("FAT disk holding “/media/stick”"), "\(error.message.english)")
        }
        try Extractor.checkFits(entry(5 << 30), traits: .posix, folder: "/home")
        try Extractor.checkFits(entry(5 << 30, kind: .directory), traits: fat, folder: "/media/stick")
    }
}
