import ArchiverTestSupport
import Foundation
import Testing

/// `--check` and `--portable` end to end: exit codes, nothing written, the renames in the archive (read by
/// Python's zipfile), German, and no false alarm over real trees.
@Suite struct PortabilityCheckTests {
    /// A tree that breaks the Windows rules: a reserved name, a forbidden character, a case-only pair
    /// (in archive order, by bytes, `READ.txt` comes first: `Read.txt` is the second), a symlink and a FIFO.
    static func makeBadTree(_ s: ScratchDirectory) throws {
        for path in ["Bad/CON.txt", "Bad/a:b.txt", "Bad/Read.txt", "Bad/READ.txt", "Bad/ok.txt"] { try s.write(path, path) }
        try FileManager.default.createSymbolicLink(atPath: s.path("Bad/link"), withDestinationPath: "ok.txt")
        #expect(mkfifo(s.path("Bad/pipe"), 0o600) == 0)
    }

    @Test func checkListsProblemsAndWritesNothing() throws {
        try E2E.withScratch { s in
            try Self.makeBadTree(s)
            let before = s.list()
            let out = try s.compress(["--check", "--json", s.path("Bad")])
            #expect(out.status == 1, "\(out)")
            let codes = Set(out.json?["warningCodes"] as? [String] ?? [])
            #expect(codes == ["reserved-name", "forbidden-character", "case-clash", "symlink", "special-file-skipped"], "\(codes)")
            let problems = try #require(out.json?["problems"] as? [[String: Any]])
            #expect(Set(problems.compactMap { $0["path"] as? String }) == ["Bad/CON.txt", "Bad/a:b.txt", "Bad/Read.txt", "Bad/link"])
            #expect(s.list() == before, "nothing written, not even a temporary file")
            #expect(out.json?["files"] as? Int == 5 && (out.json?["outputs"] as? [Any])?.isEmpty == true, "what would be archived")

            let plain = try s.compress(["--check", s.path("Bad")])
            #expect(plain.status == 1 && plain.stderr.contains("CON.txt") && plain.stderr.contains("--portable"), "\(plain)")

            try s.write("Good/readme.txt", "fine")
            let good = try s.compress(["--check", s.path("Good")])
            #expect(good.status == 0 && good.stdout.contains("would open on Windows, macOS and Linux"), "\(good)")
            #expect(!E2E.exists(s.path("Good.zip")))
            let aes = try s.compress(["--check", "--encrypt", "--json", s.path("Good")])
            #expect(aes.status == 1 && (aes.json?["warningCodes"] as? [String]) == ["zip-aes"], "\(aes)")
        }
    }

    @Test func portableRenamesInTheArchive() throws {
        try E2E.withScratch { s in
            try Self.makeBadTree(s)
            let out = try s.compress(["--portable", "--json", s.path("Bad")])
            #expect(out.status == 1, "the FIFO is still said: \(out)")
            let renames = try #require(out.json?["renames"] as? [[String: String]])
            #expect(Set(renames.map { $0["to"] ?? "" }) == ["Bad/CON_.txt", "Bad/a_b.txt", "Bad/Read (2).txt"], "\(renames)")
            let names = try E2E.python(
                "import sys, zipfile\nprint('\\n'.join(sorted(zipfile.ZipFile(sys.argv[1]).namelist())))", [s.path("Bad.zip")]
            ).stdout.split(separator: "\n").map(String.init)
            #expect(names == ["Bad/", "Bad/CON_.txt", "Bad/READ.txt", "Bad/Read (2).txt", "Bad/a_b.txt", "Bad/ok.txt"], "\(names)")
            let text = try E2E.python(
                "import sys, zipfile\nsys.stdout.write(zipfile.ZipFile(sys.argv[1]).read('Bad/a_b.txt').decode())", [s.path("Bad.zip")])
            #expect(text.stdout == "Bad/a:b.txt")
            let plain = try s.compress(["--portable", "--output", s.path("again.zip"), s.path("Bad")])
            #expect(plain.stdout.contains("Renamed “Bad/CON.txt” to “Bad/CON_.txt” in the archive."), "\(plain)")
        }
    }

    @Test func checkSpeaksGerman() throws {
        try E2E.withScratch { s in
            try s.write("G/CON.txt", "x")
            let out = try s.compress(["--check", s.path("G")], env: try TestLanguages.german().mapValues { $0 as String? })
            #expect(out.status == 1 && out.stderr.contains("Windows") && out.stderr.contains("„G/CON.txt“"), "\(out)")
            #expect(!out.stderr.contains("cannot create"), "\(out.stderr)")
        }
    }

    /// Over real trees, each warning is checked by Python: none over bash's documentation; over all of
    /// /usr/share/doc and the sources of the shared `mixed` corpus, only true ones (symlinks are real there).
    @Test func noFalseAlarms() throws {
        try E2E.withScratch { s in
            let bash = try s.compress(["--check", "--format", "tar", "--output", s.path("x.tar"), "/usr/share/doc/bash"])
            #expect(bash.status == 0, "\(bash)")
            // As ../shared/bench/make-corpus.sh finds Swift's runtime libraries.
            let swiftLibs = try Tool.run(
                ["/bin/sh", "-c", #"printf %s "$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")/lib/swift/linux""#],
                mergingErrors: false
            ).output
            let trees = [
                ["/usr/share/doc"],
                ["/usr/lib/python3.11", "/usr/share/perl/5.36.0", "/usr/share/i18n", "/usr/share/zoneinfo", swiftLibs],
            ]
            // Debian 12's paths, as make-corpus.sh names them; one missing elsewhere is left out of the run.
            for inputs in trees.map({ $0.filter { FileManager.default.fileExists(atPath: $0) } }) where !inputs.isEmpty {
                let out = try s.compress(["--check", "--json", "--no-exclude-junk", "--format", "tar", "--output", s.path("y.tar")] + inputs)
                let problems = out.json?["problems"] as? [[String: Any]] ?? []
                let lines = problems.map { "\($0["code"] ?? "")\t\($0["path"] ?? "")" }.joined(separator: "\n")
                try s.write("problems.txt", lines)
                let verdict = try E2E.python(
                    """
                    import os, sys
                    roots = {os.path.basename(p.rstrip('/')): p for p in sys.argv[2:]}
                    for line in open(sys.argv[1]).read().splitlines():
                        code, path = line.split('\\t')
                        top, _, rest = path.partition('/')
                        real = os.path.join(roots[top], rest) if rest else roots[top]
                        name = os.path.basename(real)
                        if code == 'symlink': ok = os.path.islink(real)
                        elif code == 'case-clash':
                            folder = os.path.dirname(real)
                            ok = sum(n.lower() == name.lower() for n in os.listdir(folder)) > 1
                        elif code == 'path-too-long': ok = 41 + len('y') + len(path.encode('utf-16-le')) // 2 > 260
                        elif code == 'forbidden-character': ok = any(c in name for c in '<>:"|?*\\\\') or any(ord(c) < 32 for c in name)
                        elif code == 'trailing-dot-or-space': ok = name[-1] in '. '
                        elif code == 'reserved-name': ok = name.split('.')[0].rstrip(' ').upper() in {'CON','PRN','AUX','NUL'} | {f'COM{i}' for i in range(1,10)} | {f'LPT{i}' for i in range(1,10)}
                        else: ok = False
                        if not ok: print('false alarm:', code, path)
                    """, [s.path("problems.txt")] + inputs)
                #expect(verdict.stdout.isEmpty, "\(verdict.stdout)")
                #expect(out.status == (problems.isEmpty ? 0 : 1), "\(inputs): \(out.stderr.prefix(500))")
                #expect(!E2E.exists(s.path("y.tar")))
            }
        }
    }
}
