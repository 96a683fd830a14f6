import ArchiverCore
import Testing

@Suite struct EntryPreviewTests {
    @Test func onlySmallImagesThatCanBeReadGetAThumbnail() {
        #expect(EntryPreview.wantsThumbnail(name: "Chart.PNG", size: 20_000, encrypted: false, unlocked: false))
        #expect(EntryPreview.wantsThumbnail(name: "photo.jpeg", size: EntryPreview.thumbnailLimit, encrypted: false, unlocked: false))
        // Too large to read for a thumbnail, empty, not an image by name, a name that is only an extension.
        #expect(!EntryPreview.wantsThumbnail(name: "huge.jpg", size: EntryPreview.thumbnailLimit + 1, encrypted: false, unlocked: false))
        #expect(!EntryPreview.wantsThumbnail(name: "empty.png", size: 0, encrypted: false, unlocked: false))
        #expect(!EntryPreview.wantsThumbnail(name: "notes.txt", size: 10, encrypted: false, unlocked: false))
        #expect(!EntryPreview.wantsThumbnail(name: "report.pdf", size: 10, encrypted: false, unlocked: false))
        #expect(!EntryPreview.wantsThumbnail(name: ".png", size: 10, encrypted: false, unlocked: false))
        // Encrypted: only once the archive is unlocked.
        #expect(!EntryPreview.wantsThumbnail(name: "secret.png", size: 10, encrypted: true, unlocked: false))
        #expect(EntryPreview.wantsThumbnail(name: "secret.png", size: 10, encrypted: true, unlocked: true))
    }

    @Test func theBytesDecideTheKindNotTheName() {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]
        #expect(EntryPreview.kind(of: png) == .image)
        #expect(EntryPreview.kind(of: [0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10]) == .image)
        #expect(EntryPreview.kind(of: Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8)) == .image)
        #expect(EntryPreview.kind(of: Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVEfmt ".utf8)) == nil, "a WAV is no image, and binary")
        #expect(EntryPreview.kind(of: Array("%PDF-1.7\n%âãÏÓ".utf8)) == .pdf)
        #expect(EntryPreview.kind(of: Array("# Readme\n\nHello.\n".utf8)) == .text)
        // Random bytes named .png are not an image, and not text either.
        #expect(EntryPreview.kind(of: [0x12, 0x00, 0xFE, 0x7F, 0x01]) == nil)
        #expect(EntryPreview.kind(ofName: "a.tar.PDF") == .pdf)
        #expect(EntryPreview.kind(ofName: "Makefile") == nil)
    }

    @Test func textIsUTF8OrLatin1AndBinaryIsNot() {
        #expect(EntryPreview.text(Array("Grüße\r\n\tA\u{1B}[1m".utf8)) == "Grüße\r\n\tA\u{1B}[1m")
        #expect(EntryPreview.text([0xEF, 0xBB, 0xBF] + Array("mit BOM".utf8)) == "mit BOM")
        // Not UTF-8: read as Latin-1 ("Grüße" in ISO 8859-1).
        #expect(EntryPreview.text([0x47, 0x72, 0xFC, 0xDF, 0x65]) == "Grüße")
        // NUL, other C0 controls, and C1 controls in what is not UTF-8: binary.
        #expect(EntryPreview.text([0x41, 0x00, 0x42]) == nil)
        #expect(EntryPreview.text([0x41, 0x02, 0x42]) == nil)
        #expect(EntryPreview.text([0x41, 0x93, 0x42]) == nil)
        // Cut at the limit in the middle of "ü": the text up to it; a short file ending so is not UTF-8.
        let long = Array(repeating: UInt8(ascii: "a"), count: EntryPreview.textLimit - 1) + [0xC3, 0xBC]
        #expect(EntryPreview.text(long) == String(repeating: "a", count: EntryPreview.textLimit - 1))
        #expect(EntryPreview.text([0x61, 0xC3]) == "aÃ", "read as Latin-1")
        #expect(EntryPreview.text(Array(repeating: UInt8(ascii: "x"), count: EntryPreview.textLimit * 2))?.utf8.count == EntryPreview.textLimit)
    }
}
