import Testing

@testable import ArchiverCore

@Suite struct NestedArchivesTests {
    @Test(arguments: ["x.zip", "x.ZIP", "x.tar.gz", "x.tgz", "notes.txt.gz", "x.7z", "x.rar", "x.tar.zst"])
    func archivesAreOpened(name: String) {
        #expect(NestedArchives.opens(Array(name.utf8)))
    }

    @Test(arguments: ["report.docx", "Sheet.XLSX", "book.epub", "app.jar", "app.apk", "comic.cbz", "pkg.deb", "pkg.rpm", "x.7z.002", "notes.txt", "zip", ".zip"])
    func documentsPackagesAndPartsAreNot(name: String) {
        #expect(!NestedArchives.opens(Array(name.utf8)))
    }

    @Test func theCapIsAHundredTimesTheOuterArchiveAndNeverOverflows() {
        #expect(NestedArchives.byteLimit(archiveBytes: 1_000) == 100_000)
        #expect(NestedArchives.byteLimit(archiveBytes: 0) == 100)
        #expect(NestedArchives.byteLimit(archiveBytes: .max) == .max)
    }

    @Test func countsAreGroupedForPeopleAndPlainForScripts() {
        let text = ntr("%ld file", "%ld files", 1204)
        #expect(text.english == "1204 files")
        #expect(text.localized == "1204 files" || text.localized == "1,204 files" || text.localized == "1.204 files")
    }
}
