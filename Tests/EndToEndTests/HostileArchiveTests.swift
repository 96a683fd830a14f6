import ArchiverTestSupport
import Foundation
import Testing

/// Archives no well-behaved tool writes, made with Python's tarfile/zipfile. Every escape attempt aims at
/// places inside the scratch folder, so the test can look there: `<scratch>/outside/…` (absolute targets)
/// and `<scratch>/ex/…` (one level above the `--to` destination `<scratch>/ex/dest`).
@Suite struct HostileArchiveTests {
    static let tarMaker = HostileTar.script("""
        outside = sys.argv[2]
        add('ok.txt', b'ok')
        add('dir', type=tarfile.DIRTYPE, mode=0o755)
        add('dir/ok2.txt', b'ok2')
        add('dir/good-link', type=tarfile.SYMTYPE, linkname='../ok.txt')
        add('dir/hard-ok', type=tarfile.LNKTYPE, linkname='ok.txt')
        add('../evil.txt', b'EVIL')
        add(outside + '/abs-evil.txt', b'EVIL')
        add('sub/../../evil2.txt', b'EVIL')
        add('link', type=tarfile.SYMTYPE, linkname='..')
        add('link/pwned.txt', b'EVIL')
        add('abslink', type=tarfile.SYMTYPE, linkname=outside)
        add('abslink/pwned2.txt', b'EVIL')
        add('hard-rel', type=tarfile.LNKTYPE, linkname='../../outside/secret.txt')
        add('hard-abs', type=tarfile.LNKTYPE, linkname=outside + '/secret.txt')
        add('dev/null2', type=tarfile.CHRTYPE, devmajor=1, devminor=3)
        add('blockdev', type=tarfile.BLKTYPE, devmajor=7, devminor=0)
        add('fifo', type=tarfile.FIFOTYPE)
        add('setuid.sh', b'#!/bin/sh\\necho suid\\n', mode=0o4755)
        add('setgid.sh', b'#!/bin/sh\\necho sgid\\n', mode=0o2755)
        add('sticky', type=tarfile.DIRTYPE, mode=0o1777)
        add('sticky/f.txt', b'f')
        """)

    /// The names stderr must mention for the tar (each refused entry).
    static func refusedTarNames(outside: String) -> [String] {
        ["../evil.txt", outside + "/abs-evil.txt", "sub/../../evil2.txt", "abslink", "hard-rel", "hard-abs",
         "dev/null2", "blockdev", "fifo"]
    }

    static let zipMaker = """
        import zipfile, sys, stat
        arc, outside = sys.argv[1], sys.argv[2]
        with zipfile.ZipFile(arc, 'w') as z:
            def add(name, data, mode=0o100644):
                i = zipfile.ZipInfo(name, (2020, 9, 13, 12, 26, 40)); i.create_system = 3
                i.external_attr = mode << 16
                z.writestr(i, data)
            add('ok.txt', b'ok')
            add('dir/ok2.txt', b'ok2')
            add('dir/good-link', b'../ok.txt', stat.S_IFLNK | 0o777)
            add('../zevil.txt', b'EVIL')
            add(outside + '/zabs.txt', b'EVIL')
            add('sub/../../zevil2.txt', b'EVIL')
            add('zlink', b'..', stat.S_IFLNK | 0o777)
            add('zlink/zpwned.txt', b'EVIL')
            add('zabslink', outside.encode(), stat.S_IFLNK | 0o777)
            add('zabslink/zpwned2.txt', b'EVIL')
            add('zsuid.sh', b'#!/bin/sh\\n', stat.S_IFREG | 0o4755)
        """

    /// Sets up `outside/secret.txt`, makes the archive, extracts it with `--json --to ex/dest`, and checks
    /// what every hostile archive must satisfy. Returns the extraction and the output folder.
    func extractHostile(_ s: ScratchDirectory, maker: String, name: String) throws -> (Outcome, String) {
        try s.write("outside/secret.txt", "precious")
        try s.mkdir("arch")
        try s.mkdir("ex")
        try s.python(maker, [s.path("arch/" + name), s.path("outside")])
        let before = E2E.allPaths(under: s.root)

        let out = try s.extract(["--json", "--to", s.path("ex/dest"), s.path("arch/" + name)])
        #expect(out.status == 1, "refused entries give exit 1: \(out)")

        // Several top-level items: a folder named after the archive holds them.
        let stem = (name as NSString).deletingPathExtension
        let output = s.path("ex/dest/" + stem)
        #expect(E2E.list(s.path("ex/dest")) == [stem], "\(E2E.list(s.path("ex/dest")))")

        // Nothing new anywhere but inside the output folder.
        let added = E2E.allPaths(under: s.root).subtracting(before)
            .filter { $0 != "ex/dest" && $0 != "ex/dest/\(stem)" && !$0.hasPrefix("ex/dest/\(stem)/") && !$0.hasPrefix("home/") }
        #expect(added.isEmpty, "written outside the destination: \(added.sorted())")
        #expect(E2E.list(s.path("ex")) == ["dest"])
        #expect(E2E.list(s.path("outside")) == ["secret.txt"])
        #expect(E2E.text(s.path("outside/secret.txt")) == "precious")
        #expect(E2E.linkCount(s.path("outside/secret.txt")) == 1, "something hardlinked the outside file")
        #expect(E2E.list(s.path("arch")) == [name])

        // Inside: no device, FIFO or socket, and no symlink that leads out of the output folder.
        for (rel, node) in TreeSnapshot.of(output).nodes {
            switch node {
            case .other(let kind): Issue.record("special file extracted: \(rel) (\(kind))")
            case .symlink(let target):
                #expect(!target.hasPrefix("/"), "absolute symlink extracted: \(rel) → \(target)")
                let resolved = URL(fileURLWithPath: output + "/" + rel).deletingLastPathComponent()
                    .appendingPathComponent(target).standardizedFileURL.path
                #expect(resolved.hasPrefix(output + "/"), "symlink leaves the output: \(rel) → \(target)")
            default: break
            }
        }
        #expect(E2E.leftovers(under: s.root).isEmpty)
        return (out, output)
    }

    @Test func hostileTarIsContained() throws {
        try E2E.withScratch { s in
            let (out, output) = try extractHostile(s, maker: Self.tarMaker, name: "evil.tar")
            let outside = s.path("outside")

            // The legitimate entries are there.
            #expect(E2E.text(output + "/ok.txt") == "ok")
            #expect(E2E.text(output + "/dir/ok2.txt") == "ok2")
            #expect(E2E.isSymlink(output + "/dir/good-link"))
            #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: output + "/dir/good-link")) == "../ok.txt")
            #expect(E2E.text(output + "/dir/hard-ok") == "ok", "a hardlink inside the archive extracts")
            #expect(E2E.text(output + "/sticky/f.txt") == "f")

            // setuid/setgid/sticky dropped, the rest of the mode kept.
            let suid = E2E.mode(output + "/setuid.sh")
            #expect(suid.map { $0 & 0o7777 } == 0o755, "setuid.sh mode \(String(suid ?? -1, radix: 8))")
            let sgid = E2E.mode(output + "/setgid.sh")
            #expect(sgid.map { $0 & 0o7777 } == 0o755, "setgid.sh mode \(String(sgid ?? -1, radix: 8))")
            let sticky = E2E.mode(output + "/sticky")
            #expect(sticky.map { $0 & 0o7000 } == 0, "sticky dir mode \(String(sticky ?? -1, radix: 8))")
            #expect(E2E.text(output + "/setuid.sh") == "#!/bin/sh\necho suid\n")

            // The refused ones are not there and are named.
            for name in ["evil.txt", "evil2.txt", "fifo", "blockdev", "dev/null2", "hard-rel", "hard-abs"] {
                #expect(!E2E.exists(output + "/" + name), "\(name) should not be extracted")
            }
            // The symlinks are refused; a later entry below the same name may then make a plain folder.
            #expect(!E2E.isSymlink(output + "/abslink") && !E2E.isSymlink(output + "/link"))
            for name in Self.refusedTarNames(outside: outside) {
                #expect(out.stderr.contains(name), "stderr should name \(name): \(out.stderr)")
            }
            // `link -> ..` (it leaves the output) or the write through it is refused and named.
            #expect(out.stderr.contains("link/pwned.txt") || out.stderr.contains("“link”") || out.stderr.contains("\"link\""),
                    "stderr should name link or link/pwned.txt: \(out.stderr)")
            #expect(!E2E.exists(output + "/pwned.txt") && !E2E.exists(s.path("ex/dest/pwned.txt")))

            // JSON: the same refusals, each with a reason.
            let json = try #require(out.json, "stdout is JSON: \(out.stdout)")
            #expect(E2E.int(json["exitCode"]) == 1)
            let result = try #require((json["results"] as? [[String: Any]])?.first)
            #expect(result["output"] as? String == output)
            let refused = (result["refused"] as? [[String: Any]]) ?? []
            let refusedPaths = Set(refused.compactMap { $0["path"] as? String })
            for name in Self.refusedTarNames(outside: outside) {
                #expect(refusedPaths.contains(name), "JSON refused lacks \(name): \(refusedPaths.sorted())")
            }
            #expect(refusedPaths.contains("link") || refusedPaths.contains("link/pwned.txt"), "\(refusedPaths.sorted())")
            #expect(refused.allSatisfy { E2E.nonEmptyString($0["reason"]) })
            #expect(!refusedPaths.contains("ok.txt") && !refusedPaths.contains("dir/good-link") && !refusedPaths.contains("setuid.sh"))
        }
    }

    @Test func hostileZipIsContained() throws {
        try E2E.withScratch { s in
            let (out, output) = try extractHostile(s, maker: Self.zipMaker, name: "evil.zip")
            let outside = s.path("outside")
            #expect(E2E.text(output + "/ok.txt") == "ok")
            #expect(E2E.text(output + "/dir/ok2.txt") == "ok2")
            #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: output + "/dir/good-link")) == "../ok.txt")
            let suid = E2E.mode(output + "/zsuid.sh")
            #expect(suid.map { $0 & 0o7777 } == 0o755, "zsuid.sh mode \(String(suid ?? -1, radix: 8))")
            for name in ["../zevil.txt", outside + "/zabs.txt", "sub/../../zevil2.txt", "zabslink"] {
                #expect(out.stderr.contains(name), "stderr should name \(name): \(out.stderr)")
            }
            #expect(out.stderr.contains("zlink"), "\(out.stderr)")
            #expect(!E2E.exists(output + "/zpwned.txt") && !E2E.exists(s.path("ex/dest/zpwned.txt")))
            #expect(!E2E.isSymlink(output + "/zabslink") && !E2E.isSymlink(output + "/zlink"))
        }
    }

    /// A symlink already in the destination folder is not written through by a later extraction, and an
    /// archive's own names cannot overwrite anything there.
    @Test func existingSymlinkInDestinationIsNotFollowed() throws {
        try E2E.withScratch { s in
            try s.write("outside/secret.txt", "precious")
            try s.mkdir("dest")
            try FileManager.default.createSymbolicLink(atPath: s.path("dest/docs"), withDestinationPath: s.path("outside"))
            // An archive with one top-level folder named like the existing symlink.
            try s.python(
                """
                import tarfile, io, sys
                with tarfile.open(sys.argv[1], 'w') as t:
                    for name, data in [('docs/secret.txt', b'OVERWRITTEN'), ('docs/new.txt', b'new')]:
                        i = tarfile.TarInfo(name); i.size = len(data); t.addfile(i, io.BytesIO(data))
                """, [s.path("docs.tar")])
            let out = try s.extract(["--to", s.path("dest"), s.path("docs.tar")])
            #expect(out.status == 0 || out.status == 1, "\(out)")
            #expect(E2E.text(s.path("outside/secret.txt")) == "precious")
            #expect(E2E.list(s.path("outside")) == ["secret.txt"])
            #expect(E2E.isSymlink(s.path("dest/docs")))
            // Never overwrite: the new folder gets a numbered name.
            #expect(E2E.text(s.path("dest/docs (2)/new.txt")) == "new", "\(E2E.list(s.path("dest")))")
        }
    }
}
