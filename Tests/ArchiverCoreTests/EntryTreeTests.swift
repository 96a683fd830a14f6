import ArchiverCore
import Testing

struct EntryTreeTests {
    /// Photos/a.jpg (10), Photos/b.jpg (20), Photos/Old/c.jpg (30), notes.txt (5), empty/ (a folder entry).
    private func sample() -> EntryTree {
        var tree = EntryTree()
        tree.add(path: "Photos/a.jpg", isDirectory: false, size: 10, modified: 100, encrypted: false)
        tree.add(path: "Photos/b.jpg", isDirectory: false, size: 20, modified: 200, encrypted: false)
        tree.add(path: "Photos/Old/c.jpg", isDirectory: false, size: 30, modified: nil, encrypted: false)
        tree.add(path: "notes.txt", isDirectory: false, size: 5, modified: 300, encrypted: false)
        tree.add(path: "empty/", isDirectory: true, size: 0, modified: 400, encrypted: false)
        return tree
    }

    private func index(_ tree: EntryTree, _ path: String) throws -> Int {
        try #require(tree.nodes.indices.dropFirst().first { tree.path($0) == path }, "no node \(path)")
    }

    @Test func foldersAreImpliedAndTotalsAddUp() throws {
        let tree = sample()
        #expect(tree.root.files == 4)
        #expect(tree.root.bytes == 65)
        #expect(tree.root.nodes == 8, "the archive, Photos, a, b, Old, c, notes, empty")
        let photos = try index(tree, "Photos")
        #expect(tree.nodes[photos].isDirectory)
        #expect(tree.nodes[photos].bytes == 60)
        #expect(tree.nodes[photos].files == 3)
        #expect(tree.nodes[photos].modified == nil, "an implied folder has no date")
        #expect(tree.nodes[try index(tree, "Photos/Old/c.jpg")].parent == (try index(tree, "Photos/Old")))
        #expect(tree.root.selectedFiles == 4 && tree.root.selectedBytes == 65)
        #expect(tree.everythingSelected)
        #expect(tree.selectedPaths == ["Photos", "notes.txt", "empty"], "everything, by its top-level names")
    }

    @Test func uncheckingAFileMakesItsFoldersMixed() throws {
        var tree = sample()
        tree.set(try index(tree, "Photos/Old/c.jpg"), checked: false)
        #expect(tree.state(try index(tree, "Photos/Old")) == .off, "its only file is off")
        #expect(tree.state(try index(tree, "Photos")) == .mixed)
        #expect(tree.root.selectedFiles == 3 && tree.root.selectedBytes == 35)
        #expect(!tree.everythingSelected)
        #expect(tree.selectedPaths == ["Photos/a.jpg", "Photos/b.jpg", "notes.txt", "empty"])
        tree.set(try index(tree, "Photos/Old/c.jpg"), checked: true)
        #expect(tree.state(try index(tree, "Photos")) == .on)
        #expect(tree.everythingSelected)
    }

    @Test func checkingOneFileUnderAnUncheckedFolderSelectsOnlyIt() throws {
        var tree = sample()
        tree.set(0, checked: false)
        #expect(tree.selectedPaths.isEmpty)
        #expect(!tree.anythingSelected)
        #expect(tree.root.selectedFiles == 0)
        tree.set(try index(tree, "Photos/b.jpg"), checked: true)
        #expect(tree.anythingSelected)
        #expect(tree.state(try index(tree, "Photos")) == .mixed)
        #expect(tree.selectedPaths == ["Photos/b.jpg"])
        #expect(tree.root.selectedBytes == 20)
    }

    @Test func anEmptyFolderAloneIsASelection() throws {
        var tree = sample()
        tree.set(0, checked: false)
        tree.set(try index(tree, "empty"), checked: true)
        #expect(tree.anythingSelected)
        #expect(tree.selectedPaths == ["empty"])
        #expect(tree.root.selectedFiles == 0)
    }

    @Test func entriesArrivingUnderAnUncheckedFolderStartUnchecked() throws {
        var tree = sample()
        tree.set(try index(tree, "Photos"), checked: false)
        tree.add(path: "Photos/d.jpg", isDirectory: false, size: 40, modified: nil, encrypted: false)
        #expect(tree.state(try index(tree, "Photos/d.jpg")) == .off)
        #expect(tree.root.selectedBytes == 5)
    }

    @Test func aFolderEntryAfterItsFilesGivesTheFolderItsDate() throws {
        var tree = sample()
        tree.add(path: "Photos/", isDirectory: true, size: 0, modified: 500, encrypted: false)
        #expect(tree.nodes[try index(tree, "Photos")].modified == 500)
        #expect(tree.root.nodes == 8, "no second Photos")
    }

    @Test func pathsAreNormalisedAndDuplicatesShownAsTheyAre() {
        var tree = EntryTree()
        tree.add(path: "./a//b.txt", isDirectory: false, size: 1, modified: nil, encrypted: false)
        tree.add(path: "a/b.txt", isDirectory: false, size: 2, modified: nil, encrypted: true)
        #expect(tree.root.nodes == 4, "the archive, a, and b.txt twice")
        #expect(tree.path(2) == "a/b.txt" && tree.path(3) == "a/b.txt")
        #expect(tree.root.bytes == 3)
        #expect(tree.encrypted)
        #expect(tree.add(path: "./", isDirectory: true, size: 0, modified: nil, encrypted: false).isEmpty)
    }

    @Test func aHundredThousandEntriesStayCheap() {
        var tree = EntryTree()
        for i in 0..<100_000 {
            tree.add(path: "folder-\(i / 1000)/file-\(i).txt", isDirectory: false, size: 1, modified: nil, encrypted: false)
        }
        #expect(tree.root.files == 100_000)
        #expect(MemoryLayout<EntryTree.Node>.stride <= 80, "the window's memory budget counts on small nodes")
        tree.set(tree.root.children[0], checked: false)
        #expect(tree.root.selectedFiles == 99_000)
        #expect(tree.selectedPaths.count == 99)
    }
}
