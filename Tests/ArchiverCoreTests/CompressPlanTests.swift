import ArchiverCore
import SystemPackage
import Testing

private func input(_ path: String, dir: Bool = false) -> CompressPlan.Input {
    CompressPlan.Input(path: FilePath(path), isDirectory: dir)
}
private func name(_ plan: CompressPlan) -> String { String(decoding: plan.archiveName, as: UTF8.self) }

@Suite struct CompressPlanTests {
    @Test func oneFileIsNamedAfterItWithoutItsExtension() throws {
        let plan = try CompressPlan.make(inputs: [input("/home/u/a.pdf")], format: .zip)
        #expect(name(plan) == "a.zip")
        #expect(plan.folder == "/home/u")
        #expect(plan.items.map { String(decoding: $0.nameInArchive, as: UTF8.self) } == ["a.pdf"])
        #expect(!plan.exact)
    }

    @Test func oneFolderKeepsItsWholeName() throws {
        let plan = try CompressPlan.make(inputs: [input("/home/u/Photos.2024", dir: true)], format: .tarGz)
        #expect(name(plan) == "Photos.2024.tar.gz")
        #expect(plan.items[0].nameInArchive == Array("Photos.2024".utf8))
    }

    @Test func severalItemsMakeArchiveInTheirCommonFolder() throws {
        let plan = try CompressPlan.make(
            inputs: [input("/home/u/docs/a.txt"), input("/home/u/pics/b.jpg"), input("/home/u/docs/c", dir: true)],
            format: .sevenZip)
        #expect(name(plan) == "Archive.7z")
        #expect(plan.folder == "/home/u")
        #expect(plan.items.map { String(decoding: $0.nameInArchive, as: UTF8.self) } == ["a.txt", "b.jpg", "c"])
    }

    @Test func singleStreamFormatsAppendTheirSuffix() throws {
        #expect(name(try CompressPlan.make(inputs: [input("/d/note.txt")], format: .gz)) == "note.txt.gz")
        #expect(name(try CompressPlan.make(inputs: [input("/d/note.txt")], format: .zst)) == "note.txt.zst")
    }

    @Test func singleStreamFormatsRefuseFoldersAndSeveralFiles() {
        #expect(throws: ArchiverError.self) { try CompressPlan.make(inputs: [input("/d/F", dir: true)], format: .xz) }
        do {
            _ = try CompressPlan.make(inputs: [input("/d/a"), input("/d/b")], format: .bz2)
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .usage)
            #expect(error.hint?.english.contains("tar.bz2") == true)
        }
    }

    @Test func sameNameTwiceIsAnError() {
        #expect(throws: ArchiverError.self) {
            try CompressPlan.make(inputs: [input("/a/x"), input("/b/x")], format: .zip)
        }
    }

    @Test func nameAndOutput() throws {
        let named = try CompressPlan.make(inputs: [input("/d/a.txt")], format: .zip, destination: .name(Array("Mail".utf8)))
        #expect(name(named) == "Mail.zip")
        let already = try CompressPlan.make(inputs: [input("/d/a.txt")], format: .zip, destination: .name(Array("Mail.ZIP".utf8)))
        #expect(name(already) == "Mail.ZIP")
        let exact = try CompressPlan.make(inputs: [input("/d/a.txt")], format: .zip, destination: .path("/out/set.bin"))
        #expect(name(exact) == "set.bin")
        #expect(exact.folder == "/out")
        #expect(exact.exact)
    }

    @Test func commonFolder() {
        #expect(CompressPlan.commonFolder(["/a/b/c", "/a/b/d/e"]) == "/a/b")
        #expect(CompressPlan.commonFolder(["/a/x", "/b/y"]) == "/")
    }
}

@Suite struct FormatSettingsTests {
    @Test func normalIsEachLibrarysDefault() {
        #expect(ArchiveFormat.zip.settings(for: .normal) == CompressionSettings(method: .deflate, level: 6))
        #expect(ArchiveFormat.sevenZip.settings(for: .normal) == CompressionSettings(method: .lzma2, level: 5))
        #expect(ArchiveFormat.tarGz.settings(for: .normal).level == 6)
        #expect(ArchiveFormat.tarXz.settings(for: .normal).level == 6)
        #expect(ArchiveFormat.tarZst.settings(for: .normal).level == 3)
        #expect(ArchiveFormat.tarBz2.settings(for: .normal).level == 9)
        #expect(ArchiveFormat.tar.settings(for: .maximum).level == nil)
    }

    @Test func storeMeansNoCompressionWhereTheFormatAllowsIt() {
        #expect(ArchiveFormat.zip.settings(for: .store).method == .store)
        #expect(ArchiveFormat.sevenZip.settings(for: .store).method == .copy)
        #expect(ArchiveFormat.gz.settings(for: .store).level == 0)
        #expect(ArchiveFormat.zst.settings(for: .store).level == 1)
        #expect(ArchiveFormat.zst.settings(for: .maximum).level == 19)
    }

    @Test func formatFacts() {
        #expect(ArchiveFormat(rawValue: "tar.zst") == .tarZst)
        #expect(ArchiveFormat.gz.tarEquivalent == .tarGz)
        #expect(ArchiveFormat.xz.isSingleStream)
        #expect(!ArchiveFormat.tarXz.isSingleStream)
        #expect(ArchiveFormat.tarXz.usesThreads && ArchiveFormat.zst.usesThreads && !ArchiveFormat.tarGz.usesThreads)
    }
}
