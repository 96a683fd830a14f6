import Foundation
import FoundationXML
import Testing

/// Every menu, handler and action file carries the German labels msgfmt merged from po/de.po, read back by
/// the parsers the file managers use; the catalogs are installed where the executables look; English is
/// unchanged. The German expected here comes from po/de.po through msgfmt and Python's gettext.
@Suite struct TranslationTests {
    static let app = InstallTests.app

    /// The German for each msgid, from po/de.po compiled into `home` (a msgid without one maps to "").
    static func german(_ msgids: [String], home: Home) throws -> [String: String] {
        let mo = home.root + "/de.mo"
        let compiled = try home.tool("msgfmt", "-o", mo, Paths.packageRoot + "/po/de.po")
        guard compiled.ok else { throw Failure("msgfmt po/de.po: \(compiled.stderr)") }
        let program = """
            import gettext, json, sys
            catalog = gettext.GNUTranslations(open(sys.argv[1], "rb"))._catalog
            print(json.dumps({m: catalog.get(m, "") for m in sys.argv[2:]}))
            """
        return try pythonJSON(program, [mo] + msgids, home: home)
    }

    static func pythonJSON<T: Decodable>(_ program: String, _ arguments: [String], home: Home,
                                         environment: [String: String]? = nil) throws -> T {
        let result = try run([Bytes("/usr/bin/python3"), Bytes("-c"), Bytes(program)] + arguments.map { Bytes($0) },
                             environment: environment ?? home.environment)
        guard result.ok else { throw Failure("python: \(result.stderr)") }
        return try JSONDecoder().decode(T.self, from: Data(result.stdout.utf8))
    }

    /// (file, group, key) of every translated label in the key files install writes.
    static func labelledKeys(_ data: String) -> [(path: String, group: String, key: String)] {
        var keys: [(String, String, String)] = []
        for name in ["Extract", "Compress", "CompressPdf", "CompressPhotos", "Open"] {
            let path = "\(data)/applications/\(app).\(name).desktop"
            keys += [(path, "Desktop Entry", "Name"), (path, "Desktop Entry", "Comment")]
        }
        let dolphin = ["compress": QuotingTests.labels.keys.filter { $0.hasPrefix("compress") && !$0.hasSuffix("pdf") && !$0.hasSuffix("photos") },
                       "extract": ["extract-here", "extract-window", "open-folder"], "compress-pdf": ["compress-pdf"], "compress-photos": ["compress-photos"]]
        for (file, actions) in dolphin {
            let path = "\(data)/kio/servicemenus/\(app).\(file).desktop"
            keys.append((path, "Desktop Entry", "X-KDE-Submenu"))
            keys += actions.map { (path, "Desktop Action \($0)", "Name") }
        }
        for entry in InstallTests.flatEntries {
            let nemo = "\(data)/nemo/actions/\(app).\(entry).nemo_action"
            let action = "\(data)/file-manager/actions/\(app).\(entry).desktop"
            keys += [(nemo, "Nemo Action", "Name"), (nemo, "Nemo Action", "Comment"),
                     (action, "Desktop Entry", "Name"), (action, "Desktop Entry", "Tooltip"),
                     (action, "X-Action-Profile selection", "Name")]
        }
        return keys
    }

    struct KeyValues: Decodable { let english: String; let german: String; let hasGerman: Bool }

    /// GLib's GKeyFile, as Nemo, Caja and GIO read these files: the untranslated value, the value for
    /// locale "de" and whether a `[de]` key exists, for each (file, group, key).
    static func readWithGLib(_ keys: [(path: String, group: String, key: String)], home: Home) throws -> [KeyValues] {
        let program = """
            import json, sys
            from gi.repository import GLib
            out = []
            args = sys.argv[1:]
            for path, group, key in zip(args[0::3], args[1::3], args[2::3]):
                f = GLib.KeyFile(); f.load_from_file(path, GLib.KeyFileFlags.KEEP_TRANSLATIONS)
                out.append({"english": f.get_string(group, key), "german": f.get_locale_string(group, key, "de"),
                            "hasGerman": key + "[de]" in f.get_keys(group)[0]})
            print(json.dumps(out))
            """
        return try pythonJSON(program, keys.flatMap { [$0.path, $0.group, $0.key] }, home: home)
    }

    @Test func keyFilesCarryTheGermanOfPoDe() throws {
        let home = try Home()
        defer { home.remove() }
        try home.integration("install")
        let keys = Self.labelledKeys(home.data)
        let values = try Self.readWithGLib(keys, home: home)
        let german = try Self.german(values.map(\.english), home: home)
        for (key, value) in zip(keys, values) {
            #expect(value.hasGerman, "\(key.path) [\(key.group)] has no \(key.key)[de]")
            #expect(!value.german.isEmpty && value.german == german[value.english],
                    "\(key.path) [\(key.group)] \(key.key)[de]=\(value.german), po/de.po: \(german[value.english] ?? "-")")
        }
        // A spot check that the catalog is German at all (the rest compares with po/de.po).
        #expect(!(german["Extract Here"] ?? "").isEmpty && german["Extract Here"] != "Extract Here")
        // Still valid desktop entries with the translations in.
        for name in ["Extract", "Compress", "CompressPdf", "CompressPhotos"] {
            let result = try home.tool("desktop-file-validate", "\(home.data)/applications/\(Self.app).\(name).desktop")
            #expect(result.ok && result.stdout.isEmpty, "\(name): \(result.stdout)\(result.stderr)")
        }
    }

    @Test func thunarActionsCarryGermanNamesAndDescriptions() throws {
        let home = try Home()
        defer { home.remove() }
        try home.integration("install")
        let document = try XMLDocument(contentsOf: URL(fileURLWithPath: home.config + "/Thunar/uca.xml"), options: [])
        var pairs: [(english: String, german: String)] = []
        for entry in InstallTests.entries {
            let action = "/actions/action[unique-id='\(Self.app).\(entry)']"
            for element in ["name", "description"] {
                let english = try document.nodes(forXPath: "\(action)/\(element)[not(@xml:lang)]").first?.stringValue
                let german = try document.nodes(forXPath: "\(action)/\(element)[@xml:lang='de']").first?.stringValue
                #expect(english != nil && german != nil, "\(entry): \(element) in English and German")
                pairs.append((english ?? "", german ?? ""))
            }
            #expect(try document.nodes(forXPath: "\(action)/name[not(@xml:lang)]").first?.stringValue == QuotingTests.labels[entry])
        }
        let expected = try Self.german(pairs.map(\.english), home: home)
        for pair in pairs {
            #expect(!pair.german.isEmpty && pair.german == expected[pair.english], "\(pair.english): \(pair.german)")
        }
    }

    /// The labels of the nautilus-python extension, by entry name, in the given environment.
    static func nautilusLabels(_ home: Home, environment: [String: String]) throws -> [String: String] {
        let program = """
            import importlib.util, json, sys
            spec = importlib.util.spec_from_file_location("ext", sys.argv[1]); ext = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(ext)
            entries = ext.COMPRESS_ENTRIES + ext.EXTRACT_ENTRIES + ext.PDF_ENTRIES + ext.PHOTO_ENTRIES
            print(json.dumps({name: label for name, label, _, _ in entries}))
            """
        return try pythonJSON(program, [try home.nautilusExtension()], home: home,
                              environment: environment)
    }

    @Test func nautilusExtensionSpeaksTheSessionsLanguage() throws {
        let home = try Home()
        defer { home.remove() }
        try home.integration("install")
        #expect(try Self.nautilusLabels(home, environment: home.environment) == QuotingTests.labels)
        // Python's gettext follows LANGUAGE even where C's does not (no German locale needed).
        let german = try Self.nautilusLabels(home, environment: home.environment.merging(["LANGUAGE": "de"]) { $1 })
        let expected = try Self.german(Array(QuotingTests.labels.values), home: home)
        #expect(german.keys.sorted() == QuotingTests.labels.keys.sorted())
        for (entry, english) in QuotingTests.labels {
            #expect(german[entry] == expected[english] && german[entry] != english, "\(entry): \(german[entry] ?? "-")")
        }
    }

    /// The catalog is installed as <PREFIX>/share/locale/de/LC_MESSAGES/archiver.mo: <bindir>/../share/locale,
    /// where Catalog.installedDirectory looks, and where the extension is told to look.
    @Test func catalogIsInstalledBesideTheExecutables() throws {
        let home = try Home()
        defer { home.remove() }
        let prefix = home.home + "/.local"
        try FileManager.default.createDirectory(atPath: prefix + "/bin", withIntermediateDirectories: true)
        for exe in Paths.executables { try FileManager.default.copyItem(atPath: home.bin + "/" + exe, toPath: prefix + "/bin/" + exe) }
        try home.integration("install", extra: ["PREFIX": prefix, "BINDIR": prefix + "/bin"])
        let mo = prefix + "/bin/../share/locale/de/LC_MESSAGES/archiver.mo"
        #expect(FileManager.default.fileExists(atPath: mo))
        let manifest = try String(contentsOfFile: home.data + "/\(Self.app)/installed", encoding: .utf8)
        #expect(manifest.contains("f\t\(prefix)/share/locale/de/LC_MESSAGES/archiver.mo\n"))
        let read = try home.tool("msgunfmt", mo)
        #expect(read.ok && read.stdout.contains("msgid \"Extract Here\""), "\(read.stderr)")
        let extension_ = try String(contentsOfFile: try home.nautilusExtension(), encoding: .utf8)
        #expect(extension_.contains("LOCALE_DIR = \"\(prefix)/share/locale\""))
    }

    /// Nautilus scripts have no translations: their file names are chosen from the installer's locale, and
    /// a later install in another language replaces them.
    @Test func nautilusScriptsAreNamedInTheInstallersLanguage() throws {
        let home = try Home()
        defer { home.remove() }
        let scripts = Bytes(home.data + "/nautilus/scripts/Archiver")
        try home.integration("install", extra: ["LANGUAGE": "de"])
        let german = try Self.german(Array(QuotingTests.labels.values), home: home)
        #expect(Set(names(in: scripts).map(\.text)) == Set(german.values))

        try home.integration("install")
        #expect(Set(names(in: scripts).map(\.text)) == Set(QuotingTests.labels.values))
        try home.integration("uninstall")
        #expect(snapshot(home.home).isEmpty, "left behind: \(snapshot(home.home).nodes.keys.sorted())")
    }

    /// With LANG unset (and no LANGUAGE) every untranslated value is the English one, as before.
    @Test func englishIsUnchangedWithoutALocale() throws {
        let home = try Home()
        defer { home.remove() }
        var environment = home.environment
        environment["LANG"] = nil
        let installed = try run([Bytes("bash"), Bytes(Paths.script), Bytes("install")], environment: environment)
        try #require(installed.ok, "\(installed.stderr)")
        for entry in InstallTests.flatEntries {
            let label = QuotingTests.longLabels[entry]
            let nemo = try KeyFile(path: "\(home.data)/nemo/actions/\(Self.app).\(entry).nemo_action")
            #expect(nemo["Nemo Action", "Name"] == label)
            let action = try KeyFile(path: "\(home.data)/file-manager/actions/\(Self.app).\(entry).desktop")
            #expect(action["Desktop Entry", "Name"] == label)
            #expect(action["Desktop Entry", "Tooltip"] == label)
        }
        let dolphin = try KeyFile(path: "\(home.data)/kio/servicemenus/\(Self.app).extract.desktop")
        #expect(dolphin["Desktop Action extract-here", "Name"] == "Extract Here")
        #expect(dolphin["Desktop Entry", "X-KDE-Submenu"] == "Archiver")
        let handler = try KeyFile(path: "\(home.data)/applications/\(Self.app).Extract.desktop")
        #expect(handler["Desktop Entry", "Name"] == "Archiver")
        #expect(handler["Desktop Entry", "X-GNOME-FullName"] == "Extract with Archiver")
        #expect(Set(names(in: Bytes(home.data + "/nautilus/scripts/Archiver")).map(\.text)) == Set(QuotingTests.labels.values))
    }

    /// GLib translates the schema's summaries itself once our domain is bound (gettext-domain="archiver").
    @Test func schemaSummariesAreTranslated() throws {
        let home = try Home()
        defer { home.remove() }
        try home.integration("install")
        let program = """
            import json, locale, sys
            from gi.repository import Gio
            locale.setlocale(locale.LC_ALL, "")
            locale.bindtextdomain("archiver", sys.argv[2])
            source = Gio.SettingsSchemaSource.new_from_directory(sys.argv[1], None, False)
            key = source.lookup("io.github.archiver", False).get_key("default-format")
            print(json.dumps([key.get_summary()]))
            """
        let environment = home.environment.merging(["LANGUAGE": "de"]) { $1 }
        let summary: [String] = try Self.pythonJSON(program, [home.data + "/glib-2.0/schemas", home.home + "/.local/share/locale"],
                                                    home: home, environment: environment)
        let expected = try Self.german(["Default archive format"], home: home)
        #expect(summary == [expected["Default archive format"] ?? ""] && summary != ["Default archive format"])
    }
}
