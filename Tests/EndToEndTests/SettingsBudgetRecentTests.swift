import ArchiverTestSupport
import Foundation
import Testing

/// GSettings defaults (keyfile backend, the schema from this checkout), the time budget's early refusal,
/// and the Recent list, with the real executables.
@Suite struct SettingsBudgetRecentTests {
    static func docs(_ s: ScratchDirectory) throws {
        try FileManager.default.createDirectory(atPath: s.sub("Docs"), withIntermediateDirectories: true)
        try Data(String(repeating: "settings and budgets ", count: 5000).utf8).write(to: URL(fileURLWithPath: s.sub("Docs/a.txt")))
    }

    /// Settings kept in a keyfile under the scratch folder, set with the real `gsettings`.
    static func keyfile(_ s: ScratchDirectory, _ pairs: [(String, String)]) throws -> [String: String] {
        let environment = ["GSETTINGS_BACKEND": "keyfile", "XDG_CONFIG_HOME": s.sub("config")]
        for (key, value) in pairs {
            let set = try E2E.run("/usr/bin/gsettings", ["set", "io.github.archiver", key, value],
                              environment: DesktopIsolation.variables.merging(environment) { $1 })
            #expect(set.status == 0, "gsettings set \(key): \(set.stderr)")
        }
        return environment
    }

    @Test func settingsGiveTheDefaultsAndFlagsBeatThem() throws {
        let s = try ScratchDirectory()
        try Self.docs(s)
        let settings = try Self.keyfile(s, [("default-format", "'tar.zst'"), ("compression-level", "'store'")])
        let stored = try E2E.run("compress-with-archiver", ["--json", s.sub("Docs")], environment: settings)
        #expect(stored.status == 0, "\(stored.stderr)")
        #expect(stored.stderr.isEmpty, "no warning with the schema installed: \(stored.stderr)")
        #expect(s.list().contains("Docs.tar.zst"))
        // store for zstd is level 1, which still compresses; `tar --zstd` reads it.
        #expect(try E2E.run("/usr/bin/tar", ["--zstd", "-tf", s.sub("Docs.tar.zst")]).stdout.contains("Docs/a.txt"))

        let flagged = try E2E.run("compress-with-archiver", ["--format", "zip", s.sub("Docs")], environment: settings)
        #expect(flagged.status == 0)
        #expect(s.list().contains("Docs.zip"))
        // The level setting applies to the flag's format: zip `store` keeps the text as is.
        let listing = try E2E.run("/usr/bin/unzip", ["-v", s.sub("Docs.zip")])
        #expect(listing.stdout.contains("Stored"), "\(listing.stdout)")
    }

    @Test func aMissingSchemaMeansBuiltInDefaultsAndOneWarning() throws {
        let s = try ScratchDirectory()
        try Self.docs(s)
        try FileManager.default.createDirectory(atPath: s.sub("no-schemas"), withIntermediateDirectories: true)
        let out = try E2E.run("compress-with-archiver", [s.sub("Docs")], environment: ["GSETTINGS_SCHEMA_DIR": s.sub("no-schemas")])
        #expect(out.status == 0, "\(out.stderr)")
        #expect(s.list().contains("Docs.zip"))
        let warnings = out.stderr.split(separator: "\n").filter { $0.hasPrefix("warning:") }
        #expect(warnings.count == 1 && warnings[0].contains("not installed"), "\(out.stderr)")
    }

    @Test func aBrokenSchemaFallsBackKeyByKey() throws {
        let s = try ScratchDirectory()
        try Self.docs(s)
        // An older schema under the same id: one key, of another type than ours.
        let folder = s.sub("old-schema")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try """
            <schemalist><schema id="io.github.archiver" path="/io/github/archiver/">
            <key name="time-budget" type="s"><default>'soon'</default></key>
            </schema></schemalist>
            """.write(toFile: folder + "/io.github.archiver.gschema.xml", atomically: true, encoding: .utf8)
        #expect(try E2E.run("/usr/bin/glib-compile-schemas", [folder]).status == 0)
        let out = try E2E.run("compress-with-archiver", ["--json", s.sub("Docs")], environment: ["GSETTINGS_SCHEMA_DIR": folder])
        #expect(out.status == 0, "no crash: \(out.stderr)")
        #expect(s.list().contains("Docs.zip"))
        let warnings = out.stderr.split(separator: "\n").filter { $0.hasPrefix("warning:") }
        #expect(warnings.count == 1 && warnings[0].contains("time-budget") && warnings[0].contains("default-format"), "\(out.stderr)")
    }

    @Test func farOverBudgetIsRefusedBeforeStarting() throws {
        let s = try ScratchDirectory()
        try E2E.python("import os,sys\nos.makedirs(sys.argv[1])\nopen(sys.argv[1] + '/r.bin','wb').write(os.urandom(30 << 20))", [s.sub("Big")])
        let started = Date()
        let out = try E2E.run("compress-with-archiver", ["--json", "--format", "7z", "--time-budget", "1", s.sub("Big")])
        #expect(Date().timeIntervalSince(started) < 5, "refused at once")
        #expect(out.status == 9)
        #expect(out.stderr.contains("Not started") && out.stderr.contains("time budget of 1 s"), "\(out.stderr)")
        #expect(out.stderr.contains("--time-budget"), "suggests a budget that fits: \(out.stderr)")
        #expect(s.list() == ["Big"], "nothing written: \(s.list())")
        #expect((out.json?["error"] as? [String: Any])?["code"] as? Int == 9)

        // The budget from the settings, the same way.
        let settings = try SettingsBudgetRecentTests.keyfile(s, [("time-budget", "1")])
        let fromSetting = try E2E.run("compress-with-archiver", ["--format", "7z", s.sub("Big")], environment: settings)
        #expect(fromSetting.status == 9, "\(fromSetting.stderr)")
        #expect(s.list() == ["Big", "config"])
        // 0 means no limit: the same job runs (7z at store level, to keep the test short).
        let unlimited = try E2E.run("compress-with-archiver", ["--format", "7z", "--level", "store", "--time-budget", "0", s.sub("Big")], environment: settings)
        #expect(unlimited.status == 0, "\(unlimited.stderr)")
    }

    /// `uri app1,app2 mime` per bookmark, as GLib itself reads recently-used.xbel.
    static func recent(_ file: String) throws -> [String] {
        guard FileManager.default.fileExists(atPath: file) else { return [] }
        return try RecentList.read(file).map { uri, entry in
            "\(uri) \(entry.apps.keys.sorted().joined(separator: ",")) \(entry.mime ?? "")"
        }.sorted()
    }

    @Test func madeThingsJoinTheRecentListAndForgetRemovesOnlyOurs() throws {
        let s = try ScratchDirectory()
        try Self.docs(s)
        let data = s.sub("data")
        let xbel = data + "/recently-used.xbel"
        let environment = ["XDG_DATA_HOME": data]
        // Somebody else's entry, there before us.
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        let notes = "file:///elsewhere/notes.txt"
        try RecentList.writeOthers(at: xbel, uri: notes)
        #expect(try E2E.run("compress-with-archiver", [s.sub("Docs")], environment: environment).status == 0)
        try FileManager.default.createDirectory(atPath: s.sub("out"), withIntermediateDirectories: true)
        #expect(try E2E.run("extract-with-archiver", ["--to", s.sub("out"), s.sub("Docs.zip")], environment: environment).status == 0)
        let entries = try Self.recent(xbel)
        #expect(entries.contains("file://\(s.sub("Docs.zip")) Archiver application/zip"), "\(entries)")
        #expect(entries.contains("file://\(s.sub("out/Docs")) Archiver inode/directory"), "\(entries)")
        #expect(entries.contains("\(notes) gedit text/plain"))

        let forget = try E2E.run("extract-with-archiver", ["--forget-recent"], environment: environment)
        #expect(forget.status == 0, "\(forget.stderr)")
        #expect(try Self.recent(xbel) == ["\(notes) gedit text/plain"])

        // remember-recent off: nothing added.
        let settings = try Self.keyfile(s, [("remember-recent", "false")])
        #expect(try E2E.run("compress-with-archiver", ["--name", "Quiet", s.sub("Docs")], environment: environment.merging(settings) { $1 }).status == 0)
        #expect(try Self.recent(xbel) == ["\(notes) gedit text/plain"])
    }
}
