import Glibc
import SystemPackage

extension FilePath.Component {
    /// The component's bytes, which need not be UTF-8.
    public var bytes: [UInt8] { withPlatformString(CString.bytes) }
}

extension FilePath {
    /// The path's bytes, which need not be UTF-8.
    public var bytes: [UInt8] { withPlatformString(CString.bytes) }

    /// A path made of raw bytes.
    public init(bytes: [UInt8]) {
        let chars = bytes.map { CChar(bitPattern: $0) } + [0]
        self = chars.withUnsafeBufferPointer { buffer in
            buffer.baseAddress.map(FilePath.init(platformString:)) ?? FilePath()
        }
    }

    /// This path with one more component made of raw bytes.
    public func appending(bytes: [UInt8]) -> FilePath {
        // The empty path is the current folder: its children are relative, not at the root.
        FilePath(bytes: self.bytes.isEmpty ? bytes : self.bytes + [UInt8(ascii: "/")] + bytes)
    }
}

/// NUL-terminated strings from C (argv, libarchive, readdir) as the bytes they hold.
public enum CString {
    /// A copy of the bytes before the NUL.
    public static func bytes(_ pointer: UnsafePointer<CChar>) -> [UInt8] {
        var result: [UInt8] = []
        var cursor = pointer
        while cursor.pointee != 0 {
            result.append(UInt8(bitPattern: cursor.pointee))
            cursor += 1
        }
        return result
    }
}

extension CString {
    /// A malloc'd NUL-terminated copy of `bytes` (argv for C), to be freed with `free`.
    public static func duplicate(_ bytes: [UInt8]) -> UnsafeMutablePointer<CChar>? {
        let copy = malloc(bytes.count + 1)?.assumingMemoryBound(to: CChar.self)
        bytes.withUnsafeBytes { source in
            if let copy, let base = source.baseAddress { memcpy(copy, base, bytes.count) }
        }
        copy?[bytes.count] = 0
        return copy
    }
}
