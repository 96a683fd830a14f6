import ArchiverCore

/// Which files are photos, which travel with them, and what the copies are called. Names are bytes, as
/// Linux file names need not be UTF-8; every extension matched is ASCII.
public enum PhotoNaming {
    /// Extensions of the photos this build reads (lowercase, without the dot).
    public static let photoExtensions = PhotoSelection.extensions
    /// What a person is told when something is not a photo.
    public static var formatsHint: Text { tr("Photos are JPEG, HEIC/HEIF, AVIF, PNG, WebP and TIFF files.") }

    /// Extensions of Live-Photo-style videos (`IMG_1.HEIC` + `IMG_1.MOV`), copied unchanged beside their still.
    public static let companionExtensions: Set<String> = ["mov", "mp4"]

    /// What a file found in a folder is to Compress Photos.
    public enum Kind: Equatable, Sendable {
        case photo
        /// A video whose stem matches a photo of the same folder.
        case companion
        /// Anything else: left alone (hidden files, documents, videos of their own).
        case other
    }

    /// Sorts the names of one folder. Hidden files (`.DS_Store`, AppleDouble `._IMG_1.jpg`) are never photos.
    public static func classify(_ names: [[UInt8]]) -> [Kind] {
        let photoStems = Set(names.filter(isPhoto).map { stemAndExtension($0).stem.lowercasedASCII })
        return names.map { name in
            if isPhoto(name) { return .photo }
            let (stem, ext) = stemAndExtension(name)
            if !isHidden(name), companionExtensions.contains(ext), photoStems.contains(stem.lowercasedASCII) {
                return .companion
            }
            return .other
        }
    }

    /// Whether `name` is a photo by its extension (the decoder then checks the content).
    public static func isPhoto(_ name: [UInt8]) -> Bool {
        !isHidden(name) && photoExtensions.contains(stemAndExtension(name).extension)
    }

    /// The folder a folder's copies go to: `Compressed - Album`, beside it.
    public static func mirrorFolderName(_ folder: [UInt8]) -> [UInt8] { Array("Compressed - ".utf8) + folder }

    /// The copy of a photo inside a new folder (mirrored or `--output`): its stem, the format's extension.
    public static func copyName(_ photo: [UInt8], format: PhotoFormat) -> [UInt8] {
        stemAndExtension(photo).stem + Array(".\(format.fileExtension)".utf8)
    }

    /// The copy of a loose photo beside its original: `IMG_1 (compressed).jpg`, so that both stay and the
    /// copy is plain to see. Conflicts are numbered later (`IMG_1 (compressed) (2).jpg`).
    public static func besideName(_ photo: [UInt8], format: PhotoFormat) -> [UInt8] {
        stemAndExtension(photo).stem + Array(" (compressed).\(format.fileExtension)".utf8)
    }

    /// A kept photo (its copy would not have been smaller) keeps its own extension: the bytes are the original's.
    public static func keptName(_ photo: [UInt8], beside: Bool) -> [UInt8] {
        guard beside else { return photo }
        let (stem, _) = stemAndExtension(photo)
        let dot = photo.lastIndex(of: UInt8(ascii: ".")).map { Array(photo[$0...]) } ?? []
        return stem + Array(" (compressed)".utf8) + dot
    }

    /// `IMG_1.HEIC` → (`IMG_1`, `heic`): the stem keeps its case, the extension is lowercased. A leading dot
    /// does not start an extension.
    public static func stemAndExtension(_ name: [UInt8]) -> (stem: [UInt8], extension: String) {
        guard let dot = name.lastIndex(of: UInt8(ascii: ".")), dot > name.startIndex else { return (name, "") }
        let ext = String(decoding: name[(dot + 1)...], as: UTF8.self).lowercased()
        return (Array(name[..<dot]), ext)
    }

    static func isHidden(_ name: [UInt8]) -> Bool { name.first == UInt8(ascii: ".") }
}

/// The saving of a batch in words: `48 photos, 212 MB → 31 MB (85 % smaller)`.
public enum PhotoSummary {
    public static func line(photos: Int, inputBytes: Int64, outputBytes: Int64) -> Text {
        guard inputBytes > 0 else { return ntr("%ld photo", "%ld photos", photos) }
        guard let saving = Saving.visible(before: inputBytes, after: outputBytes) else {
            // TRANSLATORS: photos compressed, their size before → after.
            return ntr("%1$ld photo, %2$@ → %3$@", "%1$ld photos, %2$@ → %3$@", photos, .bytes(inputBytes), .bytes(outputBytes))
        }
        // TRANSLATORS: photos compressed, their size before → after, and how much smaller they got in percent.
        return ntr("%1$ld photo, %2$@ → %3$@ (%4$ld %% smaller)", "%1$ld photos, %2$@ → %3$@ (%4$ld %% smaller)",
                   photos, .bytes(inputBytes), .bytes(outputBytes), saving)
    }
}

extension Array where Element == UInt8 {
    fileprivate var lowercasedASCII: [UInt8] {
        map { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 + 32 : $0 }
    }
}
