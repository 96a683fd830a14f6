import Foundation
import Testing

/// "Open with": after install every real archive type resolves to a type our handler claims, and after
/// set-default an archive opened from a temporary folder (a mail attachment) lands in Downloads.
@Suite struct OpenWithTests {
    /// Real sample archives, made with the usual tools, in `dir`. Returns their paths.
    static func makeSamples(in dir: String, home: Home) throws -> [String] {
        let fm = FileManager.default
        try fm.createDirectory(atPath: dir + "/src", withIntermediateDirectories: true)
        // Random bytes, so 7-Zip really needs several 64 KiB volumes.
        try Data((0..<200_000).map { _ in UInt8.random(in: 0...255) }).write(to: URL(fileURLWithPath: dir + "/src/data.bin"))
        func sh(_ command: String) throws {
            let result = try run([Bytes("/bin/sh"), Bytes("-c"), Bytes(command)], environment: home.environment, in: Bytes(dir))
            guard result.ok else { throw Failure("\(command): \(result.stderr)") }
        }
        try sh("cd src && zip -q ../s.zip data.bin && 7zz a -bd ../s.7z data.bin >/dev/null")
        try sh("tar -czf s.tar.gz src && tar -cJf s.tar.xz src && tar --zstd -cf s.tar.zst src")
        try sh("cd src && 7zz a -bd -v64k ../v.7z data.bin >/dev/null && 7zz a -bd -tzip -v64k ../v.zip data.bin >/dev/null")
        try sh("xorriso -as mkisofs -quiet -o s.iso src 2>/dev/null")
        try sh("mkdir -p pkg/DEBIAN && printf 'Package: s\\nVersion: 1\\nArchitecture: all\\nMaintainer: a <a@b>\\nDescription: s\\n' > pkg/DEBIAN/control && dpkg-deb --build pkg s.deb >/dev/null")
        var names = ["s.zip", "s.7z", "s.tar.gz", "s.tar.xz", "s.tar.zst", "v.7z.001", "v.zip.001", "v.7z.002", "s.iso", "s.deb"]
        // No free tool writes rar; the product owner's fixtures hold one (CI has them, a fresh clone does not).
        let rar = Paths.packageRoot + "/../shared/fixtures/rar5_encrypted.rar"
        if fm.fileExists(atPath: rar) {
            try fm.copyItem(atPath: rar, toPath: dir + "/s.rar")
            names.append("s.rar")
        } else {
            print("skipped: fixtures not present (the rar sample, \(rar))")
        }
        return names.map { dir + "/" + $0 }
    }

    @Test func everySampleArchiveResolvesToOurHandler() throws {
        let home = try Home()
        defer { home.remove() }
        try home.integration("install")
        let claimed = try KeyFile(path: home.data + "/applications/io.github.archiver.Extract.desktop")["Desktop Entry", "MimeType"] ?? ""
        for sample in try Self.makeSamples(in: home.root + "/samples", home: home) {
            let type = try home.tool("xdg-mime", "query", "filetype", sample).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            // Listed, or a subclass/alias of a listed type, as GIO sees it.
            let check = "import sys; from gi.repository import Gio\nsys.exit(0 if any(Gio.content_type_is_a(sys.argv[1], t) for t in sys.argv[2].split(';') if t) else 1)"
            let covered = try home.tool("/usr/bin/python3", "-c", check, type, claimed)
            #expect(covered.ok, "\(sample): \(type) is not claimed by the Extract handler")
            let handlers = try home.tool("gio", "mime", type)
            #expect(handlers.stdout.contains("io.github.archiver.Extract.desktop"), "\(sample) (\(type)): \(handlers.stdout)")
        }
        // The type Outlook puts on mail attachments reaches us through its alias.
        #expect(try home.tool("gio", "mime", "application/x-zip-compressed").stdout.contains("io.github.archiver.Extract.desktop"))
        // "Open with" lists Compress PDF for PDFs and Compress Photos for photos (HEIC too), and neither
        // for archives.
        #expect(try home.tool("gio", "mime", "application/pdf").stdout.contains("io.github.archiver.CompressPdf.desktop"))
        for type in ["image/jpeg", "image/heic", "image/png"] {
            #expect(try home.tool("gio", "mime", type).stdout.contains("io.github.archiver.CompressPhotos.desktop"), "\(type)")
        }
        #expect(try !home.tool("gio", "mime", "application/zip").stdout.contains("CompressP"))
    }

    @Test func mailAttachmentOpensIntoDownloads() throws {
        let home = try Home()
        defer { home.remove() }
        try home.integration("install")
        try home.integration("set-default")
        #expect(try home.tool("gio", "mime", "application/zip").stdout
            .contains("Default application for “application/zip”: io.github.archiver.Extract.desktop"))

        // Thunderbird saves an attachment under /tmp and hands it to the default application.
        let attachments = try FileManager.default.url(for: .itemReplacementDirectory, in: .userDomainMask,
                                                      appropriateFor: URL(fileURLWithPath: "/tmp"), create: true).path
        defer { try? FileManager.default.removeItem(atPath: attachments) }
        #expect(attachments.hasPrefix("/tmp/"))
        try FileManager.default.createDirectory(atPath: attachments + "/in", withIntermediateDirectories: true)
        try "one".write(toFile: attachments + "/in/one.txt", atomically: true, encoding: .utf8)
        try "two".write(toFile: attachments + "/in/two.txt", atomically: true, encoding: .utf8)
        let zipped = try run([Bytes("zip"), Bytes("-q"), Bytes("../report.zip"), Bytes("one.txt"), Bytes("two.txt")],
                             environment: home.environment, in: Bytes(attachments + "/in"))
        #expect(zipped.ok)

        let opened = try home.tool("gio", "open", attachments + "/report.zip")
        #expect(opened.ok, "gio open: \(opened.stderr)")
        let result = home.home + "/Downloads/report/two.txt"
        let deadline = Date().addingTimeInterval(30)
        while !FileManager.default.fileExists(atPath: result) && Date() < deadline { usleep(100_000) }
        #expect(try String(contentsOfFile: home.home + "/Downloads/report/one.txt", encoding: .utf8) == "one")
        #expect(try String(contentsOfFile: result, encoding: .utf8) == "two")
        #expect(!FileManager.default.fileExists(atPath: attachments + "/report"), "extracted beside the temporary copy")
    }
}
