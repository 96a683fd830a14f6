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
            #expect(Set(problems.compactMap { $0["path"] as? String }) == ["Bad/CON.txt", "Bad/a:b.txt", "Bad/Read.txt", "Bad/link", "Bad/pipe"])
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

    /// Each fix on its own (`--fix CODE`): it makes its own renames and no other, `--check` with it no
    /// longer finds its problem, and `--portable`'s set is the sum of them.
    @Test func eachFixAloneAndCheckedAfter() throws {
        try E2E.withScratch { s in
            try Self.makeBadTree(s)
            try s.write("Bad/end.", "dot")
            let codes = { (out: Outcome) in Set(out.json?["warningCodes"] as? [String] ?? []) }
            let all: Set = ["reserved-name", "forbidden-character", "trailing-dot-or-space", "case-clash", "symlink", "special-file-skipped"]
            for fix in ["reserved-name", "forbidden-character", "trailing-dot-or-space", "case-clash", "symlink"] {
                let out = try s.compress(["--check", "--json", "--fix", fix, s.path("Bad")])
                #expect(out.status == 1 && codes(out) == all.subtracting([fix]), "\(fix): \(codes(out))")
            }
            let fixed = try s.compress(["--check", "--json", "--fix", "reserved-name,forbidden-character", "--fix", "trailing-dot-or-space,case-clash,symlink", s.path("Bad")])
            #expect(codes(fixed) == ["special-file-skipped"], "the pipe is never stored: \(fixed)")
            #expect(s.list("").sorted() == ["Bad", "home"], "nothing written")

            let one = try s.compress(["--fix", "reserved-name", "--json", s.path("Bad")])
            #expect(one.status == 1 && codes(one) == ["special-file-skipped"], "a fix alone says only its renames: \(one)")
            let names = try E2E.python(
                "import sys, zipfile\nprint('\\n'.join(sorted(zipfile.ZipFile(sys.argv[1]).namelist())))", [s.path("Bad.zip")]
            ).stdout.split(separator: "\n").map(String.init)
            #expect(names == ["Bad/", "Bad/CON_.txt", "Bad/READ.txt", "Bad/Read.txt", "Bad/a:b.txt", "Bad/end.", "Bad/link", "Bad/ok.txt"], "\(names)")

            let unknown = try s.compress(["--fix", "everything", s.path("Bad")])
            #expect(unknown.status == 2 && unknown.stderr.contains("case-clash"), "\(unknown)")
            let both = try s.compress(["--fix", "symlink", "--follow-symlinks", s.path("Bad")])
            #expect(both.status == 2, "\(both)")
        }
    }

    /// `--follow-symlinks`: a link is stored as what it points to (a file, a folder outside the selection),
    /// a link to nothing and a link into a folder that holds it are left out and said; `--check` with it
    /// no longer finds the links.
    @Test func followedSymlinksAreStoredAsWhatTheyPointTo() throws {
        try E2E.withScratch { s in
            try s.write("Elsewhere/shared.txt", "shared")
            try s.write("Links/own.txt", "own")
            let links = ["file": "own.txt", "folder": "../Elsewhere", "nothing": "gone.txt", "loop": ".", "Deep/up": ".."]
            try s.mkdir("Links/Deep")
            for (link, target) in links { try FileManager.default.createSymbolicLink(atPath: s.path("Links/" + link), withDestinationPath: target) }
            let out = try s.compress(["--follow-symlinks", "--json", "--format", "tar", s.path("Links")])
            #expect(out.status == 1, "\(out)")
            #expect((out.json?["warningCodes"] as? [String])?.sorted() == ["symlink-dangling", "symlink-loop", "symlink-loop"], "\(out)")
            let listing = try E2E.python(
                """
                import sys, tarfile
                with tarfile.open(sys.argv[1]) as t:
                    for m in sorted(t.getmembers(), key=lambda m: m.name):
                        print(m.name, 'dir' if m.isdir() else 'link' if m.issym() else t.extractfile(m).read().decode())
                """, [s.path("Links.tar")]).stdout
            #expect(listing == "Links dir\nLinks/Deep dir\nLinks/file own\nLinks/folder dir\nLinks/folder/shared.txt shared\nLinks/own.txt own\n", "\(listing)")
            #expect(out.stderr.contains("“\(s.path("Links/nothing"))”") && out.stderr.contains("does not exist"), "\(out.stderr)")

            let check = try s.compress(["--check", "--json", "--follow-symlinks", s.path("Links")])
            let problems = (check.json?["problems"] as? [[String: Any]] ?? []).map { "\($0["code"] ?? "") \($0["path"] ?? "")" }.sorted()
            #expect(problems == ["symlink-dangling Links/nothing", "symlink-loop Links/Deep/up", "symlink-loop Links/loop"], "\(problems)")
            let kept = try s.compress(["--check", "--json", "--no-follow-symlinks", s.path("Links")])
            #expect((kept.json?["warningCodes"] as? [String])?.filter { $0 == "symlink" }.count == 5, "\(kept)")
        }
    }

    /// `--fix zip-aes`: ZipCrypto, which Python's zipfile (like Explorer) decrypts; the check is then clean.
    @Test func zipCryptoInPlaceOfAES() throws {
        try E2E.withScratch { s in
            try s.write("Note/letter.txt", "dear you")
            let check = try s.compress(["--check", "--encrypt", "--fix", "zip-aes", s.path("Note")])
            #expect(check.status == 0, "\(check)")
            let made = try E2E.run(
                E2E.compressName, ["--encrypt", "--password-stdin", "--fix", "zip-aes", "--comment", "for you", s.path("Note")], input: "open sesame\n")
            #expect(made.status == 0, "\(made.stderr)")
            let read = try E2E.python(
                """
                import sys, zipfile
                z = zipfile.ZipFile(sys.argv[1])
                info = z.getinfo('Note/letter.txt')
                print(info.flag_bits & 1, info.compress_type, z.read('Note/letter.txt', pwd=b'open sesame').decode())
                """, [s.path("Note.zip")])
            // Encrypted (bit 0), deflated or stored, not AES's method 99; and the text back with the password.
            #expect(read.stdout.hasPrefix("1 ") && !read.stdout.contains(" 99 ") && read.stdout.hasSuffix(" dear you\n"), "\(read.stdout)")
            let technical = try E2E.run("/usr/bin/7zz", ["l", "-slt", "-popen sesame", s.path("Note.zip")]).stdout
            #expect(technical.contains("Method = ZipCrypto") && !technical.contains("Method = AES"), "\(technical)")
            #expect(try E2E.run("/usr/bin/unzip", ["-z", s.path("Note.zip")]).stdout.contains("for you"), "the comment survives the ZipCrypto writer")
        }
    }

    @Test func checkSpeaksGerman() throws {
        try E2E.withScratch { s in
            try s.write("G/CON.txt", "x")
            let out = try s.compress(["--check", s.path("G")], env: try TestLanguages.german().mapValues { $0 as String? })
            #expect(out.status == 1 && out.stderr.contains("Windows") && out.stderr.contains("„G/CON.txt“"), "\(out)")
            #expect(!out.stderr.contains("cannot create"), "\(out.stderr)")
            try FileManager.default.createSymbolicLink(atPath: s.path("G/nothing"), withDestinationPath: "gone")
            let followed = try s.compress(["--check", "--follow-symlinks", s.path("G")], env: try TestLanguages.german().mapValues { $0 as String? })
            #expect(followed.stderr.contains("„G/nothing“") && followed.stderr.contains("ausgelassen"), "\(followed.stderr)")
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
                    import os, stat, sys
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
                        elif code == 'special-file-skipped': ok = not (stat.S_ISREG(os.lstat(real).st_mode) or stat.S_ISDIR(os.lstat(real).st_mode) or os.path.islink(real))
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
