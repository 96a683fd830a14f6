internal import CArchive
import ArchiverCore
import Glibc
import Platform
import SystemPackage

/// The files of one archive: a plain archive's one file, or every part of a multi-part set, whichever
/// part was named.
struct VolumeSet: Sendable {
    /// The parts in reading order; one for a plain archive.
    let parts: [FilePath]
    /// The set's name for the folder it extracts into (`x.7z` for `x.7z.002`); the file's own name for a
    /// plain archive.
    let name: [UInt8]

    var isMultiPart: Bool { parts.count > 1 }

    /// Finds the set that `path` belongs to.
    /// - Throws: `ArchiverError` naming a missing part (`.inputUnreadable`) or one cut short (`.corrupt`):
    ///   a set with a hole cannot be read past it, so nothing is extracted.
    static func find(_ path: FilePath) throws(ArchiverError) -> VolumeSet {
        let ownName = path.lastComponent?.bytes ?? []
        guard let given = VolumeName.parse(ownName) else { return VolumeSet(parts: [path], name: ownName) }
        let folder = path.removingLastComponent()
        // A folder one may enter but not list still has the part that was named.
        let listed = Set((try? FileSystem.entries(of: folder.isEmpty ? "." : folder)) ?? []).union([ownName])
        var siblings: [VolumeName: Int64] = [:]
        for entry in listed {
            guard let name = VolumeName.parse(entry), name.isSibling(of: given) else { continue }
            let canonical = VolumeName(base: name.base, style: name.style, number: name.number, capitals: given.capitals)
            siblings[canonical] = FileSystem.size(of: folder.appending(bytes: entry)) ?? 0
        }
        switch VolumeName.arrange(given, siblings: siblings) {
        case .parts(let ordered) where ordered.count > 1:
            return VolumeSet(parts: ordered.map { folder.appending(bytes: $0.name(number: $0.number)) }, name: given.setName)
        case .parts:
            return VolumeSet(parts: [path], name: ownName)
        case .missing(let part):
            let missing = part.name(number: part.number).displayName
            throw ArchiverError(
                // TRANSLATORS: %1$@ is one part's file name (“photos.7z.003”), %2$@ the name of the whole set.
                .inputUnreadable, tr("Part “%1$@” of “%2$@” is missing, so nothing was extracted.", missing, given.setName.displayName),
                hint: tr("Put every part of the set in the same folder, then try again."), path: missing)
        case .shortPart(let part):
            let short = part.name(number: part.number).displayName
            throw ArchiverError(
                // TRANSLATORS: %1$@ is one part's file name (“photos.7z.003”), %2$@ the name of the whole set.
                .corrupt, tr("Part “%1$@” of “%2$@” is shorter than the others: it was cut short, so nothing was extracted.", short, given.setName.displayName),
                hint: tr("Download or copy that part again."), path: short)
        }
    }

    /// The total size of the parts in bytes.
    var totalSize: Int64 { FileSystem.size(of: parts) }

    /// The error for a set whose data ends too early: the last part found may be short, or the set may
    /// have more parts than are here, which no name can tell.
    func incomplete(_ error: ArchiverError) -> ArchiverError {
        guard isMultiPart, error.code == .corrupt, let last = parts.last?.lastComponent?.string else { return error }
        // TRANSLATORS: follows the sentence saying what is damaged; %@ is the last part's file name.
        let end = tr("The set ends at “%@”: a later part may be missing, or that one cut short.", last)
        return ArchiverError(
            error.code, Text.sentences([error.message, end]),
            hint: tr("Put every part of the set in the same folder, then try again."), path: error.path)
    }
}

/// The parts of a set read as one seekable stream through libarchive's callbacks. Debian's libarchive
/// corrupts memory when `archive_read_open_filenames` crosses into the next file inside a compressed
/// stream (a split .tar.gz); one client over all parts never switches files as far as libarchive knows.
/// One part is open at a time, so a set of thousands of parts needs one descriptor.
final class VolumeSource: ArchiveSource {
    private struct Part {
        let path: FilePath
        let start: Int64
        let size: Int64
        var end: Int64 { start + size }
    }

    private let parts: [Part]
    let total: Int64
    private var position: Int64 = 0
    private var open: (index: Int, descriptor: Int32)?
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 128 * 1024, alignment: 16)
    private(set) var lastErrno: Int32 = 0
    let lastMessage = "read failed"

    /// The parts as one stream, read from `offset` on (a plain tar's entry header).
    init(_ paths: [FilePath], from offset: Int64 = 0) throws(ArchiverError) {
        position = offset
        var start: Int64 = 0
        var parts: [Part] = []
        for path in paths {
            guard let size = FileSystem.size(of: path), path.withPlatformString({ access($0, R_OK) }) == 0 else {
                let reason = TextValue.systemError(errno)
                buffer.deallocate()
                throw ArchiverError(.inputUnreadable, tr("Cannot open “%1$@”: %2$@.", path, reason), path: path.string)
            }
            // Absolute: extraction writes from inside its staging folder (`DiskWriter`), in the same thread.
            parts.append(Part(path: path.madeAbsolute, start: start, size: size))
            start += size
        }
        self.parts = parts
        total = start
    }

    deinit {
        if let open { close(open.descriptor) }
        buffer.deallocate()
    }

    /// The descriptor of part `index`, opened in place of the one open before.
    private func descriptor(for index: Int) -> Int32? {
        if let open, open.index == index { return open.descriptor }
        if let open { close(open.descriptor) }
        open = nil
        let descriptor = parts[index].path.withPlatformString { Glibc.open($0, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else {
            lastErrno = errno
            return nil
        }
        open = (index, descriptor)
        return descriptor
    }

    /// Up to one buffer from the current position, never across the end of a part; 0 at the end.
    func read() -> (UnsafeRawPointer?, Int) {
        guard let index = parts.firstIndex(where: { position < $0.end }) else {
            return (UnsafeRawPointer(buffer.baseAddress), 0)
        }
        guard let descriptor = descriptor(for: index) else { return (nil, -1) }
        let part = parts[index]
        let wanted = Int(min(Int64(buffer.count), part.end - position))
        while true {
            let count = pread(descriptor, buffer.baseAddress, wanted, off_t(position - part.start))
            if count < 0, errno == EINTR { continue }
            if count < 0 {
                lastErrno = errno
                return (nil, -1)
            }
            // A part that shrank since it was measured ends the stream here; the reader reports truncation.
            if count == 0 { position = total } else { position += Int64(count) }
            return (UnsafeRawPointer(buffer.baseAddress), count)
        }
    }

    func seek(_ offset: Int64, whence: Int32) -> Int64 {
        let target: Int64
        switch whence {
        case SEEK_SET: target = offset
        case SEEK_CUR: target = position + offset
        case SEEK_END: target = total + offset
        default: return -1
        }
        guard target >= 0 else { return -1 }
        position = min(target, total)
        return position
    }

    func skip(_ request: Int64) -> Int64 {
        let skipped = max(0, min(request, total - position))
        position += skipped
        return skipped
    }

    /// With seeking and skipping: libarchive passes over data it does not need without reading it.
    func attach(to handle: OpaquePointer) -> Int32 {
        setReadCallback(handle)
        archive_read_set_seek_callback(handle) { _, context, offset, whence in
            guard let context else { return -1 }
            return Unmanaged<VolumeSource>.fromOpaque(context).takeUnretainedValue().seek(offset, whence: whence)
        }
        archive_read_set_skip_callback(handle) { _, context, request in
            guard let context else { return 0 }
            return Unmanaged<VolumeSource>.fromOpaque(context).takeUnretainedValue().skip(request)
        }
        return archive_read_open1(handle)
    }
}
