import ArchiverCore
import ArchiverTestSupport
import Testing

@testable import Desktop

/// The settings as GLib stores them: this checkout's compiled schema, a backend in memory (never the
/// person's dconf).
@Suite struct SettingsStoreTests {
    static func place() throws -> SettingsPlace {
        try #require(SettingsPlace(schemaFolder: BuiltProducts.schemaFolder), "the schema compiles with glib-compile-schemas")
    }

    @Test func aFreshPlaceHasTheSchemaDefaultsAndNoWindowChoice() throws {
        let (settings, warning) = SettingsStore.load(from: try Self.place())
        #expect(warning == nil, "every key of ArchiverSettings is in the schema: \(warning?.english ?? "")")
        #expect(settings == ArchiverSettings(), "the built-in defaults are the schema's")
        #expect(settings.lastFormat == nil && settings.lastLevel == nil)
    }

    @Test func theWindowsChoiceIsWrittenAndReadBack() throws {
        let place = try Self.place()
        #expect(SettingsStore.rememberChoice(format: .sevenZip, level: .maximum, in: place))
        let (settings, warning) = SettingsStore.load(from: place)
        #expect(warning == nil)
        #expect(settings.lastFormat == .sevenZip && settings.lastLevel == .maximum)
        #expect(settings.windowFormat == .sevenZip && settings.windowLevel == .maximum)
        #expect(settings.defaultFormat == .zip && settings.compressionLevel == .normal, "the one-click defaults stay")

        #expect(SettingsStore.rememberChoice(format: .tarZst, level: .store, in: place))
        let again = SettingsStore.load(from: place).settings
        #expect(again.lastFormat == .tarZst && again.lastLevel == .store)
    }

    @Test func aSingleFileFormatIsNotRemembered() throws {
        let place = try Self.place()
        #expect(!SettingsStore.rememberChoice(format: .xz, level: .fast, in: place))
        #expect(SettingsStore.load(from: place).settings.lastFormat == nil)
    }

    @Test func aFolderWithoutSchemasIsNoPlace() throws {
        let scratch = try ScratchDirectory()
        #expect(SettingsPlace(schemaFolder: scratch.path) == nil)
    }
}
