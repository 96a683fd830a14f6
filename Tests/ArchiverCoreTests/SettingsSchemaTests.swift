import ArchiverCore
import Foundation
import FoundationXML
import Testing

/// The key table (SettingKeys.swift) against the schema file the desktop installs, both ways: every key of
/// the one is in the other, with the same type, default, range and choices.
@Suite struct SettingsSchemaTests {
    /// What desktop-files/io.github.archiver.gschema.xml says, read with an XML parser.
    final class Schema: NSObject, XMLParserDelegate {
        struct Key {
            var type: String?, enumID: String?, defaultText = "", range: ClosedRange<UInt32>?
        }
        var enums: [String: [String]] = [:]
        var keys: [(name: String, key: Key)] = []
        private var enumID: String?
        private var inDefault = false
        private var schemaID: String?

        init(_ file: URL) throws {
            super.init()
            let parser = try #require(XMLParser(contentsOf: file))
            parser.delegate = self
            #expect(parser.parse(), "\(file.path) is well-formed: \(String(describing: parser.parserError))")
        }

        func parser(_ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            switch element {
            case "enum": enumID = attributes["id"]
            case "value": if let enumID, let nick = attributes["nick"] { enums[enumID, default: []].append(nick) }
            case "schema": schemaID = attributes["id"]
            case "key" where schemaID == SettingKey.schemaID:
                keys.append((attributes["name"] ?? "", Key(type: attributes["type"], enumID: attributes["enum"])))
            case "range":
                let bounds = (UInt32(attributes["min"] ?? ""), UInt32(attributes["max"] ?? ""))
                if let low = bounds.0, let high = bounds.1 { keys[keys.count - 1].key.range = low...high }
            case "default": inDefault = true
            default: break
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if inDefault { keys[keys.count - 1].key.defaultText += string }
        }

        func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
            if element == "default" { inDefault = false }
            if element == "enum" { enumID = nil }
        }
    }

    static let schemaFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("desktop-files/io.github.archiver.gschema.xml")

    /// A `<default>` in GVariant text form, for the types the schema uses.
    static func value(_ text: String) -> SettingValue? {
        let text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.count >= 2, text.hasPrefix("'"), text.hasSuffix("'") { return .string(String(text.dropFirst().dropLast())) }
        if let flag = Bool(text) { return .bool(flag) }
        return UInt32(text).map { .number(Double($0)) }
    }

    @Test func everyKeyOfTheSchemaIsInTheTableAndBack() throws {
        let schema = try Schema(Self.schemaFile)
        #expect(schema.keys.count >= 19, "the schema was read")
        #expect(schema.keys.map(\.name) == SettingKey.all.map(\.name), "the same keys, in the schema's order")
        for (name, key) in schema.keys {
            guard let setting = SettingKey.all.first(where: { $0.name == name }) else { continue }
            let kind: SettingKey.Kind? =
                if let enumID = key.enumID { schema.enums[enumID].map { .choice($0) } } else {
                    switch key.type {
                    case "s": .string
                    case "b": .bool
                    case "u": key.range.map { .number($0) }
                    default: nil
                    }
                }
            #expect(setting.kind == kind, "\(name): the table says \(setting.kind), the schema \(String(describing: kind))")
            #expect(setting.defaultValue == Self.value(key.defaultText), "\(name): default \(key.defaultText) in the schema")
        }
    }

    @Test func theReaderSeesADifferenceInEachPart() throws {
        // The test above proves something only if the parsed schema is complete: spot checks of each part.
        let schema = try Schema(Self.schemaFile)
        let byName = Dictionary(uniqueKeysWithValues: schema.keys.map { ($0.name, $0.key) })
        #expect(byName["photo-quality"]?.range == 1...100 && byName["time-budget"]?.defaultText == "1800")
        #expect(schema.enums["io.github.archiver.PdfQuality"]?.last == "minimum")
        #expect(Self.value("'medium'") == .string("medium") && Self.value("false") == .bool(false))
        #expect(Setting.photoQuality.key.kind != .number(0...100), "kinds with other ranges differ")
    }

    @Test func theSettingsStructsStartFromTheTablesDefaults() {
        let defaults = ArchiverSettings()
        for key in ArchiverSettings.Key.allCases where !ArchiverSettings.isRemembered(key) {
            var settings = defaults
            let applied = settings.apply(key, key.setting.defaultValue)
            #expect(applied, "\(key.rawValue)'s default is usable")
            #expect(settings == defaults, "ArchiverSettings() holds \(key.rawValue)'s default")
            #expect(SettingKey.all.contains(key.setting))
        }
        #expect(PDFQuality.standard == Setting.pdfQuality.defaultValue)
    }

    @Test func aKeyTakesOnlyItsTypeRangeAndChoices() {
        #expect(Setting.photoQuality.value(.number(100)) == 100)
        #expect(Setting.photoQuality.value(.number(0)) == nil, "below the range")
        #expect(Setting.photoQuality.value(.number(75.5)) == nil)
        #expect(Setting.photoQuality.value(.string("75")) == nil, "another type")
        #expect(Setting.photoMaxSize.value(.number(0)) == 0)
        #expect(Setting.defaultFormat.value(.string("tar.zst")) == .tarZst)
        #expect(Setting.defaultFormat.value(.string("xz")) == nil, "a single-file format is no default")
        #expect(Setting.colorScheme.value(.string("dark")) == .dark)
        #expect(Setting.colorScheme.value(.string("sepia")) == nil)
        #expect(Setting.splitSize.value(.string("100M")) == "100M")
        #expect(Setting.notifications.value(.bool(false)) == false)
    }
}
