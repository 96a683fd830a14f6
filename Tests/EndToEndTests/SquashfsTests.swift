import ArchiverTestSupport
import Foundation
import Testing

/// SquashFS images (snaps, .sqfs; issue 34), which libarchive does not read: read as the tar sqfs2tar
/// writes, so they extract, list and test as a tar does, and compared with what unsquashfs makes.
@Suite struct SquashfsTests {
    /// A tree with what an image may hold: a symlink, a hard link, an empty folder, a folder of mode 0750,
    /// a name that is not UTF-8, a file over several blocks, and a symlink pointing out of the tree.
    static let maker = """
        import os, sys
        root = sys.argv[1]
        os.makedirs(root + '/sub/deeper'); os.makedirs(root + '/empty')
        open(root + '/a.txt', 'w').write('hello\\n')
        open(root + '/sub/big.bin', 'wb').write(os.urandom(300000))
        os.symlink('a.txt', root + '/link')
        os.link(root + '/a.txt', root + '/sub/hard.txt')
        os.symlink('../../../../etc/passwd', root + '/escape')
        open(os.fsencode(root) + b'/caf\\xe9.txt', 'wb').write(b'latin-1 name\\n')
        os.chmod(root + '/sub/deeper', 0o750); os.chmod(root + '/sub/big.bin', 0o600)
        for path in ('a.txt', 'sub/big.bin', 'sub/deeper', 'empty'):
            os.utime(root + '/' + path, (981158400, 981158400), follow_symlinks=False)
        """

    /// Every path under a folder as bytes, with its kind, permission bits, contents (or link target) and,
    /// for files and symlinks, modification time: one line each, sorted.
    static let manifest = """
        import hashlib, os, stat, sys
        root = os.fsencode(sys.argv[1]); lines = []
        for folder, dirs, files in os.walk(root):
            for name in dirs + files:
                path = os.path.join(folder, name); rel = os.path.relpath(path, root); info = os.lstat(path)
                if stat.S_ISLNK(info.st_mode): what = 'link ' + repr(os.readlink(path)) + ' %d' % info.st_mtime
                elif stat.S_ISDIR(info.st_mode): what = 'dir %o' % stat.S_IMODE(info.st_mode)
                else: what = 'file %o %d %s' % (stat.S_IMODE(info.st_mode), info.st_mtime, hashlib.sha256(open(path, 'rb').read()).hexdigest())
                lines.append(repr(rel) + ' ' + what)
        print('\\n'.join(sorted(lines)))
        """

    static func image(_ s: ScratchDirectory, compression: String = "gzip") throws -> String {
        try s.python(maker, [s.path("tree")])
        let image = s.path("image.squashfs")
        try s.must("/usr/bin/mksquashfs", [s.path("tree"), image, "-comp", compression, "-noappend", "-quiet", "-no-progress"])
        return image
    }

    static func tree(_ s: ScratchDirectory, _ root: String) throws -> [String] {
        try s.python(manifest, [root]).stdout.split(separator: "\n").map(String.init)
    }

    /// Each compression Debian's libsquashfs reads; the tree is the one unsquashfs makes, but for the
    /// symlink pointing out, which is refused and named.
    @Test(arguments: ["gzip", "xz", "zstd", "lz4"])
    func imagesExtractAsUnsquashfsDoes(compression: String) throws {
        try E2E.withScratch("squashfs-\(compression)") { s in
            let image = try Self.image(s, compression: compression)
            let out = try s.extract(["--to", s.path("out"), image])
            #expect(out.status == 1, "partial: the link out is refused: \(out)")
            #expect(out.stderr.contains("“escape”"), "\(out)")
            try s.must("/usr/bin/unsquashfs", ["-quiet", "-no-progress", "-d", s.path("theirs"), image])
            let theirs = try Self.tree(s, s.path("theirs")).filter { !$0.hasPrefix("b'escape'") }
            #expect(try Self.tree(s, s.path("out/image")) == theirs)
            #expect(theirs.count == 8 && theirs.contains { $0.hasPrefix("b'caf\\xe9.txt'") }, "\(theirs)")
            var one = stat(), other = stat()
            #expect(lstat(s.path("out/image/a.txt"), &one) == 0 && lstat(s.path("out/image/sub/hard.txt"), &other) == 0)
            #expect(one.st_ino == other.st_ino, "a hard link stays one")
            #expect(E2E.leftovers(under: s.path("")).isEmpty)
        }
    }

    /// The listing says what is inside and what it is; `--test` reads every file.
    @Test func imagesListAndTest() throws {
        try E2E.withScratch { s in
            let image = try Self.image(s, compression: "xz")
            let listed = try s.extract(["--list", "--json", image])
            #expect(listed.status == 0, "\(listed)")
            let archive = try #require((listed.json?["archives"] as? [[String: Any]])?.first)
            #expect(archive["format"] as? String == "SquashFS (xz)")
            var types: [String: String] = [:]
            for entry in archive["entries"] as? [[String: Any]] ?? [] {
                types[(entry["path"] as? String ?? "?").trimmingCharacters(in: CharacterSet(charactersIn: "/"))] = entry["type"] as? String
            }
            #expect(types["sub/big.bin"] == "file" && types["link"] == "symlink" && types["empty"] == "directory", "\(types)")
            #expect(types["sub/hard.txt"] == "hardlink" || types["a.txt"] == "hardlink", "\(types)")
            #expect(types.count == 9, "\(types)")
            let tested = try s.extract(["--test", image])
            #expect(tested.status == 0, "\(tested)")
        }
    }

    /// An AppImage (type 2): its image follows the ELF program. Made as appimagetool makes one: a
    /// program marked "AI" 2 whose section headers end the file, with the image appended.
    @Test func anAppImageExtractsItsImage() throws {
        try E2E.withScratch { s in
            let image = try Self.image(s)
            try s.python("""
                import struct, sys
                program = bytearray(open('/usr/bin/true', 'rb').read())
                shoff, = struct.unpack_from('<Q', program, 0x28); size, count = struct.unpack_from('<HH', program, 0x3A)
                assert shoff + size * count == len(program)
                program[8:11] = b'AI\\x02'
                open(sys.argv[2], 'wb').write(program + open(sys.argv[1], 'rb').read())
                """, [image, s.path("Tool-x86_64.AppImage")])
            let out = try s.extract(["--to", s.path("out"), s.path("Tool-x86_64.AppImage")])
            #expect(out.status == 1, "partial: the link out is refused: \(out)")
            #expect(E2E.text(s.path("out/Tool-x86_64/sub/hard.txt")) == "hello\n")
            #expect(E2E.read(s.path("out/Tool-x86_64/sub/big.bin")) == E2E.read(s.path("tree/sub/big.bin")))
        }
    }

    /// A cut-off copy and damaged data: one clear sentence, exit 5, and nothing left.
    @Test func damagedImagesSaySoAndLeaveNothing() throws {
        try E2E.withScratch { s in
            // Text, so that its blocks are compressed: SquashFS keeps no checksums, and a spoiled stored block
            // would go unnoticed, by unsquashfs too.
            try s.write("tree/notes.txt", (0..<40_000).map { "line \($0) of some notes\n" }.joined())
            let image = s.path("image.squashfs")
            try s.must("/usr/bin/mksquashfs", [s.path("tree"), image, "-comp", "gzip", "-quiet", "-no-progress"])
            let whole = try #require(E2E.read(image))
            try s.write("cut.squashfs", data: whole.prefix(whole.count / 2))
            // The file's blocks come first after the 96-byte super block: spoil some of them.
            var spoiled = whole
            for offset in stride(from: spoiled.startIndex + 200, to: spoiled.startIndex + 20_000, by: 97) { spoiled[offset] ^= 0x5A }
            try s.write("spoiled.squashfs", data: spoiled)
            for name in ["cut.squashfs", "spoiled.squashfs"] {
                let out = try s.extract(["--to", s.path("out"), s.path(name)])
                #expect(out.status == 5, "\(name): \(out)")
                #expect(out.stderr.contains("“\(name)” is damaged or incomplete"), "\(name): \(out)")
                #expect(E2E.list(s.path("out")).isEmpty, "\(name)")
                #expect(E2E.leftovers(under: s.path("")).isEmpty, "\(name)")
            }
            let tested = try s.extract(["--test", s.path("spoiled.squashfs")])
            #expect(tested.status == 5, "\(tested)")
        }
    }
}
