import Foundation
import Testing

/// The menus without submenus (Nemo, Caja, PCManFM) offer exactly the entries of DESIGN.md's menu table. Which
/// entries a selection gets is worked out from the installed files the way each file manager does it (Nemo:
/// nemo-action.c, nemo_action_get_visibility; DES-EMA: libfm's fm-action.c and caja-actions' na-icontext.c),
/// with Nemo's `Conditions=exec` run for real, by the real executable, on real files.
@Suite struct FlatMenuTests {
    static let app = InstallTests.app

    /// A selected item: a real file or folder, and the MIME type the file manager gives it.
    struct Item {
        let path: Bytes
        let type: String
    }

    /// What each row of the table offers (folders count as photo folders: the type filter cannot tell).
    static let archivesOnly: Set = ["extract-here", "extract-window", "open-folder", "compress-window"]
    static let anything: Set = ["compress", "compress-window"]

    /// Sample items in `folder`: zips (one with an odd name, for the condition's quoting), text, a folder,
    /// a PDF and a photo.
    static func samples(in folder: Bytes) throws -> [String: Item] {
        makeDirectory(folder)
        let files: [(String, Bytes, Bytes, String)] = [
            ("zip", Bytes("Holiday.zip"), zipBytes, "application/zip"),
            ("odd zip", oddNames[1] + Bytes(" ") + oddNames[5] + Bytes(".zip"), zipBytes, "application/zip"),
            ("text", Bytes("notes.txt"), Bytes("Some notes.\n"), "text/plain"),
            ("pdf", Bytes("report.pdf"), Bytes("%PDF-1.4\n%\u{E2}\u{E3}\n".utf8), "application/pdf"),
            ("photo", Bytes("beach.jpg"), [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Bytes("JFIF".utf8) + [0], "image/jpeg"),
        ]
        var items: [String: Item] = [:]
        for (key, name, contents, type) in files {
            try write(contents, to: folder / name)
            items[key] = Item(path: folder / name, type: type)
        }
        makeDirectory(folder / Bytes("a folder"))
        items["folder"] = Item(path: folder / Bytes("a folder"), type: "inode/directory")
        return items
    }

    /// Each entry's Nemo action: whether Nemo shows it for `items`. Every key that decides is looked at, and
    /// one this model does not know fails the test rather than being ignored.
    static func nemoShows(_ entry: String, _ items: [Item], home: Home) throws -> Bool {
        let path = "\(home.data)/nemo/actions/\(app).\(entry).nemo_action"
        let action = try KeyFile(path: path)
        let known: Set = ["Active", "Name", "Comment", "Icon-Name", "Exec", "Selection", "Extensions", "Mimetypes", "Conditions"]
        let keys = Set(action.groups["Nemo Action", default: [:]].keys.filter { !$0.contains("[") })
        #expect(keys.isSubset(of: known), "\(path): \(keys.subtracting(known))")
        guard action["Nemo Action", "Active"] == "true", action["Nemo Action", "Selection"] == "notnone", !items.isEmpty
        else { return false }
        // Extensions=any, or every item of one of the Mimetypes.
        if action["Nemo Action", "Extensions"] != "any;" {
            let types = (action["Nemo Action", "Mimetypes"] ?? "").split(separator: ";").map(String.init)
            guard items.allSatisfy({ types.contains($0.type) }) else { return false }
        }
        // Conditions, a GKeyFile list: each `exec COMMAND` runs with %F expanded, and exit 0 shows the entry.
        for condition in try glibList(path, "Nemo Action", "Conditions", home: home) {
            guard condition.hasPrefix("exec ") else { throw Failure("\(path): unknown condition \(condition)") }
            let argv = try Launch.nemo(exec: String(condition.dropFirst(5)), files: items.map(\.path))
            let result = try run(argv, environment: home.environment)
            #expect(result.stdout.isEmpty && result.stderr.isEmpty, "\(condition): \(result.stdout)\(result.stderr)")
            if !result.ok { return false }
        }
        return true
    }

    /// Each entry's DES-EMA action (Caja, PCManFM): every item must have one of the profile's types and none
    /// of those written after "!" (libfm compares names exactly, Caja by g_content_type_is_a; the samples'
    /// types are no subclasses, so both agree here).
    static func fileManagerActionShows(_ entry: String, _ items: [Item], home: Home) throws -> Bool {
        let action = try KeyFile(path: "\(home.data)/file-manager/actions/\(app).\(entry).desktop")
        let group = "X-Action-Profile selection"
        #expect(action["Desktop Entry", "Profiles"] == "selection;" && action[group, "SelectionCount"] == ">0")
        let types = (action[group, "MimeTypes"] ?? "").split(separator: ";").map(String.init)
        let refused = types.filter { $0.hasPrefix("!") }.map { String($0.dropFirst()) }
        let accepted = types.filter { !$0.hasPrefix("!") }
        return !items.isEmpty && items.allSatisfy { item in
            accepted.contains { $0 == "all/all" || $0 == item.type } && !refused.contains(item.type)
        }
    }

    /// A list value as GLib reads it (g_key_file_get_string_list, as Nemo reads Conditions): [] when absent.
    static func glibList(_ path: String, _ group: String, _ key: String, home: Home) throws -> [String] {
        let program = """
            import json, sys
            from gi.repository import GLib
            f = GLib.KeyFile(); f.load_from_file(sys.argv[1], GLib.KeyFileFlags.NONE)
            group, key = sys.argv[2], sys.argv[3]
            print(json.dumps(f.get_string_list(group, key) if key in f.get_keys(group)[0] else []))
            """
        return try TranslationTests.pythonJSON(program, [path, group, key], home: home)
    }

    /// The flat entries: one Nemo action and one DES-EMA action each, nothing else of ours.
    static func installedEntries(home: Home) throws -> (nemo: Set<String>, fileManager: Set<String>) {
        func ids(_ folder: String, _ suffix: String) throws -> Set<String> {
            Set(try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix(app + ".") }
                .map { String($0.dropFirst(app.count + 1).dropLast(suffix.count)) })
        }
        return (try ids("\(home.data)/nemo/actions", ".nemo_action"), try ids("\(home.data)/file-manager/actions", ".desktop"))
    }

    @Test func eachSelectionGetsItsRowOfTheTable() throws {
        let home = try Home()
        defer { home.remove() }
        try home.integration("install")
        let installed = try Self.installedEntries(home: home)
        #expect(installed.nemo == Set(InstallTests.flatEntries) && installed.fileManager == Set(InstallTests.flatEntries))
        #expect(installed.nemo.contains("open-folder") && !installed.nemo.contains("compress-each"))
        let items = try Self.samples(in: Bytes(home.root + "/selection"))
        func pick(_ keys: String...) -> [Item] { keys.compactMap { items[$0] } }

        let rows: [(String, [Item], Set<String>)] = [
            ("a zip", pick("zip"), Self.archivesOnly),
            ("two zips, one oddly named", pick("zip", "odd zip"), Self.archivesOnly),
            ("a text file", pick("text"), Self.anything),
            ("a folder", pick("folder"), Self.anything.union(["compress-photos"])),
            ("a PDF", pick("pdf"), Self.anything.union(["compress-pdf"])),
            ("a photo", pick("photo"), Self.anything.union(["compress-photos"])),
            ("a text file and a folder", pick("text", "folder"), Self.anything),
        ]
        for (selection, chosen, expected) in rows {
            let nemo = try Set(installed.nemo.filter { try Self.nemoShows($0, chosen, home: home) })
            #expect(nemo == expected, "Nemo, \(selection): \(nemo.sorted())")
            let fileManager = try Set(installed.fileManager.filter { try Self.fileManagerActionShows($0, chosen, home: home) })
            #expect(fileManager == expected, "Caja and PCManFM, \(selection): \(fileManager.sorted())")
        }

        // Archives and other files together: "Compress" (at once) as well in Nemo, whose condition looks at
        // every item; DES-EMA can only hide it when any item is an archive (menu-entries.in says so).
        for mix in [pick("zip", "text"), pick("text", "odd zip"), pick("folder", "zip")] {
            let names = mix.map { $0.path.text }
            #expect(try installed.nemo.filter { try Self.nemoShows($0, mix, home: home) } == Self.anything, "\(names)")
            #expect(try Set(installed.fileManager.filter { try Self.fileManagerActionShows($0, mix, home: home) }) == ["compress-window"], "\(names)")
        }
    }

    /// The condition itself, on the real files: hidden only when every item is an archive, with the type GIO
    /// gives it as Nemo reads it (a zip without a suffix is one by its bytes; a name ending in .zip is one by
    /// the name alone, for Nemo's Extract entries too), and shown when an item cannot be read.
    @Test func nemoConditionLooksAtEveryItemsContent() throws {
        let home = try Home()
        defer { home.remove() }
        try home.integration("install")
        let folder = Bytes(home.root + "/content")
        let items = try Self.samples(in: folder)
        try write(zipBytes, to: folder / Bytes("no suffix"))
        try write(Bytes("not a zip\n"), to: folder / Bytes("fake.zip"))
        let conditions = try Self.glibList("\(home.data)/nemo/actions/\(Self.app).compress.nemo_action", "Nemo Action", "Conditions", home: home)
        #expect(conditions.count == 1)
        let condition = try #require(conditions.first?.dropFirst("exec ".count))
        func shown(_ paths: [Bytes]) throws -> Bool {
            try run(Launch.nemo(exec: String(condition), files: paths), environment: home.environment).ok
        }
        let zip = try #require(items["zip"]?.path), text = try #require(items["text"]?.path)
        #expect(try !shown([zip]))
        #expect(try !shown([zip, folder / Bytes("no suffix")]))
        #expect(try shown([text]))
        #expect(try shown([zip, text]))
        #expect(try !shown([folder / Bytes("fake.zip")]))
        #expect(try shown([folder / Bytes("fake.zip"), text]))
        #expect(try shown([zip, folder / Bytes("gone.zip")]))
    }
}
