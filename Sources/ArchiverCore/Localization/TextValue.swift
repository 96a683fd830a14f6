import Glibc
import SystemPackage

/// glibc's messages in the C locale, whatever the process's locale is.
private enum SystemError {
    nonisolated(unsafe) static let cLocale = newlocale(1 << __LC_MESSAGES, "C", nil)  // strerror_l reads LC_MESSAGES alone

    static func english(_ code: Int32) -> String {
        guard let cLocale, let text = strerror_l(code, cLocale) else { return "error \(code)" }
        return String(cString: text)
    }
}

/// A value that goes into a `Text`'s placeholder, rendered for the same audience as the sentence.
public enum TextValue: Sendable {
    case string(String)
    case int(Int64)
    /// A count, grouped for people as their locale writes it (`1,204`, `1.204`); plain for scripts.
    case count(Int64)
    case text(Text)
    /// A file size: `1.5 MB`, or `1,5 MB` under de_DE.
    case fileSize(Int64)
    /// A duration in words: `45 s`, `2 h 5 min`.
    case spokenDuration(Double)
    /// A clock-style duration: `1:05`.
    case clock(Double)
    /// The C library's reason for an errno: in the user's language for people, in English for scripts.
    case errnoReason(Int32)

    func render(_ audience: Text.Audience) -> String {
        switch self {
        case .string(let text): text
        case .int(let value): String(value)
        case .count(let value): audience == .user ? Self.grouped(value) : String(value)
        case .text(let text): text.render(audience)
        case .fileSize(let count): audience == .user ? Formatters.bytes(count) : HumanFormat.bytes(count)
        case .spokenDuration(let seconds): HumanFormat.spokenText(seconds).render(audience)
        case .clock(let seconds): HumanFormat.duration(seconds)
        case .errnoReason(let code): audience == .user ? String(cString: strerror(code)) : SystemError.english(code)
        }
    }
}

extension TextValue {
    /// `value` with the locale's thousands separator (none in the C locale).
    static func grouped(_ value: Int64) -> String {
        var buffer = [CChar](repeating: 0, count: 40)
        let written = withVaList([value]) { vsnprintf(&buffer, buffer.count, "%'lld", $0) }
        guard written > 0 else { return String(value) }
        return String(decoding: buffer.prefix(Int(written)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Anything that can be passed to `tr`, `ntr` or `ptr` as a value.
public protocol TextArgument {
    var textValue: TextValue { get }
}

extension TextValue: TextArgument {
    public var textValue: TextValue { self }
}

extension Text: TextArgument {
    public var textValue: TextValue { .text(self) }
}

extension String: TextArgument {
    public var textValue: TextValue { .string(self) }
}

extension Substring: TextArgument {
    public var textValue: TextValue { .string(String(self)) }
}

extension Int: TextArgument {
    public var textValue: TextValue { .int(Int64(self)) }
}

extension Int64: TextArgument {
    public var textValue: TextValue { .int(self) }
}

extension Int32: TextArgument {
    public var textValue: TextValue { .int(Int64(self)) }
}

extension FilePath: TextArgument {
    public var textValue: TextValue { .string(description) }
}

extension FilePath.Component: TextArgument {
    public var textValue: TextValue { .string(string) }
}

extension TextArgument where Self == TextValue {
    /// A file size in the user's format: `tr("%@ free", .bytes(free))`.
    public static func bytes(_ count: Int64) -> TextValue { .fileSize(count) }
    /// A file size in the user's format.
    public static func bytes(_ count: Int) -> TextValue { .fileSize(Int64(count)) }
    /// The C library's reason for `code`: `tr("Cannot read “%1$@”: %2$@.", path, .systemError(errno))`.
    public static func systemError(_ code: Int32) -> TextValue { .errnoReason(code) }
    /// A duration in words: `tr("about %@", .spoken(seconds))`.
    public static func spoken(_ seconds: Double) -> TextValue { .spokenDuration(seconds) }
}
