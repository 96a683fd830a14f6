import ArchiverCore
import Glibc
import Testing

private func b(_ s: String) -> [UInt8] { Array(s.utf8) }

@Suite struct EditPlanTests {
    /// a.txt, docs/, docs/b.txt, docs/c.txt, z.txt
    let entries: [EditPlan.Existing] = [
        .init(path: b("a.txt"), isFolder: false), .init(path: b("docs/"), isFolder: true),
        .init(path: b("docs/b.txt"), isFolder: false), .init(path: b("./docs/c.txt"), isFolder: false),
        .init(path: b("z.txt"), isFolder: false),
    ]

    func make(_ changes: [ArchiveChange], replacing: Bool = false) throws -> EditPlan {
        try EditPlan.make(archive: "x.zip", entries: entries, changes: changes, replacing: replacing)
    }

    /// A mount's changes name folders only their files made (gone once emptied): lenient lets those go,
    /// and still applies the rest; without it the same list is an error.
    @Test func lenientLetsGoOfNamesTheArchiveLacks() throws {
        let changes: [ArchiveChange] = [
            .delete(b("gone")), .rename(b("empty"), to: b("moved")), .setAttributes(b("nothing"), mode: 0o600, modified: nil),
            .delete(b("z.txt")),
        ]
        let plan = try EditPlan.make(archive: "x.zip", entries: entries, changes: changes, replacing: true, lenient: true)
        #expect(plan.deleted == [b("z.txt")])
        #expect(plan.renamed.isEmpty)
        #expect(plan.steps.count == 4)
        #expect(throws: ArchiverError.self) { try EditPlan.make(archive: "x.zip", entries: entries, changes: changes, replacing: true) }
    }

    @Test func deletingAFolderTakesItsSubtreeAndKeepsTheRestInOrder() throws {
        let plan = try make([.delete(b("docs"))])
        #expect(plan.steps == [.old(index: 0, name: nil, mode: nil, modified: nil), .old(index: 4, name: nil, mode: nil, modified: nil)])
        #expect(plan.deleted == [b("docs")])
        #expect(!plan.changesNothing)
    }

    @Test func renamingAFolderMovesEverythingUnderItInPlace() throws {
        let plan = try make([.rename(b("docs/"), to: b("papers"))])
        #expect(plan.steps == [
            .old(index: 0, name: nil, mode: nil, modified: nil), .old(index: 1, name: b("papers/"), mode: nil, modified: nil),
            .old(index: 2, name: b("papers/b.txt"), mode: nil, modified: nil), .old(index: 3, name: b("papers/c.txt"), mode: nil, modified: nil),
            .old(index: 4, name: nil, mode: nil, modified: nil),
        ])
        #expect(plan.renamed.map(\.to) == [b("papers")])
    }

    @Test func anAddedNameThatExistsIsAClashUnlessReplacing() throws {
        #expect {
            try make([.add(path: b("docs/b.txt"), isFolder: false, source: 0)])
        } throws: { ($0 as? ArchiverError)?.code == .destination && ($0 as? ArchiverError)?.message.english.contains("docs/b.txt") == true }
        let plan = try make([.add(path: b("docs/b.txt"), isFolder: false, source: 7)], replacing: true)
        // Replaced where it was: the order of the archive stays.
        #expect(plan.steps[2] == .new(path: b("docs/b.txt"), isFolder: false, source: 7, mode: nil, modified: nil))
        #expect(plan.steps.count == 5)
        #expect(plan.replaced == [b("docs/b.txt")] && plan.added.isEmpty)
    }

    @Test func addingAFolderThatExistsMergesWithoutAClash() throws {
        let plan = try make([.add(path: b("docs"), isFolder: true, source: 0), .add(path: b("docs/new.txt"), isFolder: false, source: 1)])
        #expect(plan.steps.last == .new(path: b("docs/new.txt"), isFolder: false, source: 1, mode: nil, modified: nil))
        #expect(plan.steps.count == 6)
    }

    @Test func missingParentFoldersAreMadeBeforeTheNewEntry() throws {
        let plan = try make([.add(path: b("new/deep/f.txt"), isFolder: false, source: 0)])
        #expect(Array(plan.steps.suffix(3)) == [
            .new(path: b("new/"), isFolder: true, source: nil, mode: nil, modified: nil),
            .new(path: b("new/deep/"), isFolder: true, source: nil, mode: nil, modified: nil),
            .new(path: b("new/deep/f.txt"), isFolder: false, source: 0, mode: nil, modified: nil),
        ])
    }

    @Test func renamingOntoAnExistingNameIsAClashUnlessReplacing() throws {
        #expect(throws: ArchiverError.self) { try make([.rename(b("a.txt"), to: b("z.txt"))]) }
        let plan = try make([.rename(b("a.txt"), to: b("z.txt"))], replacing: true)
        #expect(plan.steps == [
            .old(index: 0, name: b("z.txt"), mode: nil, modified: nil), .old(index: 1, name: nil, mode: nil, modified: nil),
            .old(index: 2, name: nil, mode: nil, modified: nil), .old(index: 3, name: nil, mode: nil, modified: nil),
        ])
    }

    @Test func aMissingNameSaysTheClosestOnes() throws {
        #expect {
            try make([.delete(b("docs/b.tx"))])
        } throws: { error in
            guard let error = error as? ArchiverError else { return false }
            return error.code == .usage && error.hint?.english.contains("docs/b.txt") == true
        }
    }

    @Test(arguments: ["../x", "/etc/passwd", "a/../../b", "a\u{1}b", "a\nb", "", "a//b", "./"])
    func hostileNamesAreRefused(name: String) throws {
        #expect {
            try make([.rename(b("a.txt"), to: b(name))])
        } throws: { ($0 as? ArchiverError)?.code == .usage }
        #expect(throws: ArchiverError.self) { try make([.add(path: b(name), isFolder: false, source: 0)]) }
    }

    @Test func nothingGoesInsideAFile() throws {
        #expect {
            try make([.add(path: b("a.txt/x"), isFolder: false, source: 0)])
        } throws: { ($0 as? ArchiverError)?.code == .destination }
    }

    @Test func aFolderCannotMoveIntoItself() throws {
        #expect(throws: ArchiverError.self) { try make([.rename(b("docs"), to: b("docs/inner"))]) }
    }

    @Test func attributesChangeOnlyTheirEntry() throws {
        let plan = try make([.setAttributes(b("z.txt"), mode: 0o600, modified: 1_000_000)])
        #expect(plan.steps.last == .old(index: 4, name: nil, mode: 0o600, modified: 1_000_000))
        #expect(!plan.changesNothing)
    }

    @Test func changesApplyInOrder() throws {
        // Deleted, then a new one of the same name: no clash.
        let plan = try make([.delete(b("a.txt")), .add(path: b("a.txt"), isFolder: false, source: 3)])
        #expect(plan.steps.last == .new(path: b("a.txt"), isFolder: false, source: 3, mode: nil, modified: nil))
        #expect(plan.added == [b("a.txt")] && plan.deleted == [b("a.txt")])
    }

    /// Planning costs what the changes name, not the archive's length for each change: four times the
    /// entries and four times the added files cost about four times as much, not sixteen (the scan per
    /// added name did). Processor time of this thread, so a busy machine stretches neither side.
    @Test func aThousandAddsToTwentyThousandEntriesPlanInLinearTime() throws {
        func processorSeconds() -> Double {
            var time = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
            return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
        }
        func plan(entries: Int, adds: Int) throws -> (plan: EditPlan, seconds: Double) {
            let existing = (0..<entries).map { n in EditPlan.Existing(path: b("project/module\(n / 100)/file\(n).txt"), isFolder: false) }
            let changes = (0..<adds).map { n in ArchiveChange.add(path: b("project/module\(n % 200)/new\(n).txt"), isFolder: false, source: n) }
            let start = processorSeconds()
            let plan = try EditPlan.make(archive: "big.zip", entries: existing, changes: changes, replacing: false)
            return (plan, processorSeconds() - start)
        }
        let small = try plan(entries: 5_000, adds: 250)
        let big = try plan(entries: 20_000, adds: 1_000)
        #expect(big.plan.added.count == 1_000)
        #expect(big.plan.steps.count == 21_000)
        #expect(big.plan.steps[20_000] == .new(path: b("project/module0/new0.txt"), isFolder: false, source: 0, mode: nil, modified: nil))
        #expect(big.seconds < 8 * max(small.seconds, 0.01), "\(small.seconds) s, then \(big.seconds) s")
    }
}
