import ArchiverCore
internal import CGLib

/// Sizes and dates written the way the file managers write them, through GLib.
public enum LocaleFormats {
    /// Makes `Text`'s sizes follow the user's locale (`1,5 MB` under de_DE), and the dates people read too
    /// (`15.06.2025 15:06:00`, local time). Call once at start-up, after `Catalog.bootstrap()`.
    public static func install() {
        Formatters.install(
            size: { count in
                guard let text = g_format_size(guint64(max(count, 0))) else { return HumanFormat.bytes(count) }
                defer { g_free(text) }
                return String(cString: text)
            },
            date: { seconds in
                guard let time = g_date_time_new_from_unix_local(gint64(seconds)) else { return nil }
                defer { g_date_time_unref(time) }
                // The locale's own date and time forms (D_FMT, T_FMT), as `ls -l --time-style=locale` does.
                return takeString(g_date_time_format(time, "%x %X"))
            })
    }
}
