import Foundation
import FoundationXML
import Testing

/// Odd file names reach the executables intact from every mechanism: each file manager's command line is
/// expanded the way it does it (Expansion.swift) and run.
@Suite struct QuotingTests {
    static let labels = [
        "compress": "Compress", "compress-window": "Compress…", "compress-each": "Compress Each Separately",
        "extract-here": "Extract Here", "extract-window": "Extract…", "compress-pdf": "Compress PDF…", "compress-photos": "Compress Photos…",
        "open-folder": "Open as Folder",
    ]
    /// The labels of the menus without submenus, which name Archiver.
    static let longLabels = [
        "compress": "Compress with Archiver", "compress-window": "Compress with Archiver…", "compress-each": "Compress Each Separately with Archiver",
        "extract-here": "Extract Here with Archiver", "extract-window": "Extract with Archiver…",
        "compress-pdf": "Compress PDF with Archiver…", "compress-photos": "Compress Photos with Archiver…",
        "open-folder": "Open as Folder with Archiver",
    ]
    static let options: [String: [String]] = [
        "compress": [], "compress-window": [], "compress-each": ["--each"], "extract-here": ["--here"], "extract-window": [],
        "compress-pdf": [], "compress-photos": [], "open-folder": [],
    ]
    /// The menus without submenus (Nemo, and DES-EMA for Caja and PCManFM), and the entries they leave out.
    static let flatMechanisms: Set = ["nemo", "file-manager-actions"]
    static let notFlat: Set = ["compress-each"]
    /// Which service menu (and "Open with" handler) an entry belongs to.
    static func executable(_ entry: String) -> String {
        ["compress-pdf", "compress-photos"].contains(entry) ? entry
            : entry.hasPrefix("extract") || entry == "open-folder" ? "extract" : "compress"
    }
    /// The program an entry runs: a window for "Compress…", "Extract…", "Compress PDF…" and "Compress
    /// Photos…" (also their "Open with" handlers), else a command-line tool.
    static func program(_ entry: String) -> String {
        switch entry {
        case "compress-window": "archiver-compress"
        case "extract-window": "archiver-extract"
        case "compress-pdf": "archiver-compress-pdf"
        case "compress-photos": "archiver-compress-photos"
        case "open-folder": "open-with-archiver"
        default: executable(entry) + "-with-archiver"
        }
    }
    /// The "Open with" handler that runs an entry's executable.
    static let handlers = [
        "compress": "Compress", "extract": "Extract", "compress-pdf": "CompressPdf", "compress-photos": "CompressPhotos", "open-folder": "Open",
    ]
    static let mechanisms = ["dolphin", "open-with", "nemo", "file-manager-actions", "thunar", "nautilus-script", "nautilus-python"]

    /// The argv a file manager runs for `entry` on `files` (absolute paths in `folder`), and its directory.
    static func launch(_ mechanism: String, _ entry: String, files: [Bytes], folder: Bytes, home: Home) throws -> (argv: [Bytes], cwd: Bytes?) {
        let data = home.data, app = "io.github.archiver"
        switch mechanism {
        case "dolphin":
            let file = try KeyFile(path: "\(data)/kio/servicemenus/\(app).\(executable(entry)).desktop")
            return (try Launch.desktopEntry(exec: file["Desktop Action \(entry)", "Exec"] ?? "", files: files), nil)
        case "open-with":  // the application entries run one default command each
            let file = try KeyFile(path: "\(data)/applications/\(app).\(handlers[entry] ?? handlers[executable(entry)] ?? "").desktop")
            return (try Launch.desktopEntry(exec: file["Desktop Entry", "Exec"] ?? "", files: files), nil)
        case "nemo":
            let file = try KeyFile(path: "\(data)/nemo/actions/\(app).\(entry).nemo_action")
            return (try Launch.nemo(exec: file["Nemo Action", "Exec"] ?? "", files: files), nil)
        case "file-manager-actions":
            let file = try KeyFile(path: "\(data)/file-manager/actions/\(app).\(entry).desktop")
            return (try Launch.fileManagerAction(exec: file["X-Action-Profile selection", "Exec"] ?? "", files: files), nil)
        case "thunar":
            let document = try XMLDocument(contentsOf: URL(fileURLWithPath: home.config + "/Thunar/uca.xml"), options: [])
            let command = try document.nodes(forXPath: "/actions/action[unique-id='\(app).\(entry)']/command").first?.stringValue
            return (Launch.thunar(command: command ?? "", files: files), nil)
        case "nautilus-script":  // names relative to the browsed folder, which is the current directory
            let script = Bytes("\(data)/nautilus/scripts/Archiver/\(labels[entry] ?? "")")
            return ([script] + files.map { Array($0.dropFirst(folder.count + 1)) }, folder)
        default:
            return (try nautilusPython(entry, files: files, home: home), nil)
        }
    }

    /// Asks the installed nautilus-python extension for its entries, with stand-ins for Nautilus.FileInfo.
    static func nautilusPython(_ entry: String, files: [Bytes], home: Home) throws -> [Bytes] {
        let program = """
            import importlib.util, os, sys
            from gi.repository import Gio
            spec = importlib.util.spec_from_file_location("ext", sys.argv[1]); ext = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(ext)
            class Info:
                def __init__(self, path): self.path = path
                def get_location(self): return Gio.File.new_for_path(self.path)
                def is_directory(self): return os.path.isdir(self.path)
                def get_mime_type(self): return "inode/directory" if self.is_directory() else Gio.content_type_guess(self.path, open(self.path, "rb").read(4096))[0]
            files = [Info(os.fsdecode(bytes.fromhex(h))) for h in sys.argv[3:]]
            for name, label, argv in ext.menu_entries(files):
                if name == sys.argv[2]: print(" ".join(os.fsencode(a).hex() for a in argv))
            """
        let hex = { (b: Bytes) in b.map { String(format: "%02x", $0) }.joined() }
        let result = try run([Bytes("/usr/bin/python3"), Bytes("-c"), Bytes(program),
                              Bytes(try home.nautilusExtension()), Bytes(entry)]
                             + files.map { Bytes(hex($0)) }, environment: home.environment)
        guard result.ok else { throw Failure("nautilus-python: \(result.stderr)") }
        return result.stdout.split(whereSeparator: \.isWhitespace).map { word in
            stride(from: 0, to: word.count, by: 2).map { i in
                UInt8(word.dropFirst(i).prefix(2), radix: 16) ?? 0
            }
        }
    }

    /// Every entry of every mechanism, with executables that only record their argv (NUL-separated).
    @Test func everyEntryPassesTheNamesIntact() throws {
        let home = try Home()
        defer { home.remove() }
        let stubs = home.root + "/stub bin $x"
        try FileManager.default.createDirectory(atPath: stubs, withIntermediateDirectories: true)
        for exe in Paths.executables + ["archiver-compress", "archiver-extract", "archiver-compress-pdf", "archiver-compress-photos", "open-with-archiver"] {
            try "#!/bin/sh\nprintf '%s\\0' \"$0\" \"$@\" > \"$ARGV_RECORD\"\n".write(toFile: stubs + "/" + exe, atomically: true, encoding: .utf8)
            chmod(stubs + "/" + exe, 0o755)
        }
        try home.integration("install", extra: ["BINDIR": stubs])
        _ = try home.nautilusExtension(extra: ["BINDIR": stubs])
        let folder = Bytes(home.root + "/odd")
        try makeOddFiles(in: folder)
        // Archives for the Extract entries: the odd names with .zip appended (the nautilus-python extension
        // looks at the contents, so they are real zips).
        let archives = try oddNames.map { name -> Bytes in
            let path = folder / (name + Bytes(".zip"))
            try write(zipBytes, to: path)
            return path
        }
        // PDFs and photos for their entries, by their first bytes too: the nautilus-python extension checks.
        let pdfs = try oddNames.map { name -> Bytes in
            let path = folder / (name + Bytes(".pdf"))
            try write(Bytes("%PDF-1.4\n%\u{E2}\u{E3}\n".utf8), to: path)
            return path
        }
        let photos = try oddNames.map { name -> Bytes in
            let path = folder / (name + Bytes(".jpg"))
            try write([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Bytes("JFIF".utf8) + [0], to: path)
            return path
        }
        let record = home.root + "/argv"
        for mechanism in Self.mechanisms {
            for entry in Self.labels.keys.sorted() {
                if mechanism == "open-with" && !["compress", "extract-here", "compress-pdf", "compress-photos", "open-folder"].contains(entry) { continue }
                if Self.flatMechanisms.contains(mechanism) && Self.notFlat.contains(entry) { continue }
                let files = switch Self.executable(entry) {
                case "extract": archives
                case "compress-pdf": pdfs
                case "compress-photos": photos
                default: oddNames.map { folder / $0 }
                }
                let (argv, cwd) = try Self.launch(mechanism, entry, files: files, folder: folder, home: home)
                unlink(record)
                try run(argv, environment: home.environment.merging(["ARGV_RECORD": record]) { $1 }, in: cwd)
                let recorded = (contents(Bytes(record)) ?? []).split(separator: 0, omittingEmptySubsequences: false).dropLast().map(Array.init)
                let exe = Bytes(stubs + "/" + Self.program(entry))
                let names = mechanism == "nautilus-script" ? files.map { Array($0.dropFirst(folder.count + 1)) } : files
                // "Open with" (a double-click, a mail attachment) runs the plain command: no --here.
                let options = mechanism == "open-with" ? [] : Self.options[entry] ?? []
                let expected = [exe] + options.map { Bytes($0) } + [Bytes("--")] + names
                #expect(recorded == expected, "\(mechanism) \(entry): \(recorded.map(\.text))")
            }
        }
    }

    /// Real executables: Compress with the default format set to tar.xz (which keeps non-UTF-8 names byte for
    /// byte), then Extract Here on the result, through each mechanism; the extracted tree equals the odd files.
    @Test(arguments: mechanisms.filter { $0 != "open-with" })
    func roundTripThroughTheRealExecutables(_ mechanism: String) throws {
        let home = try Home("roundTrip\(mechanism)")
        defer { home.remove() }
        try home.integration("install")
        let folder = Bytes(home.root + "/odd")
        try makeOddFiles(in: folder)
        let files = oddNames.map { folder / $0 }

        // The person's settings, in GLib's keyfile backend: the installed schema gives the rest.
        let settings = home.config + "/glib-2.0/settings"
        try FileManager.default.createDirectory(atPath: settings, withIntermediateDirectories: true)
        try "[io/github/archiver]\ndefault-format='tar.xz'\n".write(toFile: settings + "/keyfile", atomically: true, encoding: .utf8)
        let environment = home.environment.merging(["GSETTINGS_BACKEND": "keyfile"]) { $1 }
        let (compress, compressCwd) = try Self.launch(mechanism, "compress", files: files, folder: folder, home: home)
        let compressed = try run(compress, environment: environment, in: compressCwd)
        #expect(compressed.ok, "\(mechanism) compress: \(compressed.stderr)")
        let archive = folder / Bytes("Archive.tar.xz")
        let (extract, extractCwd) = try Self.launch(mechanism, "extract-here", files: [archive], folder: folder, home: home)
        let extracted = try run(extract, environment: environment, in: extractCwd)
        #expect(extracted.ok, "\(mechanism) extract: \(extracted.stderr)")
        // "Extract Here" means here (--here), even in a temporary place such as /tmp.
        let out = folder / Bytes("Archive")
        #expect(names(in: out) == oddNames.sorted { $0.lexicographicallyPrecedes($1) })
        for name in oddNames { #expect(contents(out / name) == name, "\(mechanism): \(name.text)") }
    }

    @Test func nautilusExtractRefusesNonArchivesAndFolders() throws {
        let home = try Home()
        defer { home.remove() }
        try home.integration("install")
        let folder = Bytes(home.root + "/plain")
        try makeOddFiles(in: folder)
        makeDirectory(folder / Bytes("a folder"))
        let before = names(in: folder)
        // The extension offers no Extract entry for a text file or a folder ...
        for item in [oddNames[0], Bytes("a folder")] {
            #expect(try Self.nautilusPython("extract-here", files: [folder / item], home: home).isEmpty)
            #expect(try !Self.nautilusPython("compress", files: [folder / item], home: home).isEmpty)
        }
        // ... and the scripts, which Nautilus shows for everything, fail without writing anything.
        for item in [oddNames[0], Bytes("a folder")] {
            let script = Bytes(home.data + "/nautilus/scripts/Archiver/Extract Here")
            let result = try run([script, item], environment: home.environment, in: folder)
            #expect(!result.ok && !result.stderr.isEmpty)
            #expect(names(in: folder) == before)
        }
    }
}

/// A tiny zip (one empty file "x"): content sniffing must see an archive; the stubs never read it.
let zipBytes: Bytes = [
    0x50, 0x4B, 0x03, 0x04, 0x0A, 0, 0, 0, 0, 0, 0, 0, 0x21, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0x78,
    0x50, 0x4B, 0x01, 0x02, 0x1E, 0x03, 0x0A, 0, 0, 0, 0, 0, 0, 0, 0x21, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xA4, 0x81, 0, 0, 0, 0, 0x78,
    0x50, 0x4B, 0x05, 0x06, 0, 0, 0, 0, 1, 0, 1, 0, 0x2F, 0, 0, 0, 0x1F, 0, 0, 0, 0, 0,
]
