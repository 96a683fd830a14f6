import ArchiverCore
import Testing

@Suite struct DropRouteTests {
    private func kind(_ name: String, _ type: String, folder: Bool = false) -> DropRoute.Kind {
        DropRoute.kind(name: Array(name.utf8), mimeType: type, isFolder: folder)
    }

    @Test func kindsFromNameAndType() {
        #expect(kind("Holiday.zip", "application/zip") == .archive)
        #expect(kind("backup.tar.zst", "application/zstd") == .archive)
        #expect(kind("x.7z.001", "application/octet-stream") == .archive)
        #expect(kind("report.pdf", "application/pdf") == .pdf)
        #expect(kind("beach.JPG", "image/jpeg") == .photo)
        // A zip inside, but made for an office suite: compressed, never extracted.
        #expect(kind("letter.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document") == .other)
        #expect(kind("Photos.zip", "inode/directory", folder: true) == .folder)
    }

    @Test func routes() {
        #expect(DropRoute.route(for: []) == nil)
        #expect(DropRoute.route(for: [.archive, .archive]) == .extract)
        #expect(DropRoute.route(for: [.pdf]) == .compressPDFs)
        #expect(DropRoute.route(for: [.photo, .photo]) == .compressPhotos)
        #expect(DropRoute.route(for: [.folder]) == .compress)
        #expect(DropRoute.route(for: [.other]) == .compress)
        // Mixed: one archive of everything.
        #expect(DropRoute.route(for: [.archive, .pdf]) == .compress)
        #expect(DropRoute.route(for: [.photo, .folder]) == .compress)
    }
}
