import ArchiverTestSupport
import Foundation
import Testing

/// Peak memory of creation at the normal level and of extraction stays within 64 MiB, with enough data
/// that every compressor's buffers and worker jobs fill.
@Suite struct MemoryTests {
    static let limitMiB = 64

    @Test(arguments: ["zip", "tar.gz", "tar.bz2", "tar.zst"])
    func creationAndExtractionStayBounded(format: String) throws {
        try E2E.withScratch("memory-\(format)") { s in
            // 58 MB of source-like text in 400 files, with incompressible stretches: enough that zstd's
            // workers run their jobs at full size (libarchive's own zstd filter peaked at 76 MiB on it).
            try s.python("""
                import os, random, sys
                random.seed(19)
                letters = 'abcdefghijklmnopqrstuvwxyz_'
                words = [''.join(random.choice(letters) for _ in range(random.randint(2, 12))) for _ in range(5000)]
                os.makedirs(sys.argv[1])
                for i in range(400):
                    lines = (' '.join(random.choice(words) for _ in range(random.randint(1, 12))) for _ in range(2500))
                    with open(os.path.join(sys.argv[1], 'part%03d.txt' % i), 'w') as f:
                        f.write(chr(10).join(lines))
                    if i % 20 == 0:
                        with open(os.path.join(sys.argv[1], 'noise%03d.bin' % i), 'wb') as f:
                            f.write(os.urandom(400_000))
                """, [s.path("Data")])
            let (made, creation) = try s.measured(E2E.compressName, ["--no-notify", "--format", format, "--level", "normal", s.path("Data")])
            #expect(made.status == 0, "\(made)")
            #expect(creation <= Self.limitMiB, "creating \(format) peaked at \(creation) MiB")
            let (out, extraction) = try s.measured(E2E.extractName, ["--no-notify", "--to", s.path("out"), s.path("Data.\(format)")])
            #expect(out.status == 0, "\(out)")
            #expect(extraction <= Self.limitMiB, "extracting \(format) peaked at \(extraction) MiB")
            #expect(E2E.read(s.path("out/Data/part123.txt")) == E2E.read(s.path("Data/part123.txt")))
        }
    }
}
