import ArchiverCore
import Testing

private func b(_ s: String) -> [UInt8] { Array(s.utf8) }
private func s(_ b: [UInt8]) -> String { String(decoding: b, as: UTF8.self) }

@Suite struct ArchiveNamingTests {
    @Test(arguments: [
        ("x.tar.gz", "x", ".tar.gz"), ("Photos.TAR.XZ", "Photos", ".TAR.XZ"), ("a.zip", "a", ".zip"),
        ("x.7z.001", "x", ".7z.001"), ("x.zip.001", "x", ".zip.001"), ("x.part2.rar", "x", ".part2.rar"),
        ("x.part01.rar", "x", ".part01.rar"), ("x.z01", "x", ".z01"), ("x.r00", "x", ".r00"), ("x.001", "x", ".001"),
        ("x.tgz", "x", ".tgz"), ("notes.txt.gz", "notes.txt", ".gz"), ("report.pdf", "report.pdf", ""),
        (".zip", ".zip", ""), ("noext", "noext", ""), ("v1.2.tar.zst", "v1.2", ".tar.zst"), ("a.b.c", "a.b.c", ""),
        ("data.tar.zstd", "data", ".tar.zstd"), ("x.tar", "x", ".tar"),
    ])
    func splitsArchiveExtensions(name: String, stem: String, ext: String) {
        let (gotStem, gotExt) = ArchiveNaming.splitArchiveExtension(b(name))
        #expect(s(gotStem) == stem)
        #expect(s(gotExt) == ext)
    }

    @Test func stemKeepsNamesThatWouldBeEmpty() {
        #expect(s(ArchiveNaming.stem(b(".tar.gz"))) == ".tar.gz")
        #expect(s(ArchiveNaming.stem(b("backup.tar.gz"))) == "backup")
    }

    @Test func numbersGoBeforeTheWholeArchiveExtension() {
        #expect(s(ArchiveNaming.numbered(b("Archive.zip"), isDirectory: false, attempt: 1)) == "Archive.zip")
        #expect(s(ArchiveNaming.numbered(b("Archive.zip"), isDirectory: false, attempt: 2)) == "Archive (2).zip")
        #expect(s(ArchiveNaming.numbered(b("Photos.tar.gz"), isDirectory: false, attempt: 3)) == "Photos (3).tar.gz")
        #expect(s(ArchiveNaming.numbered(b("report.pdf"), isDirectory: false, attempt: 2)) == "report (2).pdf")
        #expect(s(ArchiveNaming.numbered(b("v1.2"), isDirectory: true, attempt: 2)) == "v1.2 (2)")
        #expect(s(ArchiveNaming.numbered(b(".bashrc"), isDirectory: false, attempt: 2)) == ".bashrc (2)")
        #expect(s(ArchiveNaming.numbered(b("Makefile"), isDirectory: false, attempt: 2)) == "Makefile (2)")
    }

    @Test func numberingKeepsNonUTF8Bytes() {
        let latin1: [UInt8] = [0x63, 0x61, 0x66, 0xE9] + b(".zip")  // "café" in Latin-1
        #expect(ArchiveNaming.numbered(latin1, isDirectory: false, attempt: 2) == [0x63, 0x61, 0x66, 0xE9] + b(" (2).zip"))
    }

    @Test func decompressedNames() {
        #expect(s(ArchiveNaming.decompressedName(archiveName: b("notes.txt.gz"), recordedName: b("data"))) == "notes.txt")
        #expect(s(ArchiveNaming.decompressedName(archiveName: b("x.tgz"), recordedName: nil)) == "x.tar")
        #expect(s(ArchiveNaming.decompressedName(archiveName: b("blob"), recordedName: b("orig.txt"))) == "orig.txt")
        #expect(s(ArchiveNaming.decompressedName(archiveName: b("blob"), recordedName: b("../../etc/x"))) == "x")
        #expect(s(ArchiveNaming.decompressedName(archiveName: b("blob"), recordedName: b("data"))) == "blob.out")
    }
}
