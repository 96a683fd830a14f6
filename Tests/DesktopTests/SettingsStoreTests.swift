import ArchiverCore
import ArchiverTestSupport
import Testing

@testable import Desktop

/// The settings as GLib stores them: this checkout's compiled schema, a backend in memory (never the
/// person's dconf).
@Suite struct SettingsStoreTests {
    static func store() throws -> SettingsStore {
        let place = try #require(SettingsPlace(schemaFolder: BuiltProducts.schemaFolder), "the schema compiles with glib-compile-schemas")
        return SettingsStore(place: place)
    }

    @Test func aFreshPlaceHasTheSchemaDefaultsAndNoWindowChoice() throws {
        let (settings, warning) = try Self.store().load()
        #expect(warning == nil, "every key of ArchiverSettings is in the schema: \(warning?.english ?? "")")
        #expect(settings == ArchiverSettings(), "the built-in defaults are the schema's")
        #expect(settings.lastFormat == nil && settings.lastLevel == nil)
    }

    @Test func theWindowsChoiceIsWrittenAndReadBack() throws {
        let store = try Self.store()
        #expect(store.rememberChoice(format: .sevenZip, level: .maximum))
        let (settings, warning) = store.load()
        #expect(warning == nil)
        #expect(settings.lastFormat == .sevenZip && settings.lastLevel == .maximum)
        #expect(settings.windowFormat == .sevenZip && settings.windowLevel == .maximum)
        #expect(settings.defaultFormat == .zip && settings.compressionLevel == .normal, "the one-click defaults stay")

        #expect(store.rememberChoice(format: .tarZst, level: .store))
        let again = store.load().settings
        #expect(again.lastFormat == .tarZst && again.lastLevel == .store)
    }

    @Test func aSingleFileFormatIsNotRemembered() throws {
        let store = try Self.store()
        #expect(!store.rememberChoice(format: .xz, level: .fast))
        #expect(store.load().settings.lastFormat == nil)
    }

    @Test func glibReadsTheTablesDefaultForEveryKey() throws {
        let store = try Self.store()
        for key in SettingKey.all {
            #expect(store.has(key), "\(key.name) is in the installed schema")
            #expect(store.stored(key.name) == key.defaultValue, "\(key.name)")
        }
        #expect(store.value(.photoMaxSize) == 1500 && store.value(.photoFormat) == .jpeg && store.value(.colorScheme) == .system)
    }

    @Test func typedValuesAreWrittenReadBackAndReset() throws {
        let store = try Self.store()
        #expect(store.set(.photoQuality, 90) && store.set(.photoFormat, .avif) && store.set(.skipJunk, false))
        #expect(store.set(.extractLocation, "~/Mail files") && store.set(.colorScheme, .dark))
        #expect(store.value(.photoQuality) == 90 && store.value(.photoFormat) == .avif && !store.value(.skipJunk))
        #expect(store.value(.extractLocation) == "~/Mail files" && store.value(.colorScheme) == .dark)
        #expect(store.stored("photo-format") == .string("avif"), "an enum is stored as its nick")
        #expect(!store.set(.photoQuality, 0), "a value outside the key's range is refused")
        #expect(!store.set(.lastFormat, .xz), "a single-file format is no choice of last-format")
        #expect(store.value(.photoQuality) == 90)
        store.reset(Setting.photoQuality.key)
        #expect(store.value(.photoQuality) == Setting.photoQuality.defaultValue)
    }

    @Test func aMissingSchemaReadsAsDefaultsAndWarnsOnce() throws {
        let place = try #require(SettingsPlace(schemaFolder: BuiltProducts.schemaFolder))
        let store = SettingsStore(schemaID: "io.github.archiver.not-installed", place: place)
        #expect(!store.isInstalled && !store.has(Setting.notifications.key))
        #expect(store.value(.timeBudget) == 1800 && store.value(.defaultFormat) == .zip)
        #expect(!store.set(.notifications, false))
        let (settings, warning) = store.load()
        #expect(settings == ArchiverSettings())
        #expect(warning?.english.contains("are not installed") == true, "\(warning?.english ?? "no warning")")
    }

    @Test func aFolderWithoutSchemasIsNoPlace() throws {
        let scratch = try ScratchDirectory()
        #expect(SettingsPlace(schemaFolder: scratch.path) == nil)
    }
}
