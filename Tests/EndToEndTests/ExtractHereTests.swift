import ArchiverTestSupport
import Foundation
import Testing

/// `--here`, the menus' "Extract Here": beside the archive even in a temporary folder; the default
/// location only when that folder cannot be written. Without it, "Open with" keeps treating a temporary
/// folder as a mail attachment's.
@Suite struct ExtractHereTests {
    static func makeTar(_ s: ScratchDirectory, _ path: String, top: String) throws {
        try s.python(
            """
            import tarfile, io, sys
            with tarfile.open(sys.argv[1], 'w') as t:
                d = tarfile.TarInfo(sys.argv[2]); d.type = tarfile.DIRTYPE; d.mode = 0o755; d.mtime = 1600000000
                t.addfile(d)
                data = b'here'; f = tarfile.TarInfo(sys.argv[2] + '/f.txt'); f.size = len(data); f.mtime = 1600000000
                t.addfile(f, io.BytesIO(data))
            """, [path, top])
    }

    static func output(_ out: Outcome) -> String? {
        (out.json?["results"] as? [[String: Any]])?.first?["output"] as? String
    }

    @Test func aTemporaryFolderExtractsBesideWithHereAndToDownloadsWithout() throws {
        try E2E.withScratch { s in
            try s.mkdir("mailtmp")
            try s.mkdir("runtime/cache")
            try Self.makeTar(s, s.path("mailtmp/attach.tar"), top: "attach")
            let env = ["TMPDIR": s.path("mailtmp"), "XDG_RUNTIME_DIR": s.path("runtime")]

            let here = try s.extract(["--json", "--here", s.path("mailtmp/attach.tar")], env: env)
            #expect(here.status == 0, "\(here)")
            #expect(Self.output(here) == s.path("mailtmp/attach"))
            #expect(E2E.text(s.path("mailtmp/attach/f.txt")) == "here")

            let opened = try s.extract(["--json", s.path("mailtmp/attach.tar")], env: env)
            #expect(opened.status == 0, "\(opened)")
            #expect(Self.output(opened) == s.path("home/Downloads/attach"), "without --here: the default location")
            #expect(E2E.list(s.path("mailtmp")) == ["attach", "attach.tar"])

            // $XDG_RUNTIME_DIR too.
            try Self.makeTar(s, s.path("runtime/cache/rt.tar"), top: "rt")
            let runtime = try s.extract(["--json", "--here", s.path("runtime/cache/rt.tar")], env: env)
            #expect(Self.output(runtime) == s.path("runtime/cache/rt"), "\(runtime)")
            #expect(E2E.leftovers(under: s.root).isEmpty)
        }
    }

    /// A folder that cannot be written: --here falls back to the default location. Root writes through
    /// permissions, so as root the folder is a tmpfs remounted read-only.
    @Test func anUnwritableFolderFallsBackToTheDefaultLocation() throws {
        try E2E.withScratch { s in
            let folder = try s.mkdir("ro")
            try Self.makeTar(s, s.path("ro/locked.tar"), top: "locked")
            var mounted = false
            if ErrorTests.isRoot {
                let staged = try s.mkdir("staged")
                try FileManager.default.moveItem(atPath: s.path("ro/locked.tar"), toPath: staged + "/locked.tar")
                try s.must("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", folder])
                mounted = true
                try FileManager.default.copyItem(atPath: staged + "/locked.tar", toPath: folder + "/locked.tar")
                try s.must("/bin/mount", ["-o", "remount,ro", folder])
            } else {
                try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder)
            }
            defer { if mounted { _ = try? s.tool("/bin/umount", [folder]) } }

            let out = try s.extract(["--json", "--here", s.path("ro/locked.tar")])
            #expect(out.status == 0, "\(out)")
            #expect(Self.output(out) == s.path("home/Downloads/locked"))
            #expect(E2E.list(folder) == ["locked.tar"])
        }
    }

    @Test func hereMeansNothingWithToListOrChooseFolder() throws {
        try E2E.withScratch { s in
            try s.mkdir("w")
            try Self.makeTar(s, s.path("w/a.tar"), top: "a")
            for extra in [["--list"], ["--to", s.path("x")], ["--choose-folder"]] {
                let out = try s.extract(["--here"] + extra + [s.path("w/a.tar")])
                #expect(out.status == 2, "\(extra): \(out)")
                #expect(out.stderr.contains("--here"), "\(out.stderr)")
            }
        }
    }
}
