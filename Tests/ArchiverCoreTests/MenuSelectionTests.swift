import ArchiverCore
import Foundation
import Testing

@Suite struct MenuSelectionTests {
    /// A stand-in for the MIME database's subclass test: each type is itself, and these few subclass others.
    private static let parents = [
        "application/x-compressed-tar": "application/gzip",
        "application/vnd.oasis.opendocument.text": "application/zip",
        "text/x-csrc": "text/plain",
    ]
    private static func isA(_ type: String, _ supertype: String) -> Bool {
        type == supertype || parents[type].map { isA($0, supertype) } == true
    }
    private func archivesOnly(_ types: String?...) -> Bool { MenuSelection.isArchivesOnly(types, isA: Self.isA) }

    @Test func everyItemAnArchive() {
        #expect(archivesOnly("application/zip"))
        #expect(archivesOnly("application/zip", "application/x-7z-compressed", "application/x-archiver-split-part"))
        // A subclass of an archive type counts, as it does for the file managers' own type filters.
        #expect(archivesOnly("application/x-compressed-tar"))
        #expect(archivesOnly("application/vnd.oasis.opendocument.text"))
    }

    @Test func anythingElseIsNot() {
        #expect(!archivesOnly())
        #expect(!archivesOnly("text/plain"))
        #expect(!archivesOnly("inode/directory"))
        #expect(!archivesOnly("application/zip", "text/x-csrc"))
        #expect(!archivesOnly("text/plain", "application/zip"))
        // A type that could not be read is no archive: the entry stays.
        #expect(!archivesOnly("application/zip", nil))
        #expect(!archivesOnly(nil))
    }

    /// The list is the one the install script writes into the menus' type filters.
    @Test func archiveTypesAreThoseOfTheMenus() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let list = try String(contentsOf: root.appendingPathComponent("desktop-files/archive-types.list"), encoding: .utf8)
        let types = list.split(separator: "\n").map(String.init).filter { !$0.isEmpty && !$0.hasPrefix("#") }
        #expect(MenuSelection.archiveTypes == types)
    }
}
