import Glibc

/// A password's bytes in memory of its own, NUL-terminated for C, wiped when the last reference goes.
/// Swift strings and arrays copy themselves where they like and are never wiped, so a password lives
/// only here: it is never turned into a `String`.
public final class Secret: @unchecked Sendable {
    /// `count` bytes and a NUL.
    private let storage: UnsafeMutablePointer<UInt8>
    /// The number of bytes, without the terminating NUL.
    public let count: Int

    public init(_ bytes: some Collection<UInt8>) {
        count = bytes.count
        storage = .allocate(capacity: bytes.count + 1)
        _ = UnsafeMutableBufferPointer(start: storage, count: bytes.count).initialize(from: bytes)
        storage[bytes.count] = 0
    }

    deinit {
        explicit_bzero(storage, count + 1)
        storage.deallocate()
    }

    public var isEmpty: Bool { count == 0 }

    /// The bytes, for writing to a pipe; valid only inside `body`.
    public func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: storage, count: count))
    }

    /// The bytes as a C string, for libarchive; valid only inside `body`.
    public func withCString<R>(_ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        try storage.withMemoryRebound(to: CChar.self, capacity: count + 1) { try body($0) }
    }

    /// Whether both hold the same bytes (for "type it again" checks).
    public func matches(_ other: Secret) -> Bool {
        count == other.count && memcmp(storage, other.storage, count) == 0
    }

    /// Reads one line (without its newline) from `descriptor`, byte by byte so that nothing after the
    /// line is consumed; nil at end of input before any byte, or at `interrupt` (Ctrl-C typed at a
    /// terminal whose signals are off). Used for `--password-stdin`, helpers and the terminal prompt.
    public static func readLine(from descriptor: Int32, limit: Int = 4096, interrupt: UInt8? = nil) -> Secret? {
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: limit)
        defer {
            explicit_bzero(buffer, limit)
            buffer.deallocate()
        }
        var length = 0
        var sawAnything = false
        while length < limit {
            var byte: UInt8 = 0
            let got = read(descriptor, &byte, 1)
            if got < 0, errno == EINTR { continue }
            if got <= 0 { break }
            if byte == interrupt { return nil }
            sawAnything = true
            if byte == UInt8(ascii: "\n") { break }
            buffer[length] = byte
            length += 1
        }
        guard sawAnything else { return nil }
        if length > 0, buffer[length - 1] == UInt8(ascii: "\r") { length -= 1 }
        return Secret(UnsafeBufferPointer(start: buffer, count: length))
    }
}
