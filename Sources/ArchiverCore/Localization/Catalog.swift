private import CGettext
import Glibc

/// The gettext catalog of the `archiver` domain: bound once at start-up, then only read.
public enum Catalog {
    /// The gettext domain every Archiver string belongs to.
    public static let domain = "archiver"

    /// Picks up the user's locale and binds the catalogs. Call once at start-up, before any thread starts.
    ///
    /// The catalogs are looked up in `$ARCHIVER_LOCALEDIR` when set (tests, a build folder), otherwise in
    /// `share/locale` beside the executable's `bin` folder, so `PREFIX=/usr/local` and `~/.local` both work
    /// without glibc's default `/usr/share/locale`.
    public static func bootstrap() {
        // LC_ALL from the environment; a locale that is not UTF-8 (or not generated) becomes C.UTF-8, which
        // still honours LANGUAGE, so the bytes we get back are always UTF-8. libarchive needs it too: in the
        // "C" locale it garbles non-ASCII names in 7z and pax headers (and Swift never calls setlocale).
        setlocale(LC_ALL, "")
        if !codesetIsUTF8 { setlocale(LC_ALL, "C.UTF-8") }
        let override = getenv("ARCHIVER_LOCALEDIR").map { String(cString: $0) }
        let directory = override.flatMap { $0.isEmpty ? nil : $0 } ?? installedDirectory
        if let directory { bindtextdomain(domain, directory) }
        bind_textdomain_codeset(domain, "UTF-8")
        // Local time, too: with TZ unset glibc stats /etc/localtime again on every conversion (libarchive
        // converts each zip entry's DOS time: two system calls an entry); naming that same file reads it once.
        setenv("TZ", ":/etc/localtime", 0)
    }

    /// `share/locale` beside the folder the running executable is in.
    static var installedDirectory: String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        let path = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 3 else { return nil }
        parts.removeLast(2)
        return parts.joined(separator: "/") + "/share/locale"
    }

    private static var codesetIsUTF8: Bool {
        guard let codeset = nl_langinfo(nl_item(CODESET)) else { return false }
        return String(cString: codeset).uppercased().filter { $0 != "-" } == "UTF8"
    }

    /// True when a catalog for the user's language is in use, so sizes and dates follow their locale too.
    /// (gettext answers the empty msgid with the catalog's header, and with "" when there is none.)
    public static var isTranslating: Bool { !translate("").isEmpty }

    // gettext returns its argument itself when there is no translation, so every lookup copies the result
    // while the C strings it was given are still alive.
    static func translate(_ msgid: String) -> String {
        msgid.withCString { id in dgettext(domain, id).map { String(cString: $0) } ?? msgid }
    }

    static func translate(_ msgid: String, context: String) -> String {
        let key = context + "\u{04}" + msgid
        let text = key.withCString { id in dcgettext(domain, id, LC_MESSAGES).map { String(cString: $0) } ?? key }
        return text == key ? msgid : text
    }

    static func translate(_ singular: String, _ plural: String, count: Int64) -> String {
        let n = UInt(clamping: count < 0 ? -count : count)
        return singular.withCString { one in
            plural.withCString { many in
                dngettext(domain, one, many, n).map { String(cString: $0) } ?? (count == 1 ? singular : plural)
            }
        }
    }
}

/// How sizes and dates are written for a person. The desktop layer installs GLib's formatters at start-up
/// (the same the file managers use); until then, and when no catalog is in use, the English ones apply.
public enum Formatters {
    nonisolated(unsafe) static var sizeFormatter: (@Sendable (Int64) -> String)?
    nonisolated(unsafe) static var dateFormatter: (@Sendable (Int64) -> String?)?

    /// Installs the locale's size and date formatters; call once at start-up, next to `Catalog.bootstrap`.
    /// - Parameter date: seconds since 1970 → the local date and time as the locale writes them; nil falls
    ///   back to the ISO form.
    public static func install(size: @escaping @Sendable (Int64) -> String, date: (@Sendable (Int64) -> String?)? = nil) {
        sizeFormatter = size
        dateFormatter = date
    }

    /// A size for a person: the locale's format when Archiver speaks the user's language.
    public static func bytes(_ count: Int64) -> String {
        guard let sizeFormatter, Catalog.isTranslating else { return HumanFormat.bytes(count) }
        return sizeFormatter(count)
    }

    /// A date for a person: the locale's local date and time when Archiver speaks the user's language, else
    /// ISO 8601 in UTC (what `--json` always writes), so untranslated output never changes with the locale.
    public static func date(_ seconds: Int64) -> String {
        guard let dateFormatter, Catalog.isTranslating, let text = dateFormatter(seconds) else {
            return HumanFormat.iso8601(seconds)
        }
        return text
    }
}
