import ArchiverCore
import ArchiverTestSupport
import Foundation
import SystemPackage
import Testing

@testable import ArchiveEngine

/// The kept index reads back as the tree it was, and bytes that are not one read as nothing.
@Suite struct IndexCacheTests {
    private func scanned() throws -> (ArchiveIndex, ScratchDirectory) {
        let scratch = try ScratchDirectory()
        try SampleTree.make(at: scratch.sub("Sample"))
        let made = try Compressor.run(inputs: [FilePath(scratch.sub("Sample"))], format: .tar, level: .normal, control: JobControl())
        return (try ArchiveIndex.scan(made.output, passwords: nil, control: JobControl()), scratch)
    }

    private func describe(_ index: ArchiveIndex) -> [String] {
        index.nodes.indices.map { node in
            let item = index.nodes[node]
            let children = index.children(of: node).map { String(decoding: index.name(of: Int($0)), as: UTF8.self) + "=\($0)" }
            return "\(String(decoding: index.name(of: node), as: UTF8.self)) \(item.kind) \(item.size) \(item.modified) \(item.permissions) "
                + "\(item.entry.map(String.init) ?? "-") \(index.linkTarget(of: node).map { String(decoding: $0, as: UTF8.self) } ?? "-") \(children)"
        }
    }

    @Test func anIndexReadsBackWhole() throws {
        let (index, _) = try scanned()
        #expect(index.nodes.count > 5)
        let bytes = try #require(index.encoded())
        let back = try #require(ArchiveIndex.decoded(bytes, archive: index.archive))
        #expect(describe(back) == describe(index))
        #expect(back.isStream == index.isStream)
        #expect(back.refused.map(\.english) == index.refused.map(\.english))
        #expect(back.lookup(Array("Sample".utf8)) == index.lookup(Array("Sample".utf8)))
    }

    @Test func cutOrChangedBytesReadAsNothing() throws {
        let (index, _) = try scanned()
        let bytes = try #require(index.encoded())
        for cut in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 97)) {
            #expect(ArchiveIndex.decoded(Array(bytes[..<cut]), archive: index.archive) == nil, "cut at \(cut)")
        }
        var otherVersion = bytes
        otherVersion[0] &+= 1
        #expect(ArchiveIndex.decoded(otherVersion, archive: index.archive) == nil)
    }

    /// A writer killed half-way leaves its temporary under our temporary name; the next trim removes it,
    /// and an index whose archive is gone goes with it.
    @Test func trimRemovesDeadWritersAndStaleIndexes() throws {
        let scratch = try ScratchDirectory()
        let folder = FilePath(scratch.sub("indexes"))
        try FileManager.default.createDirectory(atPath: folder.string, withIntermediateDirectories: true)
        // A pid no process has: above the kernel's pid_max.
        let dead = folder.appending(TemporaryName.make(pid: 4_194_305, token: "x", isDirectory: false))
        let stale = folder.appending("1-2.index")
        FileManager.default.createFile(atPath: dead.string, contents: Data("half".utf8))
        FileManager.default.createFile(atPath: stale.string, contents: Data("ARCHIVER-INDEX\n".utf8))
        IndexCache.trim(folder)
        #expect(!FileManager.default.fileExists(atPath: dead.string))
        #expect(!FileManager.default.fileExists(atPath: stale.string))
    }
}
