import ArchiverCore
import JobProtocol
import Desktop

/// The Compress… window's starting choices and what it remembers: `last-format`/`last-level` (never the
/// one-click defaults; never the password), through SettingsStore.
enum WindowSettings {
    /// The last format and level chosen in the window, else the defaults.
    static func initial() -> (format: ArchiveFormat, level: CompressionLevel) {
        let settings = SettingsStore.load().settings
        return (settings.lastFormat ?? settings.defaultFormat, settings.lastLevel ?? settings.compressionLevel)
    }

    /// Remembers a choice; SettingsStore skips single-stream formats and an installed schema without the keys.
    static func remember(format: ArchiveFormat, level: CompressionLevel) {
        _ = SettingsStore.rememberChoice(format: format, level: level)
    }
}
