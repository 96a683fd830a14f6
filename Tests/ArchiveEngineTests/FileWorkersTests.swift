import ArchiverCore
import ArchiverTestSupport
import Foundation
import SystemPackage
import Testing

@testable import ArchiveEngine

/// Small files created on two worker threads while the archive is read (issue 32): Python's own zipfile and
/// tarfile make each archive and check every byte, mode and time of what comes out, including files a later
/// entry replaces, folders without entries, links and files too large to hold; damage and cancel leave nothing
/// under a final name.
@Suite struct FileWorkersTests {
    /// Writes a zip or tar.gz of about 3,000 small files in 30 folders (with their entries) and 5 folders
    /// without, two files over the 1 MiB that workers take, 20 paths written twice (the later one wins), a
    /// symlink, and in the tar a hard link. Times are even seconds (zip keeps DOS times).
    private static let maker = """
        import os, random, stat, sys, tarfile, time, warnings, zipfile
        warnings.simplefilter("ignore")
        kind, path = sys.argv[1], sys.argv[2]
        rng = random.Random(32)
        base = 1_600_000_000
        entries = [("top", "dir", b"", 0o755, base)]
        files = []
        for d in range(35):
            folder = f"top/d{d:02}" if d < 30 else f"top/bare{d}/deeper"
            if d < 30:
                entries.append((folder, "dir", b"", 0o750 if d % 3 == 0 else 0o755, base + 2000 + 2 * d))
            for f in range(85):
                size = rng.choice([0, 1, rng.randrange(2, 600), rng.randrange(600, 40000)])
                mode = rng.choice([0o600, 0o640, 0o644, 0o700, 0o755])
                entry = (f"{folder}/f{f:03}.bin", "file", rng.randbytes(size), mode, base + 100_000 + 2 * len(entries))
                entries.append(entry)
                files.append(entry)
            if d in (7, 21):
                entries.append((f"{folder}/large.bin", "file", rng.randbytes(1_600_000), 0o644, base + 4 * d))
        for name, _, _, _, _ in rng.sample(files, 20):
            entries.append((name, "file", rng.randbytes(rng.randrange(0, 3000)), 0o600, base + 50_000 + 2 * len(entries)))
        entries.append(("top/link", "symlink", b"d00/f000.bin", 0o777, base))
        if kind == "tar.gz":
            entries.append(("top/hard", "hardlink", b"top/d01/f001.bin", 0o644, base))
        if kind == "zip":
            with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
                for name, what, data, mode, mtime in entries:
                    info = zipfile.ZipInfo(name + ("/" if what == "dir" else ""), time.localtime(mtime)[:6])
                    info.create_system = 3
                    kind_bits = {"dir": stat.S_IFDIR, "file": stat.S_IFREG, "symlink": stat.S_IFLNK}[what]
                    info.external_attr = ((kind_bits | mode) << 16) | (0x10 if what == "dir" else 0)
                    info.compress_type = zipfile.ZIP_DEFLATED if what == "file" else zipfile.ZIP_STORED
                    archive.writestr(info, data)
        else:
            with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as archive:
                for name, what, data, mode, mtime in entries:
                    info = tarfile.TarInfo(name)
                    info.mode, info.mtime = mode, mtime
                    info.type = {"dir": tarfile.DIRTYPE, "file": tarfile.REGTYPE, "symlink": tarfile.SYMTYPE, "hardlink": tarfile.LNKTYPE}[what]
                    if what in ("symlink", "hardlink"):
                        info.linkname = data.decode()
                    info.size = len(data) if what == "file" else 0
                    archive.addfile(info, __import__("io").BytesIO(data) if what == "file" else None)
        """

    /// Checks the tree at argv[3] against the archive at argv[2], the later of two entries of one path winning:
    /// prints each difference, then how many entries it checked.
    private static let checker = """
        import os, stat, sys, tarfile, time, zipfile
        kind, path, root = sys.argv[1], sys.argv[2], sys.argv[3]
        mask = os.umask(0); os.umask(mask)
        expected = {}
        if kind == "zip":
            with zipfile.ZipFile(path) as archive:
                for info in archive.infolist():
                    mode = info.external_attr >> 16
                    what = "dir" if stat.S_ISDIR(mode) else "symlink" if stat.S_ISLNK(mode) else "file"
                    mtime = int(time.mktime(info.date_time + (0, 0, -1)))
                    expected[info.filename.rstrip("/")] = (what, archive.read(info), stat.S_IMODE(mode), mtime)
        else:
            with tarfile.open(path) as archive:
                for info in archive.getmembers():
                    if info.isdir(): expected[info.name] = ("dir", b"", info.mode, info.mtime)
                    elif info.issym(): expected[info.name] = ("symlink", info.linkname.encode(), 0, 0)
                    elif info.islnk(): expected[info.name] = ("hardlink", info.linkname, 0, 0)
                    else: expected[info.name] = ("file", archive.extractfile(info).read(), info.mode, info.mtime)
        problems = []
        for name, (what, data, mode, mtime) in expected.items():
            where = os.path.join(root, os.path.relpath(name, "top"))
            try:
                facts = os.lstat(where)
            except OSError as error:
                problems.append(f"{name}: {error}"); continue
            if what == "symlink":
                if not stat.S_ISLNK(facts.st_mode) or os.readlink(where).encode() != data: problems.append(f"{name}: not the link")
                continue
            if what == "hardlink":
                target = os.lstat(os.path.join(root, os.path.relpath(data, "top")))
                if (facts.st_ino, facts.st_dev) != (target.st_ino, target.st_dev): problems.append(f"{name}: not linked to {data}")
                continue
            if (what == "dir") != stat.S_ISDIR(facts.st_mode): problems.append(f"{name}: wrong kind"); continue
            if what == "file":
                with open(where, "rb") as file:
                    if file.read() != data: problems.append(f"{name}: other bytes")
            if stat.S_IMODE(facts.st_mode) != mode & ~mask: problems.append(f"{name}: mode {oct(stat.S_IMODE(facts.st_mode))}, not {oct(mode & ~mask)}")
            if int(facts.st_mtime) != mtime: problems.append(f"{name}: mtime {int(facts.st_mtime)}, not {mtime}")
        on_disk = sum(len(names) + len(folders) for _, folders, names in os.walk(root))
        above = {"/".join(n.split("/")[:k]) for n in expected for k in range(2, n.count("/") + 1)}
        implied = above - set(expected)
        if on_disk != len(expected) - 1 + len(implied): problems.append(f"{on_disk} items on disk, not {len(expected) - 1 + len(implied)}")
        for problem in problems[:20]: print(problem)
        print("checked", len(expected))
        """

    private func make(_ kind: String, in scratch: ScratchDirectory) throws -> String {
        let archive = scratch.sub("many." + kind)
        let made = try Tool.run(["/usr/bin/python3", "-c", Self.maker, kind, archive])
        try #require(made.status == 0, "\(made.output)")
        return archive
    }

    private func twoWorkers(into folder: String) -> ExtractOptions {
        var chosen = options(into: folder)
        chosen.workers = 2
        return chosen
    }

    @Test(arguments: ["zip", "tar.gz"])
    func thousandsOfSmallFilesOnTwoWorkersMatchPython(kind: String) throws {
        let scratch = try ScratchDirectory("workers-\(kind)")
        let archive = try make(kind, in: scratch)
        let result = try Extractor.run(archive: FilePath(archive), options: twoWorkers(into: scratch.sub("out")), control: JobControl())
        #expect(result.output == FilePath(scratch.sub("out/top")))
        #expect(result.warnings.isEmpty && result.refused.isEmpty, "\(result.warnings) \(result.refused)")
        // 2,975 small files, 2 large, 20 written again, and the hard link.
        #expect(result.files == 2_997 + (kind == "tar.gz" ? 1 : 0))
        let checked = try Tool.run(["/usr/bin/python3", "-c", Self.checker, kind, archive, scratch.sub("out/top")])
        // The top folder, 30 folders, 2,977 files, the symlink (and the hard link).
        #expect(checked.output.split(separator: "\n").last.map(String.init) == "checked \(kind == "zip" ? 3009 : 3010)")
        #expect(checked.output.split(separator: "\n").count == 1, "\(checked.output)")
        #expect(scratch.list("out") == ["top"])
    }

    /// A member whose data fails its CRC, among 2,000 that are fine: the zip fails as a whole, and nothing of
    /// it (the files workers had already made included) is left under any name.
    @Test func aDamagedMemberLeavesNothing() throws {
        let scratch = try ScratchDirectory()
        let archive = scratch.sub("damaged.zip")
        let made = try Tool.run(["/usr/bin/python3", "-c", """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_STORED) as archive:
                for i in range(2000):
                    archive.writestr(f"many/f{i:04}.txt", f"file {i}\\n" * 20)
            with zipfile.ZipFile(sys.argv[1]) as archive:
                info = archive.getinfo("many/f1000.txt")
            with open(sys.argv[1], "r+b") as file:
                file.seek(info.header_offset + 26)
                skip = int.from_bytes(file.read(2), "little") + int.from_bytes(file.read(2), "little")
                file.seek(info.header_offset + 30 + skip + 3)
                file.write(b"X")
            """, archive])
        try #require(made.status == 0, "\(made.output)")
        do {
            _ = try Extractor.run(archive: FilePath(archive), options: twoWorkers(into: scratch.sub("out")), control: JobControl())
            Issue.record("a member failing its CRC must fail the zip")
        } catch {
            #expect(error.code == .corrupt, "\(error)")
            #expect(error.message.english.contains("f1000.txt"), "\(error.message.english)")
        }
        #expect(scratch.list("out") == [])
    }

    /// A tar.gz cut off in the middle: the whole files before the break are published, each with all its
    /// bytes, and the file it broke in is not there at all.
    @Test func aTarCutShortKeepsOnlyWholeFiles() throws {
        let scratch = try ScratchDirectory()
        let archive = scratch.sub("cut.tar.gz")
        let made = try Tool.run(["/usr/bin/python3", "-c", """
            import io, random, sys, tarfile
            rng = random.Random(5)
            whole = io.BytesIO()
            with tarfile.open(fileobj=whole, mode="w:gz") as archive:
                for i in range(1500):
                    data = rng.randbytes(rng.randrange(1, 3000))
                    info = tarfile.TarInfo(f"cut/f{i:04}.bin"); info.size = len(data); info.mtime = 1_600_000_000
                    archive.addfile(info, io.BytesIO(data))
            data = whole.getvalue()
            open(sys.argv[1], "wb").write(data[: len(data) * 3 // 5])
            """, archive])
        try #require(made.status == 0, "\(made.output)")
        let result = try Extractor.run(archive: FilePath(archive), options: twoWorkers(into: scratch.sub("out")), control: JobControl())
        #expect(result.warnings.map(\.code).contains("damaged-after-entries"), "\(result.warnings)")
        let checked = try Tool.run(["/usr/bin/python3", "-c", """
            import io, os, random, sys, zlib
            rng = random.Random(5)
            readable = zlib.decompressobj(31).decompress(open(sys.argv[1], "rb").read())
            present = sorted(os.listdir(sys.argv[2]))
            offset, whole = 0, 0
            for i in range(1500):
                size = rng.randrange(1, 3000)
                data = rng.randbytes(size)
                offset += 512
                if offset + size <= len(readable): whole = i + 1
                name = f"f{i:04}.bin"
                if name in present and open(os.path.join(sys.argv[2], name), "rb").read() != data: print(name, "differs")
                offset += (size + 511) // 512 * 512
            expected = [f"f{i:04}.bin" for i in range(len(present))]
            if present != expected: print("not the first files in order")
            if not 0 < len(present) <= whole: print(len(present), "files, but", whole, "whole ones")
            print("present", len(present))
            """, archive, scratch.sub("out/cut")])
        #expect(checked.output.split(separator: "\n").count == 1 && checked.output.hasPrefix("present"), "\(checked.output)")
    }

    /// Cancelled while workers are creating files: nothing is left, no staging folder either.
    @Test func cancellingMidwayLeavesNothing() throws {
        let scratch = try ScratchDirectory()
        let archive = try make("zip", in: scratch)
        let control = JobControl()
        var calls = 0
        do {
            _ = try Extractor.run(archive: FilePath(archive), options: twoWorkers(into: scratch.sub("out")), control: control) { _, _ in
                calls += 1
                if calls == 400 { control.cancel() }
            }
            Issue.record("cancelled midway, it must not finish")
        } catch {
            #expect(error.code == .cancelled, "\(error)")
        }
        #expect(calls >= 400)
        #expect(scratch.list("out") == [])
    }

    /// Workers start here: each thread gets a folder and umask of its own.
    @Test func workersStartWithTheirOwnFolders() throws {
        let scratch = try ScratchDirectory()
        let workers = try #require(FileWorkers.start(count: 2, staging: FilePath(scratch.path), folder: scratch.path))
        let disk = try DiskWriter()
        let done = try workers.finish(helping: disk)
        #expect(done.written == 0 && done.failures.isEmpty)
    }
}
