import ArchiverCore
import Testing

/// What the Extract… window's Delete, Rename and drops act on.
struct EntryTreeEditingTests {
    /// Photos/a.jpg, Photos/Old/c.jpg, notes.txt.
    private func sample() -> EntryTree {
        var tree = EntryTree()
        tree.add(path: "Photos/a.jpg", isDirectory: false, size: 10, modified: nil, encrypted: false)
        tree.add(path: "Photos/Old/c.jpg", isDirectory: false, size: 30, modified: nil, encrypted: false)
        tree.add(path: "notes.txt", isDirectory: false, size: 5, modified: nil, encrypted: false)
        return tree
    }

    private func index(_ tree: EntryTree, _ path: String) throws -> Int {
        try #require(tree.nodes.indices.dropFirst().first { tree.path($0) == path }, "no node \(path)")
    }

    @Test func deleteTakesTheFocusedRowWhileEverythingIsChecked() throws {
        var tree = sample()
        #expect(tree.deletionTargets(focused: try index(tree, "Photos/Old")) == ["Photos/Old"], "not the whole archive")
        #expect(tree.deletionTargets(focused: nil) == [])
        #expect(tree.deletionTargets(focused: 0) == [], "the archive itself is no row")
        // Some checked: those, by the fewest names, wherever the focus is.
        tree.set(try index(tree, "Photos/a.jpg"), checked: false)
        #expect(tree.deletionTargets(focused: try index(tree, "notes.txt")) == ["Photos/Old", "notes.txt"])
        // Nothing checked: the focused row again.
        tree.set(0, checked: false)
        #expect(tree.deletionTargets(focused: try index(tree, "notes.txt")) == ["notes.txt"])
    }

    @Test func dropsGoIntoTheFolderDroppedOn() throws {
        let tree = sample()
        #expect(tree.dropFolder(on: try index(tree, "Photos/Old")) == "Photos/Old")
        #expect(tree.dropFolder(on: try index(tree, "Photos/a.jpg")) == "Photos", "a file row: its folder")
        #expect(tree.dropFolder(on: try index(tree, "notes.txt")) == "")
        #expect(tree.dropFolder(on: nil) == "", "below the rows: the top")
    }

    @Test func renameKeepsTheFolderAndRefusesWhatIsNoName() throws {
        let tree = sample()
        let a = try index(tree, "Photos/a.jpg")
        #expect(tree.renamedPath(a, to: "b.jpg") == "Photos/b.jpg")
        #expect(tree.renamedPath(try index(tree, "notes.txt"), to: "todo.txt") == "todo.txt")
        for bad in ["", ".", "..", "x/y", "a\nb", "a.jpg"] { #expect(tree.renamedPath(a, to: bad) == nil, "\(bad)") }
    }
}
