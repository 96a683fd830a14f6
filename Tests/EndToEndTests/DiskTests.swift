import ArchiverTestSupport
import Foundation
import Testing

// Full disks, odd file systems, bombs and giants (issue 19, items 4 and 5), through the built executables.

/// What every failed job must leave: nothing on the disk but what was there, and its own words.
private func expectCleanFailure(
    _ out: Outcome, on disk: String, keeping kept: [String] = ["filler"], saying words: [String],
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(out.status == 7, "\(out)", sourceLocation: sourceLocation)
    #expect(words.contains { out.stderr.contains($0) }, "\(out.stderr)", sourceLocation: sourceLocation)
    #expect(E2E.list(disk).filter { !kept.contains($0) }.isEmpty, "left on the disk: \(E2E.list(disk))", sourceLocation: sourceLocation)
}

private func sha256(_ s: ScratchDirectory, _ path: String) throws -> String {
    String(try s.must("/usr/bin/sha256sum", [path]).stdout.prefix(64))
}

/// The `progress` lines of a `--progress-json` run: never past the total, never backwards, and at 100 %
/// at the end of a job that succeeded.
private func expectTruthfulProgress(_ out: Outcome, sourceLocation: SourceLocation = #_sourceLocation) {
    let events = out.stdout.split(separator: "\n").compactMap { E2E.json(String($0)) }
    let progress = events.filter { $0["event"] as? String == "progress" }
    // A job refused before reading has nothing to report but its result.
    if out.status == 0 || out.status == 1 {
        #expect(!progress.isEmpty, "no progress lines: \(out.stdout.prefix(500))", sourceLocation: sourceLocation)
    }
    var last: Int = -1
    for line in progress {
        let done = E2E.int(line["done"]) ?? -1
        if let total = E2E.int(line["total"]) { #expect(done <= total, "\(line)", sourceLocation: sourceLocation) }
        if let fraction = E2E.double(line["fraction"]) { #expect(fraction <= 1, "\(line)", sourceLocation: sourceLocation) }
        #expect(done >= last, "progress went back: \(line)", sourceLocation: sourceLocation)
        last = done
    }
    if out.status == 0 || out.status == 1 {
        #expect(E2E.double(progress.last?["fraction"]) == 1, "\(progress.last ?? [:])", sourceLocation: sourceLocation)
    }
    #expect(events.last?["event"] as? String == "result", sourceLocation: sourceLocation)
}

private let python = "/usr/bin/python3"

/// A zip whose names differ only in case, with a folder clash and a symlink.
private let caseClashZip = """
    import sys, zipfile
    with zipfile.ZipFile(sys.argv[1], 'w') as z:
        for name, text in [('top/Read.txt', 'one'), ('top/READ.txt', 'two'), ('top/read.txt', 'three'),
                           ('top/Docs/a.txt', 'a'), ('top/docs/b.txt', 'b'), ('top/plain.txt', 'plain')]:
            z.writestr(name, text)
        link = zipfile.ZipInfo('top/link')
        link.external_attr = 0o120777 << 16
        z.writestr(link, 'plain.txt')
    """

@Suite(.serialized) struct OddFileSystemTests {
    private func extractsCaseClashesApart(on kind: StickDisk.Kind) throws {
        try E2E.withScratch { s in
            let disk = try #require(StickDisk(kind, in: s.root))
            try s.python(caseClashZip, [s.path("case.zip")])
            let before = try sha256(s, s.path("case.zip"))
            let out = try s.extract(["--json", "--to", disk.path, s.path("case.zip")])
            #expect(out.status == 1, "\(kind) (\(disk.driver)): \(out)")
            let codes = (out.json?["warningCodes"] as? [String]) ?? []
            #expect(codes.filter { $0 == "case-clash" }.count == 3, "\(codes)")
            #expect(codes.contains("symlink-not-made"), "\(codes)")
            #expect(out.stderr.contains("“top/READ.txt” was saved as “top/READ (2).txt”"), "\(out.stderr)")
            #expect(out.stderr.contains("symbolic link"), "\(out.stderr)")
            let top = disk.path + "/top"
            #expect(E2E.text(top + "/Read.txt") == "one")
            #expect(E2E.text(top + "/READ (2).txt") == "two")
            #expect(E2E.text(top + "/read (3).txt") == "three")
            #expect(E2E.text(top + "/Docs/a.txt") == "a")
            #expect(E2E.text(top + "/docs (2)/b.txt") == "b")
            #expect(E2E.list(top) == ["Docs", "READ (2).txt", "Read.txt", "docs (2)", "plain.txt", "read (3).txt"])
            #expect(E2E.leftovers(under: disk.path).isEmpty)
            #expect(try sha256(s, s.path("case.zip")) == before)
        }
    }

    @Test(.enabled(if: StickDisk.unavailable(.exfat) == nil, "skipped: needs root, a loop device and exFAT (kernel or exfat-fuse)"))
    func caseClashesAndSymlinksOnExFAT() throws { try extractsCaseClashesApart(on: .exfat) }

    @Test(.enabled(if: StickDisk.unavailable(.vfat) == nil, "skipped: needs root, a loop device and vfat in the kernel"))
    func caseClashesAndSymlinksOnVFAT() throws { try extractsCaseClashesApart(on: .vfat) }

    /// A 4.5 GiB entry of zeros, 4.5 MB packed: refused from its recorded size before anything is written.
    @Test(.enabled(if: StickDisk.unavailable(.vfat) == nil, "skipped: needs root, a loop device and vfat in the kernel"))
    func aFileOver4GiBIsRefusedOnFAT() throws {
        try E2E.withScratch { s in
            let disk = try #require(StickDisk(.vfat, in: s.root))
            try s.python("""
                import sys, zipfile
                with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED, compresslevel=1) as z:
                    z.writestr('small.txt', 'small')
                    with z.open('huge.bin', 'w', force_zip64=True) as f:
                        chunk = bytes(1 << 22)
                        for _ in range(1152): f.write(chunk)
                """, [s.path("huge.zip")])
            let out = try s.extract(["--to", disk.path, s.path("huge.zip")])
            expectCleanFailure(out, on: disk.path, keeping: [], saying: ["4 GiB"])
            #expect(out.stderr.contains("huge.bin"), "\(out.stderr)")
        }
    }
}

@Suite(.serialized, .enabled(if: TinyDisk.available, "skipped: needs root to mount a small tmpfs"))
struct FullDiskTests {
    /// Three 150 kB files of random bytes and a few small ones, in `top`.
    private func tree(_ s: ScratchDirectory) throws {
        for index in 0..<3 { try s.write("src/top/big\(index).bin", data: SampleTree.randomData(150_000)) }
        for index in 0..<4 { try s.write("src/top/sub/small\(index).txt", "small \(index)\n") }
    }

    /// Free space from almost nothing to enough, so the disk fills at the first entry, in the middle, at the
    /// last one, and not at all: each run ends complete (0) or with nothing left and a sentence (7).
    @Test(arguments: ["tar", "zip", "tar.gz"])
    func extractionStopsCleanlyWhereverTheDiskFills(format: String) throws {
        try E2E.withScratch { s in
            try tree(s)
            #expect(try s.compress(["--format", format, "--level", "fast", "--output", s.path("a." + format), s.path("src/top")]).status == 0)
            let before = try sha256(s, s.path("a." + format))
            let disk = try #require(TinyDisk(at: s.path("disk"), options: "size=1m"))
            var outcomes: [Int32] = []
            for free in stride(from: 8_000, through: 900_000, by: 64_000) {
                try disk.leave(free: free)
                let out = try s.extract(["--to", disk.path, s.path("a." + format)])
                outcomes.append(out.status)
                if out.status == 0 {
                    #expect(E2E.list(disk.path + "/top") == ["big0.bin", "big1.bin", "big2.bin", "sub"])
                    #expect(E2E.read(disk.path + "/top/big2.bin") == E2E.read(s.path("src/top/big2.bin")))
                    try FileManager.default.removeItem(atPath: disk.path + "/top")
                } else {
                    expectCleanFailure(out, on: disk.path, saying: ["needs", "Not enough space", "is full"])
                }
            }
            #expect(outcomes.contains(7) && outcomes.contains(0), "\(outcomes)")
            #expect(try sha256(s, s.path("a." + format)) == before)
        }
    }

    /// Out of inodes at each step: the staging folder, an entry, the folder claimed when publishing.
    @Test func extractionStopsCleanlyWhereverInodesRunOut() throws {
        try E2E.withScratch { s in
            for index in 0..<5 { try s.write("src/top/f\(index).txt", "file \(index)\n") }
            #expect(try s.compress(["--output", s.path("a.zip"), s.path("src/top")]).status == 0)
            var outcomes: [Int32] = []
            for inodes in 2...11 {
                let disk = try #require(TinyDisk(at: s.path("disk\(inodes)"), options: "size=1m,nr_inodes=\(inodes)"))
                let out = try s.extract(["--to", disk.path, s.path("a.zip")])
                outcomes.append(out.status)
                if out.status == 0 {
                    #expect(E2E.list(disk.path + "/top").count == 5)
                } else {
                    expectCleanFailure(out, on: disk.path, saying: ["is full"])
                }
            }
            #expect(outcomes.prefix(while: { $0 == 7 }).count >= 3 && outcomes.last == 0, "\(outcomes)")
        }
    }

    /// Compression, whole and in parts, with the space running out at the start, in the middle, at a part
    /// boundary (out of inodes: each part is a file) and when publishing.
    @Test func compressionStopsCleanlyWhereverTheDiskFills() throws {
        try E2E.withScratch { s in
            try tree(s)
            let disk = try #require(TinyDisk(at: s.path("disk"), options: "size=1m"))
            var outcomes: [Int32] = []
            for free in stride(from: 8_000, through: 900_000, by: 96_000) {
                try disk.leave(free: free)
                for split in [[], ["--split", "100k"]] {
                    let out = try s.compress(["--level", "store", "--output", disk.path + "/a.zip"] + split + [s.path("src/top")])
                    outcomes.append(out.status)
                    if out.status == 0 {
                        let made = E2E.list(disk.path).filter { $0 != "filler" }
                        #expect(made == (split.isEmpty ? ["a.zip"] : ["a.zip.001", "a.zip.002", "a.zip.003", "a.zip.004", "a.zip.005"]), "\(made)")
                        let test = try s.tool("/usr/bin/7zz", ["t", disk.path + (split.isEmpty ? "/a.zip" : "/a.zip.001")])
                        #expect(test.status == 0, "\(test)")
                        for name in made { try FileManager.default.removeItem(atPath: disk.path + "/" + name) }
                    } else {
                        expectCleanFailure(out, on: disk.path, saying: ["Not enough space", "is full"])
                    }
                }
            }
            #expect(outcomes.contains(7) && outcomes.contains(0), "\(outcomes)")
            var partOutcomes: [Int32] = []
            for inodes in 2...9 {
                let small = try #require(TinyDisk(at: s.path("inodes\(inodes)"), options: "size=2m,nr_inodes=\(inodes)"))
                let out = try s.compress(["--level", "store", "--split", "100k", "--output", small.path + "/a.zip", s.path("src/top")])
                partOutcomes.append(out.status)
                if out.status != 0 { expectCleanFailure(out, on: small.path, saying: ["is full"]) }
            }
            #expect(partOutcomes.contains(7) && partOutcomes.last == 0, "\(partOutcomes)")
        }
    }

    @Test func aReadOnlyDestinationIsSaidSo() throws {
        try E2E.withScratch { s in
            try s.write("src/a.txt", "a")
            #expect(try s.compress(["--output", s.path("a.zip"), s.path("src/a.txt")]).status == 0)
            let disk = try #require(TinyDisk(at: s.path("ro")))
            #expect(disk.makeReadOnly())
            expectCleanFailure(try s.extract(["--to", disk.path, s.path("a.zip")]), on: disk.path, saying: ["read-only"])
            expectCleanFailure(try s.compress(["--output", disk.path + "/x.zip", s.path("src/a.txt")]), on: disk.path, saying: ["read-only"])
            expectCleanFailure(try s.compress(["--split", "1k", "--output", disk.path + "/x.zip", s.path("src/a.txt")]), on: disk.path, saying: ["read-only"])
        }
    }

    /// A name of 255 bytes (NAME_MAX) extracts; one of 256 is a warning naming it; a path of 5,000 bytes
    /// (beyond PATH_MAX) extracts, and a job that fails after it leaves nothing, however deep.
    @Test func namesAtNameMaxAndPathsBeyondPathMax() throws {
        try E2E.withScratch { s in
            try s.python("""
                import io, os, sys, tarfile, zipfile
                with zipfile.ZipFile(sys.argv[1], 'w') as z:
                    z.writestr('top/' + 'a' * 251 + '.txt', 'at NAME_MAX')
                    z.writestr('top/' + 'b' * 252 + '.txt', 'over NAME_MAX')
                    z.writestr('top/ok.txt', 'ok')
                deep = '/'.join('d%03d' % i + 'x' * 96 for i in range(50))
                for path, extra in [(sys.argv[2], b''), (sys.argv[3], os.urandom(3000000))]:
                    with tarfile.open(path, 'w', format=tarfile.PAX_FORMAT) as t:
                        for name, data in [('top/' + deep + '/deep.txt', b'deep'), ('top/big.bin', extra)]:
                            info = tarfile.TarInfo(name)
                            info.size = len(data)
                            t.addfile(info, io.BytesIO(data))
                """, [s.path("names.zip"), s.path("deep.tar"), s.path("deepbig.tar")])
            let names = try s.extract(["--json", "--to", s.path("out"), s.path("names.zip")])
            #expect(names.status == 1, "\(names)")
            #expect(E2E.text(s.path("out/top/" + String(repeating: "a", count: 251) + ".txt")) == "at NAME_MAX")
            #expect(E2E.text(s.path("out/top/ok.txt")) == "ok")
            #expect((names.json?["warningCodes"] as? [String]) == ["entry-failed"], "\(names.stdout)")
            #expect(names.stderr.contains("bbbbbbbb"), "\(names.stderr)")

            let deep = try s.extract(["--to", s.path("deep"), s.path("deep.tar")])
            #expect(deep.status == 0, "\(deep)")
            let found = try s.must("/usr/bin/find", [s.path("deep"), "-name", "deep.txt"]).stdout
            #expect(found.utf8.count > 5000, "\(found.prefix(200))")
            // FileManager cannot remove a path that long; rm works folder by folder.
            try s.must("/bin/rm", ["-rf", s.path("deep")])

            let disk = try #require(TinyDisk(at: s.path("disk")))
            expectCleanFailure(try s.extract(["--to", disk.path, s.path("deepbig.tar")]), on: disk.path, keeping: [], saying: ["needs"])
            #expect(try s.must("/usr/bin/find", [disk.path]).stdout == disk.path + "\n")
        }
    }
}

@Suite(.serialized) struct BombTests {
    /// 256 MiB of one byte repeated in a 260 kB zip, a tar.gz and a bare .gz.
    private func bombs(_ s: ScratchDirectory) throws {
        try s.python("""
            import gzip, io, sys, tarfile, zipfile
            size = 256 << 20
            chunk = bytes(1 << 20)
            with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED, compresslevel=9) as z:
                with z.open('zeros.bin', 'w', force_zip64=True) as f:
                    for _ in range(size >> 20): f.write(chunk)
            class Zeros(io.RawIOBase):
                left = size
                def readinto(self, b):
                    n = min(len(b), self.left); b[:n] = bytes(n); self.left -= n; return n
            with tarfile.open(sys.argv[2], 'w:gz', compresslevel=1) as t:
                info = tarfile.TarInfo('zeros.bin'); info.size = size
                t.addfile(info, Zeros())
            # Not zeros: a stream of zeros reads as an empty tar (its end marker is zero blocks).
            with gzip.open(sys.argv[3], 'wb', compresslevel=1) as g:
                for _ in range(size >> 20): g.write(b'a' * (1 << 20))
            """, [s.path("bomb.zip"), s.path("bomb.tar.gz"), s.path("zeros.bin.gz")])
    }

    /// Sizes known up front (zip's directory, a tar header) are checked before writing; a bare stream's is
    /// not known, so the disk is watched while writing and the job stops before it is full.
    @Test(.enabled(if: TinyDisk.available, "skipped: needs root to mount a small tmpfs"))
    func bombsStopBeforeTheDiskIsFull() throws {
        try E2E.withScratch { s in
            try bombs(s)
            let disk = try #require(TinyDisk(at: s.path("disk"), options: "size=16m"))
            for (name, words) in [("bomb.zip", ["needs 268 MB"]), ("bomb.tar.gz", ["needs 268 MB"]), ("zeros.bin.gz", ["before the disk was full"])] {
                let out = try s.extract(["--progress-json", "--to", disk.path, s.path(name)])
                expectCleanFailure(out, on: disk.path, keeping: [], saying: words)
                expectTruthfulProgress(out)
            }
        }
    }

    /// Where there is room, the bomb extracts like any archive, with a truthful progress.
    @Test func aBombWithRoomExtracts() throws {
        try E2E.withScratch { s in
            try bombs(s)
            let out = try s.extract(["--progress-json", "--to", s.path("out"), s.path("bomb.tar.gz")])
            #expect(out.status == 0, "\(out)")
            #expect(E2E.size(s.path("out/zeros.bin")) == 256 << 20)
            expectTruthfulProgress(out)
        }
    }

    /// Twenty directory entries sharing one 10 MB kernel of compressed data: the data is written once.
    @Test func overlappingEntriesAreNotMultiplied() throws {
        try E2E.withScratch { s in
            try s.python("""
                import struct, sys, zlib
                size, n = 10_000_000, 20
                deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
                kernel = deflate.compress(bytes(size)) + deflate.flush()
                crc = zlib.crc32(bytes(size))
                out = bytearray(struct.pack('<IHHHHHIIIHH', 0x04034b50, 20, 0, 8, 0, 0x21, crc, len(kernel), size, 6, 0) + b'f0.bin' + kernel)
                central = bytearray()
                for i in range(n):
                    name = b'f%d.bin' % i
                    central += struct.pack('<IHHHHHHIIIHHHHHII', 0x02014b50, 20, 20, 0, 8, 0, 0x21, crc, len(kernel), size, len(name), 0, 0, 0, 0, 0o644 << 16, 0) + name
                start = len(out)
                out += central + struct.pack('<IHHHHIIH', 0x06054b50, 0, 0, n, n, len(central), start, 0)
                open(sys.argv[1], 'wb').write(out)
                """, [s.path("overlap.zip")])
            let out = try s.extract(["--progress-json", "--to", s.path("out"), s.path("overlap.zip")])
            #expect([0, 1, 5].contains(out.status), "\(out)")
            let written = E2E.allPaths(under: s.path("out")).compactMap { E2E.size(s.path("out/" + $0)) }.reduce(0, +)
            #expect(written <= 10_000_000, "\(written) bytes from a \(E2E.size(s.path("overlap.zip")) ?? 0)-byte zip")
            expectTruthfulProgress(out)
            #expect(E2E.leftovers(under: s.root).isEmpty)
        }
    }

    /// A zip of zips of zips (42.zip's shape, smaller): one level is extracted, the inner zips stay zips.
    @Test func nestedZipsAreNotRecursed() throws {
        try E2E.withScratch { s in
            try s.python("""
                import io, sys, zipfile
                def pack(items):
                    buffer = io.BytesIO()
                    with zipfile.ZipFile(buffer, 'w', zipfile.ZIP_DEFLATED) as z:
                        for name, data in items: z.writestr(name, data)
                    return buffer.getvalue()
                inner = pack([('zeros%d.bin' % i, bytes(1 << 20)) for i in range(16)])
                middle = pack([('lib%d.zip' % i, inner) for i in range(16)])
                open(sys.argv[1], 'wb').write(pack([('book%d.zip' % i, middle) for i in range(16)]))
                open(sys.argv[2], 'wb').write(middle)
                """, [s.path("42.zip"), s.path("middle.zip")])
            let out = try s.extract(["--json", "--to", s.path("out"), s.path("42.zip")])
            #expect(out.status == 0, "\(out)")
            let made = E2E.list(s.path("out/42"))
            #expect(made.count == 16 && made.allSatisfy { $0.hasSuffix(".zip") }, "\(made)")
            #expect(E2E.read(s.path("out/42/book7.zip")) == E2E.read(s.path("middle.zip")))
            #expect(E2E.allPaths(under: s.path("out")).count == 17)
        }
    }
}

/// The giants, run with `ARCHIVER_SLOW_TESTS=1`: a million entries, and one entry of 10 GB.
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["ARCHIVER_SLOW_TESTS"] == "1", "set ARCHIVER_SLOW_TESTS=1 for a million entries and a 10 GB entry"))
struct GiantTests {
    @Test(arguments: ["tar.gz", "zip"])
    func aMillionEntries(format: String) throws {
        try E2E.withScratch { s in
            try s.python("""
                import io, sys, tarfile, zipfile
                names = ['m/d%04d/f%07d.txt' % (i // 1000, i) for i in range(1_000_000)]
                if sys.argv[1].endswith('.zip'):
                    with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_STORED) as z:
                        for name in names: z.writestr(name, b'x')
                else:
                    with tarfile.open(sys.argv[1], 'w:gz', compresslevel=1) as t:
                        for name in names:
                            info = tarfile.TarInfo(name); info.size = 1
                            t.addfile(info, io.BytesIO(b'x'))
                """, [s.path("million." + format)])
            let (out, peak) = try s.measured(E2E.extractName, ["--progress-json", "--to", s.path("out"), s.path("million." + format)])
            #expect(out.status == 0, "\(out)")
            let result = out.stdout.split(separator: "\n").last.flatMap { E2E.json(String($0)) }
            let first = (result?["results"] as? [[String: Any]])?.first
            #expect(E2E.int(first?["files"]) == 1_000_000)
            #expect(E2E.list(s.path("out/m")).count == 1000)
            expectTruthfulProgress(out)
            print("a million entries, \(format): peak \(peak) MiB")
            // libarchive's zip reader keeps its central directory (about 240 bytes an entry); a tar stream keeps nothing.
            #expect(peak < (format == "zip" ? 512 : 64), "peak \(peak) MiB")
        }
    }

    /// 10 GB of zeros: made into a zip (a few MB) and a tar.zst, extracted with room, and refused up front
    /// (zip's directory, tar's header) on a disk without room.
    @Test func oneEntryOf10GB() throws {
        try E2E.withScratch { s in
            try s.mkdir("Giant")
            try s.must("/usr/bin/truncate", ["-s", "10G", s.path("Giant/zeros.bin")])
            for format in ["zip", "tar.zst"] {
                let made = try s.compress(["--progress-json", "--format", format, "--level", "fast", s.path("Giant")])
                #expect(made.status == 0, "\(made)")
                expectTruthfulProgress(made)
                if TinyDisk.available {
                    let disk = try #require(TinyDisk(at: s.path("disk-" + format), options: "size=64m"))
                    let refused = try s.extract(["--progress-json", "--to", disk.path, s.path("Giant." + format)])
                    expectCleanFailure(refused, on: disk.path, keeping: [], saying: ["needs 10.7 GB"])
                }
                let (out, peak) = try s.measured(E2E.extractName, ["--progress-json", "--to", s.path("out"), s.path("Giant." + format)])
                #expect(out.status == 0, "\(out)")
                #expect(E2E.size(s.path("out/Giant/zeros.bin")) == 10 << 30)
                expectTruthfulProgress(out)
                print("one entry of 10 GB, \(format): peak \(peak) MiB")
                #expect(peak < 128, "peak \(peak) MiB")
                try FileManager.default.removeItem(atPath: s.path("out"))
            }
        }
    }
}
