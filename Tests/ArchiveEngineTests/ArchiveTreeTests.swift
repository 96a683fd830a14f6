import ArchiverCore
import SystemPackage
import Testing

@testable import ArchiveEngine

/// The tree an archive shows as a folder, built from entries in the order they come.
@Suite struct ArchiveTreeTests {
    private func entry(
        _ path: String, _ kind: ArchiveEntryInfo.Kind = .file, size: Int64 = 1, link: String? = nil
    ) -> ArchiveEntryInfo {
        ArchiveEntryInfo(
            path: Array(path.utf8), kind: kind, size: size, packedSize: nil, modified: 1_700_000_000, encrypted: false,
            linkTarget: link.map { Array($0.utf8) }, permissions: 0o644)
    }

    private func index(_ entries: [ArchiveEntryInfo]) -> (ArchiveIndex, [Text]) {
        var tree = ArchiveTree(archive: FilePath("/nonexistent"))
        for (number, item) in entries.enumerated() { tree.add(item, number: number) }
        let parts = tree.finished()
        return (
            ArchiveIndex.decoded(
                ArchiveIndex(
                    tree: parts, refused: tree.refused, nameEncoding: nil, archive: FilePath("/x"), password: nil,
                    isStream: false
                ).encoded()!, archive: FilePath("/x"))!,
            tree.refused
        )
    }

    /// Path → "kind size entry" for every node, by walking the tree from the root.
    private func listing(_ index: ArchiveIndex) -> [String: String] {
        var result: [String: String] = [:]
        func walk(_ node: Int, _ path: String) {
            for child in index.children(of: node) {
                let name = path + String(decoding: index.name(of: Int(child)), as: UTF8.self)
                let item = index.nodes[Int(child)]
                result[name] = "\(item.kind) \(item.size) \(item.entry.map(String.init) ?? "-")"
                walk(Int(child), name + "/")
            }
        }
        walk(0, "")
        return result
    }

    @Test func implicitFoldersAreMadeAndChildrenAreFoundByName() {
        let (index, refused) = index([entry("b/z.txt"), entry("a/deep/y.txt", size: 5), entry("b/a.txt"), entry("c", .directory)])
        #expect(refused.isEmpty)
        #expect(listing(index) == [
            "a": "directory 0 -", "a/deep": "directory 0 -", "a/deep/y.txt": "file 5 1", "b": "directory 0 -",
            "b/z.txt": "file 1 0", "b/a.txt": "file 1 2", "c": "directory 0 -",
        ])
        #expect(index.lookup(Array("a/deep/y.txt".utf8)).map { index.nodes[$0].size } == 5)
        #expect(index.lookup(Array("/b/a.txt".utf8)) != nil)
        #expect(index.lookup(Array("b/missing".utf8)) == nil)
        #expect(index.lookup(Array("b/a.txt/x".utf8)) == nil)
    }

    /// A tar's hard link to itself changes nothing, as in extraction: the file of that name stays, and a
    /// link to itself alone makes nothing; neither is a link "outside the destination".
    @Test func aHardLinkToItselfLeavesTheFileAsItWas() {
        let (index, refused) = index([
            entry("a.txt", size: 10), entry("a.txt", .hardlink, size: 0, link: "a.txt"), entry("./c.txt", .hardlink, size: 0, link: "c.txt"),
        ])
        #expect(refused.isEmpty)
        #expect(listing(index) == ["a.txt": "file 10 0"])
    }

    /// As extracting both would leave it: of two entries with one name, the later one stays.
    @Test func theLaterNamesakeStays() {
        let (index, _) = index([
            entry("x.txt", size: 1), entry("x.txt", size: 2),
            entry("d/old.txt"), entry("d", size: 9),
            entry("f", size: 3), entry("f/inside.txt", size: 4),
        ])
        let shown = listing(index)
        #expect(shown["x.txt"] == "file 2 1")
        #expect(shown["d"] == "file 9 3")
        #expect(shown["d/old.txt"] == nil)
        #expect(shown["f"] == "directory 0 -")
        #expect(shown["f/inside.txt"] == "file 4 5")
    }

    @Test func hardLinksTakeTheirOriginalsDataAndBadOnesAreLeftOut() {
        let (index, refused) = index([
            entry("dir/hard", .hardlink, size: 0, link: "data.bin"),
            entry("data.bin", size: 42),
            entry("lost", .hardlink, size: 0, link: "nowhere"),
            entry("up", .hardlink, size: 0, link: "../etc/passwd"),
        ])
        let shown = listing(index)
        #expect(shown["dir/hard"] == "file 42 1")
        #expect(shown["lost"] == nil)
        #expect(shown["up"] == nil)
        #expect(refused.count == 2)
    }

    @Test func symlinksStayInsideAndHostilePathsAreLeftOut() {
        let (index, refused) = index([
            entry("a/link", .symlink, size: 0, link: "../b.txt"), entry("b.txt"),
            entry("out", .symlink, size: 0, link: "../../etc"), entry("../evil"), entry("/abs"),
        ])
        let link = index.lookup(Array("a/link".utf8))!
        #expect(index.linkTarget(of: link).map { String(decoding: $0, as: UTF8.self) } == "../b.txt")
        #expect(index.lookup(Array("out".utf8)) == nil)
        #expect(refused.count == 3)
        #expect(Set(listing(index).keys) == ["a", "a/link", "b.txt"])
    }

    /// A kept index whose ranges point outside what they point into reads as nothing, never as a trap.
    @Test func aKeptIndexWithRangesOutsideItsDataIsRefused() {
        let (index, _) = index([entry("a/b.txt"), entry("c.txt")])
        var bytes = index.encoded()!
        let good = ArchiveIndex.decoded(bytes, archive: FilePath("/x"))
        #expect(good != nil)
        // The first node's name start lies just after the node count; make it point far outside.
        let nodeCount = UInt32(index.nodes.count)
        let marker: [UInt8] = withUnsafeBytes(of: nodeCount.littleEndian) { Array($0) }
        var spot = 0
        for start in 0..<(bytes.count - 4) where Array(bytes[start..<(start + 4)]) == marker {
            spot = start + 4
            break
        }
        bytes[spot + 3] = 0x7F
        #expect(ArchiveIndex.decoded(bytes, archive: FilePath("/x")) == nil)
    }
}
