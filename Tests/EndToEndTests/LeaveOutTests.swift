import ArchiverTestSupport
import Foundation
import Testing

/// `compress-with-archiver`'s leave-out rules on generated projects, checked in the archive by Python's
/// tarfile and, for `--gitignore`, against `git ls-files` itself.
@Suite struct LeaveOutTests {
    /// Every member of a tar (folders with a trailing `/`), without the top folder's name.
    static func members(_ archive: String, top: String) throws -> Set<String> {
        let listing = try E2E.python(
            """
            import sys, tarfile
            for m in tarfile.open(sys.argv[1]):
                print(m.name + ('/' if m.isdir() else ''))
            """, [archive]
        ).stdout
        return Set(listing.split(separator: "\n").map(String.init).compactMap {
            $0.hasPrefix(top + "/") ? String($0.dropFirst(top.count + 1)) : nil
        }.filter { !$0.isEmpty })
    }

    static func git(_ s: ScratchDirectory, _ arguments: [String], in folder: String) throws -> Outcome {
        let outcome = try s.run(
            "/usr/bin/git", ["-c", "user.name=Test", "-c", "user.email=test@example.org", "-c", "init.defaultBranch=main"] + arguments,
            cwd: folder, env: ["GIT_CONFIG_NOSYSTEM": "1"])
        #expect(outcome.status == 0, "\(outcome)")
        return outcome
    }

    /// A work tree with nested `.gitignore` files, negations, `info/exclude`, a tracked file that a pattern
    /// matches, and a `core.excludesFile` in the (scratch) home: `--gitignore` archives what git lists.
    @Test func gitignoreArchivesWhatGitLists() throws {
        try E2E.withScratch { s in
            let files: [String: String] = [
                ".gitignore": "*.log\n!keep.log\n/build/\nnode_modules/\n\\#literal\n",
                "src/main.c": "int main;", "src/main.o": "o", "a.log": "l", "keep.log": "k", "tracked.log": "t",
                "build/out.bin": "b", "src/build/inner.txt": "kept: /build is the top folder's only",
                "node_modules/pkg/index.js": "x", "#literal": "#", "notes.bak": "user's global excludes",
                "local-only.txt": "info/exclude", "sub/.gitignore": "secret.txt\n*.tmp\n!important.log\n",
                "sub/secret.txt": "s", "sub/important.log": "i", "sub/a.tmp": "t", "sub/deeper/.gitignore": "!x.tmp\n",
                "sub/deeper/x.tmp": "x", "sub/deeper/y.tmp": "y", "sub/deeper/page.html": "h", "docs/[brackets].md": "d",
            ]
            for (path, text) in files { try s.write("proj/" + path, text) }
            try s.mkdir("proj/empty/inner")
            try s.write("home/.gitconfig", "[core]\n\texcludesFile = ~/my-excludes\n")
            try s.write("home/my-excludes", "*.bak\n")
            try s.write("home/.config/git/ignore", "*.md\n")  // not read: core.excludesFile is set
            try Self.git(s, ["init", "-q"], in: s.path("proj"))
            try s.write("proj/.git/info/exclude", "local-only.txt\n")
            try Self.git(s, ["add", "src/main.c", ".gitignore"], in: s.path("proj"))
            try Self.git(s, ["add", "-f", "tracked.log"], in: s.path("proj"))
            try Self.git(s, ["commit", "-q", "-m", "start"], in: s.path("proj"))

            let listed = try Self.git(s, ["ls-files", "--cached", "--others", "--exclude-standard"], in: s.path("proj"))
            let expected = Set(listed.stdout.split(separator: "\n").map(String.init))
            #expect(expected.contains("tracked.log") && !expected.contains("notes.bak") && expected.contains("sub/deeper/x.tmp"))

            let out = try s.compress(["--json", "--gitignore", "--no-exclude-junk", "--format", "tar", s.path("proj")])
            #expect(out.status == 0, "\(out)")
            let members = try Self.members(s.path("proj.tar"), top: "proj")
            #expect(Set(members.filter { !$0.hasSuffix("/") }) == expected, "\(members.symmetricDifference(expected).sorted())")
            #expect(members.contains("empty/inner/") && !members.contains("build/") && !members.contains(".git/"))
            let leftOut = try #require(out.json?["leftOut"] as? [String: Any])
            let gitignore = try #require((leftOut["rules"] as? [String: Any])?["gitignore"] as? [String: Any])
            #expect((gitignore["items"] as? Int ?? 0) > 10 && leftOut["items"] as? Int == gitignore["items"] as? Int, "\(leftOut)")
        }
    }

    /// A node project, a Python venv and a Rust crate: each cache rule, the junk and vcs rules, and an item
    /// selected by name that a rule would match but that stays.
    @Test func projectsLeaveOutTheirCaches() throws {
        try E2E.withScratch { s in
            for path in [
                "web/package.json", "web/index.js", "web/node_modules/left-pad/index.js", "web/.next/cache.bin",
                "py/app.py", "py/.venv/pyvenv.cfg", "py/.venv/lib/site.py", "py/__pycache__/app.pyc", "py/.pytest_cache/v",
                "py/venv/readme.txt", "rs/Cargo.toml", "rs/src/main.rs", "rs/target/debug/rs", "rs/notes.txt~",
                "rs/.main.rs.swp", "rs/.git/HEAD", "rs/.DS_Store", "rs/Thumbs.db", "rs/._notes.txt", "rs/notes.txt", "rs/._lonely",
                "lib/target/keep.txt", "node_modules/chosen.js",
            ] {
                try s.write("p/" + path, "data of \(path)")
            }
            let out = try s.compress(
                ["--exclude-caches", "--exclude-node-modules", "--exclude-vcs", "--format", "tar", "--name", "p.tar", s.path("p/web"), s.path("p/py"),
                 s.path("p/rs"), s.path("p/lib"), s.path("p/node_modules")])
            #expect(out.status == 0, "\(out)")
            let listing = try E2E.python(
                "import sys, tarfile\nfor m in tarfile.open(sys.argv[1]):\n    print(m.name + ('/' if m.isdir() else ''))", [s.path("p/p.tar")])
            let members = Set(listing.stdout.split(separator: "\n").map(String.init))
            #expect(members == [
                "web/", "web/package.json", "web/index.js", "py/", "py/app.py", "py/venv/", "py/venv/readme.txt", "rs/",
                "rs/Cargo.toml", "rs/src/", "rs/src/main.rs", "rs/notes.txt", "rs/._lonely", "lib/", "lib/target/",
                "lib/target/keep.txt", "node_modules/", "node_modules/chosen.js",
            ], "\(members.sorted())")
            // web 5, py 8, rs 10 (its lone `._lonely` stays: nothing beside it).
            #expect(out.stdout.contains("Left out 23 items ("), "\(out.stdout)")

            // node_modules has its own flag (issue 31): the caches alone leave out .next and its file, not node_modules' 3 items.
            let german = try s.compress(
                ["--exclude-caches", "--format", "tar", s.path("p/web")], env: try TestLanguages.german().mapValues { $0 as String? })
            #expect(german.status == 0 && german.stdout.contains("2 Objekte ausgelassen ("), "\(german)")
        }
    }

    /// `--exclude` is matched from each folder given (`/build` is that folder's build), negations work,
    /// and `.archiverignore` files are read like `.gitignore`; the 7z writer honours them too.
    @Test func patternsAndArchiverignore() throws {
        try E2E.withScratch { s in
            for path in ["one/build/x", "one/src/build/y", "one/a.log", "one/keep.log", "two/build/z", "two/secret/s", "two/notes.txt"] {
                try s.write(path, "data")
            }
            try s.write("two/.archiverignore", "secret/\n")
            let out = try s.compress(
                ["--json", "--exclude", "/build", "--exclude", "*.log", "--exclude", "!keep.log", "--format", "7z", "--name", "x.7z",
                 s.path("one"), s.path("two")])
            #expect(out.status == 0, "\(out)")
            let listing = try s.run("/usr/bin/7zz", ["l", "-slt", s.path("x.7z")])
            let paths = Set(listing.stdout.split(separator: "\n").filter { $0.hasPrefix("Path = ") && !$0.hasPrefix("Path = /") }.map { String($0.dropFirst(7)) })
            #expect(paths == ["one", "one/src", "one/src/build", "one/src/build/y", "one/keep.log", "two", "two/.archiverignore", "two/notes.txt"],
                "\(paths.sorted())")
            let rules = try #require((out.json?["leftOut"] as? [String: Any])?["rules"] as? [String: [String: Int]])
            #expect(rules["exclude"]?["items"] == 5 && rules["archiverignore"]?["items"] == 2, "\(rules)")

            // 7-Zip, the only writer of encrypted 7z here, reads whole folders: refused before anything is written.
            let encrypted = try E2E.run(
                E2E.compressName, ["--encrypt", "--password-stdin", "--format", "7z", "--exclude", "*.log", "--name", "e.7z", s.path("one")],
                input: "secret\n")
            #expect(encrypted.status == 2 && encrypted.stderr.contains("cannot leave items out"), "\(encrypted)")
            #expect(!E2E.exists(s.path("e.7z")))
        }
    }
}
