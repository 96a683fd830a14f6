import ArchiverTestSupport
import Foundation
import Glibc
import Testing

/// Open as Folder end to end: archives made by other tools, mounted by the built `open-with-archiver`,
/// read through the kernel and compared with what those tools packed.
@Suite(.serialized, .enabled(if: Mounts.unavailable == nil, Comment(rawValue: Mounts.unavailable ?? "")))
struct MountTests {
    /// A tree with a big file (several reader blocks), an empty one, nested folders, a symlink inside,
    /// an executable and a name with spaces.
    static func makeTree(_ root: String) throws {
        try SampleTree.make(
            at: root,
            [
                .folder("docs/deep/er"), .folder("empty folder"),
                .file("docs/big.bin", SampleTree.randomData(3_500_000)),
                .file("docs/deep/er/repeated.txt", Data(repeating: 0x41, count: 200_000)),
                .file("empty.txt", Data()),
                .file("a name with spaces.txt", Data("hello\n".utf8)),
            ] + (0..<20).map { .file("docs/small-\($0).txt", Data("file \($0)\n".utf8)) }
                + [.symlink("docs/link", target: "deep/er/repeated.txt")])
    }

    /// Each archive kind, made by the tool people use for it.
    static let makers: [(name: String, argv: @Sendable (String, String) -> [String])] = [
        ("t.tar.gz", { archive, tree in ["/usr/bin/bsdtar", "-czf", archive, "-C", tree, "."] }),
        ("t.tar.xz", { archive, tree in ["/usr/bin/bsdtar", "-cJf", archive, "-C", tree, "."] }),
        ("t.tar.bz2", { archive, tree in ["/usr/bin/bsdtar", "-cjf", archive, "-C", tree, "."] }),
        ("t.7z", { archive, tree in ["/usr/bin/7zz", "a", "-bd", "-snl", archive, tree + "/."] }),
        // libarchive reads no SquashFS: the engine turns the image into a tar as it reads.
        ("t.squashfs", { archive, tree in ["/usr/bin/mksquashfs", tree, archive, "-comp", "zstd", "-quiet", "-no-progress"] }),
        ("t.zip", { archive, tree in
            ["/usr/bin/python3", "-c", """
            import os, sys, zipfile
            arc, root = sys.argv[1], sys.argv[2]
            with zipfile.ZipFile(arc, 'w', zipfile.ZIP_DEFLATED) as z:
                for folder, dirs, files in os.walk(root):
                    for name in dirs + files:
                        path = os.path.join(folder, name)
                        if os.path.islink(path) or os.path.isfile(path) or os.path.isdir(path):
                            z.write(path, os.path.relpath(path, root))
            """, archive, tree]
        }),
    ]

    @Test(arguments: makers.indices)
    func everyFileReadsAsPacked(_ which: Int) throws {
        let mounts = try Mounts()
        defer { mounts.cleanUp() }
        let tree = mounts.scratch.sub("tree")
        try Self.makeTree(tree)
        let (name, argv) = Self.makers[which]
        let archive = mounts.scratch.sub(name)
        let made = try Tool.run(argv(archive, tree))
        try #require(made.status == 0, "\(made.output)")

        // Read-only, as a mail attachment opened to look: nothing can be written (WritableMountTests write).
        let folder = try mounts.mount(archive, ["--read-only"])
        #expect(folder == mounts.runtime + "/archiver/" + name)
        #expect(Mounts.ours().contains(folder))
        var expected = try Mounts.tree(tree)
        // Python's zipfile stores what a symlink points to, not the link.
        if name.hasSuffix(".zip") { expected["docs/link"] = expected["docs/deep/er/repeated.txt"] }
        let shown = try Mounts.tree(folder)
        #expect(Set(shown.keys) == Set(expected.keys))
        for (path, data) in expected where shown[path] != data { Issue.record("\(name): \(path) differs") }
        let files = expected.keys.filter { !expected[$0]!.starts(with: Data("/".utf8)) && !expected[$0]!.starts(with: Data("-> ".utf8)) }
        let scrambled = Mounts.readScrambled(folder, files: files.shuffled())
        for path in files where scrambled[path] != expected[path] { Issue.record("\(name): \(path) differs when read out of order") }
        #expect(FileManager.default.createFile(atPath: folder + "/new.txt", contents: Data()) == false)

        let unmounted = try mounts.run(["--unmount", folder])
        #expect(unmounted.status == 0, "\(mounts.errors)")
        #expect(!Mounts.ours().contains(folder))
        #expect(!FileManager.default.fileExists(atPath: folder))
    }

    /// Copying a compressed tar's folder out reads the archive about once, not once per file: a closed
    /// file's reader goes on to the next one. Counted with the daemon's read bytes (/proc/PID/io).
    @Test func readingEveryFileInOrderReadsTheArchiveOnce() throws {
        let mounts = try Mounts()
        defer { mounts.cleanUp() }
        let (tree, archive) = try mounts.randomTarGz(files: 40)
        let order = try Tool.run(["/usr/bin/bsdtar", "-tf", archive]).output.split(separator: "\n").map(String.init).filter { $0 != "./" }
        let folder = try mounts.mount(archive)
        let daemon = try #require(Mounts.daemon(serving: folder))
        func readBytes() throws -> Int { try Mounts.bytesRead(by: daemon) }
        let before = try readBytes()
        for name in order {
            #expect(FileManager.default.contents(atPath: folder + "/" + name) == FileManager.default.contents(atPath: tree + "/" + name))
        }
        let size = try #require(try FileManager.default.attributesOfItem(atPath: archive)[.size] as? Int)
        let read = try readBytes() - before
        #expect(read < 3 * size, "read \(read) bytes of a \(size)-byte archive")
        try mounts.run(["--unmount", folder])
    }

    /// Walking every name does not grow the daemon: inodes are the index's own node numbers, so nothing is
    /// kept per name the kernel looked up (libfuse's high-level API kept about 160 bytes for each).
    @Test func walkingEveryNameKeepsTheDaemonsMemory() throws {
        let mounts = try Mounts()
        defer { mounts.cleanUp() }
        let archive = mounts.scratch.sub("many.tar")
        let made = try Tool.run(["/usr/bin/python3", "-c", """
            import io, sys, tarfile
            with tarfile.open(sys.argv[1], "w", format=tarfile.GNU_FORMAT) as tar:
                for n in range(60000):
                    tar.addfile(tarfile.TarInfo(f"d{n // 1000}/file-with-a-longish-name-{n}.txt"), io.BytesIO(b""))
            """, archive])
        try #require(made.status == 0, "\(made.output)")
        let folder = try mounts.mount(archive)
        let daemon = try #require(Mounts.daemon(serving: folder))
        // Measured once the index is kept: writing it allocates in pages the scan gave back.
        mounts.waitForKeptIndexes(1)
        try #require(mounts.keptIndexes.count == 1)
        func resident() throws -> Int {
            let status = try String(contentsOfFile: "/proc/\(daemon)/status", encoding: .utf8)
            return Int(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }?.split(separator: " ")[1] ?? "") ?? 0
        }
        let before = try resident()
        // Every name looked up and stat'ed once: the kernel keeps them, and asks no more after this.
        let walk = try Tool.run(["/usr/bin/find", folder, "-name", "*-59999.txt", "-size", "0"])
        #expect(walk.output.contains("file-with-a-longish-name-59999.txt"))
        let grown = try resident() - before
        #expect(grown < 4096, "the daemon grew by \(grown) kB over a walk of 60,000 names")
        try mounts.run(["--unmount", folder])
    }

    /// The index of the first opening is kept in $XDG_CACHE_HOME: the next mount lists without reading the
    /// archive; a changed archive or a damaged index is scanned again.
    @Test func aKeptIndexListsWithoutReadingTheArchive() throws {
        let mounts = try Mounts()
        defer { mounts.cleanUp() }
        let (tree, archive) = try mounts.randomTarGz(files: 20)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: archive)[.size] as? Int)
        func archiveBytesRead(by folder: String) throws -> Int { try Mounts.bytesRead(by: try #require(Mounts.daemon(serving: folder))) }

        var folder = try mounts.mount(archive)
        #expect(try archiveBytesRead(by: folder) >= size)
        mounts.waitForKeptIndexes(1)
        #expect(mounts.keptIndexes.count == 1)
        try mounts.run(["--unmount", folder])

        // Read-only: a writable folder also reads the archive's start to tell whether it can write it.
        folder = try mounts.mount(archive, ["--read-only"])
        #expect(try archiveBytesRead(by: folder) < size / 4, "the second mount read the archive again")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == FileManager.default.contentsOfDirectory(atPath: tree).sorted())
        #expect(FileManager.default.contents(atPath: folder + "/f7") == FileManager.default.contents(atPath: tree + "/f7"))
        try mounts.run(["--unmount", folder])

        // A changed archive: its new tree, and the old index gone.
        try FileManager.default.removeItem(atPath: tree + "/f3")
        try FileManager.default.removeItem(atPath: archive)
        try #require(try Tool.run(["/usr/bin/bsdtar", "-czf", archive, "-C", tree, "."]).status == 0)
        folder = try mounts.mount(archive)
        #expect(!FileManager.default.fileExists(atPath: folder + "/f3"))
        #expect(FileManager.default.fileExists(atPath: folder + "/f4"))
        mounts.waitForKeptIndexes(1)
        try mounts.run(["--unmount", folder])
        mounts.waitForKeptIndexes(1)
        #expect(mounts.keptIndexes.count == 1, "\(mounts.keptIndexes)")

        // A damaged index is read past: the archive is scanned again.
        let kept = try #require(mounts.keptIndexes.first)
        let path = mounts.cache + "/io.github.archiver/indexes/" + kept
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes.removeLast(bytes.count / 2)
        try bytes.write(to: URL(fileURLWithPath: path))
        folder = try mounts.mount(archive)
        #expect(try archiveBytesRead(by: folder) >= size / 2)
        #expect(FileManager.default.contents(atPath: folder + "/f9") == FileManager.default.contents(atPath: tree + "/f9"))
        try mounts.run(["--unmount", folder])
    }

    /// The path real desktops take: a user who is not root mounts through the setuid fusermount3, reads,
    /// and unmounts. The executable and the archive are copied where that user may reach them.
    @Test(.enabled(if: Mounts.unprivilegedUnavailable == nil, Comment(rawValue: Mounts.unprivilegedUnavailable ?? "")))
    func anUnprivilegedUserMountsReadsAndUnmounts() throws {
        let place = try #require(mkdtemp(strdup("/tmp/archiver-unprivileged-XXXXXX")).map { String(cString: $0) })
        defer { _ = try? Tool.run(["/usr/bin/rm", "-rf", place]) }
        let fm = FileManager.default
        try fm.createDirectory(atPath: place + "/run", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try fm.createDirectory(atPath: place + "/home", withIntermediateDirectories: true)
        try fm.copyItem(atPath: try #require(BuiltProducts.executable("open-with-archiver")), toPath: place + "/open-with-archiver")
        try #require(try Tool.run(["/usr/bin/zip", "-q", "-j", place + "/a.zip", "/etc/hostname"]).status == 0)
        try #require(try Tool.run(["/usr/bin/chown", "-R", "nobody:nogroup", place]).status == 0)
        try fm.setAttributes([.posixPermissions: 0o755], ofItemAtPath: place)

        func asNobody(_ argv: [String]) throws -> (status: Int32, output: String) {
            try Tool.run(["/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "/usr/bin/env", "-i",
                          "PATH=/usr/bin:/bin", "XDG_RUNTIME_DIR=\(place)/run", "HOME=\(place)/home", "LC_ALL=C.UTF-8"] + argv,
                         mergingErrors: false)
        }
        let mounted = try asNobody([place + "/open-with-archiver", "--mount", place + "/a.zip"])
        #expect(mounted.status == 0, "\(mounted)")
        let folder = mounted.output.trimmingCharacters(in: .newlines)
        #expect(folder == place + "/run/archiver/a.zip")
        #expect(Mounts.ours().contains(folder))
        let read = try asNobody(["/usr/bin/cat", folder + "/hostname"])
        let packed = try String(contentsOfFile: "/etc/hostname", encoding: .utf8)
        #expect(read.status == 0 && read.output == packed, "\(read)")
        // The archive is that user's own: the folder is writable, and the unmount commits.
        let written = try asNobody(["/usr/bin/touch", folder + "/new"])
        #expect(written.status == 0, "\(written)")
        let unmounted = try asNobody([place + "/open-with-archiver", "--unmount", folder])
        #expect(unmounted.status == 0, "\(unmounted)")
        #expect(eventually(within: 10) { !Mounts.ours().contains(folder) })
        #expect(try Tool.run(["/usr/bin/unzip", "-l", place + "/a.zip"]).output.contains(" new\n"))
    }

    @Test func secondOpenReusesTheMount() throws {
        let mounts = try Mounts()
        defer { mounts.cleanUp() }
        let archive = mounts.scratch.sub("one.zip")
        try #require(try Tool.run(["/usr/bin/zip", "-j", archive, "/etc/hostname"]).status == 0)
        let first = try mounts.mount(archive)
        let daemon = Mounts.daemon(serving: first)
        let second = try mounts.mount(archive)
        #expect(first == second)
        #expect(Mounts.ours().filter { $0 == first }.count == 1)
        #expect(Mounts.daemon(serving: first) == daemon)
        // A folder of that name that is not this archive's mount makes a second name.
        let other = mounts.scratch.sub("other/one.zip")
        try FileManager.default.createDirectory(atPath: mounts.scratch.sub("other"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: archive, toPath: other)
        let third = try mounts.mount(other)
        #expect(third == first + " (2)")
        try mounts.run(["--unmount", first])
        try mounts.run(["--unmount", third])
        let notOurs = try mounts.run(["--unmount", mounts.scratch.path])
        #expect(notOurs.status == 3)
    }

    @Test func idleMountGoesAwayByItself() throws {
        let mounts = try Mounts()
        defer { mounts.cleanUp() }
        let archive = mounts.scratch.sub("idle.tar.gz")
        try #require(try Tool.run(["/usr/bin/bsdtar", "-czf", archive, "-C", "/etc", "hostname"]).status == 0)
        let folder = try mounts.mount(archive, ["--idle-timeout", "2"])
        // An open file keeps it.
        let handle = open(folder + "/hostname", O_RDONLY | O_CLOEXEC)
        try #require(handle >= 0)
        sleep(4)
        #expect(Mounts.ours().contains(folder))
        close(handle)
        #expect(eventually(within: 10) { !Mounts.ours().contains(folder) && !FileManager.default.fileExists(atPath: folder) })
    }

    @Test func killedDaemonLeavesNoMount() throws {
        let mounts = try Mounts()
        defer { mounts.cleanUp() }
        let archive = mounts.scratch.sub("k.zip")
        try #require(try Tool.run(["/usr/bin/zip", "-j", archive, "/etc/hostname"]).status == 0)
        let folder = try mounts.mount(archive)
        let daemon = try #require(Mounts.daemon(serving: folder))
        kill(daemon, SIGKILL)
        #expect(eventually(within: 10) { !Mounts.ours().contains(folder) })
        // The folder left behind is used again.
        let again = try mounts.mount(archive)
        #expect(again == folder)
        try mounts.run(["--unmount", folder])
    }

    @Test func hostileNamesStayInside() throws {
        let mounts = try Mounts()
        defer { mounts.cleanUp() }
        let archive = mounts.scratch.sub("hostile.tar")
        let maker = HostileTar.script("""
            add('ok.txt', b'ok')
            add('dir/inner-link', type=tarfile.SYMTYPE, linkname='../ok.txt')
            add('dir/hard', type=tarfile.LNKTYPE, linkname='ok.txt')
            add('../evil.txt', b'EVIL')
            add('/etc/abs-evil.txt', b'EVIL')
            add('sub/../../evil2.txt', b'EVIL')
            add('up', type=tarfile.SYMTYPE, linkname='..')
            add('abs', type=tarfile.SYMTYPE, linkname='/etc')
            add('new\\nline.txt', b'nl')
            add('fifo', type=tarfile.FIFOTYPE)
            """)
        try #require(try Tool.run(["/usr/bin/python3", "-c", maker, archive]).status == 0)
        let folder = try mounts.mount(archive)
        let shown = try Mounts.tree(folder)
        #expect(Set(shown.keys) == ["ok.txt", "dir", "dir/inner-link", "dir/hard", "new\nline.txt"])
        #expect(shown["dir/hard"] == Data("ok".utf8))
        #expect(try String(contentsOfFile: folder + "/dir/inner-link", encoding: .utf8) == "ok")
        #expect(mounts.errors.contains("evil.txt"))
        try mounts.run(["--unmount", folder])
    }

    @Test func encryptedZipOpensWithThePasswordFromStandardInput() throws {
        let mounts = try Mounts()
        defer { mounts.cleanUp() }
        let tree = mounts.scratch.sub("tree")
        try Self.makeTree(tree)
        let archive = mounts.scratch.sub("secret.zip")
        let password = "correct horse 42"
        try #require(try Tool.run(["/usr/bin/7zz", "a", "-bd", "-tzip", "-mem=AES256", "-p" + password, archive, tree + "/."]).status == 0)

        let wrong = try mounts.run(["--mount", "--password-stdin", archive], input: "nope\n")
        #expect(wrong.status == 6)
        #expect(Mounts.ours().isEmpty || !Mounts.ours().contains { $0.hasPrefix(mounts.runtime) })

        let folder = try mounts.mount(archive, ["--password-stdin"], input: password + "\n")
        let daemon = try #require(Mounts.daemon(serving: folder))
        for place in ["cmdline", "environ"] {
            let data = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(daemon)/\(place)"))
            #expect(data.range(of: Data(password.utf8)) == nil, "the password is in the daemon's \(place)")
        }
        let expected = try Mounts.tree(tree)
        #expect(try Mounts.tree(folder)["docs/big.bin"] == expected["docs/big.bin"])
        try mounts.run(["--unmount", folder])
    }

    /// 7-Zip reads each file out of a 7z whose names are encrypted; the password reaches it on standard
    /// input only, and a wrong one is refused before a folder appears.
    @Test func sevenZipWithEncryptedNamesOpensThroughSevenZip() throws {
        let mounts = try Mounts()
        defer { mounts.cleanUp() }
        let tree = mounts.scratch.sub("tree")
        try Self.makeTree(tree)
        let archive = mounts.scratch.sub("secret.7z")
        let password = "battery staple 7"
        try #require(try Tool.run(["/usr/bin/7zz", "a", "-bd", "-mhe=on", "-p" + password, archive, tree + "/."]).status == 0)

        let wrong = try mounts.run(["--mount", "--password-stdin", archive], input: "nope\n")
        #expect(wrong.status == 6)

        let folder = try mounts.mount(archive, ["--password-stdin"], input: password + "\n")
        // Regular files: 7-Zip stores the symlink's target file, and folders read as nothing.
        let expected = try Mounts.tree(tree).filter { !$0.value.starts(with: Data("/".utf8)) && !$0.value.starts(with: Data("-> ".utf8)) }
        #expect(expected.count >= 4)
        #expect(Mounts.readScrambled(folder, files: Array(expected.keys)) == expected)
        // While 7-Zip reads a file, neither it nor the daemon shows the password.
        let reading = FileHandle(forReadingAtPath: folder + "/docs/big.bin")
        _ = reading?.readData(ofLength: 4096)
        Mounts.expectNowhereInProc(password)
        try reading?.close()
        try mounts.run(["--unmount", folder])
    }

    /// unrar reads each file out of an encrypted rar (RAR4 and RAR5): the files the password opens read
    /// as unrar gives them, the one under another password fails alone, and the password is in no
    /// process's command line or environment.
    @Test(arguments: ["rar4_encrypted.rar", "rar5_encrypted.rar"]) func encryptedRarOpensThroughUnrar(fixture: String) throws {
        if let missing = TestUnrar.missing {
            print(missing)
            return
        }
        let mounts = try Mounts()
        defer { mounts.cleanUp() }
        // A copy: the kept index and the folder's name come from the archive, not the shared fixture.
        let archive = mounts.scratch.sub(fixture)
        try FileManager.default.copyItem(atPath: TestUnrar.fixture(fixture), toPath: archive)
        let path = ["PATH": try TestUnrar.recordingFolder(in: mounts.scratch.path) + ":/usr/bin:/bin"]
        let password = "password"
        let wrong = try mounts.run(["--mount", "--password-stdin", archive], input: "nope\n", environment: path)
        #expect(wrong.status == 6)

        let folder = try mounts.mount(archive, ["--password-stdin"], input: password + "\n", environment: path)
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: folder)) == ["a.txt", "b.txt", "c.txt", "d.txt"])
        // Each fixture file says where it is from; bsdtar reads the plain ones too.
        for name in ["a.txt", "b.txt", "c.txt"] {
            let shown = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))
            #expect(shown == Data("This is from \(name)".utf8), "\(name)")
            if name != "b.txt" {
                #expect(shown == Data(try Tool.run(["/usr/bin/bsdtar", "-xOf", archive, name], mergingErrors: false).output.utf8))
            }
        }
        // d.txt has a password of its own: reading it fails, with the reason in the log.
        #expect(FileManager.default.contents(atPath: folder + "/d.txt") == nil)
        #expect(mounts.errors.contains("unrar could not read “d.txt”"))
        // Each file was read by an unrar of its own, the password in none's arguments or environment.
        let record = try String(contentsOfFile: mounts.scratch.sub("record"), encoding: .utf8)
        #expect(record.components(separatedBy: "argv: p -inul").count - 1 >= 4)
        #expect(!record.contains(password))
        Mounts.expectNowhereInProc(password)
        try mounts.run(["--unmount", folder])
    }

    @Test func damagedMemberFailsAloneWithEIO() throws {
        let mounts = try Mounts()
        defer { mounts.cleanUp() }
        let archive = mounts.scratch.sub("damaged.zip")
        let maker = """
            import zipfile, sys
            with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_STORED) as z:
                z.writestr('good.txt', b'good data' * 100)
                z.writestr('bad.txt', b'B' * 5000)
                z.writestr('after.txt', b'after' * 100)
            data = bytearray(open(sys.argv[1], 'rb').read())
            at = data.find(b'B' * 100)
            data[at + 50] = ord('X')
            open(sys.argv[1], 'wb').write(data)
            """
        try #require(try Tool.run(["/usr/bin/python3", "-c", maker, archive]).status == 0)
        let folder = try mounts.mount(archive)
        #expect(try String(contentsOfFile: folder + "/good.txt", encoding: .utf8).count == 900)
        #expect(throws: (any Error).self) { try Data(contentsOf: URL(fileURLWithPath: folder + "/bad.txt")) }
        #expect(try String(contentsOfFile: folder + "/after.txt", encoding: .utf8).count == 500)
        #expect(mounts.errors.contains("bad.txt"))
        try mounts.run(["--unmount", folder])
    }

    /// A tar.bz2 damaged in its first block after it was opened: the file in that block gives EIO, the
    /// one in a later block still reads, decoded from its own block.
    @Test func damagedBzip2BlockFailsOnlyItsFiles() throws {
        let mounts = try Mounts()
        defer { mounts.cleanUp() }
        let tree = mounts.scratch.sub("bz")
        try FileManager.default.createDirectory(atPath: tree, withIntermediateDirectories: true)
        var generator = SystemRandomNumberGenerator()
        let (first, last) = (
            Data((0..<600_000).map { _ in UInt8.random(in: 0...255, using: &generator) }),
            Data((0..<600_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
        )
        try first.write(to: URL(fileURLWithPath: tree + "/a.bin"))
        try last.write(to: URL(fileURLWithPath: tree + "/z.bin"))
        let archive = mounts.scratch.sub("blocks.tar.bz2")
        let made = try Tool.run(["/bin/sh", "-c", "tar --sort=name -cf - -C \"$0\" . | bzip2 -1 > \"$1\"", tree, archive])
        try #require(made.status == 0, "\(made.output)")
        let folder = try mounts.mount(archive)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: archive))
        try handle.seek(toOffset: 2000)
        handle.write(Data(repeating: 0x55, count: 4000))
        try handle.close()
        #expect(throws: (any Error).self) { try Data(contentsOf: URL(fileURLWithPath: folder + "/a.bin")) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/z.bin")) == last)
        #expect(mounts.errors.contains("a.bin"))
        try mounts.run(["--unmount", folder])
    }

    /// A single compressed stream shows one file, named as extraction names it: a compressed disk image
    /// (libarchive reads its zero first block as an empty tar) and a gzipped word list (which libarchive's
    /// mtree reader took for a manifest of empty files).
    @Test func aSingleCompressedStreamShowsOneFile() throws {
        let mounts = try Mounts()
        defer { mounts.cleanUp() }
        var image = Data(count: 1_048_576)
        image.replaceSubrange(4096..<4101, with: Data("ext4!".utf8))
        let words = Data(((1...500).map(String.init).joined(separator: "\n") + "\n").utf8)
        let text = Data("foo\nbar\n".utf8)
        let cases: [(name: String, data: Data, program: String, suffix: String)] = [
            ("disk.img", image, "/usr/bin/xz", ".xz"), ("words.txt", words, "/usr/bin/gzip", ".gz"),
            ("a.txt", text, "/usr/bin/bzip2", ".bz2"), ("b.txt", text, "/usr/bin/zstd", ".zst"), ("c.txt", text, "/usr/bin/lz4", ".lz4"),
        ]
        for (name, data, program, suffix) in cases {
            let file = mounts.scratch.sub(name)
            try data.write(to: URL(fileURLWithPath: file))
            try #require(try Tool.run([program, "-q", file] + (suffix == ".lz4" ? [file + suffix] : [])).status == 0)
            let folder = try mounts.mount(file + suffix)
            #expect(try Mounts.tree(folder) == [name: data], "\(name)\(suffix): \(mounts.errors)")
            try mounts.run(["--unmount", folder])
        }
    }

    /// A tar naming a file twice holds a hard link to itself (GNU tar writes one): the file shows with its
    /// data, as extraction writes it, and a link to itself alone shows nothing; nothing is said to be
    /// "outside the destination".
    @Test func aHardLinkToItselfShowsWhatExtractionWrites() throws {
        let mounts = try Mounts()
        defer { mounts.cleanUp() }
        let archive = mounts.scratch.sub("self.tar")
        let made = try Tool.run(["/usr/bin/python3", "-c", """
            import io, sys, tarfile
            with tarfile.open(sys.argv[1], 'w', format=tarfile.GNU_FORMAT) as tar:
                for name, data, link in [('a.txt', b'real data\\n', None), ('a.txt', None, 'a.txt'), ('b.txt', b'bbb', None), ('c.txt', None, 'c.txt')]:
                    info = tarfile.TarInfo(name)
                    if link:
                        info.type, info.linkname = tarfile.LNKTYPE, link
                    else:
                        info.size = len(data)
                    tar.addfile(info, io.BytesIO(data) if data else None)
            """, archive])
        try #require(made.status == 0, "\(made.output)")
        let folder = try mounts.mount(archive)
        let expected = ["a.txt": Data("real data\n".utf8), "b.txt": Data("bbb".utf8)]
        #expect(try Mounts.tree(folder) == expected)
        #expect(!mounts.errors.contains("outside"), "\(mounts.errors)")
        try mounts.run(["--unmount", folder])
        let extracted = mounts.scratch.sub("out")
        let extract = try Tool.run([BuiltProducts.executable("extract-with-archiver")!, "--to", extracted, archive])
        #expect(extract.status == 0, "\(extract.output)")
        #expect(try Mounts.tree(extracted + "/self") == expected)
    }

    /// `dir=$(open-with-archiver --mount a.tar 2>&1)`: the starter's output and errors are one pipe, and
    /// the daemon must not hold it once the folder is ready, or the caller waits for the idle unmount.
    @Test func aPipeAsStandardErrorIsLetGoWhenTheFolderIsReady() throws {
        let mounts = try Mounts()
        defer { mounts.cleanUp() }
        try Data("inside\n".utf8).write(to: URL(fileURLWithPath: mounts.scratch.sub("a.txt")))
        let archive = mounts.scratch.sub("a.tar")
        try #require(try Tool.run(["/usr/bin/bsdtar", "-cf", archive, "-C", mounts.scratch.path, "a.txt"]).status == 0)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: BuiltProducts.executable("open-with-archiver")!)
        process.arguments = ["--mount", "--idle-timeout", "60", archive]
        process.environment = ProcessInfo.processInfo.environment.merging(BuiltProducts.isolation) { $1 }
            .merging(["XDG_RUNTIME_DIR": mounts.runtime, "XDG_CACHE_HOME": mounts.cache, "LC_ALL": "C.UTF-8"]) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        let started = Date()
        try process.run()
        // The end of the pipe's data comes only when every holder of its writing end is gone.
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(Date().timeIntervalSince(started) < 30)
        let folder = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(process.terminationStatus == 0, "\(folder)")
        #expect(try Mounts.tree(folder) == ["a.txt": Data("inside\n".utf8)])
        try mounts.run(["--unmount", folder])
    }

    /// A damaged archive is said to someone who wanted a folder: no folder was opened, not "nothing was
    /// extracted".
    @Test func aDamagedArchiveSaysNoFolderWasOpened() throws {
        let mounts = try Mounts()
        defer { mounts.cleanUp() }
        let tree = mounts.scratch.sub("tree")
        try FileManager.default.createDirectory(atPath: tree, withIntermediateDirectories: true)
        var generator = SystemRandomNumberGenerator()
        try Data((0..<300_000).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: URL(fileURLWithPath: tree + "/r.bin"))
        let whole = mounts.scratch.sub("whole.tar.gz")
        try #require(try Tool.run(["/usr/bin/bsdtar", "-czf", whole, "-C", tree, "r.bin"]).status == 0)
        let cut = mounts.scratch.sub("cut.tar.gz")
        try Data(try Data(contentsOf: URL(fileURLWithPath: whole)).prefix(150_000)).write(to: URL(fileURLWithPath: cut))
        let result = try mounts.run(["--mount", cut])
        #expect(result.status == 5, "\(mounts.errors)")
        #expect(mounts.errors.contains("no folder was opened"), "\(mounts.errors)")
        #expect(!mounts.errors.contains("nothing was extracted"), "\(mounts.errors)")
    }

    /// A set with a part missing, and a password-protected zip with no password given, are said to someone
    /// who wanted a folder: no folder was opened.
    @Test func aMissingPartAndAMissingPasswordSayNoFolderWasOpened() throws {
        let mounts = try Mounts()
        defer { mounts.cleanUp() }
        let tree = mounts.scratch.sub("tree")
        try FileManager.default.createDirectory(atPath: tree, withIntermediateDirectories: true)
        var generator = SystemRandomNumberGenerator()
        try Data((0..<300_000).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: URL(fileURLWithPath: tree + "/r.bin"))
        let set = mounts.scratch.sub("set.7z")
        try #require(try Tool.run(["/usr/bin/7zz", "a", "-bd", "-v100k", set, tree]).status == 0)
        try FileManager.default.removeItem(atPath: set + ".002")
        let missing = try mounts.run(["--mount", set + ".001"])
        #expect(missing.status == 3, "\(mounts.errors)")
        #expect(mounts.errors.contains("“set.7z.002”") && mounts.errors.contains("no folder was opened"), "\(mounts.errors)")
        #expect(!mounts.errors.contains("nothing was extracted"), "\(mounts.errors)")

        let secret = mounts.scratch.sub("secret.zip")
        try #require(try Tool.run(["/usr/bin/7zz", "a", "-bd", "-tzip", "-pabc", secret, tree]).status == 0)
        let locked = try mounts.run(["--mount", "--password-stdin", secret], input: "")
        #expect(locked.status == 6, "\(mounts.errors)")
        #expect(mounts.errors.contains("no folder was opened"), "\(mounts.errors)")
        #expect(!mounts.errors.contains("nothing was"), "\(mounts.errors)")
    }

    @Test func notAnArchiveIsRefusedWithoutAFolderLeft() throws {
        let mounts = try Mounts()
        defer { mounts.cleanUp() }
        let file = mounts.scratch.sub("plain.txt")
        try Data("just text\n".utf8).write(to: URL(fileURLWithPath: file))
        let result = try mounts.run(["--mount", file])
        #expect(result.status == 4, "\(mounts.errors)")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: mounts.runtime + "/archiver"))?.isEmpty != false)
        #expect(try mounts.run(["--mount", mounts.scratch.sub("missing.zip")]).status == 3)
    }

    /// A folder the person named is theirs: kept after a failed mount and after a normal unmount. A folder
    /// --mount had to make goes with its mount (and after a failure).
    @Test func aNamedFolderIsNeverRemoved() throws {
        let mounts = try Mounts()
        defer { mounts.cleanUp() }
        let fm = FileManager.default
        let plain = mounts.scratch.sub("plain.txt")
        try Data("just text\n".utf8).write(to: URL(fileURLWithPath: plain))
        let mine = mounts.scratch.sub("mine"), made = mounts.scratch.sub("made")
        try fm.createDirectory(atPath: mine, withIntermediateDirectories: true)
        #expect(try mounts.run(["--mount", plain, mine]).status == 4)
        #expect(try mounts.run(["--mount", plain, made]).status == 4)
        #expect(fm.fileExists(atPath: mine) && !fm.fileExists(atPath: made), "\(mounts.errors)")

        let tree = mounts.scratch.sub("tree")
        try fm.createDirectory(atPath: tree, withIntermediateDirectories: true)
        try Data("x\n".utf8).write(to: URL(fileURLWithPath: tree + "/x.txt"))
        let archive = mounts.scratch.sub("a.tar.gz")
        try #require(try Tool.run(["/usr/bin/bsdtar", "-czf", archive, "-C", tree, "."]).status == 0)
        for folder in [mine, made] {
            try #require(try mounts.run(["--mount", archive, folder]).status == 0, "\(mounts.errors)")
            #expect(try String(contentsOfFile: folder + "/x.txt", encoding: .utf8) == "x\n")
            #expect(try mounts.run(["--unmount", folder]).status == 0)
            // The daemon leaves once unmounted: give it the time it would take to remove the folder.
            for _ in 0..<100 where Mounts.daemon(serving: folder) != nil { usleep(20_000) }
            for _ in 0..<25 where fm.fileExists(atPath: made) { usleep(20_000) }
        }
        #expect(fm.fileExists(atPath: mine) && (try? fm.contentsOfDirectory(atPath: mine))?.isEmpty == true)
        #expect(!fm.fileExists(atPath: made))
    }
}
