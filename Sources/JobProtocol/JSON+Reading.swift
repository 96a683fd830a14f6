import Glibc
import SystemPackage

extension JSON {
    /// The value of `key` in an object; nil when this is no object or has no such key.
    public subscript(key: String) -> JSON? {
        guard case .object(let fields) = self else { return nil }
        return fields.first { $0.0 == key }?.1
    }

    /// The text; a byte string's stray bytes read as U+FFFD (for showing it, not for opening the file).
    public var string: String? {
        switch self {
        case .string(let value): value
        case .bytes(let value): String(decoding: value, as: UTF8.self)
        default: nil
        }
    }

    /// A file's path, byte for byte (a `.bytes` string keeps what is not UTF-8).
    public var path: FilePath? {
        switch self {
        case .string(let value): FilePath(value)
        case .bytes(let value): FilePath(platformString: value.map { CChar(bitPattern: $0) } + [0])
        default: nil
        }
    }

    /// A path as a JSON string: plain text when it is UTF-8, else a byte string.
    public static func path(_ path: FilePath) -> JSON {
        let bytes = path.withPlatformString { Array(UnsafeBufferPointer(start: $0, count: strlen($0))) }.map { UInt8(bitPattern: $0) }
        return UTF8Check.isValid(bytes) ? .string(String(decoding: bytes, as: UTF8.self)) : .bytes(bytes)
    }
    public var bool: Bool? { if case .bool(let value) = self { value } else { nil } }
    /// The elements of an array; empty for anything else.
    public var array: [JSON] { if case .array(let values) = self { values } else { [] } }
    /// The fields of an object, in order; empty for anything else.
    public var members: [(String, JSON)] { if case .object(let fields) = self { fields } else { [] } }
    public var isNull: Bool { if case .null = self { true } else { false } }

    /// A whole number; a double only when it has no fraction.
    public var int: Int64? {
        switch self {
        case .int(let value): value
        case .double(let value) where value.rounded() == value && abs(value) < 9.2e18: Int64(value)
        default: nil
        }
    }

    public var double: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// Parses one JSON text; nil when it is not valid JSON.
    public static func parse(_ text: String) -> JSON? { parse(Array(text.utf8)) }

    /// Parses one JSON text given as UTF-8; nil when it is not valid JSON.
    public static func parse(_ bytes: [UInt8]) -> JSON? {
        var parser = Parser(bytes: bytes)
        guard let value = parser.value() else { return nil }
        parser.skipSpace()
        return parser.index == parser.bytes.count ? value : nil
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        mutating func value() -> JSON? {
            skipSpace()
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "{"): return object()
            case UInt8(ascii: "["): return array()
            case UInt8(ascii: "\""): return string()
            case UInt8(ascii: "t"): return literal("true", .bool(true))
            case UInt8(ascii: "f"): return literal("false", .bool(false))
            case UInt8(ascii: "n"): return literal("null", .null)
            default: return number()
            }
        }

        mutating func literal(_ word: String, _ value: JSON) -> JSON? {
            let utf8 = word.utf8
            guard index + utf8.count <= bytes.count, bytes[index..<index + utf8.count].elementsEqual(utf8) else { return nil }
            index += utf8.count
            return value
        }

        /// Integers stay `.int`, as the tools wrote them; anything with a fraction or exponent is `.double`.
        mutating func number() -> JSON? {
            let start = index
            var integral = true
            scan: while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"): index += 1
                case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"):
                    integral = false
                    index += 1
                default: break scan
                }
            }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            if integral, let value = Int64(text) { return .int(value) }
            return Double(text).map(JSON.double)
        }

        /// A string; `.bytes` when it holds `\udcXX` escapes of bytes that are not UTF-8.
        mutating func string() -> JSON? {
            index += 1
            var out: [UInt8] = []
            var stray = false
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""): return stray ? .bytes(out) : .string(String(decoding: out, as: UTF8.self))
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { return nil }
                    let escaped = bytes[index]
                    index += 1
                    switch escaped {
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "u"):
                        guard var scalar = hex4() else { return nil }
                        // A surrogate pair names one scalar beyond the BMP.
                        if (0xD800..<0xDC00).contains(scalar), index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                            bytes[index + 1] == UInt8(ascii: "u")
                        {
                            index += 2
                            guard let low = hex4() else { return nil }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low &- 0xDC00)
                        } else if (0xDC80...0xDCFF).contains(scalar) {
                            out.append(UInt8(scalar & 0xFF))
                            stray = true
                            continue
                        }
                        out += Array(String(Unicode.Scalar(scalar).map(Character.init) ?? "\u{FFFD}").utf8)
                    default: out.append(escaped)
                    }
                default: out.append(byte)
                }
            }
            return nil
        }

        mutating func hex4() -> UInt32? {
            guard index + 4 <= bytes.count, let value = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
            else { return nil }
            index += 4
            return value
        }

        mutating func array() -> JSON? {
            index += 1
            var items: [JSON] = []
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(items)
            }
            while true {
                guard let item = value() else { return nil }
                items.append(item)
                skipSpace()
                guard index < bytes.count else { return nil }
                index += 1
                if bytes[index - 1] == UInt8(ascii: "]") { return .array(items) }
                if bytes[index - 1] != UInt8(ascii: ",") { return nil }
            }
        }

        mutating func object() -> JSON? {
            index += 1
            var fields: [(String, JSON)] = []
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(fields)
            }
            while true {
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let key = string()?.string else { return nil }
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
                index += 1
                guard let item = value() else { return nil }
                fields.append((key, item))
                skipSpace()
                guard index < bytes.count else { return nil }
                index += 1
                if bytes[index - 1] == UInt8(ascii: "}") { return .object(fields) }
                if bytes[index - 1] != UInt8(ascii: ",") { return nil }
            }
        }
    }
}
