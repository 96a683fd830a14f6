import ArchiverCore
import CGtk
import Desktop

/// The window's own settings: what it starts with, and the `last-format`/`last-level` keys it writes (never
/// the one-click defaults; never the password).
enum WindowSettings {
    static let lastFormatKey = "last-format"
    static let lastLevelKey = "last-level"

    /// The format and level to start with: the last ones chosen in the window, else the defaults.
    static func initial() -> (format: ArchiveFormat, level: CompressionLevel) {
        let settings = SettingsStore.load().settings
        let last = SettingsStore.values(of: [lastFormatKey, lastLevelKey])
        var format = settings.defaultFormat
        var level = settings.compressionLevel
        if case .string(let nick)? = last[lastFormatKey], let chosen = ArchiveFormat(rawValue: nick) { format = chosen }
        if case .string(let nick)? = last[lastLevelKey], let chosen = CompressionLevel(rawValue: nick) { level = chosen }
        return (format, level)
    }

    /// Remembers a choice; does nothing when the installed schema lacks the key (an older install), because
    /// GSettings aborts the process on an unknown key.
    static func remember(format: ArchiveFormat, level: CompressionLevel) {
        guard let source = g_settings_schema_source_get_default(),
            let schema = g_settings_schema_source_lookup(source, ArchiverSettings.schemaID, 1)
        else { return }
        defer { g_settings_schema_unref(schema) }
        let settings = g_settings_new_full(schema, nil, nil)
        defer { g_object_unref(settings.map { UnsafeMutableRawPointer($0) }) }
        // Single-stream formats are not in the schema's enum (a default must work for folders too).
        if g_settings_schema_has_key(schema, lastFormatKey) != 0, !format.isSingleStream {
            g_settings_set_string(settings, lastFormatKey, format.rawValue)
        }
        if g_settings_schema_has_key(schema, lastLevelKey) != 0 {
            g_settings_set_string(settings, lastLevelKey, level.rawValue)
        }
        g_settings_sync()
    }
}
