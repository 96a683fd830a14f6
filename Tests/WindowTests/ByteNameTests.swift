import ArchiverTestSupport
import Foundation
import Testing

/// File names that are not UTF-8 (an old Latin-1 name: `caf\xE9`) go from the file manager through each window
/// to its tool and back byte for byte: the window reads its arguments as bytes and gives its child bytes.
/// Swift's `String` would turn the byte into U+FFFD, which names no file.
@Suite(.serialized, .disabled(if: WindowSession.missing != nil, Comment(rawValue: WindowSession.missing ?? "")))
struct ByteNameTests {
    /// `caf` + the Latin-1 byte for é, then `suffix`: as the shell's printf writes it (octal 351).
    private static func shellName(_ suffix: String) -> String { "caf$(printf '\\351')\(suffix)" }

    /// The names in `folder`, each as hex, from Python's bytes listing (the test's own Foundation cannot say them).
    private func names(in folder: String) throws -> Set<String> {
        let listed = try Tool.run(["/usr/bin/python3", "-c", "import os,sys\nfor n in os.listdir(os.fsencode(sys.argv[1])): print(n.hex())", folder])
        return Set(listed.output.split(separator: "\n").map(String.init))
    }

    private func hex(_ text: String) -> String { Data("caf".utf8).map { String(format: "%02x", $0) }.joined() + "e9" + Data(text.utf8).map { String(format: "%02x", $0) }.joined() }

    /// Starts `window` on the session with one argument: the Latin-1 file `caf\xE9<suffix>` in `folder`
    /// (through the shell, which passes bytes as they are).
    private func launch(_ session: WindowSession, _ window: String, folder: String, suffix: String, environment: [String: String] = [:]) throws {
        try session.launch(
            ["/bin/sh", "-c", "cd \"$1\" && exec \"$0\" -- \"$PWD/\(Self.shellName(suffix))\"", window, folder], environment: environment)
    }

    private func executable(_ name: String, beside tool: String) throws -> String {
        try #require(BuiltProducts.folder(holding: [name, tool]).map { $0 + "/" + name }, "build \(name) and \(tool) first")
    }

    @Test func compressWindowKeepsALatin1NameInTheArchive() throws {
        let scratch = try ScratchDirectory()
        try Tool.run(["/bin/sh", "-c", "cd '\(scratch.path)' && printf 'bytes\\n' > \(Self.shellName(".txt"))"])
        let session = try WindowSession()
        defer { session.stop() }
        try launch(session, try executable("archiver-compress", beside: "compress-with-archiver"), folder: scratch.path, suffix: ".txt")
        try session.waitForApp("archiver-compress")
        try session.click("Compress", role: "push button")
        #expect(try session.waitForText(anyOf: ["Created", "Could not"], timeout: 60).hasPrefix("Created"))
        let made = try names(in: scratch.path)
        let archive = try #require(made.first { $0.hasSuffix(Data(".zip".utf8).map { String(format: "%02x", $0) }.joined()) }, "\(made)")
        // The member's name, read raw by Python's zipfile (no UTF-8 flag: cp437 in Python's decoding).
        let member = try Tool.run([
            "/usr/bin/python3", "-c",
            "import os,zipfile,sys\nz=zipfile.ZipFile(open(os.path.join(os.fsencode(sys.argv[1]), bytes.fromhex(sys.argv[2])), 'rb'))\n"
                + "print(z.infolist()[0].filename.encode('cp437').hex())",
            scratch.path, archive,
        ])
        #expect(member.output.trimmingCharacters(in: .whitespacesAndNewlines) == hex(".txt"), "\(member.output)")
    }

    @Test func extractWindowExtractsALatin1NamedArchive() throws {
        let scratch = try ScratchDirectory()
        try Tool.run([
            "/bin/sh", "-c", "cd '\(scratch.path)' && mkdir in && printf 'inside\\n' > in/note.txt && bsdtar -cf \(Self.shellName(".tar")) -C in note.txt",
        ])
        let session = try WindowSession()
        defer { session.stop() }
        let settings = BuiltProducts.isolation.filter { ["GSETTINGS_SCHEMA_DIR", "GSETTINGS_BACKEND"].contains($0.key) }
        try launch(
            session, try executable("archiver-extract", beside: "extract-with-archiver"), folder: scratch.path, suffix: ".tar",
            environment: settings)
        try session.waitForApp("archiver-extract")
        _ = try session.waitForText("1 of 1 file", exact: false)
        try session.click("Extract", role: "push button")
        #expect(try session.waitForText(anyOf: ["Extracted", "Could not"], timeout: 60).hasPrefix("Extracted"))
        #expect(try String(contentsOfFile: scratch.sub("note.txt"), encoding: .utf8) == "inside\n")
        #expect(try names(in: scratch.path).contains(hex(".tar")), "the archive itself stays under its name")
    }

    @Test func compressPDFWindowMakesTheCopyBesideALatin1NamedPDF() throws {
        let scratch = try ScratchDirectory()
        let pdf = try scratch.copy(WindowPDFs.report, as: "report.pdf")
        try Tool.run(["/bin/sh", "-c", "cd '\(scratch.path)' && mv '\(pdf)' \(Self.shellName(".pdf"))"])
        let session = try WindowSession()
        defer { session.stop() }
        try launch(
            session, try executable("archiver-compress-pdf", beside: "compress-pdf-with-archiver"), folder: scratch.path, suffix: ".pdf")
        try session.waitForApp("archiver-compress-pdf")
        try session.click("Low", role: "radio button")
        try session.click("Compress", role: "push button")
        #expect(try session.waitForText(anyOf: ["Compressed “", "is already optimal", "Could not"], timeout: 90).hasPrefix("Compressed"))
        let made = try names(in: scratch.path)
        #expect(made.contains(hex(" (compressed).pdf")), "\(made)")
    }

    @Test func photosWindowEstimatesCompressesAndComparesALatin1NamedPhoto() throws {
        let scratch = try ScratchDirectory()
        // A noisy JPEG (it compresses as a camera's does), written by Pillow under the Latin-1 name.
        let made = try Tool.run([
            "/usr/bin/python3", "-c",
            "import io,os,sys\nfrom PIL import Image\nb=io.BytesIO()\nImage.effect_noise((1600,1200),60).convert('RGB').save(b,'JPEG',quality=95)\n"
                + "open(os.path.join(os.fsencode(sys.argv[1]),b'caf\\xe9.jpg'),'wb').write(b.getvalue())",
            scratch.path,
        ])
        #expect(made.status == 0, "\(made.output)")
        let session = try WindowSession()
        defer { session.stop() }
        try launch(
            session, try executable("archiver-compress-photos", beside: "compress-photos-with-archiver"), folder: scratch.path,
            suffix: ".jpg")
        try session.waitForApp("archiver-compress-photos")
        // The estimate names the photo as the window does: a lost byte would name no file and never estimate.
        #expect(try session.waitForText("→ about", exact: false, timeout: 60).hasPrefix("1 photo, "))
        #expect(try !session.labels().contains("Unreadable"), "the thumbnail reads the file by its bytes")
        try session.click("Compress", role: "push button")
        #expect(try session.waitForText(anyOf: ["Compressed", "Could not"], timeout: 90).hasPrefix("Compressed"))
        let names = try names(in: scratch.path)
        #expect(names == [hex(".jpg"), hex(" (compressed).jpg")], "\(names)")
        // Compare opens the original and the copy by their bytes.
        try session.click("Compare", role: "push button")
        #expect(try session.waitForText("Before:", timeout: 30).contains("1600 × 1200 px"))
        let after = try session.waitForText("After:  ", timeout: 30)
        #expect(after.contains("kB") || after.contains("MB"), "the copy's size: \(after)")
    }
}
