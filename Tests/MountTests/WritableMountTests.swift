import ArchiverTestSupport
import Foundation
import Glibc
import Testing

/// The writable Open as Folder: changes made by ordinary programs in the folder, committed through the
/// edit engine at unmount, and read back by other tools.
@Suite(.serialized, .enabled(if: Mounts.unavailable == nil, Comment(rawValue: Mounts.unavailable ?? "")))
struct WritableMountTests {
    /// A zip by Python: deflated text files in two folders.
    static func makeZip(_ mounts: Mounts) throws -> String {
        let archive = mounts.scratch.sub("x.zip")
        let made = try Tool.run(["/usr/bin/python3", "-c", """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:
                for n in range(8):
                    info = zipfile.ZipInfo(f'docs/f{n}.txt', (2020, 1, 2, 3, 4, 6))
                    info.external_attr = 0o100644 << 16
                    z.writestr(info, f'file {n}\\n' * 500)
                z.writestr('top.txt', 'top\\n')
            """, archive])
        try #require(made.status == 0, "\(made.output)")
        return archive
    }

    /// Python's view of a zip: name → (bytes, mode, mtime as a tuple string), and each member's raw bytes
    /// from its local header to the end of its data.
    static func read(_ archive: String) throws -> [String: (data: String, mode: Int, time: String, raw: String)] {
        let listed = try Tool.run(["/usr/bin/python3", "-c", """
            import sys, zipfile, json
            out = {}
            with zipfile.ZipFile(sys.argv[1]) as z, open(sys.argv[1], 'rb') as f:
                assert z.testzip() is None
                for i in z.infolist():
                    f.seek(i.header_offset)
                    head = f.read(30)
                    size = 30 + int.from_bytes(head[26:28], 'little') + int.from_bytes(head[28:30], 'little') + i.compress_size
                    f.seek(i.header_offset)
                    raw = f.read(size).hex()
                    data = '' if i.is_dir() else z.read(i).decode('latin-1')
                    out[i.filename] = [data, (i.external_attr >> 16) & 0o7777, str(i.date_time), raw]
            print(json.dumps(out))
            """, archive])
        try #require(listed.status == 0, "\(listed.output)")
        let object = try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as! [String: [Any]]
        return object.mapValues { ($0[0] as! String, $0[1] as! Int, $0[2] as! String, $0[3] as! String) }
    }

    @Test func editsByProgramsAreCommittedAtUnmount() throws {
        let mounts = try Mounts()
        defer { mounts.cleanUp() }
        let archive = try Self.makeZip(mounts)
        let before = try Self.read(archive)
        let folder = try mounts.mount(archive)

        // An editor's save: a temporary file, renamed over the original.
        try Data("edited\n".utf8).write(to: URL(fileURLWithPath: folder + "/docs/.f0.txt.swp"))
        #expect(rename(folder + "/docs/.f0.txt.swp", folder + "/docs/f0.txt") == 0)
        #expect(try String(contentsOfFile: folder + "/docs/f0.txt", encoding: .utf8) == "edited\n")
        // cp from outside, rm, mkdir, mv, chmod, touch, a symlink, an append to an entry of the archive.
        let outside = mounts.scratch.sub("outside.bin")
        try Data((0..<100_000).map { UInt8($0 % 251) }).write(to: URL(fileURLWithPath: outside))
        #expect(try Tool.run(["/usr/bin/cp", outside, folder + "/docs/copied.bin"]).status == 0)
        #expect(try Tool.run(["/usr/bin/rm", folder + "/docs/f1.txt"]).status == 0)
        #expect(try Tool.run(["/usr/bin/mkdir", folder + "/new folder"]).status == 0)
        #expect(try Tool.run(["/usr/bin/mv", folder + "/docs/f2.txt", folder + "/new folder/moved.txt"]).status == 0)
        #expect(try Tool.run(["/usr/bin/chmod", "600", folder + "/docs/f3.txt"]).status == 0)
        #expect(try Tool.run(["/usr/bin/touch", "-d", "2001-09-09 01:46:40", folder + "/docs/f4.txt"]).status == 0)
        #expect(symlink("f5.txt", folder + "/docs/link") == 0)
        #expect(try Tool.run(["/bin/sh", "-c", "echo more >> '\(folder)/docs/f6.txt'"]).status == 0)
        #expect(FileManager.default.contents(atPath: folder + "/docs/copied.bin") == FileManager.default.contents(atPath: outside))
        #expect(!FileManager.default.fileExists(atPath: folder + "/docs/f1.txt"))

        let unmounted = try mounts.run(["--unmount", folder])
        #expect(unmounted.status == 0, "\(mounts.errors)")
        #expect(try Tool.run(["/usr/bin/unzip", "-tq", archive]).status == 0)
        let after = try Self.read(archive)
        #expect(after["docs/f0.txt"]?.data == "edited\n")
        #expect(after["docs/copied.bin"]?.data.utf8.count ?? 0 > 0)
        #expect(after["docs/copied.bin"].map { Data($0.data.unicodeScalars.map { UInt8($0.value) }) } == FileManager.default.contents(atPath: outside))
        #expect(after["docs/f1.txt"] == nil)
        #expect(after["new folder/moved.txt"]?.data == before["docs/f2.txt"]?.data)
        #expect(after["docs/f2.txt"] == nil)
        #expect(after["docs/f3.txt"]?.mode == 0o600)
        #expect(after["docs/f4.txt"]?.time.hasPrefix("(2001, 9, 9") == true)
        #expect(after["docs/f6.txt"]?.data == (before["docs/f6.txt"]?.data ?? "") + "more\n")
        let listing = try Tool.run(["/usr/bin/bsdtar", "-tvf", archive]).output
        #expect(listing.contains("docs/link -> f5.txt"), "\(listing)")
        // Untouched members are copied raw: local header, data and all.
        for name in ["docs/f5.txt", "docs/f7.txt", "top.txt"] {
            #expect(after[name]?.raw == before[name]?.raw, "\(name) was rewritten")
        }
        #expect(!FileManager.default.fileExists(atPath: mounts.scratch.sub("x (edited).zip")))
    }

    /// Changes rest `mount-commit-delay` seconds (3) with no file open, then reach the archive while the
    /// folder stays mounted and usable.
    @Test func quietChangesAreCommittedWhileMounted() throws {
        let mounts = try Mounts()
        defer { mounts.cleanUp() }
        let archive = try Self.makeZip(mounts)
        let folder = try mounts.mount(archive)
        try Data("idle\n".utf8).write(to: URL(fileURLWithPath: folder + "/idle.txt"))
        var committed = false
        for _ in 0..<60 where !committed {
            usleep(250_000)
            committed = (try? Tool.run(["/usr/bin/unzip", "-l", archive]).output.contains("idle.txt")) == true
        }
        #expect(committed, "\(mounts.errors)")
        // The folder goes on: the committed file reads, and a later change commits at unmount.
        #expect(FileManager.default.contents(atPath: folder + "/idle.txt") == Data("idle\n".utf8))
        #expect(unlink(folder + "/idle.txt") == 0)
        #expect(try mounts.run(["--unmount", folder]).status == 0, "\(mounts.errors)")
        #expect(try Self.read(archive)["idle.txt"] == nil)
    }

    /// The archive written by another program while mounted: the changes go beside it, theirs stays.
    @Test func anArchiveChangedMeanwhileGetsTheChangesBeside() throws {
        let mounts = try Mounts()
        defer { mounts.cleanUp() }
        let archive = try Self.makeZip(mounts)
        let folder = try mounts.mount(archive)
        let appended = try Tool.run(["/usr/bin/python3", "-c", """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], 'a') as z: z.writestr('theirs.txt', 'theirs')
            """, archive])
        try #require(appended.status == 0)
        let theirs = FileManager.default.contents(atPath: archive)
        try Data("mine\n".utf8).write(to: URL(fileURLWithPath: folder + "/mine.txt"))

        let unmounted = try mounts.run(["--unmount", folder])
        #expect(unmounted.status == 1, "\(mounts.errors)")
        #expect(mounts.errors.contains("x (edited).zip"), "\(mounts.errors)")
        #expect(FileManager.default.contents(atPath: archive) == theirs)
        let beside = try Self.read(mounts.scratch.sub("x (edited).zip"))
        #expect(beside["mine.txt"]?.data == "mine\n")
    }

    /// A daemon killed before it committed: its layer keeps the changes, and the next mount commits them.
    @Test func aKilledDaemonsChangesAreCommittedByTheNextMount() throws {
        let mounts = try Mounts()
        defer { mounts.cleanUp() }
        let archive = try Self.makeZip(mounts)
        var folder = try mounts.mount(archive)
        let daemon = try #require(Mounts.daemon(serving: folder))
        try Data("kept\n".utf8).write(to: URL(fileURLWithPath: folder + "/kept.txt"))
        #expect(unlink(folder + "/top.txt") == 0)
        kill(daemon, SIGKILL)
        // The mount goes once fusermount3 sees the daemon gone, or the next mount detaches it.
        for _ in 0..<100 where Mounts.ours().contains(folder) || kill(daemon, 0) == 0 { usleep(50_000) }
        #expect(try Self.read(archive)["kept.txt"] == nil)

        folder = try mounts.mount(archive)
        let after = try Self.read(archive)
        #expect(after["kept.txt"]?.data == "kept\n")
        #expect(after["top.txt"] == nil)
        #expect(FileManager.default.contents(atPath: folder + "/kept.txt") == Data("kept\n".utf8))
        #expect(try mounts.run(["--unmount", folder]).status == 0, "\(mounts.errors)")
        let layers = (try? FileManager.default.contentsOfDirectory(atPath: mounts.cache + "/io.github.archiver/layers")) ?? []
        #expect(layers.isEmpty, "\(layers)")
    }

    /// Formats Archiver does not write, and `--read-only`, give a read-only folder.
    @Test func readOnlyFoldersRefuseWritesWithEROFS() throws {
        let mounts = try Mounts()
        defer { mounts.cleanUp() }
        let zip = try Self.makeZip(mounts)
        let tree = mounts.scratch.sub("tree")
        try FileManager.default.createDirectory(atPath: tree, withIntermediateDirectories: true)
        try Data("a".utf8).write(to: URL(fileURLWithPath: tree + "/a.txt"))
        let cpio = mounts.scratch.sub("t.cpio")
        try #require(try Tool.run(["/usr/bin/bsdtar", "--format", "cpio", "-cf", cpio, "-C", tree, "a.txt"]).status == 0)
        for (archive, extra) in [(zip, ["--read-only"]), (cpio, [])] {
            let folder = try mounts.mount(archive, extra)
            let descriptor = open(folder + "/new.txt", O_WRONLY | O_CREAT, 0o644)
            let error = errno
            #expect(descriptor < 0 && error == EROFS, "\(archive): \(error)")
            #expect(mkdir(folder + "/d", 0o755) != 0 && errno == EROFS)
            #expect(try mounts.run(["--unmount", folder]).status == 0)
        }
    }

    /// "Move to Trash" must not add a trash folder to the archive: it is refused at the top, and `gio
    /// trash` then fails instead of making one.
    @Test func aTrashFolderIsRefusedAtTheTop() throws {
        let mounts = try Mounts()
        defer { mounts.cleanUp() }
        let archive = try Self.makeZip(mounts)
        let folder = try mounts.mount(archive)
        #expect(mkdir(folder + "/.Trash-\(getuid())", 0o700) != 0 && errno == EACCES)
        #expect(mkdir(folder + "/.Trash", 0o700) != 0 && errno == EACCES)
        #expect(mkdir(folder + "/docs/.Trash-1000", 0o700) == 0)
        if access("/usr/bin/gio", X_OK) == 0 {
            let trashed = try Tool.run(["/usr/bin/gio", "trash", folder + "/top.txt"])
            #expect(trashed.status != 0, "\(trashed.output)")
        }
        #expect(try mounts.run(["--unmount", folder]).status == 0, "\(mounts.errors)")
        let names = try Self.read(archive).keys
        #expect(!names.contains { $0.hasPrefix(".Trash") })
        #expect(names.contains("top.txt"))
    }

    /// The tar family and 7z go through the same engine: a rename, an addition and a deletion.
    @Test(arguments: ["t.tar.gz", "t.7z"]) func otherFormatsTakeChangesToo(_ name: String) throws {
        let mounts = try Mounts()
        defer { mounts.cleanUp() }
        let tree = mounts.scratch.sub("tree")
        try FileManager.default.createDirectory(atPath: tree + "/d", withIntermediateDirectories: true)
        for file in ["a", "b", "d/c"] { try Data("\(file)\n".utf8).write(to: URL(fileURLWithPath: tree + "/" + file)) }
        let archive = mounts.scratch.sub(name)
        let argv = name.hasSuffix(".7z") ? ["/usr/bin/7zz", "a", "-bd", archive, tree + "/."] : ["/usr/bin/bsdtar", "-czf", archive, "-C", tree, "a", "b", "d"]
        try #require(try Tool.run(argv).status == 0)
        let folder = try mounts.mount(archive)
        #expect(rename(folder + "/a", folder + "/d/a2") == 0)
        #expect(unlink(folder + "/b") == 0)
        try Data("new\n".utf8).write(to: URL(fileURLWithPath: folder + "/new.txt"))
        #expect(try mounts.run(["--unmount", folder]).status == 0, "\(mounts.errors)")
        let out = mounts.scratch.sub("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        #expect(try Tool.run(["/usr/bin/bsdtar", "-xf", archive, "-C", out]).status == 0)
        let shown = try Mounts.tree(out)
        #expect(Set(shown.keys) == ["d", "d/a2", "d/c", "new.txt"])
        #expect(shown["d/a2"] == Data("a\n".utf8))
        #expect(shown["new.txt"] == Data("new\n".utf8))
    }

    /// A file copied into the folder of an AES zip (password from standard input) goes into the archive
    /// AES-encrypted with the same password; the old members stay byte for byte; and the layer that held
    /// the plain bytes meanwhile was under $XDG_RUNTIME_DIR, never $XDG_CACHE_HOME.
    @Test func aFileCopiedIntoAnEncryptedZipIsEncryptedWithTheSamePassword() throws {
        let mounts = try Mounts()
        defer { mounts.cleanUp() }
        let tree = mounts.scratch.sub("tree")
        try FileManager.default.createDirectory(atPath: tree + "/docs", withIntermediateDirectories: true)
        for name in ["a.txt", "docs/b.txt"] { try Data(String(repeating: "\(name) ", count: 300).utf8).write(to: URL(fileURLWithPath: tree + "/" + name)) }
        let archive = mounts.scratch.sub("secret.zip")
        let password = "correct horse 42"
        try #require(try Tool.run(["/usr/bin/7zz", "a", "-bd", "-tzip", "-mem=AES256", "-p" + password, archive, tree + "/."]).status == 0)
        let before = try Self.rawMembers(archive)
        let marker = "PLAIN-\(UInt64.random(in: 1..<UInt64.max))"
        let outside = mounts.scratch.sub("plain.txt")
        try Data(String(repeating: marker + "\n", count: 200).utf8).write(to: URL(fileURLWithPath: outside))

        let folder = try mounts.mount(archive, ["--password-stdin"], input: password + "\n")
        #expect(try Tool.run(["/usr/bin/cp", outside, folder + "/docs/new.txt"]).status == 0)
        #expect(FileManager.default.contents(atPath: folder + "/docs/new.txt") == FileManager.default.contents(atPath: outside))
        #expect(!Self.filesHolding(marker, under: mounts.runtime + "/archiver/layers").isEmpty, "the layer is not under $XDG_RUNTIME_DIR")
        #expect(Self.filesHolding(marker, under: mounts.cache).isEmpty)
        #expect(try mounts.run(["--unmount", folder]).status == 0, "\(mounts.errors)")

        let after = try Self.rawMembers(archive)
        let added = try #require(after["docs/new.txt"], "\(after.keys)")
        // Method 99 with the WinZip AES extra field (0x9901, strength 3 = AES-256), flag bit 0: encrypted.
        #expect(added.method == 99 && added.flags & 1 == 1 && added.aesStrength == 3, "\(added)")
        #expect(try Tool.run(["/usr/bin/7zz", "t", "-p" + password, archive]).status == 0)
        #expect(try Tool.run(["/usr/bin/7zz", "t", "-pwrong", archive]).status != 0)
        let extracted = try Tool.run(["/usr/bin/7zz", "x", "-so", "-p" + password, archive, "docs/new.txt"], mergingErrors: false)
        #expect(extracted.output == String(decoding: FileManager.default.contents(atPath: outside) ?? Data(), as: UTF8.self))
        for (name, member) in before { #expect(after[name]?.raw == member.raw, "\(name) was rewritten") }
        #expect(Self.filesHolding(marker, under: mounts.cache).isEmpty)
        #expect(Self.filesHolding(marker, under: mounts.runtime).isEmpty, "a layer was left")
    }

    /// A commit that fails (the archive's disk is full): `--unmount` says why with exit 7, the archive is
    /// as it was, the changes stay in the layer, and the next mount commits them.
    @Test(.enabled(if: TinyDisk.available, "skipped: needs root to mount a small tmpfs"))
    func aFailedCommitKeepsTheChangesForTheNextMount() throws {
        let mounts = try Mounts()
        defer { mounts.cleanUp() }
        let disk = try #require(TinyDisk(in: mounts.scratch, options: "size=1m"))
        let archive = disk.path + "/x.zip"
        try FileManager.default.copyItem(atPath: try Self.makeZip(mounts), toPath: archive)
        let before = FileManager.default.contents(atPath: archive)
        try disk.leave(free: 64 * 1024)
        var generator = SystemRandomNumberGenerator()
        let bytes = Data((0..<300_000).map { _ in UInt8.random(in: 0...255, using: &generator) })

        var folder = try mounts.mount(archive)
        try bytes.write(to: URL(fileURLWithPath: folder + "/big.bin"))
        let unmounted = try mounts.run(["--unmount", folder])
        #expect(unmounted.status == 7, "\(mounts.errors)")
        #expect(mounts.errors.contains("full"), "\(mounts.errors)")
        #expect(mounts.errors.contains("The changes are kept, and saved when “x.zip” is opened as a folder again."), "\(mounts.errors)")
        #expect(FileManager.default.contents(atPath: archive) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: disk.path).sorted() == ["filler", "x.zip"])
        let layers = mounts.cache + "/io.github.archiver/layers"
        #expect(!Self.filesHolding(bytes.prefix(64), under: layers).isEmpty, "the changes are not in the layer")

        try FileManager.default.removeItem(atPath: disk.path + "/filler")
        folder = try mounts.mount(archive)
        #expect(FileManager.default.contents(atPath: folder + "/big.bin") == bytes)
        #expect(try mounts.run(["--unmount", folder]).status == 0, "\(mounts.errors)")
        #expect(try Tool.run(["/usr/bin/unzip", "-tq", archive]).status == 0)
        #expect(try Self.read(archive)["big.bin"]?.data.unicodeScalars.map { UInt8($0.value) } == Array(bytes))
        #expect((try? FileManager.default.contentsOfDirectory(atPath: layers)) ?? [] == [])
    }

    /// Each member's local header fields and raw bytes (header to the end of its data), read without
    /// decrypting: name → (method, flags, AES strength from the 0x9901 extra field or 0, raw hex).
    static func rawMembers(_ archive: String) throws -> [String: (method: Int, flags: Int, aesStrength: Int, raw: String)] {
        let listed = try Tool.run(["/usr/bin/python3", "-c", """
            import sys, zipfile, json, struct
            out = {}
            with zipfile.ZipFile(sys.argv[1]) as z, open(sys.argv[1], 'rb') as f:
                for i in z.infolist():
                    f.seek(i.header_offset)
                    head = f.read(30)
                    flags, method = struct.unpack('<HH', head[6:10])
                    n, e = struct.unpack('<HH', head[26:30])
                    f.read(n)
                    extra = f.read(e)
                    strength, at = 0, 0
                    while at + 4 <= len(extra):
                        tag, size = struct.unpack('<HH', extra[at:at + 4])
                        if tag == 0x9901: strength = extra[at + 8]
                        at += 4 + size
                    f.seek(i.header_offset)
                    out[i.filename] = [method, flags, strength, f.read(30 + n + e + i.compress_size).hex()]
            print(json.dumps(out))
            """, archive])
        try #require(listed.status == 0, "\(listed.output)")
        let object = try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as! [String: [Any]]
        return object.mapValues { ($0[0] as! Int, $0[1] as! Int, $0[2] as! Int, $0[3] as! String) }
    }

    /// The regular files under `root` (not following symlinks or crossing into mounts) that hold `needle`.
    static func filesHolding(_ needle: some DataProtocol, under root: String) -> [String] {
        let wanted = Data(needle)
        guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
        var found: [String] = []
        while let name = walker.nextObject() as? String {
            let path = root + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            if FileManager.default.contents(atPath: path)?.range(of: wanted) != nil { found.append(path) }
        }
        return found
    }

    static func filesHolding(_ needle: String, under root: String) -> [String] { filesHolding(Data(needle.utf8), under: root) }
}
