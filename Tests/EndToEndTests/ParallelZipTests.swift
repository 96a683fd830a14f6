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

    /// With a password every file's data is WinZip AES (AE-2, AES-256) over its compressed bytes, read by
    /// 7-Zip and bsdtar with the password only and by us; the same bytes on one worker and on two once the
    /// salts are numbered (`ARCHIVER_TEST_SALT`, debug builds only), and random salts otherwise.
    @Test func anAESZipIsTheSameOnOneWorkerAndTwoAndOpensWithThePasswordOnly() throws {
        try E2E.withScratch { s in
            try makeInputs(s)
            // Not the Latin-1 name: bsdtar and our extractor decode it rather than keep its bytes.
            try s.python("import os, sys; os.remove(sys.argv[1].encode() + b'/caf\\xe9.txt')", [s.path("Data")])
            // 7-Zip takes only ASCII passwords for zip.
            let password = "pass word"
            for (name, workers, salt) in [("one", "1", true), ("two", "2", true), ("random", "2", false)] {
                let made = try E2E.run(
                    E2E.compressName, ["--format", "zip", "--encrypt", "--password-stdin", "--output", s.path("\(name).zip"), s.path("Data")],
                    environment: ["ARCHIVER_TEST_WORKERS": workers].merging(salt ? ["ARCHIVER_TEST_SALT": "1"] : [:]) { $1 },
                    input: password + "\n")
                #expect(made.status == 0, "\(made.stderr)")
            }
            let one = try #require(E2E.read(s.path("one.zip")))
            #expect(one == E2E.read(s.path("two.zip")))
            #expect(one.count == E2E.read(s.path("random.zip"))?.count && one != E2E.read(s.path("random.zip")))

            for archive in [s.path("two.zip"), s.path("random.zip")] {
                try s.must("/usr/bin/7zz", ["t", "-p" + password, archive])
                #expect(try s.tool("/usr/bin/7zz", ["t", "-pwrong", archive]).status != 0)
                try s.mkdir("wrong")
                #expect(try s.tool("/usr/bin/bsdtar", ["-xf", archive, "--passphrase", "wrong", "-C", s.path("wrong")]).status != 0)
            }
            try s.mkdir("bsdtar")
            try s.must("/usr/bin/bsdtar", ["-xf", s.path("random.zip"), "--passphrase", password, "-C", s.path("bsdtar")])
            #expect(try TreeSnapshot.differences(expected: s.path("Data"), actual: s.path("bsdtar/Data")) == [])
            let ours = try E2E.run(E2E.extractName, ["--password-stdin", "--to", s.path("ours"), s.path("two.zip")], input: password + "\n")
            #expect(ours.status == 0, "\(ours.stderr)")
            #expect(try TreeSnapshot.differences(expected: s.path("Data"), actual: s.path("ours/Data")) == [])

            // Each file's data: salt, the verifier and code PBKDF2 and HMAC-SHA1 give (Python's own), no CRC.
            let python = try s.python(
                """
                import sys, zipfile, struct, hashlib, hmac, stat
                z = zipfile.ZipFile(sys.argv[1]); raw = open(sys.argv[1], 'rb').read(); salts = set()
                for i in z.infolist():
                    if not stat.S_ISREG(i.external_attr >> 16) or i.file_size == 0:
                        print('plain' if i.compress_type in (0, 8) and not i.flag_bits & 1 else 'encrypted', i.filename); continue
                    n, e = struct.unpack('<HH', raw[i.header_offset + 26:i.header_offset + 30])
                    local = raw[i.header_offset + 30 + n:i.header_offset + 30 + n + e]
                    data = raw[i.header_offset + 30 + n + e:][:i.compress_size]
                    fields = {}
                    while local:
                        tag, size = struct.unpack('<HH', local[:4]); fields[tag] = local[4:4 + size]; local = local[4 + size:]
                    version, vendor, strength, method = struct.unpack('<H2sBH', fields[0x9901])
                    key = hashlib.pbkdf2_hmac('sha1', sys.argv[2].encode(), data[:16], 1000, 66)
                    good = key[64:] == data[16:18] and hmac.new(key[32:64], data[18:-10], 'sha1').digest()[:10] == data[-10:]
                    salts.add(data[:16])
                    print('aes', i.filename, i.compress_type, i.flag_bits & 9, i.CRC, version, vendor.decode(), strength, method, good)
                print('salts', len(salts) == sum(1 for i in z.infolist() if stat.S_ISREG(i.external_attr >> 16) and i.file_size))
                """, [s.path("random.zip"), password])
            let facts = python.stdout
            #expect(facts.contains("aes Data/big.txt 99 1 0 2 AE 3 8 True"), "\(facts)")
            #expect(facts.contains("aes Data/noise.bin 99 1 0 2 AE 3 0 True"), "\(facts)")
            #expect(facts.contains("aes Data/Grüße.txt 99 1 0 2 AE 3 8 True"), "\(facts)")
            #expect(!facts.contains("False") && !facts.contains("encrypted "), "\(facts)")
            // Symlinks, folders and empty files are plain, as libarchive's writer left them (ZipCompression says why).
            #expect(facts.contains("plain Data/link") && facts.contains("plain Data/empty folder/") && facts.contains("plain Data/empty\n"), "\(facts)")
            #expect(facts.contains("salts True"), "\(facts)")
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
