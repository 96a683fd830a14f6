import ArchiverTestSupport
import Foundation
import Testing

/// `--nested`: a zip in a tar.gz in a 7z comes out whole, a .docx inside stays a file, and an archive that
/// nests far more than it holds stops at the ratio cap with nothing of it left.
@Suite struct NestedTests {
    @Test func aZipInATarGzInA7zAndADocxLeftAlone() throws {
        let s = try ScratchDirectory()
        try E2E.python(
            """
            import os, sys, zipfile, tarfile, subprocess
            w = sys.argv[1]
            os.makedirs(w + '/b'); os.makedirs(w + '/a')
            with zipfile.ZipFile(w + '/b/c.zip', 'w') as z: z.writestr('c.txt', 'innermost')
            with zipfile.ZipFile(w + '/b/report.docx', 'w') as z: z.writestr('word/document.xml', '<w/>')
            with tarfile.open(w + '/a/b.tar.gz', 'w:gz') as t: t.add(w + '/b', arcname='b')
            subprocess.run(['/usr/bin/7zz', 'a', '-bso0', w + '/a.7z', w + '/a'], check=True)
            """, [s.sub("w")])
        let out = try E2E.run("extract-with-archiver", ["--nested", "--to", s.sub("out"), s.sub("w/a.7z")])
        #expect(out.status == 0, "\(out.stderr)")
        #expect(E2E.text(s.sub("out/a/b/c.txt")) == "innermost", "\(E2E.allPaths(under: s.sub("out")))")
        #expect(E2E.exists(s.sub("out/a/b/report.docx")), "a document that is a zip stays a file")
        #expect(!E2E.exists(s.sub("out/a/b.tar.gz")) && !E2E.exists(s.sub("out/a/b/c.zip")), "extracted archives removed")
        let plain = try E2E.run("extract-with-archiver", ["--to", s.sub("plain"), s.sub("w/a.7z")])
        #expect(plain.status == 0 && E2E.exists(s.sub("plain/a/b.tar.gz")), "off by default")
    }

    @Test func aNestBombStopsAtTheRatioCap() throws {
        let s = try ScratchDirectory()
        try E2E.python(
            """
            import sys, zipfile, io
            inner = io.BytesIO()
            with zipfile.ZipFile(inner, 'w', zipfile.ZIP_DEFLATED) as z: z.writestr('zeros.bin', bytes(8 << 20))
            with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_STORED) as z: z.writestr('bomb/inner.zip', inner.getvalue())
            """, [s.sub("bomb.zip")])
        let out = try E2E.run("extract-with-archiver", ["--nested", "--to", s.sub("out"), s.sub("bomb.zip")])
        #expect(out.status == 7, "\(out.stderr)")
        #expect(out.stderr.contains("100 times"), "\(out.stderr)")
        #expect(E2E.exists(s.sub("out/bomb/inner.zip")), "the nested archive stays")
        #expect(!E2E.exists(s.sub("out/bomb/zeros.bin")) && E2E.leftovers(under: s.sub("out")).isEmpty, "\(E2E.allPaths(under: s.sub("out")))")
    }
}
