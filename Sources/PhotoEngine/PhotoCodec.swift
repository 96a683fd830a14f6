import ArchiverCore
internal import CPhotoShim
import Glibc
import Synchronization
import SystemPackage

/// libvips, through the C shim: one call turns one photo into its compressed copy.
public enum PhotoCodec {
    private static let started = Mutex<Bool?>(nil)

    /// Starts libvips once, with one thread per pipeline: a batch runs one photo per worker instead, which
    /// keeps both cores busy with one decode each (bounded memory) and beats libvips's own threading.
    /// The corresponding C function is `vips_init`.
    public static func start() throws(ArchiverError) {
        let ok = started.withLock { state in
            if state == nil { state = archiver_photo_init(1) == 0 }
            return state ?? false
        }
        guard ok else { throw ArchiverError(.notAnArchive, tr("libvips could not start."), hint: tr("Reinstall libvips42.")) }
    }

    /// The formats this libvips and libheif can write (a tiny image is encoded to find out).
    public static func writableFormats() throws(ArchiverError) -> [PhotoFormat] {
        try start()
        return PhotoFormat.allCases.filter { archiver_photo_can_write($0.shimValue) != 0 }
    }

    public static var vipsVersion: String { String(cString: archiver_photo_vips_version()) }

    /// Writes the compressed copy of `input` to `output` (any name: the format comes from `options`).
    /// - Returns: the copy's width and height.
    /// - Throws: `ArchiverError` `.corrupt` with libvips's reason when the photo cannot be read or written.
    /// The corresponding C function is `vips_thumbnail`, then `vips_jpegsave` (or `webpsave`, `heifsave`).
    public static func compress(_ input: FilePath, to output: FilePath, options: PhotoOptions) throws(ArchiverError)
        -> (width: Int, height: Int)
    {
        var result = ArchiverPhotoResult()
        var message: UnsafeMutablePointer<CChar>?
        let status = PhotoMarker.creatorTool.withCString { tool in
            var shimOptions = ArchiverPhotoOptions(
                max_size: Int32(options.maxSize ?? 0), quality: Int32(options.encoderQuality), format: options.format.shimValue,
                strip_location: options.stripLocation ? 1 : 0, creator_tool: tool)
            return input.withPlatformString { from in
                output.withPlatformString { to in archiver_photo_compress(from, to, &shimOptions, &result, &message) }
            }
        }
        guard status == 0 else {
            let key = message.map { String(cString: $0) } ?? ""
            free(message)
            if let refusal = unsupported(key, path: input) { throw refusal }
            let reason = key.isEmpty ? tr("unknown error") : plainReason(key, path: input.string)
            throw ArchiverError(
                // TRANSLATORS: a photo's name, then why (libvips's reason, or one of ours: "it is damaged or cut short").
                .corrupt, tr("“%1$@” could not be compressed: %2$@.", input.lastComponent?.string ?? input.string, reason),
                file: input)
        }
        return (Int(result.width), Int(result.height))
    }

    /// The refusal (exit 4) of a TIFF variant libvips cannot read, when the shim's `key` names one.
    static func unsupported(_ key: String, path: FilePath) -> ArchiverError? {
        let name = path.lastComponent?.string ?? path.string
        let hint = tr("Save it as a JPEG or a plain TIFF in another program, then compress that.")
        if key == "tiff-old-jpeg" {
            return ArchiverError(
                .notAnArchive,
                tr("“%@” is a TIFF compressed with JPEG of the old kind (TIFF compression 6), which Archiver cannot read.", name),
                hint: hint, file: path)
        }
        if key.hasPrefix("tiff-bits:"), let bits = Int(key.dropFirst("tiff-bits:".count)) {
            return ArchiverError(
                .notAnArchive,
                // TRANSLATORS: a photo's name, then a number of bits such as 12.
                tr("“%1$@” is a TIFF with %2$ld bits per sample, which Archiver cannot read.", name, bits),
                hint: hint, file: path)
        }
        return nil
    }
}

extension PhotoCodec {
    /// What the header of `path` says (dimensions, format, our marker), without decoding a pixel.
    /// - Throws: `.corrupt` with the reason when it is not a photo libvips reads.
    /// The corresponding C function is `vips_image_new_from_file`.
    public static func header(_ path: FilePath) throws(ArchiverError) -> PhotoHeader {
        try start()
        var header = ArchiverPhotoHeader()
        var xmp: UnsafeMutablePointer<CChar>?
        var length = 0
        var message: UnsafeMutablePointer<CChar>?
        let status = path.withPlatformString { archiver_photo_header($0, &header, &xmp, &length, &message) }
        defer {
            free(xmp)
            free(header.iptc)
        }
        guard status == 0 else {
            let key = message.map { String(cString: $0) } ?? ""
            free(message)
            if let refusal = unsupported(key, path: path) { throw refusal }
            throw ArchiverError(.corrupt, key.isEmpty ? tr("unknown error") : plainReason(key, path: path.string), file: path)
        }
        let loader = withUnsafeBytes(of: header.loader) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
        let packet = xmp.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: length), as: UTF8.self) }
        let taken = withUnsafeBytes(of: header.taken) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let iptc = header.iptc.map { Array(UnsafeRawBufferPointer(start: $0, count: header.iptc_length)) } ?? []
        return PhotoHeader(
            width: Int(header.width), height: Int(header.height), loader: loader, ours: packet.map(PhotoMarker.isOurs) ?? false,
            facts: PhotoFactsReader.facts(exifDate: taken, exifLocated: header.located != 0, iptc: iptc, xmp: packet))
    }

    /// The person's Pictures folder, from the XDG user dirs; nil when none is set.
    /// The corresponding C function is `g_get_user_special_dir`.
    public static var picturesFolder: FilePath? {
        try? start()
        return archiver_photo_pictures_dir().map { FilePath(String(cString: $0)) }
    }

    /// `xmp` with our marker, as a copy carries it. The corresponding C function is `archiver_photo_mark_xmp`.
    static func markXMP(_ xmp: String?) -> String {
        var length = 0
        let marked = PhotoMarker.creatorTool.withCString { tool in
            if let xmp {
                var bytes = Array(xmp.utf8)
                return bytes.withUnsafeMutableBufferPointer { buffer in
                    buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { pointer in
                        archiver_photo_mark_xmp(pointer, buffer.count, tool, &length)
                    }
                }
            }
            return archiver_photo_mark_xmp(nil, 0, tool, &length)
        }
        guard let marked else { return xmp ?? "" }
        defer { free(marked) }
        return String(decoding: UnsafeRawBufferPointer(start: marked, count: length), as: UTF8.self)
    }

    /// The XMP packet as the copy carries it: Orientation 1, the copy's pixel dimensions, and without
    /// exif:GPS* properties when `stripLocation`. The corresponding C function is `archiver_photo_edit_xmp`.
    static func editXMP(_ xmp: String, stripLocation: Bool, width: Int, height: Int) -> String {
        var bytes = Array(xmp.utf8)
        var length = 0
        let edited = bytes.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { pointer in
                archiver_photo_edit_xmp(pointer, buffer.count, stripLocation ? 1 : 0, Int32(width), Int32(height), &length)
            }
        }
        guard let edited else { return xmp }
        defer { free(edited) }
        return String(decoding: UnsafeRawBufferPointer(start: edited, count: length), as: UTF8.self)
    }

    /// The shim's reason (one of its keys), for a person; any other text is libvips's, made plain.
    static func plainReason(_ reason: String, path: String) -> Text {
        switch reason {
        case "not-image": return tr("it is not an image, or it is damaged")
        case "damaged": return tr("it is damaged or cut short")
        case "process": return tr("libvips could not process it")
        case "write": return tr("its copy could not be written")
        default: break
        }
        if reason.contains("is not a known file format") { return tr("it is not an image, or it is damaged") }
        if reason.contains("Premature end") || reason.contains("truncated") || reason.contains("unexpected end") {
            return tr("it is damaged or cut short")
        }
        // The first of libvips's stacked "domain: reason" lines is the cause.
        let first = reason.split(separator: "\n", omittingEmptySubsequences: true).first.map(String.init) ?? reason
        var text = first.replacing("\"\(path)\"", with: "the file").replacing(path, with: "the file")
        // "VipsForeignLoadJpegFile: out of order read" → "out of order read"
        if let colon = text.firstIndex(of: ":"), !text[..<colon].contains(" ") {
            text = String(text[text.index(after: colon)...].drop { $0 == " " })
        }
        return .verbatim(text)
    }
}

extension PhotoFormat {
    fileprivate var shimValue: ArchiverPhotoFormat {
        switch self {
        case .jpeg: ARCHIVER_PHOTO_JPEG
        case .webp: ARCHIVER_PHOTO_WEBP
        case .avif: ARCHIVER_PHOTO_AVIF
        case .heic: ARCHIVER_PHOTO_HEIC
        }
    }
}
