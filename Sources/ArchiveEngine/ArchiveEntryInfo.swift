/// One entry of an archive, copied out of libarchive's borrowed `archive_entry`.
public struct ArchiveEntryInfo: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case file, directory, symlink, hardlink
        case characterDevice = "character-device"
        case blockDevice = "block-device"
        case fifo, socket
    }

    /// The path as stored, in bytes (UTF-8 when the archive says so or the names are UTF-8).
    public var path: [UInt8]
    public var kind: Kind
    /// The uncompressed size, when the format records it.
    public var size: Int64?
    /// The compressed size. libarchive 3.6 does not report it per entry, so this stays nil until a reader
    /// that knows it (7-Zip's listing) fills it in.
    public var packedSize: Int64?
    /// Seconds since 1970, when recorded.
    public var modified: Int64?
    public var encrypted: Bool
    /// A symlink's target or a hard link's original.
    public var linkTarget: [UInt8]?
    /// Permission bits, including setuid/setgid/sticky as stored.
    public var permissions: UInt32
    /// The CRC-32 the archive stores for the file's data (zip, 7z, rar); nil where the format keeps none or
    /// the reader does not give it.
    public var crc32: UInt32? = nil
}
