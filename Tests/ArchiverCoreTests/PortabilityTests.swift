import ArchiverCore
import Testing

private func b(_ s: String) -> [UInt8] { Array(s.utf8) }
private func file(_ path: String, size: Int64 = 1) -> Portability.Entry { .init(path: b(path), kind: .file, size: size) }
private func folder(_ path: String) -> Portability.Entry { .init(path: b(path), kind: .directory) }

/// Each rule with a plan that breaks it and one that does not.
@Suite struct PortabilityTests {
    private func kinds(_ entries: [Portability.Entry], _ target: Portability.Target = .init(stem: b("x"), format: .zip))
        -> [PortabilityProblem.Kind]
    {
        Portability.check(entries, target: target).map(\.kind)
    }

    @Test func windowsNames() {
        #expect(kinds([file("CON.txt"), file("d/lpt1.tar.gz"), file("nul"), file("Aux .md")]) == [.reservedName, .reservedName, .reservedName, .reservedName])
        #expect(kinds([file("CONSOLE.txt"), file("COM10"), file("my CON.txt"), file("icon.png")]).isEmpty)
        #expect(kinds([file("a:b"), file("why?"), file("q\"t"), file("tab\there"), file("back\\slash")]) == Array(repeating: .forbiddenCharacter, count: 5))
        #expect(kinds([file("a-b_c (1) [x] {y} ü 日本.txt"), file("#hash%&'+,;=@")]).isEmpty)
        #expect(kinds([file("end."), folder("space ")]) == [.trailingDotOrSpace, .trailingDotOrSpace])
        #expect(kinds([file(".hidden"), file("a.b.c"), file("...x")]).isEmpty)
    }

    @Test func pathsLongerThanWindowsTakes() {
        // C:\Users\ (9) + 20 + \Downloads\ (11) + stem + \ = 41 + stem: 218 characters of path are left with a one-letter stem.
        let fits = String(repeating: "a", count: 218)
        #expect(kinds([file(fits)]).isEmpty)
        #expect(kinds([file(fits + "b")]) == [.pathTooLong])
        // Said once, for the folder, not for what it holds; a name of Unicode counts in UTF-16 units.
        let long = String(repeating: "d", count: 230)
        #expect(kinds([folder(long), file(long + "/a"), file(long + "/b")]) == [.pathTooLong])
        #expect(kinds([file(String(repeating: "€", count: 218))]).isEmpty)
        #expect(kinds([file(String(repeating: "😀", count: 110))]) == [.pathTooLong])
        // A longer archive name leaves less.
        #expect(kinds([file(fits)], .init(stem: b("project-2026"), format: .zip)) == [.pathTooLong])
    }

    @Test func namesDifferingOnlyInCase() {
        #expect(kinds([file("Read.txt"), file("READ.txt")]) == [.caseClash])
        #expect(kinds([folder("Docs"), file("Docs/a"), folder("docs"), file("docs/a")]) == [.caseClash])
        #expect(kinds([file("Straße"), file("STRASSE")]).isEmpty)  // Unicode lowercase folds ß to itself, as NTFS does
        #expect(kinds([file("a/Read.txt"), file("b/READ.txt")]).isEmpty)
    }

    @Test func symlinksEncryptionSizeAndBytes() {
        #expect(kinds([.init(path: b("link"), kind: .symlink)]) == [.symlink])
        #expect(kinds([file("a")], .init(stem: b("x"), format: .zip, encrypted: true)) == [.encryptedZip])
        #expect(kinds([file("a")], .init(stem: b("x"), format: .sevenZip, encrypted: true)).isEmpty)
        let fat = FileSystemTraits.of(typeName: "vfat")
        #expect(kinds([file("big.iso", size: 1 << 32)], .init(stem: b("x"), format: .zip, destination: fat)) == [.tooLargeForFAT])
        #expect(kinds([file("big.iso", size: (1 << 32) - 1)], .init(stem: b("x"), format: .zip, destination: fat)).isEmpty)
        #expect(kinds([file("big.iso", size: 1 << 33)]).isEmpty)
        #expect(kinds([.init(path: b("caf") + [0xE9], kind: .file)]) == [.notUTF8])
    }

    @Test func portableRenamesEachOnce() {
        let entries = [
            folder("CON"), file("CON/a.txt"), file("aux.tar.gz"), file("a:b"), file("a?b"), file("end. "), file("Read.txt"),
            file("READ.txt"), .init(path: b("link"), kind: .symlink), .init(path: b("caf") + [0xE9], kind: .file), file("fine.txt"),
        ]
        let fixed = Portability.fix(entries)
        #expect(fixed.paths == [
            b("CON_"), b("CON_/a.txt"), b("aux_.tar.gz"), b("a_b"), b("a_b (2)"), b("end__"), b("Read.txt"), b("READ (2).txt"), nil,
            b("caf_"), b("fine.txt"),
        ].map { $0 as [UInt8]? })
        #expect(fixed.renames.map(\.from) == [b("CON"), b("aux.tar.gz"), b("a:b"), b("a?b"), b("end. "), b("READ.txt"), b("caf") + [0xE9]])
        // What --portable makes passes the check.
        let after = zip(entries, fixed.paths).compactMap { entry, path in path.map { Portability.Entry(path: $0, kind: entry.kind) } }
        #expect(kinds(after).isEmpty)
    }

    /// Each fix alone makes its own renames and no other, and its problem is then gone; all together are
    /// `--portable`'s, which never touches the encryption.
    @Test func eachFixAlone() {
        let entries = [
            file("CON.txt"), file("a:b"), file("end."), .init(path: b("caf") + [0xE9], kind: .file), file("Read.txt"), file("READ.txt"),
            .init(path: b("link"), kind: .symlink),
        ]
        let before = kinds(entries)
        for fix in Portability.portable {
            let fixed = Portability.fix(entries, fixes: [fix])
            let after = zip(entries, fixed.paths).compactMap { entry, path in path.map { Portability.Entry(path: $0, kind: entry.kind) } }
            #expect(kinds(after) == before.filter { $0 != fix }, "\(fix)")
            #expect(fixed.renames.count == (fix == .symlink ? 0 : 1), "\(fix): \(fixed.renames)")
        }
        #expect(Portability.fix(entries, fixes: []).paths == entries.map { $0.path as [UInt8]? })
        #expect(Portability.portableName(b("CON.a:b."), fixes: [.reservedName]) == b("CON_.a:b."))
        #expect(Portability.portableName(b("CON.a:b."), fixes: [.forbiddenCharacter, .trailingDotOrSpace]) == b("CON.a_b_"))
        #expect(!Portability.portable.contains(.encryptedZip) && Portability.fixable.contains(.encryptedZip))
        #expect(Portability.fixable.isSuperset(of: Portability.renames))
    }

    @Test func messagesNameTheFix() {
        let problem = PortabilityProblem(.reservedName, path: b("CON.txt"))
        #expect(problem.message.localized.contains("CON.txt") && problem.message.localized.contains("--portable"))
        #expect(!PortabilityProblem(.pathTooLong, path: b("x")).isFixable && PortabilityProblem(.caseClash, path: b("x")).isFixable)
    }
}
