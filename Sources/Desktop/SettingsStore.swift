internal import CGLib
import ArchiverCore

/// Reads `ArchiverSettings` from GSettings, and writes what the Compress… window remembers.
/// `g_settings_new` aborts the process when the schema is not installed, and `g_settings_get` when a key is
/// missing, so every lookup is checked first; anything unusable leaves the built-in default and yields one
/// warning.
public enum SettingsStore {
    /// The settings, and a warning to show once when the schema is missing or broken.
    /// - Parameter place: tests only: a compiled schema folder and a backend of their own.
    public static func load(from place: SettingsPlace? = nil) -> (settings: ArchiverSettings, warning: Text?) {
        var settings = ArchiverSettings()
        let unusable = opened(place) { schema, gsettings in
            var unusable: [String] = []
            for key in ArchiverSettings.Key.allCases {
                guard g_settings_schema_has_key(schema, key.rawValue) != 0 else {
                    unusable.append(key.rawValue)
                    continue
                }
                // The window's memory counts only once written: the schema's default is no choice.
                let read = ArchiverSettings.isRemembered(key) ? g_settings_get_user_value : g_settings_get_value
                guard let variant = read(gsettings, key.rawValue) else {
                    if !ArchiverSettings.isRemembered(key) { unusable.append(key.rawValue) }
                    continue
                }
                defer { g_variant_unref(variant) }
                guard let value = Self.value(variant), settings.apply(key, value) else {
                    unusable.append(key.rawValue)
                    continue
                }
            }
            return unusable
        }
        guard let unusable else {
            return (settings, tr("Archiver's settings (%@) are not installed; using built-in defaults. `make install` installs them.", ArchiverSettings.schemaID))
        }
        guard !unusable.isEmpty else { return (settings, nil) }
        return (settings, tr("Archiver's settings schema is broken or from another version (%@); using built-in defaults for those. Reinstall with `make install`.", unusable.joined(separator: ", ")))
    }

    /// Remembers the format and level chosen in the Compress… window (`last-format`, `last-level`), never
    /// the one-click defaults, and waits until they are stored (the window may exit right after).
    /// - Returns: false when the schema is not installed or lacks the keys, or the format is one a
    ///   default cannot be (a single-file gz, xz, …: they cannot hold a folder).
    @discardableResult
    public static func rememberChoice(format: ArchiveFormat, level: CompressionLevel, in place: SettingsPlace? = nil) -> Bool {
        guard !format.isSingleStream else { return false }
        let stored = opened(place) { schema, gsettings in
            let keys = [(ArchiverSettings.Key.lastFormat, format.rawValue), (.lastLevel, level.rawValue)]
            guard keys.allSatisfy({ g_settings_schema_has_key(schema, $0.0.rawValue) != 0 }) else { return false }
            let written = keys.allSatisfy { g_settings_set_string(gsettings, $0.0.rawValue, $0.1) != 0 }
            g_settings_sync()
            return written
        }
        return stored ?? false
    }

    /// The stored values of `keys` (settings of one executable, such as Compress Photos' `photo-*` keys),
    /// typed as GSettings hands them over. Keys the installed schema lacks are left out: the caller keeps
    /// its built-in defaults for them.
    public static func values(of keys: [String]) -> [String: ArchiverSettings.Value] {
        opened(nil) { schema, gsettings in
            var values: [String: ArchiverSettings.Value] = [:]
            for key in keys where g_settings_schema_has_key(schema, key) != 0 {
                guard let variant = g_settings_get_value(gsettings, key) else { continue }
                defer { g_variant_unref(variant) }
                values[key] = Self.value(variant)
            }
            return values
        } ?? [:]
    }

    /// `body` with the schema and a GSettings object over it; nil when the schema is not installed.
    private static func opened<T>(_ place: SettingsPlace?, _ body: (OpaquePointer, UnsafeMutablePointer<GSettings>) -> T) -> T? {
        guard let source = place?.source ?? g_settings_schema_source_get_default(),
            let schema = g_settings_schema_source_lookup(source, ArchiverSettings.schemaID, 1)
        else { return nil }
        defer { g_settings_schema_unref(schema) }
        let gsettings = g_settings_new_full(schema, place?.backend, nil)
        defer { g_object_unref(gsettings) }
        return gsettings.map { body(schema, $0) }
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

/// Settings apart from the desktop's, for tests: the schemas compiled in one folder and a backend in
/// memory, shared by every read and write given this place.
public final class SettingsPlace: @unchecked Sendable {
    fileprivate let source: OpaquePointer?
    fileprivate let backend: UnsafeMutablePointer<GSettingsBackend>?

    /// Nil when `schemaFolder` holds no compiled schemas (`glib-compile-schemas` makes them).
    public init?(schemaFolder: String) {
        var error: UnsafeMutablePointer<GError>?
        guard let source = g_settings_schema_source_new_from_directory(schemaFolder, nil, 1, &error) else {
            if let error { g_error_free(error) }
            return nil
        }
        self.source = source
        backend = g_memory_settings_backend_new()
    }

    deinit {
        g_settings_schema_source_unref(source)
        g_object_unref(backend)
    }
}
