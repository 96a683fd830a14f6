import ArchiverCore
import FuzzSupport
import Glibc
import PhotoEngine
import Platform
import SystemPackage

/// A photo of any bytes through the decoders and the metadata rewriting of Compress Photos (libvips' JPEG,
/// PNG, TIFF, WebP, GIF and HEIF loaders, then our EXIF, XMP and Photoshop edits): it is compressed or
/// refused, never a crash. Refused: a damaged or unreadable photo (exit 5) or a TIFF variant we name (4).
/// Compressed: the copy reads back as a photo no larger than asked. Byte 0 picks JPEG or WebP, the rest is
/// the photo (AVIF and HEIC encoders take seconds a photo, which would starve the run).
runFuzzer { data, size in
    let bytes = fuzzInput(data, size)
    guard bytes.count > 1 else { return 0 }
    let input = Scratch.root.appending("photo")
    let output = Scratch.root.appending("copy")
    writeFile(Array(bytes.dropFirst()), to: input.string)
    let format: PhotoFormat = bytes[0] & 1 == 0 ? .jpeg : .webp
    let options = PhotoOptions(maxSize: 64, quality: 50, format: format, stripLocation: bytes[0] & 2 != 0)
    do throws(ArchiverError) {
        let made = try PhotoCodec.compress(input, to: output, options: options)
        require(made.width >= 1 && made.height >= 1 && max(made.width, made.height) <= 64, "copy of \(made)")
        let header = try PhotoCodec.header(output)
        require(header.width == made.width && header.height == made.height, "the copy reads as \(header), made \(made)")
    } catch {
        let code = error.code
        require(code == .corrupt || code == .notAnArchive, "refused with \(code): \(error.message.english)")
    }
    unlink(output.string)
    return 0
}

enum Scratch {
    static let root = FilePath(makeScratchFolder(holding: []))
}
