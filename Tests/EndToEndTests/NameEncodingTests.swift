import ArchiverTestSupport
import Foundation
import Testing

/// Zip names stored without the UTF-8 flag, in the code page of the system that wrote them, come out as
/// the right Unicode names; the code page is guessed over all the names, `--encoding` overrides it.
@Suite struct NameEncodingTests {
    /// Writes `NAME.zip` whose entries carry `names` encoded in `encoding` without the UTF-8 flag (or,
    /// for "utf-8", Python's own flagged UTF-8); each file holds its own name.
    static func legacyZip(_ s: ScratchDirectory, _ file: String, _ names: [String], _ encoding: String) throws {
        try E2E.python(
            """
            import json, sys, zipfile
            path, encoding, names = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
            class Legacy(zipfile.ZipInfo):
                def _encodeFilenameFlags(self):
                    return self.filename.encode(encoding), self.flag_bits & ~0x800
            with zipfile.ZipFile(path, 'w') as z:
                for n in names:
                    z.writestr(zipfile.ZipInfo(n) if encoding == 'utf-8' else Legacy(n), n.encode('utf-8'))
                # Check: the flag is clear on every legacy entry, set on UTF-8 ones.
            with zipfile.ZipFile(path) as z:
                assert all(bool(i.flag_bits & 0x800) == (encoding == 'utf-8') for i in z.infolist())
            """, [s.sub(file), encoding, String(decoding: try JSONSerialization.data(withJSONObject: names), as: UTF8.self)])
    }

    static let samples: [(encoding: String, names: [String])] = [
        ("CP437", ["Résumé.txt", "Übersicht/Größe der Bäume.txt", "naïve café.doc"]),
        ("CP932", ["資料/報告書.txt", "ファイル一覧.csv", "写真/夏休み.jpg"]),
        ("GBK", ["文件/报告.txt", "中文名称.doc", "照片/夏天.jpg"]),
    ]

    @Test(arguments: samples.map(\.encoding))
    func legacyNamesExtractAsUnicode(_ encoding: String) throws {
        let s = try ScratchDirectory("legacy-\(encoding)")
        let names = Self.samples.first { $0.encoding == encoding }!.names
        try Self.legacyZip(s, "old.zip", names, encoding.lowercased())

        let listed = try E2E.run("extract-with-archiver", ["--list", "--json", s.sub("old.zip")])
        let archive = (listed.json?["archives"] as? [[String: Any]])?.first
        #expect(archive?["nameEncoding"] as? String == encoding, "\(listed.stdout)")
        let paths = (archive?["entries"] as? [[String: Any]])?.compactMap { $0["path"] as? String }
        #expect(paths == names)
        let text = try E2E.run("extract-with-archiver", ["--list", s.sub("old.zip")])
        #expect(text.stdout.contains("Names: \(encoding)"), "\(text.stdout)")

        let out = try E2E.run("extract-with-archiver", ["--to", s.sub("out"), s.sub("old.zip")])
        #expect(out.status == 0, "\(out.stderr)")
        for name in names {
            // Each file holds its own name in UTF-8: the right name on disk for the right data.
            #expect(try String(contentsOfFile: s.sub("out/old/" + name), encoding: .utf8) == name, "\(name)")
        }
    }

    /// A Latin-1 `caf\xe9.txt` beside a UTF-8 `café.txt` (a migrated disk): decoding would make them one
    /// file, so both keep their stored names and a warning says why.
    @Test func namesThatWouldMeetAreKeptAsStored() throws {
        let s = try ScratchDirectory()
        try E2E.python(
            "import os, sys; d = sys.argv[1].encode() + b'/in/d'; os.makedirs(d)\nopen(d + b'/caf\\xe9.txt', 'w').write('latin')\nopen(d + '/café.txt'.encode(), 'w').write('utf8')",
            [s.path])
        #expect(try E2E.run("compress-with-archiver", ["--format", "zip", s.sub("in/d")]).status == 0)
        let out = try E2E.run("extract-with-archiver", ["--to", s.sub("out"), s.sub("in/d.zip")])
        #expect(out.status == 1 && out.stderr.contains("kept as stored"), "\(out.stderr)")
        let names = try E2E.python("import os, sys; print(sorted(os.listdir(sys.argv[1].encode())))", [s.sub("out/d")]).stdout
        #expect(names == "[b'caf\\xc3\\xa9.txt', b'caf\\xe9.txt']\n", "\(names)")
    }

    @Test func utf8FlaggedNamesAreUntouchedAndEncodingOverrides() throws {
        let s = try ScratchDirectory()
        let names = ["Résumé.txt", "資料.txt", "文件.txt"]
        try Self.legacyZip(s, "new.zip", names, "utf-8")
        let listed = try E2E.run("extract-with-archiver", ["--list", "--json", s.sub("new.zip")])
        let archive = (listed.json?["archives"] as? [[String: Any]])?.first
        #expect(archive?["nameEncoding"] is NSNull, "\(listed.stdout)")
        #expect((archive?["entries"] as? [[String: Any]])?.compactMap { $0["path"] as? String } == names)
        // Even when told a code page, flagged UTF-8 names stay as they are.
        let forced = try E2E.run("extract-with-archiver", ["--encoding", "CP437", "--to", s.sub("out"), s.sub("new.zip")])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(s.list("out/new") == names.sorted())

        // --encoding wins over the guess: CP437 bytes read as CP1252 (0x82 is “‚” there).
        try Self.legacyZip(s, "dos.zip", ["Résumé.txt"], "cp437")
        let overridden = try E2E.run("extract-with-archiver", ["--list", "--json", "--encoding", "CP1252", s.sub("dos.zip")])
        let entries = ((overridden.json?["archives"] as? [[String: Any]])?.first?["entries"] as? [[String: Any]]) ?? []
        #expect(entries.first?["path"] as? String == "R‚sum‚.txt", "\(overridden.stdout)")

        let bogus = try E2E.run("extract-with-archiver", ["--encoding", "NO-SUCH-CODEPAGE", s.sub("dos.zip")])
        #expect(bogus.status == 2 && bogus.stderr.contains("NO-SUCH-CODEPAGE"), "\(bogus.stderr)")
    }
}
