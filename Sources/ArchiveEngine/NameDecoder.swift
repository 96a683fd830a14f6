import ArchiverCore
import Glibc

/// Entry names in a legacy code page → UTF-8, through glibc's iconv. Names that are already UTF-8 are
/// left alone, so an archive mixing flagged and unflagged names keeps the flagged ones intact.
public struct NameDecoder: Sendable {
    /// The code page, as iconv names it (`CP932`, `GBK`, `CP437`, …).
    public let encoding: String

    /// Nil when iconv does not know `encoding`.
    public init?(_ encoding: String) {
        let descriptor = iconv_open("UTF-8", encoding)
        guard descriptor != iconv_t(bitPattern: -1) else { return nil }
        iconv_close(descriptor)
        self.encoding = encoding
    }

    /// The code page that reads these names best; nil when they need none.
    public static func guess(_ names: [[UInt8]]) -> NameDecoder? {
        NameEncoding.guess(names) { decode($0, from: $1) }.flatMap(NameDecoder.init)
    }

    /// `name` in UTF-8 when it was not; the bytes unchanged when they do not decode.
    public func callAsFunction(_ name: [UInt8]) -> [UInt8] {
        guard NameEncoding.needsDecoding(name), let text = Self.decode(name, from: encoding) else { return name }
        return Array(text.utf8)
    }

    func callAsFunction(_ entry: ArchiveEntryInfo) -> ArchiveEntryInfo {
        var entry = entry
        entry.path = self(entry.path)
        entry.linkTarget = entry.linkTarget.map { self($0) }
        return entry
    }

    /// `bytes` read in `encoding`, or nil when they are not valid in it.
    static func decode(_ bytes: [UInt8], from encoding: String) -> String? {
        convert(bytes, from: encoding, to: "UTF-8").flatMap { String(validating: $0, as: UTF8.self) }
    }

    /// `bytes` converted between two encodings by iconv; nil when either is unknown or a byte sequence is
    /// invalid in the source encoding or has no equivalent in the target one.
    static func convert(_ bytes: [UInt8], from source: String, to target: String) -> [UInt8]? {
        let descriptor = iconv_open(target, source)
        guard descriptor != iconv_t(bitPattern: -1) else { return nil }
        defer { iconv_close(descriptor) }
        var input = bytes.map { CChar(bitPattern: $0) }
        var output = [CChar](repeating: 0, count: bytes.count * 4 + 4)
        let converted: Int? = input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                var inPointer = inBuffer.baseAddress
                var inLeft = inBuffer.count
                var outPointer = outBuffer.baseAddress
                var outLeft = outBuffer.count
                guard iconv(descriptor, &inPointer, &inLeft, &outPointer, &outLeft) != -1, inLeft == 0 else { return nil }
                return outBuffer.count - outLeft
            }
        }
        return converted.map { output[..<$0].map { UInt8(bitPattern: $0) } }
    }
}

extension ArchiveEntryInfo {
    /// Whether a code page may change its path or link target: names in ASCII or UTF-8 stay as they are.
    var mayBeDecoded: Bool { NameEncoding.needsDecoding(path) || linkTarget.map(NameEncoding.needsDecoding) == true }
}
