import ArchiverCore
import ArchiverTestSupport
import Foundation
import SystemPackage
import Testing

@testable import ArchiveEngine

/// An entry's bytes from its start, the one reader that the window's thumbnails and quick look (its first
/// bytes) and the writable mount's copy into its layer (all of them) share: in a zip from its member, in a
/// tar.gz through the stream.
@Suite struct EntryPrefixTests {
    @Test(arguments: ["zip", "tar.gz"]) func theFirstBytesOrAllOfThemInChunks(format: String) throws {
        let scratch = try ScratchDirectory("prefix-\(format)")
        try FileManager.default.createDirectory(atPath: scratch.sub("tree"), withIntermediateDirectories: true)
        let bytes = (0..<(2 << 20) + 5000).map { _ in UInt8.random(in: 0...255) }
        _ = FileManager.default.createFile(atPath: scratch.sub("tree/a.bin"), contents: Data(bytes))
        _ = FileManager.default.createFile(atPath: scratch.sub("tree/b.txt"), contents: Data("after\n".utf8))
        let made = try Tool.run(["/usr/bin/bsdtar", "-a", "-cf", "x.\(format)", "tree"], in: scratch.path)
        try #require(made.status == 0, "\(made.output)")
        let index = try ArchiveIndex.scan(FilePath(scratch.sub("x.\(format)")), passwords: nil, control: JobControl())
        let node = try #require(index.lookup(Array("tree/a.bin".utf8)))

        #expect(try EntryStream(index, node: node).prefix(1000) == Array(bytes[..<1000]))
        #expect(try EntryStream(index, node: node).prefix(8 << 20) == bytes, "all of it when it is smaller")
        var copied: [UInt8] = []
        var chunks = 0
        try EntryStream(index, node: node).readFromStart { chunk in
            copied.append(contentsOf: chunk)
            chunks += 1
            return true
        }
        #expect(copied == bytes && chunks == 3, "in chunks of 1 MiB: \(chunks)")
        var first = 0
        try EntryStream(index, node: node).readFromStart(chunk: 4096) { chunk in
            first += chunk.count
            return false
        }
        #expect(first == 4096, "stops when told")
        let stopped = JobControl()
        stopped.cancel()
        #expect(throws: ArchiverError.self) { try EntryStream(index, node: node).prefix(1000, control: stopped) }
    }
}
