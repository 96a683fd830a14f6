/// The right-click menus' idea of an archive (DESIGN.md's menu table): an archives-only selection is offered
/// Extract Here, Extract…, Open as Folder and Compress…, and not "Compress" at once.
public enum MenuSelection {
    /// Every MIME type the Extract entries are offered for: desktop-files/archive-types.list, which the install
    /// script writes into every menu file and the "Open with" handler (ArchiverCoreTests checks the two agree).
    public static let archiveTypes: [String] = [
        "application/zip",
        "application/x-zip-compressed",
        "application/x-zip",
        "application/x-7z-compressed",
        "application/vnd.rar",
        "application/x-rar",
        "application/x-rar-compressed",
        "application/x-tar",
        "application/x-gtar",
        "application/x-ustar",
        "application/gzip",
        "application/x-gzip",
        "application/x-compressed-tar",
        "application/x-bzip",
        "application/x-bzip2",
        "application/x-bzip-compressed-tar",
        "application/x-bzip2-compressed-tar",
        "application/x-xz",
        "application/x-xz-compressed-tar",
        "application/zstd",
        "application/x-zstd",
        "application/x-zstd-compressed-tar",
        "application/x-lz4",
        "application/x-lz4-compressed-tar",
        "application/x-lzip",
        "application/x-lzip-compressed-tar",
        "application/x-lzma",
        "application/x-lzma-compressed-tar",
        "application/x-lzop",
        "application/x-tzo",
        "application/x-compress",
        "application/x-tarz",
        "application/x-cpio",
        "application/x-cpio-compressed",
        "application/x-bcpio",
        "application/x-sv4cpio",
        "application/x-sv4crc",
        "application/x-cd-image",
        "application/vnd.debian.binary-package",
        "application/x-deb",
        "application/x-rpm",
        "application/x-source-rpm",
        "application/vnd.ms-cab-compressed",
        "application/x-archive",
        "application/x-lha",
        "application/x-lzh-compressed",
        "application/x-xar",
        "application/vnd.squashfs",
        "application/vnd.snap",
        "application/vnd.appimage",
        "application/x-archiver-split-part",
    ]

    /// Whether every item is an archive as the file managers' own type filters see it: its content type is
    /// one of `archiveTypes` or a subclass of one (Nemo and Caja test `g_content_type_is_a`). An item whose
    /// type is unknown (nil: unreadable, gone) is not an archive, and an empty selection is not archives only.
    /// - Parameters:
    ///   - contentTypes: each selected item's content type.
    ///   - isA: the MIME database's subclass test, `isA(type, supertype)`.
    public static func isArchivesOnly(_ contentTypes: [String?], isA: (String, String) -> Bool) -> Bool {
        !contentTypes.isEmpty
            && contentTypes.allSatisfy { type in
                guard let type else { return false }
                return archiveTypes.contains { isA(type, $0) }
            }
    }
}
