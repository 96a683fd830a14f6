internal import CGLib
import ArchiverCore

/// Archiver's settings in GSettings: the one way in for the tools, the windows and the app. Every key is
/// read, written and watched here, by the typed keys of ArchiverCore's table (SettingKeys.swift).
/// `g_settings_new` aborts the process when the schema is not installed, and `g_settings_get` when a key is
/// missing, so every lookup is checked first: a missing schema or key reads as the built-in default.
/// GSettings may be used from any thread; its change signals arrive on the thread that made the store.
public final class SettingsStore: @unchecked Sendable {
    /// This process's settings, as the desktop stores them.
    public static let shared = SettingsStore()

    private let schema: OpaquePointer?
    private let gsettings: UnsafeMutablePointer<GSettings>?
    private let place: SettingsPlace?

    /// - Parameters:
    ///   - schemaID: another schema than Archiver's (GNOME's privacy settings, for RecentFiles).
    ///   - place: tests only: a compiled schema folder and a backend of their own.
    public init(schemaID: String = SettingKey.schemaID, place: SettingsPlace? = nil) {
        self.place = place
        guard let source = place?.source ?? g_settings_schema_source_get_default(),
            let schema = g_settings_schema_source_lookup(source, schemaID, 1)
        else {
            schema = nil
            gsettings = nil
            return
        }
        self.schema = schema
        gsettings = g_settings_new_full(schema, place?.backend, nil)
    }

    deinit {
        if let gsettings { g_object_unref(gsettings) }
        if let schema { g_settings_schema_unref(schema) }
    }

    /// Whether the schema is installed.
    public var isInstalled: Bool { gsettings != nil }

    /// Whether the installed schema has `key` (an older install may lack newer keys).
    public func has(_ key: SettingKey) -> Bool { has(key.name) }

    private func has(_ name: String) -> Bool {
        guard let schema, gsettings != nil else { return false }
        return g_settings_schema_has_key(schema, name) != 0
    }

    /// A key's value; its default when the schema or the key is missing or the stored value is unusable.
    public func value<Value>(_ key: Setting<Value>) -> Value {
        stored(key.name).flatMap(key.value) ?? key.defaultValue
    }

    /// Stores `value`.
    /// - Returns: false when the schema lacks the key, or the value is outside its range or choices (which
    ///   GSettings would refuse with a warning on stderr).
    @discardableResult
    public func set<Value>(_ key: Setting<Value>, _ value: Value) -> Bool {
        guard has(key.name), let gsettings, key.value(value.stored) != nil else { return false }
        return switch value.stored {
        case .string(let text): g_settings_set_string(gsettings, key.name, text) != 0
        case .bool(let flag): g_settings_set_boolean(gsettings, key.name, flag ? 1 : 0) != 0
        case .number(let number): UInt32(exactly: number).map { g_settings_set_uint(gsettings, key.name, $0) != 0 } ?? false
        }
    }

    /// Back to the schema's default.
    public func reset(_ key: SettingKey) {
        guard has(key.name), let gsettings else { return }
        g_settings_reset(gsettings, key.name)
    }

    /// Waits until what was set is stored (a window may exit right after).
    public func sync() { g_settings_sync() }

    /// Calls `body` whenever `key` changes, from this process or another (`gsettings set`, another window).
    @MainActor
    public func watch(_ key: SettingKey, _ body: @escaping @MainActor () -> Void) {
        guard has(key.name), let gsettings else { return }
        // Connecting alone does not make GSettings emit; it must have read the key once.
        _ = g_settings_get_value(gsettings, key.name).map { g_variant_unref($0) }
        let thunk: @convention(c) (gpointer?, gpointer?, gpointer?) -> Void = { _, _, data in
            guard let data else { return }
            let watcher = Unmanaged<Watcher>.fromOpaque(data).takeUnretainedValue()
            MainActor.assumeIsolated { watcher.body() }
        }
        // GLib owns the box: the destroy notify releases it when the settings object goes.
        let box = Unmanaged.passRetained(Watcher(body)).toOpaque()
        let release: GClosureNotify = { data, _ in data.map { Unmanaged<Watcher>.fromOpaque($0).release() } }
        g_signal_connect_data(gpointer(gsettings), "changed::" + key.name, unsafeBitCast(thunk, to: GCallback.self), box, release, GConnectFlags(rawValue: 0))
    }

    private final class Watcher: @unchecked Sendable {
        let body: @MainActor () -> Void
        init(_ body: @escaping @MainActor () -> Void) { self.body = body }
    }

    /// A key's stored value, typed as GSettings hands it over; nil when the key is missing.
    /// - Parameter ifWritten: only a value that was written (not the schema's default).
    public func stored(_ name: String, ifWritten: Bool = false) -> SettingValue? {
        guard has(name), let gsettings else { return nil }
        let read = ifWritten ? g_settings_get_user_value : g_settings_get_value
        guard let variant = read(gsettings, name) else { return nil }
        defer { g_variant_unref(variant) }
        // Compared as text: a GVariantType made from a Swift string would point into a temporary.
        switch String(cString: g_variant_get_type_string(variant)) {
        case "s": return .string(String(cString: g_variant_get_string(variant, nil)))
        case "b": return .bool(g_variant_get_boolean(variant) != 0)
        case "u": return .number(Double(g_variant_get_uint32(variant)))
        case "i": return .number(Double(g_variant_get_int32(variant)))
        default: return nil
        }
    }

    // MARK: - The jobs' settings

    /// The settings of the jobs, and a warning to show once when the schema is missing or broken.
    public func load() -> (settings: ArchiverSettings, warning: Text?) {
        var settings = ArchiverSettings()
        guard isInstalled else {
            return (settings, tr("Archiver's settings (%@) are not installed; using built-in defaults. `make install` installs them.", SettingKey.schemaID))
        }
        var unusable: [String] = []
        for key in ArchiverSettings.Key.allCases {
            // The window's memory counts only once written: the schema's default is no choice.
            let remembered = ArchiverSettings.isRemembered(key)
            guard has(key.rawValue) else {
                unusable.append(key.rawValue)
                continue
            }
            guard let value = stored(key.rawValue, ifWritten: remembered) else {
                if !remembered { unusable.append(key.rawValue) }
                continue
            }
            if !settings.apply(key, value) { unusable.append(key.rawValue) }
        }
        guard !unusable.isEmpty else { return (settings, nil) }
        return (settings, tr("Archiver's settings schema is broken or from another version (%@); using built-in defaults for those. Reinstall with `make install`.", unusable.joined(separator: ", ")))
    }

    /// Remembers the format and level chosen in the Compress… window (`last-format`, `last-level`), never
    /// the one-click defaults, and waits until they are stored (the window may exit right after).
    /// - Returns: false when the schema is not installed or lacks the keys, or the format is one a
    ///   default cannot be (a single-file gz, xz, …: they cannot hold a folder).
    @discardableResult
    public func rememberChoice(format: ArchiveFormat, level: CompressionLevel) -> Bool {
        guard !format.isSingleStream, has(Setting.lastFormat.key), has(Setting.lastLevel.key) else { return false }
        let written = set(.lastFormat, format) && set(.lastLevel, level)
        sync()
        return written
    }

    /// A group of settings (such as Compress Photos' `photo-*` keys) as stored, and the keys whose stored value
    /// was unusable (each keeps its default). Keys the installed schema lacks keep their defaults too.
    public func load<Group: SettingsGroup>(_ group: Group.Type) -> (settings: Group, unusable: [Group.Key]) {
        var settings = Group()
        var unusable: [Group.Key] = []
        for key in Group.Key.allCases {
            guard let value = stored(key.rawValue) else { continue }
            if !settings.apply(key, value) { unusable.append(key) }
        }
        return (settings, unusable)
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
