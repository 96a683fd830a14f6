import ArchiverCore
import ArchiverTestSupport
import Foundation
import SystemPackage
import Testing

@testable import Desktop

@Suite struct RecentFilesTests {
    /// One bookmark as another process's GLib reads it back.
    struct Entry: Decodable, Equatable {
        var mime: String?
        /// Application name → exec line, with `%u` already replaced by the URI (GLib does that).
        var apps: [String: String]
    }

    /// Reads `file` with libglib in a separate Python process (PyGObject cannot construct a
    /// GBookmarkFile on GLib 2.74, so through ctypes), keyed by URI.
    private func readBack(_ file: String) throws -> [String: Entry] {
        let script = #"""
            import ctypes, json, sys
            g = ctypes.CDLL("libglib-2.0.so.0")
            g.g_bookmark_file_new.restype = ctypes.c_void_p
            g.g_bookmark_file_load_from_file.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
            g.g_bookmark_file_get_uris.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)]
            g.g_bookmark_file_get_uris.restype = ctypes.POINTER(ctypes.c_char_p)
            g.g_bookmark_file_get_mime_type.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
            g.g_bookmark_file_get_mime_type.restype = ctypes.c_char_p
            g.g_bookmark_file_get_applications.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_size_t), ctypes.c_void_p]
            g.g_bookmark_file_get_applications.restype = ctypes.POINTER(ctypes.c_char_p)
            g.g_bookmark_file_get_application_info.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p,
                ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_uint), ctypes.c_void_p, ctypes.c_void_p]
            b = g.g_bookmark_file_new()
            if not g.g_bookmark_file_load_from_file(b, sys.argv[1].encode(), None):
                sys.exit("GLib could not load the file")
            n = ctypes.c_size_t()
            uris = g.g_bookmark_file_get_uris(b, ctypes.byref(n))
            out = {}
            for i in range(n.value):
                uri = uris[i]
                mime = g.g_bookmark_file_get_mime_type(b, uri, None)
                m = ctypes.c_size_t()
                names = g.g_bookmark_file_get_applications(b, uri, ctypes.byref(m), None)
                apps = {}
                for j in range(m.value):
                    exec_ = ctypes.c_char_p()
                    g.g_bookmark_file_get_application_info(b, uri, names[j], ctypes.byref(exec_), None, None, None)
                    apps[names[j].decode()] = exec_.value.decode()
                out[uri.decode()] = {"mime": mime and mime.decode(), "apps": apps}
            print(json.dumps(out))
            """#
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, file]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BusFailure("GLib could not read \(file)") }
        return try JSONDecoder().decode([String: Entry].self, from: data)
    }

    /// A list as GTK writes it, with one file that another application used.
    private func gtkList(at file: String, uri: String) throws {
        try """
        <?xml version="1.0" encoding="UTF-8"?>
        <xbel version="1.0" xmlns:bookmark="http://www.freedesktop.org/standards/desktop-bookmarks"
              xmlns:mime="http://www.freedesktop.org/standards/shared-mime-info">
          <bookmark href="\(uri)" added="2024-05-01T10:00:00.000000Z" modified="2024-05-01T10:00:00.000000Z"
                    visited="2024-05-01T10:00:00.000000Z">
            <info><metadata owner="http://freedesktop.org">
              <mime:mime-type type="text/plain"/>
              <bookmark:applications>
                <bookmark:application name="gedit" exec="&apos;gedit %u&apos;" modified="2024-05-01T10:00:00.000000Z" count="3"/>
              </bookmark:applications>
            </metadata></info>
          </bookmark>
        </xbel>
        """.write(toFile: file, atomically: true, encoding: .utf8)
    }

    @Test func addsAnEntryGLibReadsBack() throws {
        let scratch = try ScratchDirectory()
        // The list's folder does not exist yet, as on a fresh account.
        let file = scratch.sub("data/recently-used.xbel")
        let archive = scratch.sub("Photos.zip")

        try RecentFiles.add(
            FilePath(archive), mimeType: "application/zip", exec: "extract-with-archiver %u", file: FilePath(file))
        try RecentFiles.add(
            FilePath(scratch.path), mimeType: "inode/directory", exec: "xdg-open %u", file: FilePath(file))

        let entries = try readBack(file)
        let archiveURI = "file://" + archive
        let folderURI = "file://" + scratch.path
        #expect(
            entries[archiveURI]
                == Entry(mime: "application/zip", apps: ["Archiver": "extract-with-archiver " + archiveURI]))
        #expect(entries[folderURI] == Entry(mime: "inode/directory", apps: ["Archiver": "xdg-open " + folderURI]))
        #expect(entries.count == 2)
    }

    @Test func namesWithSpacesAndNonUTF8BytesBecomeEscapedURIs() throws {
        let scratch = try ScratchDirectory()
        let file = scratch.sub("recently-used.xbel")
        let spaced = FilePath(scratch.path).appending("My Photos (2024).zip")
        let latin1 = FilePath(scratch.path).appending(bytes: Array("caf".utf8) + [0xE9] + Array(" x.7z".utf8))

        try RecentFiles.add(spaced, mimeType: "application/zip", exec: "extract-with-archiver %u", file: FilePath(file))
        try RecentFiles.add(
            latin1, mimeType: "application/x-7z-compressed", exec: "extract-with-archiver %u", file: FilePath(file))

        let uris = Set(try readBack(file).keys)
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

        let entries = try readBack(file)
        #expect(entries.count == 1)
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.contains(#"name="Archiver""#) && text.contains(#"count="2""#))
    }

    @Test func otherApplicationsEntriesSurviveAddAndForget() throws {
        let scratch = try ScratchDirectory()
        let file = scratch.sub("recently-used.xbel")
        let notes = "file://\(scratch.path)/notes.txt"
        try gtkList(at: file, uri: notes)
        let archive = scratch.sub("out.zip")

        try RecentFiles.add(
            FilePath(archive), mimeType: "application/zip", exec: "extract-with-archiver %u", file: FilePath(file))
        #expect(try readBack(file).count == 2)
        #expect(try RecentFiles.forget(file: FilePath(file)) == 1)

        #expect(try readBack(file) == [notes: Entry(mime: "text/plain", apps: ["gedit": "gedit " + notes])])
        // Nothing of ours is left, so a second run changes nothing.
        #expect(try RecentFiles.forget(file: FilePath(file)) == 0)
    }

    @Test func forgetKeepsAnEntryAnotherApplicationSharesWithoutUs() throws {
        let scratch = try ScratchDirectory()
        let file = scratch.sub("recently-used.xbel")
        let shared = scratch.sub("shared.zip")
        try gtkList(at: file, uri: "file://" + shared)
        try RecentFiles.add(
            FilePath(shared), mimeType: "application/zip", exec: "extract-with-archiver %u", file: FilePath(file))
        #expect(try readBack(file)["file://" + shared]?.apps.keys.sorted() == ["Archiver", "gedit"])

        #expect(try RecentFiles.forget(file: FilePath(file)) == 1)
        #expect(try readBack(file)["file://" + shared]?.apps == ["gedit": "gedit file://" + shared])
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
