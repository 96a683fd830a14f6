import ArchiverTestSupport
import Foundation
import Testing

/// zip is made on every core through our own container: the same bytes on one worker and on two, and
/// unzip, 7-Zip, bsdtar and Python read every kind of member.
@Suite struct ParallelZipTests {
    /// A member larger than `ZipCompression.wholeLimit` (streamed in blocks), incompressible bytes (stored),
    /// an empty file, tiny files, a symlink, an empty folder, a UTF-8 name and one that is not UTF-8.
    private func makeInputs(_ s: ScratchDirectory) throws {
        try s.python(
            """
            import os, random, sys
            random.seed(32)
            root = sys.argv[1] + '/Data'
            os.makedirs(root + '/tiny')
            os.makedirs(root + '/empty folder')
            words = [''.join(random.choice('abcdefghij') for _ in range(random.randint(2, 9))) for _ in range(400)]
            open(root + '/big.txt', 'w').write(' '.join(random.choice(words) for _ in range(1100000)))
            open(root + '/noise.bin', 'wb').write(random.randbytes(300000))
            open(root + '/empty', 'w').close()
            open(root + '/Grüße.txt', 'w').write('grüß dich ' * 50)
            open(root.encode() + b'/caf\\xe9.txt', 'wb').write(b'latin-1 name')
            os.symlink('big.txt', root + '/link')
            for i in range(120):
                open(root + '/tiny/%03d.txt' % i, 'w').write(words[i] * (i % 7))
            """, [s.root])
    }

    /// What Python finds in the zip, one fact a line.
    private static let inspect = """
        import sys, zipfile, stat, os
        z = zipfile.ZipFile(sys.argv[1])
        root = sys.argv[2].encode()
        print('testzip', z.testzip())
        print('comment', z.comment.decode())
        raw = open(sys.argv[1], 'rb').read()
        for i in z.infolist():
            if i.flag_bits & 8: print('descriptor', i.filename)
            if any(e for e in [i.extra] if b'\\x01\\x00' in e[:2]): print('zip64', i.filename)
        by = {i.orig_filename: i for i in z.infolist()}
        big = by['Data/big.txt']
        print('big', big.compress_type, big.file_size > 4 << 20, z.read(big) == open(root + b'/big.txt', 'rb').read())
        print('noise', by['Data/noise.bin'].compress_type, by['Data/empty'].compress_type)
        print('folder', 'Data/empty folder/' in by, stat.S_ISDIR(by['Data/empty folder/'].external_attr >> 16))
        link = by['Data/link']
        print('link', stat.S_ISLNK(link.external_attr >> 16), z.read(link))
        print('utf8', bool(by['Data/Grüße.txt'].flag_bits & 0x800))
        latin = [i for i in z.infolist() if i.filename.startswith('Data/caf') and i.filename.endswith('.txt')][0]
        print('latin', bool(latin.flag_bits & 0x800), latin.filename.encode('cp437'), z.read(latin))
        """

    @Test func aZipIsTheSameOnOneWorkerAndTwoAndEveryReaderReadsIt() throws {
        try E2E.withScratch { s in
            try makeInputs(s)
            for (name, workers) in [("one", "1"), ("two", "2")] {
                let made = try s.compress(
                    ["--format", "zip", "--comment", "Grüße", "--output", s.path("\(name).zip"), s.path("Data")],
                    env: ["ARCHIVER_TEST_WORKERS": workers])
                #expect(made.status == 0, "\(made.stderr)")
            }
            let one = try #require(E2E.read(s.path("one.zip")))
            #expect(one == E2E.read(s.path("two.zip")))

            let archive = s.path("two.zip")
            try s.must("/usr/bin/unzip", ["-tq", archive])
            try s.must("/usr/bin/7zz", ["t", archive])
            let listed = try s.must("/usr/bin/bsdtar", ["-tf", archive])
            #expect(listed.stdout.contains("Data/tiny/119.txt"))
            let python = try s.python(Self.inspect, [archive, s.path("Data")])
            let facts = python.stdout
            #expect(facts.contains("testzip None"), "\(facts)")
            #expect(facts.contains("comment Grüße"), "\(facts)")
            #expect(!facts.contains("descriptor") && !facts.contains("zip64"), "\(facts)")
            #expect(facts.contains("big 8 True True"), "\(facts)")
            #expect(facts.contains("noise 0 0"), "\(facts)")
            #expect(facts.contains("folder True True"), "\(facts)")
            #expect(facts.contains("link True b'big.txt'"), "\(facts)")
            #expect(facts.contains("utf8 True"), "\(facts)")
            #expect(facts.contains("latin False b'Data/caf\\xe9.txt' b'latin-1 name'"), "\(facts)")
            try s.mkdir("unzip")
            try s.must("/usr/bin/unzip", ["-q", archive, "-d", s.path("unzip")])
            #expect(try TreeSnapshot.differences(expected: s.path("Data"), actual: s.path("unzip/Data")) == [])
        }
    }

    /// Stored members and split parts go the same way: the parts joined are a zip every reader takes.
    @Test func aStoredSplitZipReadsBack() throws {
        try E2E.withScratch { s in
            try makeInputs(s)
            let made = try s.compress(["--format", "zip", "--level", "store", "--split", "1m", "--output", s.path("parts.zip"), s.path("Data")])
            #expect(made.status == 0, "\(made.stderr)")
            try s.must("/bin/sh", ["-c", "cat \"$0\".* > \"$0\"", s.path("parts.zip")])
            try s.must("/usr/bin/7zz", ["t", s.path("parts.zip")])
            let python = try s.python(
                "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); print(z.testzip(), {i.compress_type for i in z.infolist()})",
                [s.path("parts.zip")])
            #expect(python.stdout.contains("None {0}"), "\(python.stdout)")
        }
    }
}
