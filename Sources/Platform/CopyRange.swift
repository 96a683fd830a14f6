internal import CPlatform
import ArchiverCore
import Glibc

extension FileSystem {
    /// Copies `count` bytes at `offset` of `source` to the end of what was written to `target` (at its
    /// current position), inside the kernel where it can (`copy_file_range`, which shares the extents on
    /// btrfs and xfs), else through a buffer.
    /// - Returns: false on a read or write error (errno says which), or when `source` has fewer bytes.
    package static func copyRange(from source: Int32, at offset: Int64, count: Int64, to target: Int32) -> Bool {
        var from = offset
        var remaining = count
        var position = Int64(lseek(target, 0, SEEK_CUR))
        while remaining > 0 {
            let copied = cp_copy_file_range(source, &from, target, &position, UInt(min(remaining, 1 << 30)))
            if copied > 0 {
                remaining -= Int64(copied)
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
