import ArchiverCore
import ArchiverTestSupport
import Foundation
import SystemPackage
import Testing

@testable import Desktop

@Suite struct RecentFilesTests {
    @Test func addsAnEntryGLibReadsBack() throws {
        let scratch = try ScratchDirectory()
        // The list's folder does not exist yet, as on a fresh account.
        let file = scratch.sub("data/recently-used.xbel")
        let archive = scratch.sub("Photos.zip")

        try RecentFiles.add(
            FilePath(archive), mimeType: "application/zip", exec: "extract-with-archiver %u", file: FilePath(file))
        try RecentFiles.add(
            FilePath(scratch.path), mimeType: "inode/directory", exec: "xdg-open %u", file: FilePath(file))

        let entries = try RecentList.read(file)
        let archiveURI = "file://" + archive
        let folderURI = "file://" + scratch.path
        #expect(
            entries[archiveURI]
                == RecentList.Entry(mime: "application/zip", apps: ["Archiver": "extract-with-archiver " + archiveURI]))
        #expect(entries[folderURI] == RecentList.Entry(mime: "inode/directory", apps: ["Archiver": "xdg-open " + folderURI]))
        #expect(entries.count == 2)
    }

    /// A smaller copy's entry keeps the size of what it was made from (the Recent row's saving), through
    /// Clear History's Undo too; other entries have none.
    @Test func aSmallerCopyKeepsItsOriginalSize() throws {
        let scratch = try ScratchDirectory()
        let file = FilePath(scratch.sub("recently-used.xbel"))
        let copy = FilePath(scratch.sub("report (compressed).pdf"))
        try RecentFiles.add(copy, mimeType: "application/pdf", exec: "xdg-open %u", originalSize: 31_800_000, file: file)
        try RecentFiles.add(FilePath(scratch.sub("Photos.zip")), mimeType: "application/zip", exec: "extract-with-archiver %u", file: file)
        let entries = try RecentFiles.entries(file: file)
        #expect(entries.first { $0.path == copy }?.originalSize == 31_800_000)
        #expect(entries.first { $0.path != copy }?.originalSize == nil)
        #expect(try RecentFiles.forget(file: file) == 2)
        try RecentFiles.restore(entries, file: file)
        #expect(try RecentFiles.entries(file: file).first { $0.path == copy }?.originalSize == 31_800_000)
    }

    /// What the app's Recent page lists (ours only, newest first) and what its Undo of Clear History puts
    /// back: the same entries, dates and command lines, beside another application's.
    @Test func entriesAreOursNewestFirstAndRestoreAfterForget() throws {
        let scratch = try ScratchDirectory()
        let file = FilePath(scratch.sub("recently-used.xbel"))
        try RecentList.writeOthers(at: file.string, uri: "file://" + scratch.sub("letter.txt"))
        let older = RecentFiles.Entry(
            path: FilePath(scratch.sub("Old.zip")), mimeType: "application/zip", modified: 1_700_000_000,
            added: 1_690_000_000, exec: "extract-with-archiver %u", count: 2)
        let newer = RecentFiles.Entry(
            path: FilePath(scratch.sub("New")), mimeType: "inode/directory", modified: 1_750_000_000,
            added: 1_750_000_000, exec: "xdg-open %u", count: 1)
        try RecentFiles.restore([older, newer], file: file)
        #expect(try RecentFiles.entries(file: file) == [newer, older])

        #expect(try RecentFiles.forget(file: file) == 2)
        #expect(try RecentFiles.entries(file: file) == [])
        try RecentFiles.restore([newer, older], file: file)
        #expect(try RecentFiles.entries(file: file) == [newer, older])
        // The other application's entry stayed throughout.
        #expect(try RecentList.read(file.string).count == 3)
    }

    @Test func namesWithSpacesAndNonUTF8BytesBecomeEscapedURIs() throws {
        let scratch = try ScratchDirectory()
        let file = scratch.sub("recently-used.xbel")
        let spaced = FilePath(scratch.path).appending("My Photos (2024).zip")
        let latin1 = FilePath(scratch.path).appending(bytes: Array("caf".utf8) + [0xE9] + Array(" x.7z".utf8))

        try RecentFiles.add(spaced, mimeType: "application/zip", exec: "extract-with-archiver %u", file: FilePath(file))
        try RecentFiles.add(
            latin1, mimeType: "application/x-7z-compressed", exec: "extract-with-archiver %u", file: FilePath(file))

        let uris = Set(try RecentList.read(file).keys)
        #expect(uris == ["file://\(scratch.path)/My%20Photos%20(2024).zip", "file://\(scratch.path)/caf%E9%20x.7z"])
    }

    @Test func addingAgainUpdatesTheOneEntry() throws {
        let scratch = try ScratchDirectory()
        let file = scratch.sub("recently-used.xbel")
        let archive = FilePath(scratch.sub("a.tar.xz"))
        try RecentFiles.add(
            archive, mimeType: "application/x-xz-compressed-tar", exec: "extract-with-archiver %u", file: FilePath(file)
        )
        try RecentFiles.add(
            archive, mimeType: "application/x-xz-compressed-tar", exec: "extract-with-archiver %u", file: FilePath(file)
        )

        let entries = try RecentList.read(file)
        #expect(entries.count == 1)
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.contains(#"name="Archiver""#) && text.contains(#"count="2""#))
    }

    @Test func otherApplicationsEntriesSurviveAddAndForget() throws {
        let scratch = try ScratchDirectory()
        let file = scratch.sub("recently-used.xbel")
        let notes = "file://\(scratch.path)/notes.txt"
        try RecentList.writeOthers(at: file, uri: notes)
        let archive = scratch.sub("out.zip")

        try RecentFiles.add(
            FilePath(archive), mimeType: "application/zip", exec: "extract-with-archiver %u", file: FilePath(file))
        #expect(try RecentList.read(file).count == 2)
        #expect(try RecentFiles.forget(file: FilePath(file)) == 1)

        #expect(try RecentList.read(file) == [notes: RecentList.Entry(mime: "text/plain", apps: ["gedit": "gedit " + notes])])
        // Nothing of ours is left, so a second run changes nothing.
        #expect(try RecentFiles.forget(file: FilePath(file)) == 0)
    }

    @Test func forgetKeepsAnEntryAnotherApplicationSharesWithoutUs() throws {
        let scratch = try ScratchDirectory()
        let file = scratch.sub("recently-used.xbel")
        let shared = scratch.sub("shared.zip")
        try RecentList.writeOthers(at: file, uri: "file://" + shared)
        try RecentFiles.add(
            FilePath(shared), mimeType: "application/zip", exec: "extract-with-archiver %u", file: FilePath(file))
        #expect(try RecentList.read(file)["file://" + shared]?.apps.keys.sorted() == ["Archiver", "gedit"])

        #expect(try RecentFiles.forget(file: FilePath(file)) == 1)
        #expect(try RecentList.read(file)["file://" + shared]?.apps == ["gedit": "gedit file://" + shared])
    }

    @Test func forgetWithoutAListChangesNothing() throws {
        let scratch = try ScratchDirectory()
        let file = scratch.sub("recently-used.xbel")
        #expect(try RecentFiles.forget(file: FilePath(file)) == 0)
        #expect(!FileManager.default.fileExists(atPath: file))
    }

    @Test func aDamagedListIsReportedAndLeftAlone() throws {
        let scratch = try ScratchDirectory()
        let file = scratch.sub("recently-used.xbel")
        let damaged = #"<?xml version="1.0"?><xbel version="1.0"><bookmark href="file:///a"></xbel>"#
        try damaged.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(throws: ArchiverError.self) {
            try RecentFiles.add(
                FilePath(scratch.sub("a.zip")), mimeType: "application/zip", exec: "x %u", file: FilePath(file))
        }
        #expect(try String(contentsOfFile: file, encoding: .utf8) == damaged)
    }

    @Test func guessesArchiveTypesFromContentAndName() throws {
        let scratch = try ScratchDirectory()
        let zipBytes = Data([0x50, 0x4B, 0x03, 0x04] + [UInt8](repeating: 0, count: 26))
        #expect(FileManager.default.createFile(atPath: scratch.sub("a.zip"), contents: zipBytes))
        // No extension: only the first bytes say what it is.
        #expect(FileManager.default.createFile(atPath: scratch.sub("download"), contents: zipBytes))
        #expect(
            FileManager.default.createFile(atPath: scratch.sub("b.tar.gz"), contents: Data([0x1F, 0x8B, 0x08, 0x00])))

        #expect(RecentFiles.guessedType(of: FilePath(scratch.sub("a.zip"))) == "application/zip")
        #expect(RecentFiles.guessedType(of: FilePath(scratch.sub("download"))) == "application/zip")
        #expect(RecentFiles.guessedType(of: FilePath(scratch.sub("b.tar.gz"))) == "application/x-compressed-tar")
    }

    /// Compiles a stand-in for GNOME's privacy schema. Its path differs from the real one, so values a
    /// desktop stored for the real schema cannot leak into the test; the defaults are what is read.
    private func privacySchema(remember: Bool, maxAge: Int, in scratch: ScratchDirectory) throws -> FilePath {
        let folder = scratch.sub("schemas-\(remember)-\(maxAge)")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try """
        <schemalist>
          <schema id="\(RecentFiles.privacySchemaID)" path="/org/example/archiver-tests/privacy/">
            <key name="remember-recent-files" type="b"><default>\(remember)</default></key>
            <key name="recent-files-max-age" type="i"><default>\(maxAge)</default></key>
          </schema>
        </schemalist>
        """.write(toFile: folder + "/\(RecentFiles.privacySchemaID).gschema.xml", atomically: true, encoding: .utf8)
        let compiler = try Process.run(URL(fileURLWithPath: "/usr/bin/glib-compile-schemas"), arguments: [folder])
        compiler.waitUntilExit()
        #expect(compiler.terminationStatus == 0)
        return FilePath(folder)
    }

    @Test func followsGNOMEPrivacySettings() throws {
        let scratch = try ScratchDirectory()
        #expect(
            RecentFiles.desktopAllowsRecent(schemaDirectory: try privacySchema(remember: true, maxAge: -1, in: scratch))
        )
        #expect(
            RecentFiles.desktopAllowsRecent(schemaDirectory: try privacySchema(remember: true, maxAge: 30, in: scratch))
        )
        #expect(
            !RecentFiles.desktopAllowsRecent(
                schemaDirectory: try privacySchema(remember: false, maxAge: -1, in: scratch)))
        #expect(
            !RecentFiles.desktopAllowsRecent(schemaDirectory: try privacySchema(remember: true, maxAge: 0, in: scratch))
        )
        // No GNOME schema installed: nothing forbids it.
        #expect(RecentFiles.desktopAllowsRecent(schemaDirectory: FilePath(scratch.path)))
    }
}
