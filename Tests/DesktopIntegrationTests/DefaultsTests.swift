import Foundation
import Testing

/// Installing changes nobody's defaults: GLib (`gio mime`) and xdg-utils (`xdg-mime query default`) name the
/// same application for folders, PDFs, photos, text and archives before install, after it and after
/// uninstall, on a bare system and under GNOME with its gnome-mimeapps.list; ours are still offered.
@Suite struct DefaultsTests {
    static let types = [
        "inode/directory", "application/pdf", "image/jpeg", "image/png", "image/webp", "text/plain", "application/zip",
        "application/x-compressed-tar",
    ]

    /// A system data folder with the applications a distribution ships for those types. "aaa.Viewer" sorts
    /// first in mimeinfo.cache, so it is the bare system's default for most; gnome-mimeapps.list (read only
    /// with XDG_CURRENT_DESKTOP=GNOME) names others. Each application runs `viewer`, which notes its arguments.
    static func makeSystem(in root: String, gnome: Bool) throws -> String {
        let applications = root + "/system/applications"
        try FileManager.default.createDirectory(atPath: applications, withIntermediateDirectories: true)
        let viewer = root + "/system/viewer"
        try "#!/bin/sh\nprintf '%s\\n' \"$@\" >> \"\(root)/opened\"\n".write(toFile: viewer, atomically: true, encoding: .utf8)
        chmod(viewer, 0o755)
        let apps = [
            "aaa.Viewer": "inode/directory;application/pdf;image/jpeg;image/png;text/plain;application/zip;",
            "org.gnome.Nautilus": "inode/directory;", "org.gnome.Evince": "application/pdf;",
            "org.gnome.Loupe": "image/jpeg;image/png;image/webp;", "org.gnome.TextEditor": "text/plain;",
            "org.gnome.FileRoller": "application/zip;application/x-compressed-tar;",
        ]
        for (id, types) in apps {
            try "[Desktop Entry]\nType=Application\nName=\(id)\nExec=\(viewer) %f\nMimeType=\(types)\n"
                .write(toFile: "\(applications)/\(id).desktop", atomically: true, encoding: .utf8)
        }
        if gnome {
            try """
                [Default Applications]
                inode/directory=org.gnome.Nautilus.desktop
                application/pdf=org.gnome.Evince.desktop
                image/jpeg=org.gnome.Loupe.desktop
                image/png=org.gnome.Loupe.desktop
                text/plain=org.gnome.TextEditor.desktop
                application/zip=org.gnome.FileRoller.desktop

                """.write(toFile: applications + "/gnome-mimeapps.list", atomically: true, encoding: .utf8)
        }
        let updated = try run([Bytes("update-desktop-database"), Bytes(applications)], environment: [:])
        guard updated.ok else { throw Failure("update-desktop-database: \(updated.stderr)") }
        return root + "/system"
    }

    /// The session: the system folder before /usr/share, GNOME or no desktop at all (xdg-utils' generic mode).
    static func environment(_ home: Home, system: String, gnome: Bool) -> [String: String] {
        var environment = home.environment.merging(["XDG_DATA_DIRS": system + ":/usr/share"]) { $1 }
        environment["XDG_CURRENT_DESKTOP"] = gnome ? "GNOME" : nil
        return environment
    }

    /// Each type's default as GLib and as xdg-mime name it.
    static func defaults(_ environment: [String: String]) throws -> [String: String] {
        var out: [String: String] = [:]
        for type in types {
            let gio = try run([Bytes("gio"), Bytes("mime"), Bytes(type)], environment: environment)
            let xdg = try run([Bytes("xdg-mime"), Bytes("query"), Bytes("default"), Bytes(type)], environment: environment)
            let first = gio.stdout.split(separator: "\n").first.map(String.init) ?? gio.stderr
            out[type] = "gio: \(first) | xdg-mime: \(xdg.stdout.trimmingCharacters(in: .whitespacesAndNewlines))"
        }
        return out
    }

    @Test(arguments: [false, true])
    func installChangesNoDefault(gnome: Bool) throws {
        let home = try Home("installChangesNoDefault\(gnome)")
        defer { home.remove() }
        let environment = Self.environment(home, system: try Self.makeSystem(in: home.root, gnome: gnome), gnome: gnome)
        let before = try Self.defaults(environment)
        for type in Self.types { #expect(before[type]?.contains("Default application for") == true, "\(type): \(before[type] ?? "")") }
        if gnome { #expect(before["application/pdf"]?.contains("org.gnome.Evince.desktop") == true) }
        let files = snapshot(home.home)

        try home.integration("install", extra: environment)
        #expect(try Self.defaults(environment) == before)
        // Still offered: "Open with" lists ours among each type's registered applications.
        for (type, handler) in ["application/pdf": "CompressPdf", "image/jpeg": "CompressPhotos", "image/webp": "CompressPhotos",
                                "application/zip": "Extract", "application/x-compressed-tar": "Extract"] {
            let listed = try run([Bytes("gio"), Bytes("mime"), Bytes(type)], environment: environment).stdout
            #expect(listed.contains("\tio.github.archiver.\(handler).desktop"), "\(type): \(listed)")
        }
        // Where nothing else opens a type, GLib takes the one application there is: ours.
        let heif = try run([Bytes("gio"), Bytes("mime"), Bytes("image/heif")], environment: environment).stdout
        #expect(heif.hasPrefix("Default application for “image/heif”: io.github.archiver.CompressPhotos.desktop"), "\(heif)")

        try home.integration("uninstall", extra: environment)
        #expect(try Self.defaults(environment) == before)
        #expect(files.differences(to: snapshot(home.home), .layout) == [])
    }

    /// xdg-open without a desktop (xdg-utils' generic mode reads the Exec key itself): with Archiver the
    /// default for zip, a zip extracts, while a PDF and a folder still open in their own applications.
    @Test func xdgOpenInGenericModeRunsTheHandlers() throws {
        let home = try Home(plainBin: true)
        defer { home.remove() }
        let environment = Self.environment(home, system: try Self.makeSystem(in: home.root, gnome: false), gnome: false)
            .merging(["DISPLAY": ":99"]) { $1 }  // xdg-open asks only whether one is set; nothing is drawn
        try home.integration("install", extra: environment)
        try home.integration("set-default", extra: environment)

        let files = home.root + "/files"
        try FileManager.default.createDirectory(atPath: files + "/folder", withIntermediateDirectories: true)
        try "one".write(toFile: files + "/one.txt", atomically: true, encoding: .utf8)
        try "two".write(toFile: files + "/two.txt", atomically: true, encoding: .utf8)
        #expect(try run([Bytes("zip"), Bytes("-q"), Bytes("s.zip"), Bytes("one.txt"), Bytes("two.txt")], environment: environment,
                        in: Bytes(files)).ok)
        try Data("%PDF-1.4\n%\u{E2}\u{E3}\n".utf8).write(to: URL(fileURLWithPath: files + "/doc.pdf"))

        for item in ["s.zip", "doc.pdf", "folder"] {
            let opened = try run([Bytes("xdg-open"), Bytes(files + "/" + item)], environment: environment)
            #expect(opened.ok, "\(item): \(opened.stderr)")
        }
        #expect(try String(contentsOfFile: files + "/s/two.txt", encoding: .utf8) == "two", "the zip was not extracted")
        let viewed = (try? String(contentsOfFile: home.root + "/opened", encoding: .utf8)) ?? ""
        #expect(viewed == "\(files)/doc.pdf\n\(files)/folder\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: files).sorted() == ["doc.pdf", "folder", "one.txt", "s", "s.zip", "two.txt"])
    }

    /// Nautilus gets one "Archiver" menu: the scripts without python3-nautilus, the extension with it (install
    /// again after installing or removing it), nothing per user beside a system-wide extension.
    @Test func nautilusGetsOneMenu() throws {
        let home = try Home()
        defer { home.remove() }
        let fm = FileManager.default
        let scripts = home.data + "/nautilus/scripts/Archiver"
        let extension_ = home.data + "/nautilus-python/extensions/io_github_archiver.py"
        let files = snapshot(home.home)
        for loader in ["/nonexistent", "/bin/sh", "/nonexistent"] {
            try home.integration("install", extra: ["NAUTILUS_PYTHON": loader])
            let python = loader == "/bin/sh"
            #expect(fm.fileExists(atPath: extension_) == python, "\(loader)")
            #expect(((try? fm.contentsOfDirectory(atPath: scripts)) ?? []).count == (python ? 0 : QuotingTests.labels.count))
            #expect(fm.fileExists(atPath: scripts) == !python)
        }
        // The Debian package's extension in /usr/share: a user's own install adds neither.
        let system = home.root + "/system/nautilus-python/extensions"
        try fm.createDirectory(atPath: system, withIntermediateDirectories: true)
        try "".write(toFile: system + "/io_github_archiver.py", atomically: true, encoding: .utf8)
        try home.integration("install", extra: ["NAUTILUS_PYTHON": "/bin/sh", "XDG_DATA_DIRS": home.root + "/system:/usr/share"])
        #expect(!fm.fileExists(atPath: extension_) && !fm.fileExists(atPath: scripts))
        try home.integration("uninstall")
        #expect(files.differences(to: snapshot(home.home), .layout) == [], "left behind: \(Set(snapshot(home.home).nodes.keys).subtracting(files.nodes.keys).sorted())")
    }
}
