import ArchiverTestSupport
import Foundation
import Testing

/// tar.gz and .gz are made on every core, one gzip member as pigz writes it: the same bytes on one worker
/// and on two, and every gzip reader reads them.
@Suite struct ParallelGzipTests {
    /// A folder with a file of many deflate blocks, incompressible bytes, an empty file and 300 tiny ones.
    private func makeInputs(_ s: ScratchDirectory) throws {
        try s.python(
            """
            import os, random, sys
            random.seed(32)
            root = sys.argv[1]
            os.makedirs(root + '/Data/tiny')
            words = [''.join(random.choice('abcdefghij') for _ in range(random.randint(2, 9))) for _ in range(400)]
            open(root + '/Data/big.txt', 'w').write(' '.join(random.choice(words) for _ in range(300000)))
            open(root + '/Data/noise.bin', 'wb').write(random.randbytes(400000))
            open(root + '/Data/empty', 'w').close()
            for i in range(300):
                open(root + '/Data/tiny/%03d.txt' % i, 'w').write(words[i] * (i % 7))
            """, [s.root])
    }

    @Test func aTarGzIsTheSameOnOneWorkerAndTwoAndEveryReaderReadsIt() throws {
        try E2E.withScratch { s in
            try makeInputs(s)
            for (name, workers) in [("one", "1"), ("two", "2")] {
                let made = try s.compress(
                    ["--format", "tar.gz", "--output", s.path("\(name).tar.gz"), s.path("Data")], env: ["ARCHIVER_TEST_WORKERS": workers])
                #expect(made.status == 0, "\(made.stderr)")
            }
            // Under taskset the worker count comes from the one CPU left.
            let pinned = try s.run("/usr/bin/taskset", ["-c", "0", try E2E.ours(E2E.compressName), "--format", "tar.gz", "--output", s.path("pinned.tar.gz"), s.path("Data")], localeUTF8: false)
            #expect(pinned.status == 0, "\(pinned.stderr)")
            let one = try #require(E2E.read(s.path("one.tar.gz")))
            #expect(one == E2E.read(s.path("two.tar.gz")))
            #expect(one == E2E.read(s.path("pinned.tar.gz")))

            let archive = s.path("two.tar.gz")
            try s.must("/usr/bin/gzip", ["-t", archive])
            try s.must("/usr/bin/7zz", ["t", archive])
            // One member (zlib stops at its end), its header pigz's and gzip's, every file back as it was.
            let python = try s.python(
                """
                import sys, tarfile, zlib
                data = open(sys.argv[1], 'rb').read()
                d = zlib.decompressobj(31)
                d.decompress(data)
                print('member', d.eof, len(d.unused_data), data[3], data[4:8] == bytes(4), data[9])
                with tarfile.open(sys.argv[1], 'r:gz') as t:
                    big = t.extractfile('Data/big.txt').read()
                    print('files', sum(1 for m in t.getmembers() if m.isfile()), big == open(sys.argv[2], 'rb').read())
                """, [archive, s.path("Data/big.txt")])
            #expect(python.stdout.contains("member True 0 0 True 3"), "\(python.stdout)")
            #expect(python.stdout.contains("files 303 True"), "\(python.stdout)")
            try s.mkdir("bsdtar")
            try s.must("/usr/bin/bsdtar", ["-xf", archive, "-C", s.path("bsdtar")])
            #expect(try TreeSnapshot.differences(expected: s.path("Data"), actual: s.path("bsdtar/Data")) == [])
        }
    }

    /// A single file: gzip gives it back; the extra-flags byte says fastest (4) or maximum (2) as gzip's.
    @Test(arguments: [("fast", 4), ("normal", 0), ("maximum", 2)])
    func aSingleFileGzIsOneMemberEveryReaderReads(level: String, flags: Int) throws {
        try E2E.withScratch { s in
            try makeInputs(s)
            let made = try s.compress(["--format", "gz", "--level", level, "--output", s.path("big.txt.gz"), s.path("Data/big.txt")])
            #expect(made.status == 0, "\(made.stderr)")
            let gz = try #require(E2E.read(s.path("big.txt.gz")))
            #expect(gz.count > 10 && Int(gz[8]) == flags)
            let back = try s.must("/bin/sh", ["-c", "gzip -dc \"$0\" | cmp - \"$1\" && echo same", s.path("big.txt.gz"), s.path("Data/big.txt")])
            #expect(back.stdout.contains("same"))
            try s.must("/usr/bin/7zz", ["t", s.path("big.txt.gz")])
            let python = try s.python(
                "import gzip, sys; print(gzip.open(sys.argv[1]).read() == open(sys.argv[2], 'rb').read())",
                [s.path("big.txt.gz"), s.path("Data/big.txt")])
            #expect(python.stdout.contains("True"))
        }
    }

    /// An empty file makes a gzip of nothing that gzip and Python read.
    @Test func anEmptyFileGz() throws {
        try E2E.withScratch { s in
            try makeInputs(s)
            let made = try s.compress(["--format", "gz", "--output", s.path("empty.gz"), s.path("Data/empty")])
            #expect(made.status == 0, "\(made.stderr)")
            let back = try s.must("/bin/sh", ["-c", "gzip -dc \"$0\" | wc -c", s.path("empty.gz")])
            #expect(back.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
        }
    }
}
