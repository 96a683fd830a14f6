internal import CPlatform
import ArchiverCore
import Glibc

extension FileSystem {
    /// The block a reflink shares: `copy_file_range` on btrfs and xfs shares a range only when its start in
    /// both files is a multiple of it (an unaligned start copies the whole call byte by byte instead).
    package static let cloneBlock: Int64 = 4096
    /// Copied output is sent to disk in pieces of this size while the copy goes on, so that the fsync
    /// before the rename waits for the last piece rather than for the whole file.
    static let writeBehind: Int64 = 32 << 20

    /// Copies `count` bytes at `offset` of `source` to the end of what was written to `target` (at its
    /// current position), inside the kernel where it can (`copy_file_range`, which shares the extents on
    /// btrfs and xfs), else through a buffer.
    /// - Returns: false on a read or write error (errno says which), or when `source` has fewer bytes.
    package static func copyRange(from source: Int32, at offset: Int64, count: Int64, to target: Int32) -> Bool {
        var from = offset
        var remaining = count
        var position = Int64(lseek(target, 0, SEEK_CUR))
        guard position >= 0 else { return false }
        // Where source and target lie alike within a block, the part up to the next block is copied on its
        // own, so that everything after it starts aligned and is shared.
        let head = (from - position) % cloneBlock == 0 ? (cloneBlock - from % cloneBlock) % cloneBlock : 0
        while remaining > 0 {
            var piece = min(remaining, writeBehind - position % writeBehind)
            if from < offset + head { piece = min(piece, offset + head - from) }
            let copied = cp_copy_file_range(source, &from, target, &position, UInt(piece))
            if copied > 0 {
                remaining -= Int64(copied)
                if position % writeBehind == 0 { _ = cp_start_writeback(target, position - writeBehind, writeBehind) }
                continue
            }
            if copied == 0 { return false }
            if errno == EINTR { continue }
            // Across file systems on old kernels, or where the file system has no such call: copy by hand.
            guard [EXDEV, EINVAL, ENOSYS, EOPNOTSUPP, EBADF].contains(errno) else { return false }
            _ = lseek(target, off_t(position), SEEK_SET)
            return copyByBuffer(from: source, at: from, count: remaining, to: target)
        }
        return lseek(target, off_t(position), SEEK_SET) >= 0
    }

    private static func copyByBuffer(from source: Int32, at offset: Int64, count: Int64, to target: Int32) -> Bool {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var done: Int64 = 0
        while done < count {
            let want = Int(min(Int64(buffer.count), count - done))
            guard let got = readFully(source, into: buffer.baseAddress!, count: want, at: offset + done), got == want,
                writeAll(target, Array(buffer[..<got])[...])
            else { return false }
            done += Int64(got)
        }
        return true
    }
}
