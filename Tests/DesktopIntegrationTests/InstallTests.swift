import Foundation
import FoundationXML
import Testing

/// What install puts down, checked with the real validators and parsers; and that uninstall takes it all back.
@Suite struct InstallTests {
    static let app = "io.github.archiver"
    static let entries = [
        "compress", "compress-window", "compress-each", "extract-here", "extract-window", "open-folder", "compress-pdf",
        "compress-photos",
    ]
    /// The entries of the menus without submenus (Nemo, Caja, PCManFM).
    static var flatEntries: [String] { entries.filter { !QuotingTests.notFlat.contains($0) } }
    /// What each kind of entry is offered for, as DES-EMA and Dolphin files say it.
    static let photoTypes = "image/jpeg;image/png;image/heic;image/heif;image/avif;image/webp;image/tiff;"
    static func offered(_ entry: String) -> (types: String?, prefix: String?) {
        switch entry {
        case "compress-pdf": ("application/pdf;", nil)
        case "compress-photos": (photoTypes + "inode/directory;", nil)
        case let e where e.hasPrefix("extract") || e == "open-folder": (nil, "application/zip;")
        default: ("all/all;", nil)
        }
    }
    /// The archive types (desktop-files/archive-types.list).
    static var archiveTypes: [String] {
        let list = (try? String(contentsOfFile: Paths.packageRoot + "/desktop-files/archive-types.list", encoding: .utf8)) ?? ""
        return list.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") }
    }
    /// What an entry of the menus without submenus is offered for, as DES-EMA files say it: "Compress" (at
    /// once) not when an item is an archive (menu-entries.in's Flat=not-archives).
    static func offeredFlat(_ entry: String) -> (types: String?, prefix: String?) {
        entry == "compress" ? ("all/all;" + archiveTypes.map { "!\($0);" }.joined(), nil) : offered(entry)
    }

    @Test func applicationFilesPassDesktopFileValidate() throws {
        let home = try Home()
        defer { home.remove() }
        try home.integration("install")
        let handlers = [
            "Extract": "extract", "Compress": "compress", "CompressPdf": "compress-pdf", "CompressPhotos": "compress-photos",
        ]
        for (name, executable) in handlers {
            let path = "\(home.data)/applications/\(Self.app).\(name).desktop"
            let result = try home.tool("desktop-file-validate", path)
            #expect(result.ok && result.stdout.isEmpty && result.stderr.isEmpty, "\(path): \(result.stdout)\(result.stderr)")
            let file = try KeyFile(path: path)
            // Compress PDF… and Compress Photos… open their windows; the others run the command-line tools.
            let program = ["compress-pdf": "archiver-compress-pdf", "compress-photos": "archiver-compress-photos"][executable] ?? "\(executable)-with-archiver"
            #expect(file["Desktop Entry", "TryExec"] == "\(home.bin)/\(program)")
            #expect(file["Desktop Entry", "NoDisplay"] == "true")
        }
        // "Open with" handlers claim only our own types, which the archive types, PDFs and photos subclass
        // (DefaultsTests: so no default changes).
        #expect(try KeyFile(path: "\(home.data)/applications/\(Self.app).CompressPdf.desktop")["Desktop Entry", "MimeType"] == "application/x-archiver-pdf;")
        #expect(try KeyFile(path: "\(home.data)/applications/\(Self.app).CompressPhotos.desktop")["Desktop Entry", "MimeType"] == "image/x-archiver-photo;")
        let extract = try KeyFile(path: "\(home.data)/applications/\(Self.app).Extract.desktop")
        #expect(extract["Desktop Entry", "MimeType"] == "application/x-archiver-archive;")
        let subclasses = try String(contentsOfFile: home.data + "/mime/subclasses", encoding: .utf8)
        // Old and new shared-mime-info names, the Outlook alias and our split-part type (notes §1).
        for type in ["application/zip", "application/x-zip-compressed", "application/x-bzip", "application/x-bzip2",
                     "application/x-bzip-compressed-tar", "application/x-bzip2-compressed-tar",
                     "application/vnd.rar", "application/x-rar", "application/x-archiver-split-part"] {
            #expect(subclasses.contains("\(type) application/x-archiver-archive\n"), "\(type) is no subclass of ours")
        }
        for type in ["application/pdf x-archiver-pdf", "image/jpeg x-archiver-photo", "image/heif x-archiver-photo"] {
            #expect(subclasses.contains(type.replacingOccurrences(of: " x-", with: type.hasPrefix("image") ? " image/x-" : " application/x-")))
        }
        let compress = try KeyFile(path: "\(home.data)/applications/\(Self.app).Compress.desktop")
        #expect(compress["Desktop Entry", "MimeType"] == nil, "Compress must not claim any type")
    }

    /// Dolphin, Nemo and DES-EMA files are rejected by desktop-file-validate by design (notes §2): they are
    /// parsed as key files, by GLib's GKeyFile and by our own reader, and checked for the keys they need.
    @Test func menuFilesHoldTheKeysTheirFileManagersNeed() throws {
        let home = try Home()
        defer { home.remove() }
        try home.integration("install")
        var keyFiles: [String] = []

        for kind in ["compress", "extract", "compress-pdf", "compress-photos"] {
            let path = "\(home.data)/kio/servicemenus/\(Self.app).\(kind).desktop"
            keyFiles.append(path)
            #expect(FileManager.default.isExecutableFile(atPath: path), "Dolphin ignores a non-executable \(path)")
            let file = try KeyFile(path: path)
            #expect(file["Desktop Entry", "Type"] == "Service")
            #expect(file["Desktop Entry", "X-KDE-Submenu"] == "Archiver")
            let types = file["Desktop Entry", "MimeType"] ?? ""
            if kind == "extract" {
                #expect(!types.contains("all/") && !types.contains("inode/"))
            } else {
                #expect(types == Self.offered(kind).types, "\(kind): \(types)")
            }
            let actions = (file["Desktop Entry", "Actions"] ?? "").split(separator: ";")
            #expect(actions.count == ["compress": 3, "extract": 3][kind, default: 1])
            for action in actions {
                #expect(file["Desktop Action \(action)", "Name"] != nil)
                #expect(file["Desktop Action \(action)", "Exec"]?.hasSuffix(" -- %F") == true)
            }
        }
        for entry in Self.flatEntries {
            let nemoPath = "\(home.data)/nemo/actions/\(Self.app).\(entry).nemo_action"
            let actionPath = "\(home.data)/file-manager/actions/\(Self.app).\(entry).desktop"
            keyFiles += [nemoPath, actionPath]
            let nemo = try KeyFile(path: nemoPath)
            #expect(nemo["Nemo Action", "Name"] != nil && nemo["Nemo Action", "Selection"] == "notnone")
            #expect(nemo["Nemo Action", "Exec"]?.hasSuffix(" -- %F") == true)
            let filter = Self.offered(entry).types == "all/all;" ? nemo["Nemo Action", "Extensions"] : nemo["Nemo Action", "Mimetypes"]
            #expect(filter?.isEmpty == false, "\(nemoPath) has no filter")
            // Only "Compress" (at once) asks compress-with-archiver whether to show itself (FlatMenuTests).
            #expect((nemo["Nemo Action", "Conditions"] != nil) == (entry == "compress"), "\(nemoPath)")

            let action = try KeyFile(path: actionPath)
            #expect(action["Desktop Entry", "Type"] == "Action")
            #expect(action["Desktop Entry", "Profiles"] == "selection;")
            // PCManFM shows the Tooltip in place of the Name, so the two are the same.
            #expect(action["Desktop Entry", "Tooltip"] == action["Desktop Entry", "Name"])
            let types = action["X-Action-Profile selection", "MimeTypes"] ?? ""
            let offered = Self.offeredFlat(entry)
            #expect(offered.types.map { types == $0 } ?? types.hasPrefix(offered.prefix ?? ""), "\(entry): \(types)")
            #expect(action["X-Action-Profile selection", "Exec"]?.hasSuffix(" -- %F") == true)
        }
        // GLib's own parser, the one Nemo and Caja use.
        let python = "import sys, gi\nfrom gi.repository import GLib\nfor p in sys.argv[1:]: GLib.KeyFile().load_from_file(p, 0)"
        let parsed = try run([Bytes("/usr/bin/python3"), Bytes("-c"), Bytes(python)] + keyFiles.map { Bytes($0) },
                             environment: home.environment)
        #expect(parsed.ok, "GKeyFile: \(parsed.stderr)")

        for entry in QuotingTests.labels.values {
            let script = "\(home.data)/nautilus/scripts/Archiver/\(entry)"
            #expect(FileManager.default.isExecutableFile(atPath: script))
            #expect(try home.tool("sh", "-n", script).ok)
        }
        let extension_ = try home.nautilusExtension()
        let compiled = try home.tool("/usr/bin/python3", "-c", "import ast,sys; ast.parse(open(sys.argv[1]).read())", extension_)
        #expect(compiled.ok, "\(compiled.stderr)")
    }

    @Test func mimePackagePassesUpdateMimeDatabaseWithoutWarnings() throws {
        let home = try Home()
        defer { home.remove() }
        try home.integration("install")
        // The installed package (with the generated subclasses), alone in the home's database.
        let mime = home.data + "/mime"
        #expect(try FileManager.default.contentsOfDirectory(atPath: mime + "/packages") == ["\(Self.app).xml"])
        let result = try home.tool("update-mime-database", mime)
        #expect(result.ok && result.stderr.isEmpty, "\(result.stderr)")
    }

    static let userAction = """
        <?xml version="1.0" encoding="UTF-8"?>
        <actions>
        <action><icon>utilities-terminal</icon><name>Open Terminal Here</name><submenu></submenu>
        <unique-id>1700000000000000-1</unique-id><command>exo-open --working-directory %f --launch TerminalEmulator</command>
        <description>Mine</description><range></range><patterns>*</patterns><startup-notify/><directories/></action>
        </actions>

        """

    /// Unique-ids of the actions in a uca.xml, parsed by a real XML parser (so it must be well-formed).
    static func thunarActions(_ path: String) throws -> [String] {
        let document = try XMLDocument(contentsOf: URL(fileURLWithPath: path), options: [])
        return try document.nodes(forXPath: "/actions/action/unique-id").compactMap(\.stringValue)
    }

    @Test func thunarActionsAreMergedAndUnmergedKeepingTheUsersOwn() throws {
        let home = try Home()
        defer { home.remove() }
        let uca = home.config + "/Thunar/uca.xml"
        try FileManager.default.createDirectory(atPath: home.config + "/Thunar", withIntermediateDirectories: true)
        try Self.userAction.write(toFile: uca, atomically: true, encoding: .utf8)

        try home.integration("install")
        let merged = try Self.thunarActions(uca)
        #expect(merged == ["1700000000000000-1"] + Self.entries.map { "\(Self.app).\($0)" })
        let first = try Data(contentsOf: URL(fileURLWithPath: uca))
        try home.integration("install")
        #expect(try Data(contentsOf: URL(fileURLWithPath: uca)) == first, "a second install changed uca.xml")

        try home.integration("uninstall")
        #expect(try Self.thunarActions(uca) == ["1700000000000000-1"])
    }

    /// The app: visible in the app grid with its own icon (scalable and symbolic in hicolor), and an AppStream
    /// description that appstreamcli accepts; German names come from po/ like the menus'.
    @Test func theAppIsVisibleWithItsIconAndAppStreamData() throws {
        let home = try Home()
        defer { home.remove() }
        try home.integration("install")
        let path = "\(home.data)/applications/\(Self.app).desktop"
        let validated = try home.tool("desktop-file-validate", path)
        #expect(validated.ok && validated.stdout.isEmpty && validated.stderr.isEmpty, "\(validated.stdout)\(validated.stderr)")
        let file = try KeyFile(path: path)
        #expect(file["Desktop Entry", "NoDisplay"] == nil)
        #expect(file["Desktop Entry", "Exec"]?.hasSuffix("/archiver\" %F") == true, "\(file["Desktop Entry", "Exec"] ?? "")")
        #expect(file["Desktop Entry", "Icon"] == Self.app)
        let categories = (file["Desktop Entry", "Categories"] ?? "").split(separator: ";")
        #expect(categories.contains("Utility") && categories.contains("Archiving"))
        // The handlers are the app's "Open with" entries: the app itself claims no type, so no name shows twice.
        #expect(file["Desktop Entry", "MimeType"] == nil)
        #expect(file["Desktop Entry", "Comment[de]"] != nil, "the German comment from po/de.po")
        for icon in ["scalable/apps/\(Self.app).svg", "symbolic/apps/\(Self.app)-symbolic.svg"] {
            let svg = try String(contentsOfFile: "\(home.data)/icons/hicolor/\(icon)", encoding: .utf8)
            #expect(svg.contains("<svg"), "\(icon)")
        }
        let metainfo = "\(home.data)/metainfo/\(Self.app).metainfo.xml"
        let appstream = try home.tool("appstreamcli", "validate", "--no-net", metainfo)
        #expect(appstream.ok, "\(appstream.stdout)\(appstream.stderr)")
        #expect(try String(contentsOfFile: metainfo, encoding: .utf8).contains("xml:lang=\"de\""))
    }

    /// Install twice equals install once; set-default then uninstall leaves the home as it was, while
    /// folders and files that were there before survive.
    @Test func uninstallRemovesExactlyWhatInstallAdded() throws {
        let home = try Home()
        defer { home.remove() }
        let mine = home.data + "/applications/someone-else.desktop"
        try FileManager.default.createDirectory(atPath: home.data + "/applications", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: home.config, withIntermediateDirectories: true)
        try "[Desktop Entry]\nType=Application\nName=Mine\nExec=true\n".write(toFile: mine, atomically: true, encoding: .utf8)
        try "[Default Applications]\ntext/plain=mine.desktop;\n".write(toFile: home.config + "/mimeapps.list",
                                                                      atomically: true, encoding: .utf8)
        let before = snapshot(home.home)

        try home.integration("install")
        let installed = snapshot(home.home)
        #expect(installed.nodes.count > before.nodes.count + 30)
        try home.integration("install")
        #expect(installed.differences(to: snapshot(home.home), .layout) == [], "install is not idempotent")

        try home.integration("set-default")
        let mimeapps = try String(contentsOfFile: home.config + "/mimeapps.list", encoding: .utf8)
        #expect(mimeapps.contains("application/zip=\(Self.app).Extract.desktop"))
        #expect(mimeapps.contains("text/plain=mine.desktop;"))

        try home.integration("uninstall")
        // gio rewrites mimeapps.list in its own layout: only its contents are compared, below.
        var after = snapshot(home.home)
        after.nodes[".config/mimeapps.list"] = before.nodes[".config/mimeapps.list"]
        #expect(before.differences(to: after, .layout) == [], "left behind: \(Set(after.nodes.keys).subtracting(before.nodes.keys).sorted())")
        let kept = try String(contentsOfFile: home.config + "/mimeapps.list", encoding: .utf8)
        #expect(kept.contains("text/plain=mine.desktop;") && !kept.contains(Self.app))
    }

    @Test func uninstallInAnEmptyHomeLeavesItEmpty() throws {
        let home = try Home()
        defer { home.remove() }
        try home.integration("install")
        try home.integration("set-default")
        try home.integration("uninstall")
        #expect(snapshot(home.home).isEmpty, "left behind: \(snapshot(home.home).nodes.keys.sorted())")
    }
}
