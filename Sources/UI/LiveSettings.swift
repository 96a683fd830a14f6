import ArchiverCore
import JobProtocol
public import CGtk

/// Archiver's GSettings held open for the life of a window: read, written and watched key by key (the
/// Settings page, and every window's `color-scheme`). Desktop's SettingsStore reads a snapshot for the jobs;
/// this one follows changes as they happen.
@MainActor
public final class LiveSettings {
    /// The settings object, nil when the schema is not installed (`g_settings_new` would abort).
    private let settings: UnsafeMutablePointer<GSettings>?
    private let schema: OpaquePointer?

    /// The shared settings of this process.
    public static let shared = LiveSettings()

    private init() {
        guard let source = g_settings_schema_source_get_default(),
            let schema = g_settings_schema_source_lookup(source, ArchiverSettings.schemaID, 1)
        else {
            settings = nil
            schema = nil
            return
        }
        self.schema = schema
        settings = g_settings_new_full(schema, nil, nil)
    }

    /// Whether the installed schema has `key` (an older install may lack newer keys).
    public func has(_ key: String) -> Bool {
        guard let schema else { return false }
        return g_settings_schema_has_key(schema, key) != 0
    }

    /// A string or enum key's value; nil when the key is missing.
    public func string(_ key: String) -> String? {
        guard has(key), let settings else { return nil }
        return takeString(g_settings_get_string(settings, key))
    }

    public func bool(_ key: String) -> Bool? {
        guard has(key), let settings else { return nil }
        return g_settings_get_boolean(settings, key) != 0
    }

    public func uint(_ key: String) -> UInt32? {
        guard has(key), let settings else { return nil }
        return g_settings_get_uint(settings, key)
    }

    public func set(_ key: String, string value: String) {
        guard has(key), let settings else { return }
        g_settings_set_string(settings, key, value)
    }

    public func set(_ key: String, bool value: Bool) {
        guard has(key), let settings else { return }
        g_settings_set_boolean(settings, key, value ? 1 : 0)
    }

    public func set(_ key: String, uint value: UInt32) {
        guard has(key), let settings else { return }
        g_settings_set_uint(settings, key, value)
    }

    /// Back to the schema's default.
    public func reset(_ key: String) {
        guard has(key), let settings else { return }
        g_settings_reset(settings, key)
    }

    /// The range of a `u` key with a `<range>` (nil without one).
    public func range(_ key: String) -> ClosedRange<UInt32>? {
        guard has(key), let schema, let keyInfo = g_settings_schema_get_key(schema, key) else { return nil }
        defer { g_settings_schema_key_unref(keyInfo) }
        guard let range = g_settings_schema_key_get_range(keyInfo) else { return nil }
        defer { g_variant_unref(range) }
        // ("range", <(min, max)>)
        guard let bounds = g_variant_get_child_value(range, 1), let inner = g_variant_get_variant(bounds) else { return nil }
        defer {
            g_variant_unref(inner)
            g_variant_unref(bounds)
        }
        let low = g_variant_get_child_value(inner, 0), high = g_variant_get_child_value(inner, 1)
        defer {
            g_variant_unref(low)
            g_variant_unref(high)
        }
        return g_variant_get_uint32(low)...g_variant_get_uint32(high)
    }

    /// Calls `body` whenever `key` changes, from this process or another (`gsettings set`, another window).
    public func watch(_ key: String, _ body: @escaping @MainActor () -> Void) {
        guard has(key), let settings else { return }
        // Connecting alone does not make GSettings emit; it must have read the key once.
        _ = g_settings_get_value(settings, key).map { g_variant_unref($0) }
        onPointer(settings, "changed::" + key) { _ in body() }
    }
}

/// The `color-scheme` setting applied to libadwaita's style manager: at the start of every window and at
/// once when it changes.
@MainActor
enum Appearance {
    static let key = "color-scheme"

    static func follow() {
        apply()
        LiveSettings.shared.watch(key) { apply() }
    }

    private static func apply() {
        let scheme: AdwColorScheme =
            switch LiveSettings.shared.string(key) {
            case "light": ADW_COLOR_SCHEME_FORCE_LIGHT
            case "dark": ADW_COLOR_SCHEME_FORCE_DARK
            default: ADW_COLOR_SCHEME_DEFAULT
            }
        adw_style_manager_set_color_scheme(adw_style_manager_get_default(), scheme)
    }
}
