import ArchiverCore
import Glibc
import Platform
import SystemPackage

/// The archive comment at the end of a zip (its end-of-central-directory record), which libarchive does not
/// read; our container writer writes it (`ZipContainerWriter.finish`).
enum ZipComment {
    /// The comment of the zip at `path` as text (UTF-8 as Info-ZIP writes it, else CP437 as old DOS tools
    /// did); nil when there is none or no end record.
    static func read(_ path: FilePath) -> String? {
        let (descriptor, size, failure) = FileSystem.openForReading(path)
        guard failure == nil else { return nil }
        defer { close(descriptor) }
        guard let comment = ZipEndRecord(descriptor, size: size, commentReachesEnd: true)?.comment else { return nil }
        guard !comment.isEmpty else { return nil }
        if let text = String(validating: comment, as: UTF8.self) { return text }
        return NameDecoder.decode(comment, from: "CP437") ?? String(decoding: comment, as: UTF8.self)
    }
}
