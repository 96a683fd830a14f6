import ArchiverCore
internal import CGLib
import SystemPackage

/// The desktop's list of recently used files, `recently-used.xbel`, which every GTK file chooser and file
/// manager "Recent" view shows. Written through GLib's GBookmarkFile, so no GTK is needed.
public enum RecentFiles {
    /// The application name Archiver registers on its entries; `forget()` removes only this one.
    public static let applicationName = "Archiver"

    /// `$XDG_DATA_HOME/recently-used.xbel`. GLib reads `XDG_DATA_HOME` once per process.
    public static var defaultFile: FilePath {
        FilePath(bytes: CString.bytes(g_get_user_data_dir())).appending("recently-used.xbel")
    }

    /// Adds `path` to the recent list, or marks it used again when it is there already.
    /// - Parameters:
    ///   - mimeType: the item's type; `inode/directory` for a folder, `guessedType(of:)` for an archive.
    ///   - exec: the command line that opens the item, such as `extract-with-archiver %u`.
    ///   - originalSize: for a smaller copy (a PDF, a photo), the size of what it was made from: the app's
    ///     Recent row shows the saving.
    ///   - file: the bookmark file to change.
    /// - Throws: `ArchiverError` when the list exists but cannot be read, or cannot be saved.
    public static func add(
        _ path: FilePath, mimeType: String, application: String = applicationName, exec: String,
        originalSize: Int64? = nil, file: FilePath = defaultFile
    ) throws {
        guard let uri = fileURI(path) else {
            throw ArchiverError(.destination, tr("Could not add to recent files: the name cannot be made a URI."), path: path.string)
        }
        try update(file) { bookmarks in
            g_bookmark_file_set_mime_type(bookmarks, uri, mimeType)
            // Also bumps the application's count and the item's modification time.
            g_bookmark_file_add_application(bookmarks, uri, application, exec)
            if let originalSize { g_bookmark_file_set_description(bookmarks, uri, originalSizeNote(originalSize)) }
            return ((), save: true)
        }
    }

    /// Removes Archiver's registration from every entry, and the entries no other application uses.
    /// - Returns: how many entries changed; 0 when there is no list.
    /// - Throws: `ArchiverError` when the list cannot be read or saved.
    public static func forget(file: FilePath = defaultFile) throws -> Int {
        try update(file) { bookmarks in
            var count: gsize = 0
            guard let uris = g_bookmark_file_get_uris(bookmarks, &count) else { return (0, save: false) }
            defer { g_strfreev(uris) }
            var changed = 0
            for index in 0..<Int(count) {
                guard let uri = uris[index], g_bookmark_file_has_application(bookmarks, uri, applicationName, nil) != 0
                else { continue }
                g_bookmark_file_remove_application(bookmarks, uri, applicationName, nil)
                // GLib keeps an entry with no application left; nothing would ever open it.
                var others: gsize = 0
                g_strfreev(g_bookmark_file_get_applications(bookmarks, uri, &others, nil))
                if others == 0 { g_bookmark_file_remove_item(bookmarks, uri, nil) }
                changed += 1
            }
            return (changed, save: changed > 0)
        }
    }

    /// One of Archiver's entries in the list, with what `restore` needs to put it back as it was.
    public struct Entry: Equatable, Sendable {
        public var path: FilePath
        public var mimeType: String
        /// When Archiver last made or used it (Unix seconds).
        public var modified: Int64
        public var added: Int64
        /// Archiver's command line for it, and how often it registered it.
        public var exec: String
        public var count: UInt32
        /// The size of what a smaller copy was made from (Compress PDF, Compress Photos); nil for the rest.
        public var originalSize: Int64? = nil
    }

    /// The entry's description holds the original's size by rule, not in words: the list is shared with
    /// every application, and no file chooser shows descriptions.
    private static let originalSizePrefix = "io.github.archiver original-size="

    private static func originalSizeNote(_ size: Int64) -> String { originalSizePrefix + String(size) }

    static func originalSize(fromNote note: String?) -> Int64? {
        guard let note, note.hasPrefix(originalSizePrefix) else { return nil }
        return Int64(note.dropFirst(originalSizePrefix.count))
    }

    /// Archiver's entries (those it registered on), newest first; local files only.
    /// - Throws: `ArchiverError` when the list exists but cannot be read.
    public static func entries(file: FilePath = defaultFile) throws -> [Entry] {
        try update(file) { bookmarks in
            var count: gsize = 0
            guard let uris = g_bookmark_file_get_uris(bookmarks, &count) else { return ([], save: false) }
            defer { g_strfreev(uris) }
            var found: [Entry] = []
            for index in 0..<Int(count) {
                guard let uri = uris[index], g_bookmark_file_has_application(bookmarks, uri, applicationName, nil) != 0,
                    let path = takeString(g_filename_from_uri(uri, nil, nil))
                else { continue }
                var exec: UnsafeMutablePointer<gchar>?
                var registered: guint = 0
                var stamp: OpaquePointer?
                g_bookmark_file_get_application_info(bookmarks, uri, applicationName, &exec, &registered, &stamp, nil)
                let mime = takeString(g_bookmark_file_get_mime_type(bookmarks, uri, nil)) ?? "application/octet-stream"
                let modified = Int64(stamp.map { g_date_time_to_unix($0) }
                    ?? g_bookmark_file_get_modified_date_time(bookmarks, uri, nil).map { g_date_time_to_unix($0) } ?? 0)
                let added = g_bookmark_file_get_added_date_time(bookmarks, uri, nil).map { Int64(g_date_time_to_unix($0)) } ?? modified
                // GLib hands the command line back with %u expanded; keep it as it was registered.
                let command = (takeString(exec) ?? "").replacing(String(cString: uri), with: "%u")
                let note = takeString(g_bookmark_file_get_description(bookmarks, uri, nil))
                found.append(Entry(
                    path: FilePath(path), mimeType: mime, modified: modified, added: added,
                    exec: command, count: max(registered, 1), originalSize: originalSize(fromNote: note)))
            }
            return (found.sorted { $0.modified > $1.modified }, save: false)
        }
    }

    /// Puts entries back as `entries` read them (the undo of `forget`), beside whatever the list holds now.
    /// - Throws: `ArchiverError` when the list cannot be read or saved.
    public static func restore(_ entries: [Entry], file: FilePath = defaultFile) throws {
        guard !entries.isEmpty else { return }
        try update(file) { bookmarks in
            for entry in entries {
                guard let uri = fileURI(entry.path) else { continue }
                let modified = g_date_time_new_from_unix_utc(gint64(entry.modified))
                let added = g_date_time_new_from_unix_utc(gint64(entry.added))
                defer {
                    g_date_time_unref(modified)
                    g_date_time_unref(added)
                }
                g_bookmark_file_set_mime_type(bookmarks, uri, entry.mimeType)
                g_bookmark_file_set_application_info(
                    bookmarks, uri, applicationName, entry.exec, gint(entry.count), modified, nil)
                g_bookmark_file_set_added_date_time(bookmarks, uri, added)
                g_bookmark_file_set_modified_date_time(bookmarks, uri, modified)
                if let size = entry.originalSize { g_bookmark_file_set_description(bookmarks, uri, originalSizeNote(size)) }
            }
            return ((), save: true)
        }
    }

    /// The MIME type GLib's shared-mime-info database gives the file, from its name and first bytes.
    public static func guessedType(of path: FilePath) -> String {
        var head = [UInt8](repeating: 0, count: 4096)
        var length = 0
        if let descriptor = try? FileDescriptor.open(path, .readOnly) {
            length =
                (try? descriptor.closeAfter { try head.withUnsafeMutableBytes { try descriptor.read(into: $0) } }) ?? 0
        }
        var uncertain: gboolean = 0
        let type = path.withPlatformString { g_content_type_guess($0, head, gsize(length), &uncertain) }
        defer { g_free(type) }
        return takeString(g_content_type_get_mime_type(type)) ?? "application/octet-stream"
    }

    /// False when GNOME's privacy settings say not to remember recent files (`remember-recent-files`
    /// off, or `recent-files-max-age` 0). True where those settings are not installed.
    public static var desktopAllowsRecent: Bool {
        privacyAllowsRecent(SettingsStore(schemaID: privacySchemaID))
    }

    /// `desktopAllowsRecent` with the privacy schema taken from a compiled schema directory.
    static func desktopAllowsRecent(schemaDirectory: FilePath) -> Bool {
        guard let place = SettingsPlace(schemaFolder: schemaDirectory.string) else { return true }
        return privacyAllowsRecent(SettingsStore(schemaID: privacySchemaID, place: place))
    }

    static let privacySchemaID = "org.gnome.desktop.privacy"

    private static func privacyAllowsRecent(_ privacy: SettingsStore) -> Bool {
        // A missing schema, a missing key or a value of another type forbids nothing.
        if privacy.stored("remember-recent-files") == .bool(false) { return false }
        // Days to keep; -1 is forever, 0 keeps nothing.
        return privacy.stored("recent-files-max-age") != .number(0)
    }

    /// Loads `file` (an empty list when it does not exist), lets `change` edit it, and saves it right away
    /// when asked to: GTK applications rewrite the same file, so the window for lost updates stays short.
    private static func update<Result>(
        _ file: FilePath, _ change: (OpaquePointer) -> (Result, save: Bool)
    ) throws -> Result {
        guard let bookmarks = g_bookmark_file_new() else { throw failure(nil, saving: false, file) }
        defer { g_bookmark_file_free(bookmarks) }
        var error: UnsafeMutablePointer<GError>?
        let loaded = file.withPlatformString { g_bookmark_file_load_from_file(bookmarks, $0, &error) } != 0
        if !loaded {
            guard g_error_matches(error, g_file_error_quark(), gint(G_FILE_ERROR_NOENT.rawValue)) != 0 else {
                throw failure(error, saving: false, file)
            }
            g_clear_error(&error)
        }
        let (result, save) = change(bookmarks)
        guard save else { return result }
        // A fresh account may not have $XDG_DATA_HOME yet.
        let folder = file.removingLastComponent()
        if !folder.isEmpty { _ = folder.withPlatformString { g_mkdir_with_parents($0, 0o700) } }
        // g_file_set_contents underneath: a temporary file renamed over the old one.
        guard file.withPlatformString({ g_bookmark_file_to_file(bookmarks, $0, &error) }) != 0 else {
            throw failure(error, saving: true, file)
        }
        return result
    }

    /// The error for a failed load or save; frees `error`.
    private static func failure(_ error: UnsafeMutablePointer<GError>?, saving: Bool, _ file: FilePath)
        -> ArchiverError
    {
        // GLib's own message, already in the user's language.
        let reason = error.flatMap { $0.pointee.message.map { Text.verbatim(String(cString: $0)) } } ?? tr("out of memory")
        if let error { g_error_free(error) }
        return ArchiverError(
            .destination,
            saving ? tr("Could not save the recent files list: %@.", reason) : tr("Could not read the recent files list: %@.", reason),
            hint: tr("Archiver's own work is done; only the Recent list was not updated."), path: file.string)
    }
}

extension FilePath {
    /// This path made absolute against the working directory, without resolving symlinks.
    var absolute: FilePath {
        guard !isAbsolute, let cwd = g_get_current_dir() else { return self.lexicallyNormalized() }
        defer { g_free(cwd) }
        return FilePath(bytes: CString.bytes(cwd)).pushing(self).lexicallyNormalized()
    }
}

/// The `file://` URI of a local path, with any non-UTF-8 bytes percent-escaped. The corresponding C function
/// is `g_filename_to_uri`.
func fileURI(_ path: FilePath) -> String? {
    var error: UnsafeMutablePointer<GError>?
    defer { g_clear_error(&error) }
    return path.absolute.withPlatformString { takeString(g_filename_to_uri($0, nil, &error)) }
}
