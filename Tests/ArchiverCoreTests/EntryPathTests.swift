import ArchiverCore
import Testing

private func b(_ s: String) -> [UInt8] { Array(s.utf8) }
private func parts(_ s: String) -> [[UInt8]] { s.split(separator: "/").map { Array($0.utf8) } }

@Suite struct EntryPathTests {
    @Test func cleanPathsKeepTheirComponents() throws {
        #expect(try EntryPath.components(of: b("a/b/c.txt")).get() == parts("a/b/c.txt"))
        #expect(try EntryPath.components(of: b("./a//b/./c")).get() == parts("a/b/c"))
        #expect(try EntryPath.components(of: b("./")).get() == [])
        #expect(try EntryPath.components(of: b("dir/")).get() == parts("dir"))
        #expect(try EntryPath.components(of: b("..foo/bar..")).get() == parts("..foo/bar.."))
    }

    @Test(arguments: ["../x", "a/../../x", "a/..", "..", "a/b/../c"])
    func parentReferencesAreRefused(path: String) {
        #expect(EntryPath.components(of: b(path)) == .failure(.parentReference))
    }

    @Test func absoluteAndEmptyPathsAreRefused() {
        #expect(EntryPath.components(of: b("/etc/passwd")) == .failure(.absolutePath))
        #expect(EntryPath.components(of: b("//x")) == .failure(.absolutePath))
        #expect(EntryPath.components(of: []) == .failure(.emptyName))
    }

    @Test func symlinksMayPointAnywhereInside() {
        #expect(EntryPath.symlinkStaysInside(target: b("a.txt"), linkPath: parts("link")))
        #expect(EntryPath.symlinkStaysInside(target: b("../a.txt"), linkPath: parts("sub/link")))
        #expect(EntryPath.symlinkStaysInside(target: b("../../lib/x.so"), linkPath: parts("a/b/link")))
        #expect(EntryPath.symlinkStaysInside(target: b("./sub/./x"), linkPath: parts("link")))
        #expect(EntryPath.symlinkStaysInside(target: b("."), linkPath: parts("link")))
    }

    @Test func symlinksLeavingTheDestinationAreRefused() {
        #expect(!EntryPath.symlinkStaysInside(target: b("/etc/passwd"), linkPath: parts("link")))
        #expect(!EntryPath.symlinkStaysInside(target: b(".."), linkPath: parts("link")))
        #expect(!EntryPath.symlinkStaysInside(target: b("../../x"), linkPath: parts("a/link")))
        #expect(!EntryPath.symlinkStaysInside(target: [], linkPath: parts("link")))
        // `dot` may be a symlink to `.`, so a `..` after a name can climb anywhere.
        #expect(!EntryPath.symlinkStaysInside(target: b("dot/dot/../x"), linkPath: parts("a/b/c/link")))
    }

    @Test func symlinksThroughTheTopLevel() {
        #expect(EntryPath.symlinkReachesTop(target: b(".bashrc"), linkPath: parts("notes.txt")))
        #expect(EntryPath.symlinkReachesTop(target: b("../.ssh/x"), linkPath: parts("dir/k")))
        #expect(!EntryPath.symlinkReachesTop(target: b("sibling"), linkPath: parts("dir/k")))
        #expect(!EntryPath.symlinkReachesTop(target: b("../b/x"), linkPath: parts("top/a/k")))
    }

    @Test func macJunk() {
        #expect(EntryPath.isMacJunk(parts("__MACOSX/a/._b")))
        #expect(EntryPath.isMacJunk(parts("folder/.DS_Store")))
        #expect(EntryPath.isMacJunk(parts("folder/._photo.jpg")))
        #expect(!EntryPath.isMacJunk(parts("folder/photo.jpg")))
        #expect(!EntryPath.isMacJunk(parts("._")))
        #expect(EntryPath.isMacJunk(parts("Top/__MACOSX/a.txt")))
        #expect(!EntryPath.isMacJunk(parts("a/MACOSX")))
    }

    @Test func selectionIncludesFoldersAndTheirContents() {
        let selection = EntrySelection([b("docs/"), b("./top.txt")])
        #expect(selection.includes(b("docs")))
        #expect(selection.includes(b("docs/a/b.txt")))
        #expect(selection.includes(b("top.txt")))
        #expect(!selection.includes(b("docs2/x")))
        #expect(!selection.includes(b("other.txt")))
        #expect(selection.unmatched(in: [b("docs/a"), b("x")]) == [b("top.txt")])
        #expect(EntrySelection([]).includes(b("anything")))
    }

    @Test func closeMatchesForUnknownNames() {
        let names = ["report.pdf", "Report-final.pdf", "photos/cat.jpg", "unrelated.bin"]
        #expect(Suggestions.closeMatches(for: "reprot.pdf", in: names).first == "report.pdf")
        #expect(Suggestions.closeMatches(for: "cat.jpg", in: names) == ["photos/cat.jpg"])
        #expect(Suggestions.closeMatches(for: "zzzzzzzzzz", in: names).isEmpty)
    }
}
