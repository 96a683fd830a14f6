/// The one JSON of the tools and the windows: values built in code and written compactly with correct
/// escaping (`--json`, `--progress-json`), and the same values parsed back (a window reading its child's
/// lines). No Foundation: the windows' start-up time.
public enum JSON: Equatable, Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    /// A string whose bytes are not all UTF-8: a file name from an old system (`caf\xE9.jpg`). Each stray
    /// byte is written as the lone surrogate `\udcXX`, as Python's `surrogateescape` does, so the name goes
    /// from a tool to a window (or to `os.fsencode`) byte for byte; `JSON.path` makes one only when needed.
    case bytes([UInt8])
    case array([JSON])
    /// Keys keep their order, so the output reads well.
    case object([(String, JSON)])

    public static func int(_ value: Int) -> JSON { .int(Int64(value)) }

    public static func == (lhs: JSON, rhs: JSON) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.bytes(let a), .bytes(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: lhs.double.map { a in rhs.double.map { a == $0 } ?? false } ?? false
        }
    }

    public var rendered: String { String(decoding: bytes, as: UTF8.self) }

    /// The UTF-8 text, built in one buffer (a listing of 100,000 entries renders fast).
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(to: &out)
        return out
    }

    private func write(to out: inout [UInt8]) {
        switch self {
        case .null: out += "null".utf8
        case .bool(let value): out += (value ? "true" : "false").utf8
        case .int(let value): out += String(value).utf8
        case .double(let value): out += (value.isFinite ? String(value) : "null").utf8
        case .string(let value): Self.quote(value, into: &out)
        case .bytes(let value): Self.quote(value, into: &out)
        case .array(let values):
            out.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                value.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let pairs):
            out.append(UInt8(ascii: "{"))
            for (index, (key, value)) in pairs.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.quote(key, into: &out)
                out.append(UInt8(ascii: ":"))
                value.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// A string that needs no escape (every key, most names) copied in one go, with no array of its own:
    /// `--list --progress-json` writes eight keys and three strings for each of 100,000 entries.
    private static func quote(_ text: String, into out: inout [UInt8]) {
        let plain = text.utf8.withContiguousStorageIfAvailable { bytes in
            guard bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x80 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) else {
                return false
            }
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: bytes)
            out.append(UInt8(ascii: "\""))
            return true
        }
        if plain != true { quote(Array(text.utf8), into: &out) }
    }

    private static let hex = Array("0123456789abcdef".utf8)

    /// `text` as a JSON string. Its UTF-8 is copied as is, but for the quote, the backslash, control
    /// characters and bytes that are not UTF-8 (`\udcXX`).
    private static func quote(_ text: [UInt8], into out: inout [UInt8]) {
        func escape(_ prefix: String, _ byte: UInt8) {
            out += Array(prefix.utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 15)]]
        }
        out.append(UInt8(ascii: "\""))
        var index = 0
        while index < text.count {
            let byte = text[index]
            switch byte {
            case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case UInt8(ascii: "\n"): out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case UInt8(ascii: "\r"): out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case UInt8(ascii: "\t"): out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0..<0x20: escape("\\u00", byte)
            case 0x20..<0x80: out.append(byte)
            default:
                let length = UTF8Check.sequenceLength(text, at: index)
                if length == 0 {
                    escape("\\udc", byte)
                } else {
                    out += text[index..<index + length]
                    index += length - 1
                }
            }
            index += 1
        }
        out.append(UInt8(ascii: "\""))
    }
}

/// Where UTF-8 is well formed, byte by byte (the standard's table 3-7: no overlong forms, no surrogates,
/// nothing beyond U+10FFFF).
enum UTF8Check {
    /// The length of the well-formed sequence starting at `index`; 0 when the byte there starts none.
    static func sequenceLength(_ bytes: [UInt8], at index: Int) -> Int {
        let lead = bytes[index]
        let (length, second): (Int, ClosedRange<UInt8>) =
            switch lead {
            case 0x00...0x7F: (1, 0x80...0xBF)
            case 0xC2...0xDF: (2, 0x80...0xBF)
            case 0xE0: (3, 0xA0...0xBF)
            case 0xE1...0xEC, 0xEE...0xEF: (3, 0x80...0xBF)
            case 0xED: (3, 0x80...0x9F)
            case 0xF0: (4, 0x90...0xBF)
            case 0xF1...0xF3: (4, 0x80...0xBF)
            case 0xF4: (4, 0x80...0x8F)
            default: (0, 0x80...0xBF)
            }
        guard length > 1 else { return length }
        guard index + length <= bytes.count, second.contains(bytes[index + 1]) else { return 0 }
        for offset in 2..<length where !(0x80...0xBF).contains(bytes[index + offset]) { return 0 }
        return length
    }

    static func isValid(_ bytes: [UInt8]) -> Bool {
        var index = 0
        while index < bytes.count {
            let length = sequenceLength(bytes, at: index)
            guard length > 0 else { return false }
            index += length
        }
        return true
    }
}
