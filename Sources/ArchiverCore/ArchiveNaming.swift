/// Names of archives and of what they become: archive extensions, stems, "name (2)" conflict names.
///
/// Names are byte strings, because Linux file names need not be UTF-8; every extension matched is ASCII.
public enum ArchiveNaming {
    /// Compound extensions whose first part is tar (`.tar.gz`), matched before the single ones.
    static let tarFilters = ["gz", "bz2", "bz", "xz", "zst", "zstd", "lz", "lz4", "lzma", "z", "lzo", "lrz"]

    /// Extensions that name an archive or a compressed stream, lowercase, without the dot.
    static let archiveExtensions: Set<String> = [
        "zip", "7z", "rar", "tar", "tgz", "tbz", "tbz2", "tb2", "txz", "tzst", "tlz", "taz", "tz", "cpio",
        "iso", "deb", "cab", "lha", "lzh", "xar", "jar", "a", "ar", "gz", "bz2", "bz", "xz", "zst", "zstd",
        "lz4", "lz", "lzma", "z", "rpm", "war", "apk", "cbz", "cbr", "cb7", "cbt", "warc", "shar",
        "squashfs", "sqfs", "sqsh", "snap", "appimage",
    ]

    /// Splits `name` into its stem and its whole archive extension, including split-volume suffixes:
    /// `Photos.tar.gz` → (`Photos`, `.tar.gz`), `x.7z.001` → (`x`, `.7z.001`), `x.part2.rar` → (`x`,
    /// `.part2.rar`), `x.z01` → (`x`, `.z01`). A name with no archive extension has an empty one, and a
    /// leading dot never starts an extension.
    public static func splitArchiveExtension(_ name: [UInt8]) -> (stem: [UInt8], extension: [UInt8]) {
        var parts = dotSeparatedSuffixes(name)
        var taken = 0
        // A trailing volume number (`.001`, `.z01`, `.r00`) names a part even without an archive extension.
        if let last = parts.last, isVolumeNumber(last) {
            taken += 1
            parts.removeLast()
        }
        if let last = parts.last, archiveExtensions.contains(last) {
            taken += 1
            parts.removeLast()
            if last == "rar", let previous = parts.last, isRarPart(previous) {
                taken += 1
            } else if tarFilters.contains(last), parts.last == "tar" {
                taken += 1
            }
        }
        return split(name, droppingSuffixes: taken)
    }

    /// The name without its archive extension, for the folder an archive extracts into: `x.tar.gz` → `x`.
    /// A name that is nothing but extensions (`.tar.gz`) keeps its whole self, rather than becoming
    /// empty or a hidden `.tar`.
    public static func stem(_ name: [UInt8]) -> [UInt8] {
        let (stem, _) = splitArchiveExtension(name)
        let hiddenExtension = stem.first == UInt8(ascii: ".")
            && archiveExtensions.contains(String(decoding: stem.dropFirst(), as: UTF8.self).lowercased())
        return stem.isEmpty || hiddenExtension ? name : stem
    }

    /// Splits a name for conflict numbering: folders keep their whole name, archives split before their
    /// whole archive extension, other files before their last extension.
    public static func splitForNumbering(_ name: [UInt8], isDirectory: Bool) -> (stem: [UInt8], extension: [UInt8]) {
        if isDirectory { return (name, []) }
        let archive = splitArchiveExtension(name)
        if !archive.extension.isEmpty, !archive.stem.isEmpty { return archive }
        return split(name, droppingSuffixes: dotSeparatedSuffixes(name).isEmpty ? 0 : 1)
    }

    /// The `n`th name to try when `name` is taken: n = 1 is the name itself, then `stem (2).ext`, ….
    public static func numbered(_ name: [UInt8], isDirectory: Bool, attempt n: Int) -> [UInt8] {
        guard n > 1 else { return name }
        let (stem, ext) = splitForNumbering(name, isDirectory: isDirectory)
        return stem + Array(" (\(n))".utf8) + ext
    }

    /// The name of a single compressed stream once decompressed: `notes.txt.gz` → `notes.txt`. When the
    /// archive's name has no such suffix, the name recorded in the stream (gzip's), else `NAME.out`.
    public static func decompressedName(archiveName: [UInt8], recordedName: [UInt8]?) -> [UInt8] {
        let (stem, ext) = splitArchiveExtension(archiveName)
        if !ext.isEmpty, !stem.isEmpty {
            // `x.tgz` is a tar, so a raw stream of that name becomes `x.tar`.
            switch String(decoding: ext, as: UTF8.self).lowercased() {
            case ".tgz", ".tbz", ".tbz2", ".tb2", ".txz", ".tzst", ".tlz", ".taz", ".tz": return stem + Array(".tar".utf8)
            default: return stem
            }
        }
        let recordedBase = recordedName?.split(separator: UInt8(ascii: "/")).last.map { Array($0) }
        if let recordedBase, recordedBase != Array("data".utf8), recordedBase != Array("..".utf8),
            recordedBase != Array(".".utf8)
        {
            return recordedBase
        }
        return archiveName + Array(".out".utf8)
    }

    /// Whether the name ends in an archive extension (`x.7z`, `x.tar.gz`, `x.TGZ`).
    static func hasArchiveExtension(_ name: [UInt8]) -> Bool {
        dotSeparatedSuffixes(name).last.map(archiveExtensions.contains) ?? false
    }

    /// The text after the last dot, as written; nil without one (a leading dot does not count).
    static func lastSuffix(_ name: [UInt8]) -> String? {
        guard let dot = name.lastIndex(of: UInt8(ascii: ".")), name[..<dot].contains(where: { $0 != UInt8(ascii: ".") })
        else { return nil }
        return String(decoding: name[(dot + 1)...], as: UTF8.self)
    }

    // MARK: - Helpers

    /// The dot-separated suffixes of a name, lowercased, outermost last; a leading dot is not one.
    static func dotSeparatedSuffixes(_ name: [UInt8]) -> [String] {
        let dot = UInt8(ascii: ".")
        let body = name.drop(while: { $0 == dot })
        let pieces = body.split(separator: dot, omittingEmptySubsequences: false)
        guard pieces.count > 1 else { return [] }
        return pieces.dropFirst().map { String(decoding: $0, as: UTF8.self).lowercased() }
    }

    private static func split(_ name: [UInt8], droppingSuffixes count: Int) -> ([UInt8], [UInt8]) {
        guard count > 0 else { return (name, []) }
        var index = name.endIndex
        var remaining = count
        while remaining > 0, let dot = name[..<index].lastIndex(of: UInt8(ascii: ".")) {
            index = dot
            remaining -= 1
        }
        return (Array(name[..<index]), Array(name[index...]))
    }

    private static func isVolumeNumber(_ part: String) -> Bool {
        if part.count == 3, part.allSatisfy(\.isNumber) { return true }
        if part.count >= 3, let first = part.first, first == "z" || first == "r",
            part.dropFirst().allSatisfy(\.isNumber)
        {
            return true
        }
        return false
    }

    private static func isRarPart(_ part: String) -> Bool {
        part.hasPrefix("part") && part.count > 4 && part.dropFirst(4).allSatisfy(\.isNumber)
    }
}

extension Array where Element == UInt8 {
    /// The name as text for people, with any byte that is not UTF-8 shown as U+FFFD.
    public var displayName: String { String(decoding: self, as: UTF8.self) }
}
