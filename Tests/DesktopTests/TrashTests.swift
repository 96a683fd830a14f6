import ArchiverTestSupport
import Foundation
import SystemPackage
import Testing

@testable import Desktop

/// The trash on another disk (a USB stick): GIO keeps it at the top of that disk, `.Trash-UID`, with paths
/// relative to that top. Undo ("Saved N changes", Recent's Undo) read only the home trash, so an archive on a
/// stick could be trashed but never put back.
@Suite(.serialized, .enabled(if: ReflinkDisk.unavailable == nil, "skipped: needs root, a loop device and xfsprogs for a disk of its own"))
struct TrashTests {
    @Test func aFileTrashedOnAnotherDiskIsFoundAndPutBack() throws {
        let scratch = try ScratchDirectory()
        let disk = try #require(ReflinkDisk(in: scratch.path))
        try FileManager.default.createDirectory(atPath: disk.path + "/Trip", withIntermediateDirectories: true)
        let archive = FilePath(disk.path + "/Trip/Photos.zip")
        try Data("the only copy".utf8).write(to: URL(fileURLWithPath: archive.string))

        try Trash.move(archive)
        #expect(!FileManager.default.fileExists(atPath: archive.string))
        let trashed = Trash.items(from: archive)
        #expect(trashed.count == 1, "\(trashed)")
        #expect(trashed.first?.file.string == disk.path + "/.Trash-\(getuid())/files/Photos.zip", "\(trashed)")
        // Another file of the same name elsewhere is not this one.
        #expect(Trash.items(from: FilePath(disk.path + "/Photos.zip")).isEmpty)

        #expect(Trash.restore(archive))
        #expect(try String(contentsOfFile: archive.string, encoding: .utf8) == "the only copy")
        #expect(Trash.items(from: archive).isEmpty, "its trash info is gone with it")
    }
}
