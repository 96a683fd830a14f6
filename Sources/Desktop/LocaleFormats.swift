import ArchiverCore
internal import CGLib

/// Sizes (and later dates) written the way the file managers write them, through GLib.
public enum LocaleFormats {
    /// Makes `Text`'s sizes follow the user's locale: `1,5 MB` under de_DE. Call once at start-up, after
    /// `Catalog.bootstrap()`.
    public static func install() {
        Formatters.install(size: { count in
            guard let text = g_format_size(guint64(max(count, 0))) else { return HumanFormat.bytes(count) }
            defer { g_free(text) }
            return String(cString: text)
        })
    }
}
