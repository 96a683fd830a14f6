internal import CSquashfsShim
import ArchiverCore
import Glibc
import SystemPackage

/// A SquashFS image handed to libarchive as a tar, written entry by entry as libarchive reads (as
/// `sqfs2tar` does): the extractor, the listing, `--test` and the mount then read it as they read any tar,
/// with the same checks on paths, links and modes.
final class SquashfsSource: ArchiveSource {
    private let image: OpaquePointer
    let total: Int64
    let lastErrno: Int32 = EILSEQ
    private(set) var lastMessage = ""

    /// Opens the image `start` bytes into `path` (`StreamContent.squashfsStart`) and reads its tables and tree.
    /// - Throws: `ArchiverError` `.corrupt` for a damaged or cut-off image, `.notAnArchive` for a
    ///   compression libsquashfs lacks.
    init(_ path: FilePath, at start: UInt64, name: String) throws(ArchiverError) {
        var message = [CChar](repeating: 0, count: 512)
        guard let image = path.withPlatformString({ csqfs_tar_open($0, start, &message, message.count) }) else {
            let detail = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw FailureClassifier.describeReadFailure(message: detail, archive: name, place: nil)
        }
        self.image = image
        total = csqfs_tar_image_size(image)
    }

    deinit { csqfs_tar_close(image) }

    func read() -> (UnsafeRawPointer?, Int) {
        var block: UnsafeRawPointer?
        let count = csqfs_tar_read(image, &block)
        if count < 0 { lastMessage = String(cString: csqfs_tar_message(image)) }
        return (block, count)
    }

    var consumed: Int64? { csqfs_tar_consumed(image) }

    /// "SquashFS (xz)": the tar is ours, so libarchive's name for it would mislead.
    var formatName: String? { "SquashFS (\(String(cString: csqfs_tar_compression(image))))" }
}
