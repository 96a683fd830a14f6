import ArchiverCore
import Testing

@Suite struct StreamContentTests {
    /// An empty tar is only zeros, as a disk image's start is: no signature, so one file; a tar with
    /// entries, or any other format, stays an archive.
    @Test func onlyATarWithoutEntriesIsOneFile() {
        #expect(StreamContent.isOneFile(found: .tar, hasEntries: false, namedTar: false))
        #expect(!StreamContent.isOneFile(found: .tar, hasEntries: true, namedTar: false))
        #expect(!StreamContent.isOneFile(found: .other, hasEntries: false, namedTar: false))
        #expect(!StreamContent.isOneFile(found: .other, hasEntries: true, namedTar: false))
        // `empty.tar.gz` is a valid empty archive.
        #expect(!StreamContent.isOneFile(found: .tar, hasEntries: false, namedTar: true))
    }

    @Test func aNameSaysTar() {
        for name in ["x.tar.gz", "X.TGZ", "x.tar.xz.001", "x.tzst", "empty.tar.bz2"] {
            #expect(StreamContent.nameSaysTar(Array(name.utf8)), "\(name)")
        }
        for name in ["rootfs.ext4.xz", "disk.img.bz2", "zeros.zst", "tar.gz", "notes.txt.gz", "x.gz"] {
            #expect(!StreamContent.nameSaysTar(Array(name.utf8)), "\(name)")
        }
    }

    /// Found by fuzz-single-stream: libarchive guessed an lzma layer inside a gzip from a few header-like bytes.
    @Test func aGuessedLzmaLayerInsideAnotherIsNotReal() {
        #expect(StreamContent.realLayerCount(["gzip", "lzma"], name: Array("input.gz".utf8)) == 1)
        #expect(StreamContent.realLayerCount(["xz", "gzip", "lzma"], name: Array("disk.img.gz.xz".utf8)) == 2)
        #expect(StreamContent.realLayerCount(["gzip", "lzma"], name: Array("x.lzma.gz".utf8)) == nil)
        #expect(StreamContent.realLayerCount(["gzip", "lzma"], name: Array("x.TLZ.gz".utf8)) == nil)
        #expect(StreamContent.realLayerCount(["lzma"], name: Array("x.bin".utf8)) == nil, "an outer layer is checked by its data")
        #expect(StreamContent.realLayerCount(["gzip", "xz"], name: Array("x.gz".utf8)) == nil)
    }

    @Test func mtreeNeedsItsSignature() {
        #expect(StreamContent.isMtree(Array("#mtree\n./a type=file\n".utf8)))
        #expect(StreamContent.isMtree(Array("#mtree v2.0\n".utf8)))
        #expect(!StreamContent.isMtree(Array("1\n2\n3\n".utf8)))
        #expect(!StreamContent.isMtree(Array("#mtre".utf8)))
        #expect(!StreamContent.isMtree([UInt8]()))
    }

    /// lz4 and zstd share the skippable frame: what follows the frames decides.
    @Test func lz4BehindSkippableFramesIsFound() {
        let lz4: [UInt8] = [0x04, 0x22, 0x4D, 0x18, 0x64, 0x40, 0xA7]
        let zstd: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD, 0x00]
        func skippable(_ low: UInt8, _ payload: [UInt8]) -> [UInt8] {
            [0x50 | low, 0x2A, 0x4D, 0x18] + [UInt8(payload.count), 0, 0, 0] + payload
        }
        #expect(StreamContent.lz4AfterSkippableFrames(skippable(0, Array("meta".utf8)) + lz4) == 12)
        #expect(StreamContent.lz4AfterSkippableFrames(skippable(0xF, []) + skippable(3, [1, 2]) + lz4) == 18)
        #expect(StreamContent.lz4AfterSkippableFrames(lz4) == nil)
        #expect(StreamContent.lz4AfterSkippableFrames(skippable(0, [1]) + zstd) == nil)
        #expect(StreamContent.lz4AfterSkippableFrames(Array(skippable(0, [1, 2, 3]).prefix(6))) == nil)
        // A size past the bytes read is not followed.
        #expect(StreamContent.lz4AfterSkippableFrames([0x50, 0x2A, 0x4D, 0x18, 0xFF, 0xFF, 0xFF, 0xFF] + lz4) == nil)
    }

    /// A SquashFS image starts with its magic; an AppImage's follows its ELF program's section headers.
    @Test func squashfsImagesAreFoundAtTheStartOrAfterAnAppImagesProgram() {
        #expect(StreamContent.squashfsStart(Array("hsqs".utf8) + [4, 0, 0, 0]) == 0)
        #expect(StreamContent.squashfsStart(Array("sqsh".utf8)) == nil)
        func elf(bits64: Bool, appImage: Bool) -> [UInt8] {
            var header = [UInt8](repeating: 0, count: 64)
            header[0...3] = [0x7F, 0x45, 0x4C, 0x46]
            header[4] = bits64 ? 2 : 1
            header[5] = 1
            if appImage { header[8...10] = [0x41, 0x49, 0x02] }
            func put(_ value: Int, at offset: Int, bytes: Int) {
                for index in 0..<bytes { header[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index)) }
            }
            // Section headers at 180,000: 30 of 64 bytes (ELF64), 40 of 40 bytes (ELF32).
            if bits64 {
                put(180_000, at: 0x28, bytes: 8); put(64, at: 0x3A, bytes: 2); put(30, at: 0x3C, bytes: 2)
            } else {
                put(180_000, at: 0x20, bytes: 4); put(40, at: 0x2E, bytes: 2); put(40, at: 0x30, bytes: 2)
            }
            return header
        }
        #expect(StreamContent.squashfsStart(elf(bits64: true, appImage: true)) == 180_000 + 64 * 30)
        #expect(StreamContent.squashfsStart(elf(bits64: false, appImage: true)) == 180_000 + 40 * 40)
        // Any other program is no image, nor is a header cut short.
        #expect(StreamContent.squashfsStart(elf(bits64: true, appImage: false)) == nil)
        #expect(StreamContent.squashfsStart(Array(elf(bits64: true, appImage: true).prefix(40))) == nil)
    }

    /// A file compressed more times than libarchive undoes is valid: not "damaged", and said so.
    @Test func tooManyLayersAreNotDamage() {
        let message = "Input requires too many filters for decoding"
        #expect(FailureClassifier.readFailure(message: message) == .notAnArchive)
        let error = FailureClassifier.describeReadFailure(message: message, archive: "x.gz", place: nil)
        #expect(error.message.english.contains("compressed more times over"))
    }

    /// libarchive runs lrzip, lzop and grzip as programs; a missing one is named, and is not damage.
    @Test func aMissingProgramIsNamedAndNotDamage() {
        let message = "Can't initialize filter; unable to run program \"lrzip -d -q\""
        #expect(FailureClassifier.missingProgram(message) == "lrzip")
        #expect(FailureClassifier.missingProgram("unable to run program \"lzop\"") == "lzop")
        #expect(FailureClassifier.missingProgram("Damaged tar archive") == nil)
        #expect(FailureClassifier.readFailure(message: message) == .notAnArchive)
        let error = FailureClassifier.describeReadFailure(message: message, archive: "x.tar.lrz", place: nil)
        #expect(error.message.english.contains("“lrzip”"))
        #expect(error.hint?.english.contains("“lrzip” package") == true)
    }
}

/// libarchive's English stays out of our sentences, in every language; it is kept as the error's detail.
@Suite struct LibraryWordsTests {
    @Test func theSentenceIsOursAndTheLibrarysWordsAreTheDetail() {
        let cut = FailureClassifier.describeReadFailure(
            message: "Truncated input file (needed 40010 bytes, only 30161 available)", archive: "cut.zip", place: .after("part3.bin"))
        #expect(cut.message.english == "“cut.zip” is damaged or incomplete after “part3.bin”.")
        #expect(cut.detail == "Truncated input file (needed 40010 bytes, only 30161 available)")
        #expect(cut.code == .corrupt)
        let crc = FailureClassifier.describeReadFailure(message: "ZIP bad CRC: 0xda89ccd4 should be 0xbc59bee6", archive: "x.zip", place: nil)
        #expect(!crc.message.english.contains("CRC") && crc.detail?.contains("CRC") == true)
        let feature = FailureClassifier.describeReadFailure(message: "Unsupported ZIP compression method (14: lzma)", archive: "y.zip", place: .at("a"))
        #expect(feature.message.english == "“y.zip” uses a feature Archiver cannot read at “a”.")
        #expect(feature.detail == "Unsupported ZIP compression method (14: lzma)")
    }
}
