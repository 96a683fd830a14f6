internal import CGLib
import ArchiverCore

/// Reads `ArchiverSettings` from GSettings. `g_settings_new` aborts the process when the schema is not
/// installed, and `g_settings_get` when a key is missing, so every lookup is checked first; anything
/// unusable leaves the built-in default and yields one warning.
public enum SettingsStore {
    /// The settings, and a warning to show once when the schema is missing or broken.
    public static func load() -> (settings: ArchiverSettings, warning: Text?) {
        var settings = ArchiverSettings()
        guard let source = g_settings_schema_source_get_default(),
            let schema = g_settings_schema_source_lookup(source, ArchiverSettings.schemaID, 1)
        else {
            return (settings, tr("Archiver's settings (%@) are not installed; using built-in defaults. `make install` installs them.", ArchiverSettings.schemaID))
        }
        defer { g_settings_schema_unref(schema) }
        let gsettings = g_settings_new_full(schema, nil, nil)
        defer { g_object_unref(gsettings) }
        var unusable: [String] = []
        for key in ArchiverSettings.Key.allCases {
            guard g_settings_schema_has_key(schema, key.rawValue) != 0,
                let variant = g_settings_get_value(gsettings, key.rawValue)
            else {
                unusable.append(key.rawValue)
                continue
            }
            defer { g_variant_unref(variant) }
            guard let value = Self.value(variant), settings.apply(key, value) else {
                unusable.append(key.rawValue)
                continue
            }
        }
        guard !unusable.isEmpty else { return (settings, nil) }
        return (settings, tr("Archiver's settings schema is broken or from another version (%@); using built-in defaults for those. Reinstall with `make install`.", unusable.joined(separator: ", ")))
    }

    /// The stored values of `keys` (settings of one executable, such as Compress Photos' `photo-*` keys),
    /// typed as GSettings hands them over. Keys the installed schema lacks are left out: the caller keeps
    /// its built-in defaults for them.
    public static func values(of keys: [String]) -> [String: ArchiverSettings.Value] {
        guard let source = g_settings_schema_source_get_default(),
            let schema = g_settings_schema_source_lookup(source, ArchiverSettings.schemaID, 1)
        else { return [:] }
        defer { g_settings_schema_unref(schema) }
        let gsettings = g_settings_new_full(schema, nil, nil)
        defer { g_object_unref(gsettings) }
        var values: [String: ArchiverSettings.Value] = [:]
        for key in keys where g_settings_schema_has_key(schema, key) != 0 {
            guard let variant = g_settings_get_value(gsettings, key) else { continue }
            defer { g_variant_unref(variant) }
            values[key] = Self.value(variant)
        }
        return values
    }

    private static func value(_ variant: OpaquePointer) -> ArchiverSettings.Value? {
        // Compared as text: a GVariantType made from a Swift string would point into a temporary.
        switch String(cString: g_variant_get_type_string(variant)) {
        case "s": return .string(String(cString: g_variant_get_string(variant, nil)))
        case "b": return .bool(g_variant_get_boolean(variant) != 0)
        case "u": return .number(Double(g_variant_get_uint32(variant)))
        case "i": return .number(Double(g_variant_get_int32(variant)))
        default: return nil
        }
    }
}
