import Testing

@testable import ArchiverCore

/// The readers' own words sorted into what a person is told: each message as libarchive, 7-Zip, unrar and
/// our decoders print it, and the stable codes that `--json` carries and the window reads back.
@Suite struct DamagedEntryTests {
    @Test(arguments: [
        ("ZIP bad CRC: 0x1c291ca3 should be 0x3610a686", DamagedEntry.Problem.checksum),
        ("CRC Failed", .checksum),
        ("CRC mismatch", .checksum),
        ("zstd decompression failed: Restored data doesn't match checksum", .checksum),
        ("Truncated input file (needed 512 bytes, only 0 available)", .endsEarly),
        ("Truncated ZIP file data", .endsEarly),
        ("Unexpected end of data", .endsEarly),
        ("Truncated input file: the gzip stream ends early", .endsEarly),
        ("stops after 100 of its 200 bytes", .endsEarly),
        ("Headers Error", .headers),
        ("Damaged tar archive (bad header checksum)", .headers),
        ("Invalid central directory signature", .headers),
        ("Data Error", .data),
        ("Lzma library error: Corrupted input data", .data),
        ("invalid deflate data (-1)", .data),
        ("bzip2 decompression failed", .data),
        ("CRC Failed in encrypted file. Wrong password?", .password),
        ("Incorrect passphrase", .password),
        ("", .unknown),
        ("something new", .unknown),
    ])
    func readerMessagesNameTheProblem(message: String, problem: DamagedEntry.Problem) {
        #expect(DamagedEntry.Problem(readerMessage: message) == problem, "\(message)")
        #expect(DamagedEntry(path: "a", detail: message).problem == problem)
    }

    @Test func codesAreStableAndReadBack() {
        for problem in DamagedEntry.Problem.allCases {
            #expect(DamagedEntry.Problem(code: problem.code) == problem)
            #expect(!problem.text.english.isEmpty && problem.text.english.first?.isLowercase == true, "inserted mid-sentence")
        }
        #expect(DamagedEntry.Problem.headerMismatch.code == "header-mismatch")
        #expect(DamagedEntry.Problem(code: "from-a-later-version") == .unknown)
        let entry = DamagedEntry(path: "a.txt", detail: "ZIP bad CRC: 0x1 should be 0x2")
        #expect(entry.reason.english == "a checksum does not match")
        #expect(entry.detail == "ZIP bad CRC: 0x1 should be 0x2", "the reader's words are kept as they are")
    }
}
