internal import CGLib
import ArchiverCore
import Glibc
import SystemPackage

/// Checksums of whole files, through GLib's `GChecksum` (no hashing of our own).
public enum FileChecksum {
    /// The SHA-256 of `path`'s bytes in lowercase hex, as `sha256sum` prints it; nil when it cannot be read.
    /// - Parameter control: checked between blocks, so a long file can be cancelled.
    /// The corresponding C function is `g_checksum_update`.
    public static func sha256(of path: FilePath, control: JobControl? = nil) throws(ArchiverError) -> String? {
        let descriptor = path.withPlatformString { open($0, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        guard let checksum = g_checksum_new(G_CHECKSUM_SHA256) else { return nil }
        defer { g_checksum_free(checksum) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = read(descriptor, buffer.baseAddress, buffer.count)
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { break }
            g_checksum_update(checksum, buffer.baseAddress?.assumingMemoryBound(to: guchar.self), gssize(count))
            try control?.check()
        }
        return g_checksum_get_string(checksum).map { String(cString: $0) }
    }
}
