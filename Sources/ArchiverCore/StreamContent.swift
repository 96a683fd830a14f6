/// What the content of a single compressed stream (`notes.txt.gz`, `rootfs.ext4.xz`) is: an archive to open,
/// or one file. Pure decisions on what libarchive found and the first bytes, so they are tested (and
/// fuzzed) without archives.
public enum StreamContent {
    /// The format libarchive read inside the stream, as far as these decisions go.
    public enum Found: Sendable, Equatable {
        case tar
        case other
    }

    /// Whether a compressed stream is one file although libarchive read `found` in it: a stream is one file
    /// unless its content is an archive with a real signature. libarchive takes a tar's end marker (a
    /// block of zeros) for a whole empty tar, so content that starts with zeros (a disk image, whose first
    /// 1,024 bytes are zero; a file of zeros) would extract as nothing; a tar with entries has headers with
    /// checksums, which is signature enough.
    /// A stream whose name says tar (`x.tar.gz`, `x.tgz`) holding an empty tar stays a valid empty archive.
    /// - Parameter hasEntries: whether libarchive returned a first entry.
    /// - Parameter namedTar: `nameSaysTar` of the file's name.
    public static func isOneFile(found: Found, hasEntries: Bool, namedTar: Bool) -> Bool {
        found == .tar && !hasEntries && !namedTar
    }

    /// How many of the compression layers libarchive found in a file (outermost first) are real: an inner layer
    /// that libarchive only guessed ends them; nil when all are. The legacy lzma format (LZMA-Alone, `.lzma`)
    /// has no signature, and libarchive bids on any bytes that could be its header (a zero byte, a power of
    /// two, a small length): inside another compression it is believed only when the name says lzma, else a
    /// gzip of such bytes extracts as four bytes of nonsense.
    public static func realLayerCount(_ layers: [String], name: [UInt8]) -> Int? {
        let saysLzma = ArchiveNaming.dotSeparatedSuffixes(name).contains { $0 == "lzma" || $0 == "tlz" }
        guard !saysLzma, let guessed = layers.dropFirst().firstIndex(of: "lzma") else { return nil }
        return guessed
    }

    /// Whether `name` says its content is a tar: `x.tar.gz`, `x.TGZ`, `x.tar.xz.001`; not `rootfs.ext4.xz`.
    public static func nameSaysTar(_ name: [UInt8]) -> Bool {
        let suffixes = ArchiveNaming.splitArchiveExtension(name).extension.split(separator: UInt8(ascii: "."))
        return suffixes.contains { tarNames.contains(String(decoding: $0, as: UTF8.self).lowercased()) }
    }

    private static let tarNames: Set<String> = ["tar", "tgz", "tbz", "tbz2", "tb2", "txz", "tzst", "tlz", "taz", "tz"]

    /// Whether `start`, the first bytes of a file, is an mtree manifest: a list of files on some disk
    /// with their attributes and none of their contents, which Archiver does not read (libarchive's
    /// reader would bid on any text with one word per line, and would read the local files it names).
    public static func isMtree(_ start: some Collection<UInt8>) -> Bool {
        start.starts(with: mtreeSignature)
    }

    /// Where the SquashFS image starts in a file that begins with `start` (its first 64 bytes or more): 0
    /// for an image (a snap, a .sqfs), the end of the ELF program's section headers for an AppImage (type
    /// 2: "AI" and 2 at byte 8), where its runtime finds the image too; nil for anything else. libarchive
    /// reads none, so the image is read as the tar `sqfs2tar` would write. Little-endian images (version 4,
    /// all that Linux has written since 2009) only.
    public static func squashfsStart(_ start: [UInt8]) -> UInt64? {
        if start.starts(with: Array("hsqs".utf8)) { return 0 }
        guard start.count >= 64, start.starts(with: [0x7F, 0x45, 0x4C, 0x46]), start[8...10] == [0x41, 0x49, 0x02], start[5] == 1
        else { return nil }
        func value(at offset: Int, bytes: Int) -> UInt64 {
            (0..<bytes).reduce(UInt64(0)) { $0 | UInt64(start[offset + $1]) << (8 * $1) }
        }
        // ELF32 or ELF64 (byte 4), little-endian (byte 5): section headers at e_shoff, e_shnum of e_shentsize.
        let (offset, size, count) =
            start[4] == 2
            ? (value(at: 0x28, bytes: 8), value(at: 0x3A, bytes: 2), value(at: 0x3C, bytes: 2))
            : (value(at: 0x20, bytes: 4), value(at: 0x2E, bytes: 2), value(at: 0x30, bytes: 2))
        let (end, overflow) = offset.addingReportingOverflow(size * count)
        return overflow || end == 0 ? nil : end
    }

    /// Where the lz4 frame starts in `start`, the first bytes of a file, when it comes after skippable
    /// frames; nil when the file does not start that way. lz4 and zstd share the skippable frame (magic
    /// 0x184D2A50 to 0x184D2A5F): libarchive's lz4 filter does not bid on one, and its zstd filter takes
    /// it for zstd, so it is handed only what follows.
    public static func lz4AfterSkippableFrames(_ start: [UInt8]) -> Int? {
        func word(at offset: Int) -> UInt32? {
            guard offset >= 0, offset <= start.count - 4 else { return nil }
            return (0..<4).reduce(UInt32(0)) { $0 | UInt32(start[offset + $1]) << (8 * $1) }
        }
        var offset = 0
        while let magic = word(at: offset), magic & 0xFFFF_FFF0 == 0x184D_2A50 {
            guard let size = word(at: offset + 4) else { return nil }
            offset += 8 + Int(size)
        }
        return offset > 0 && word(at: offset) == 0x184D_2204 ? offset : nil
    }

    /// The most gzip layers, one inside the other, that are undone (libarchive undoes at most 25 filters;
    /// the outer layers are undone before it): bounded, as each costs memory while it is read.
    public static let maximumGzipLayers = 200

    /// How many first bytes `isMtree` needs.
    public static var signatureLength: Int { mtreeSignature.count }

    private static let mtreeSignature = Array("#mtree".utf8)
}
