import ArchiverCore
import Testing

/// The Extract… window's search (what a query shows) and its Properties lines.
struct EntrySearchTests {
    /// Photos/Beach.JPG, Photos/Old/café.png, Photos/Old/notes.txt, Reports/Q1/sales.ods, readme.md.
    private func sample() -> EntryTree {
        var tree = EntryTree()
        for path in ["Photos/Beach.JPG", "Photos/Old/café.png", "Photos/Old/notes.txt", "Reports/Q1/sales.ods", "readme.md"] {
            tree.add(path: path, isDirectory: false, size: 1, modified: nil, encrypted: false)
        }
        return tree
    }

    private func shownPaths(_ query: String, _ tree: EntryTree) -> [String]? {
        var search = EntrySearch()
        search.update(tree)
        guard let shown = search.shown(query, in: tree) else { return nil }
        return tree.nodes.indices.dropFirst().filter(shown.contains).map(tree.path).sorted()
    }

    @Test func aMatchShowsWithTheFoldersOnItsWay() {
        let tree = sample()
        #expect(shownPaths("beach", tree) == ["Photos", "Photos/Beach.JPG"], "case-insensitive, its folder shown, its sibling folder not")
        #expect(shownPaths("SALES", tree) == ["Reports", "Reports/Q1", "Reports/Q1/sales.ods"])
        #expect(shownPaths("CAFÉ", tree) == ["Photos", "Photos/Old", "Photos/Old/café.png"], "beyond ASCII too")
        #expect(shownPaths("o", tree)?.contains("readme.md") == false, "\(String(describing: shownPaths("o", tree)))")
        #expect(shownPaths(".", tree) == nil, "every file has a dot, every folder leads to one: all show, as without a query")
    }

    @Test func aMatchingFolderShowsWhatItHolds() {
        #expect(shownPaths("old", sample()) == ["Photos", "Photos/Old", "Photos/Old/café.png", "Photos/Old/notes.txt"])
    }

    @Test func noMatchShowsNothingAndAnEmptyQueryEverything() {
        let tree = sample()
        #expect(shownPaths("zzz", tree) == [])
        #expect(shownPaths("", tree) == nil)
        var search = EntrySearch()
        search.update(tree)
        #expect(search.shown("e", in: tree)?.matches == 5, "one count per name, however often it holds the query: \(String(describing: search.shown("e", in: tree)?.matches))")
        // A query never matches across two names (they are apart in the buffer).
        #expect(shownPaths("jpgold", tree) == [])
    }

    @Test func namesAddedLaterAreSearchedAfterAnUpdate() {
        var tree = sample()
        var search = EntrySearch()
        search.update(tree)
        tree.add(path: "Later/beach-2.jpg", isDirectory: false, size: 1, modified: nil, encrypted: false)
        search.update(tree)
        let shown = search.shown("beach", in: tree)
        #expect(shown?.matches == 2)
        #expect(shown?.count == 4, "two files and their two folders")
    }

    @Test func aHundredThousandNamesAreSearchedQuickly() {
        var tree = EntryTree()
        for i in 0..<100_000 { tree.add(path: "folder-\(i / 1000)/file-\(i).txt", isDirectory: false, size: 1, modified: nil, encrypted: false) }
        var search = EntrySearch()
        search.update(tree)
        let clock = ContinuousClock()
        var shown: EntrySearch.Shown?
        let took = clock.measure { shown = search.shown("FILE-9999", in: tree) }
        #expect(shown?.matches == 11, "file-9999 and file-99990…99999")
        // The window's budget per keystroke is 50 ms including GTK's work; a debug build under load stays well inside.
        #expect(took < .milliseconds(200), "\(took)")
    }

    @Test func propertiesLines() {
        var facts = ArchiveFacts()
        facts.format = "tar"
        facts.filters = ["gzip"]
        facts.files = 1204
        facts.packedSize = 420
        facts.size = 1000
        facts.encryptedData = true
        facts.comment = "made for Q1"
        let lines = facts.lines.map { ($0.label.english, $0.value.english) }
        #expect(lines.map(\.0) == ["Format", "Compression filters", "Files", "Packed size", "Size", "Ratio", "Encrypted names", "Encrypted data", "Comment"])
        #expect(lines[0].1 == "tar" && lines[1].1 == "gzip" && lines[2].1 == "1204")
        #expect(lines[5].1 == "42% of the size (58% saved)", "\(lines[5].1)")
        #expect(lines[6].1 == "no" && lines[7].1 == "yes" && lines[8].1 == "made for Q1")
        facts.comment = nil
        facts.filters = []
        facts.packedSize = 1100
        let plain = facts.lines.map { ($0.label.english, $0.value.english) }
        #expect(plain.count == 8, "no comment line without a comment")
        #expect(plain[1].1 == "none" && plain[5].1 == "110% of the size", "\(plain)")
    }
}
