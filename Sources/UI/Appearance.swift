import ArchiverCore
import JobProtocol
import CGtk
import Desktop

/// The `color-scheme` setting applied to libadwaita's style manager: at the start of every window and at
/// once when it changes.
@MainActor
enum Appearance {
    static func follow() {
        apply()
        SettingsStore.shared.watch(Setting.colorScheme.key) { apply() }
    }

    private static func apply() {
        let scheme: AdwColorScheme =
            switch SettingsStore.shared.value(.colorScheme) {
            case .light: ADW_COLOR_SCHEME_FORCE_LIGHT
            case .dark: ADW_COLOR_SCHEME_FORCE_DARK
            case .system: ADW_COLOR_SCHEME_DEFAULT
            }
        adw_style_manager_set_color_scheme(adw_style_manager_get_default(), scheme)
    }
}
