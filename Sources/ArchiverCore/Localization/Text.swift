/// Words for a person, kept as their English template and arguments so that they can be rendered twice:
/// in the user's language for stderr, notifications and dialogs, and in English for `--json` and logs,
/// which must never change with the locale.
///
/// Make one with `tr`, `ntr` or `ptr`; the template is a `StaticString`, so a literal with `\(…)` inside
/// does not compile. Values go in through placeholders (`%@`, or `%1$@` … when a translation may reorder
/// them; `%ld` for a plural's count) and are rendered for the same audience as the sentence around them.
public struct Text: Sendable, CustomStringConvertible {
    enum Template: Sendable {
        case message(String)
        case context(String, String)
        case plural(String, String, count: Int64)
        /// Text that is not ours to translate: a library's message, a file name.
        case verbatim(String)
    }

    let template: Template
    let arguments: [TextValue]

    init(_ template: Template, _ arguments: [TextValue]) {
        self.template = template
        self.arguments = arguments
    }

    /// Text shown as it is, in every language: a library's own message, a name, a tool's output.
    public static func verbatim(_ text: String) -> Text { Text(.verbatim(text), []) }

    /// In the user's language, for a person.
    public var localized: String { render(.user) }

    /// In English, for `--json`, logs and anything a script reads.
    public var english: String { render(.english) }

    public var description: String { localized }

    /// The English template, which doubles as the catalog key (for tests and diagnostics).
    public var msgid: String {
        switch template {
        case .message(let id), .context(_, let id), .plural(let id, _, _), .verbatim(let id): id
        }
    }

    /// Two texts joined by a separator that is the same in every language (a space, a line break).
    public func joined(_ other: Text, separator: String = " ") -> Text {
        Text(.verbatim("%1$@" + separator.replacingPercent() + "%2$@"), [.text(self), .text(other)])
    }

    func render(_ audience: Audience) -> String {
        let format: String
        switch template {
        case .verbatim(let text) where arguments.isEmpty: return text
        case .verbatim(let text): format = text
        case .message(let id): format = audience == .english ? id : Catalog.translate(id)
        case .context(let context, let id): format = audience == .english ? id : Catalog.translate(id, context: context)
        case .plural(let one, let many, let count):
            format = audience == .english ? (count == 1 ? one : many) : Catalog.translate(one, many, count: count)
        }
        return Placeholders.substitute(format, arguments.map { $0.render(audience) })
    }

    enum Audience { case user, english }
}

extension String {
    fileprivate func replacingPercent() -> String {
        var result = ""
        for character in self { result += character == "%" ? "%%" : String(character) }
        return result
    }
}

extension Text: ExpressibleByArrayLiteral {
    /// Sentences shown one after another, separated by a space: `[message, hint]`.
    public init(arrayLiteral parts: Text...) {
        self = Text.sentences(parts)
    }

    /// Sentences one after another with `separator` between them, in every language.
    public static func sentences(_ parts: [Text], separator: String = " ") -> Text {
        let format = (1...max(parts.count, 1)).map { "%\($0)$@" }.joined(separator: separator.replacingPercent())
        return parts.isEmpty ? .verbatim("") : Text(.verbatim(format), parts.map(TextValue.text))
    }
}

/// A simple English string for words that are ours; the marker for xgettext (`--keyword=tr`).
///
/// - Parameters:
///   - msgid: the English text, a plain single-line literal; `%@` (or `%1$@`, `%2$@` …) for each value.
///   - values: what the placeholders stand for, in order.
public func tr(_ msgid: StaticString, _ values: any TextArgument...) -> Text {
    Text(.message(msgid.description), values.map(\.textValue))
}

/// A sentence about a count, in the plural form the user's language needs for `count` (`--keyword=ntr:1,2`).
///
/// - Parameters:
///   - singular: the English text for one, with `%ld` where the count goes (or `%1$ld`).
///   - plural: the English text for any other count.
///   - count: chooses the form, and is the first value.
///   - values: the values after the count.
public func ntr(_ singular: StaticString, _ plural: StaticString, _ count: Int, _ values: any TextArgument...) -> Text {
    Text(.plural(singular.description, plural.description, count: Int64(count)), [.count(Int64(count))] + values.map(\.textValue))
}

/// A word whose translation depends on where it is shown: `ptr("menu", "Compress")` (`--keyword=ptr:1c,2`).
public func ptr(_ context: StaticString, _ msgid: StaticString, _ values: any TextArgument...) -> Text {
    Text(.context(context.description, msgid.description), values.map(\.textValue))
}
