import ArchiverCore
import ArchiverTestSupport
import Foundation
import SystemPackage
import Testing

@testable import ArchiveEngine

/// In an archive with nothing to seek by, small files decoded on the way to another are kept (within a
/// budget), so reading them later decodes nothing.
@Suite struct EntryCacheTests {
    private func contents(_ index: ArchiveIndex, _ path: String) throws -> [UInt8] {
        let node = try #require(index.lookup(Array(path.utf8)))
        let stream = try EntryStream(index, node: node)
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = try buffer.withUnsafeMutableBytes { try stream.read(into: $0, at: Int64(bytes.count)) }
            if count == 0 { return bytes }
            bytes += buffer[..<count]
        }
    }

    @Test func filesPassedOnTheWayAreReadFromTheCache() throws {
        let scratch = try ScratchDirectory()
        try FileManager.default.createDirectory(atPath: scratch.sub("tree"), withIntermediateDirectories: true)
        var files: [String: [UInt8]] = [:]
        // A large file first, then thirty small ones, all incompressible.
        for (number, size) in ([EntryCache.largest + 1] + Array(repeating: 40_000, count: 30)).enumerated() {
            let name = String(format: "tree/%02d.bin", number)
            let bytes = (0..<size).map { _ in UInt8.random(in: 0...255) }
            files[name] = bytes
            _ = FileManager.default.createFile(atPath: scratch.sub(name), contents: Data(bytes))
        }
        let archive = scratch.sub("tree.tar.xz")
        let made = try Tool.run(["/bin/sh", "-c", "tar --sort=name -cf - tree | xz -T1 -0 > tree.tar.xz"], in: scratch.path)
        try #require(made.status == 0, "\(made.output)")
        let index = try ArchiveIndex.scan(FilePath(archive), passwords: nil, control: JobControl())
        let cache = try #require(index.cache, "one xz Block: nothing to seek by")

        #expect(try contents(index, "tree/30.bin") == files["tree/30.bin"])
        #expect(cache.bytes == 30 * 40_000, "the 29 small files passed and the one read; not the large one")
        // Damage the archive's start: what is read again from the file now fails, what is kept does not.
        try damage(FilePath(archive), at: 300, count: 4096)
        for number in 1...30 {
            let name = String(format: "tree/%02d.bin", number)
            #expect(try contents(index, name) == files[name], "\(name)")
        }
        #expect(throws: ArchiverError.self) { _ = try contents(index, "tree/00.bin") }
    }

    @Test func theLeastRecentlyUsedGoFirstWithinTheBudget() {
        let cache = EntryCache()
        let piece = [UInt8](repeating: 7, count: 1 << 20)
        let fitting = EntryCache.budget / piece.count
        for entry in 0..<fitting { cache.keep(piece, for: entry) }
        #expect(cache.bytes == EntryCache.budget)
        _ = cache.data(for: 0)  // now the most recently used
        cache.keep(piece, for: fitting)
        #expect(cache.bytes == EntryCache.budget)
        #expect(cache.data(for: 0) != nil)
        #expect(cache.data(for: 1) == nil, "the oldest unused went")
        cache.keep([UInt8](repeating: 1, count: EntryCache.largest + 1), for: 999)
        #expect(cache.data(for: 999) == nil, "too large to keep")
    }

    /// Where a file can be reached by seeking (a zip member, a tar.gz seek point) nothing is kept.
    @Test func seekableArchivesKeepNothing() throws {
        let scratch = try ScratchDirectory()
        _ = FileManager.default.createFile(atPath: scratch.sub("a.txt"), contents: Data("hello".utf8))
        for (name, command) in [("a.zip", "zip -q a.zip a.txt"), ("a.tar", "tar -cf a.tar a.txt")] {
            try #require(try Tool.run(["/bin/sh", "-c", command], in: scratch.path).status == 0)
            let index = try ArchiveIndex.scan(FilePath(scratch.sub(name)), passwords: nil, control: JobControl())
            #expect(index.cache == nil, "\(name)")
        }
    }
}
