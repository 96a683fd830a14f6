import ArchiverCore
import Testing

@testable import ArchiveEngine

/// Which encrypted entry a password is tried on before anything is written.
@Suite struct PasswordProbeTests {
    private func entry(_ path: String, _ kind: ArchiveEntryInfo.Kind = .file, size: Int64?, encrypted: Bool = true) -> ArchiveEntryInfo {
        ArchiveEntryInfo(
            path: Array(path.utf8), kind: kind, size: size, packedSize: nil, modified: nil, encrypted: encrypted, linkTarget: nil,
            permissions: 0o644)
    }

    @Test func theSmallestFileWithDataIsTriedBeforeEmptyOnesAndFolders() {
        let entries = [
            entry("folder", .directory, size: 0), entry("empty.txt", size: 0), entry("big.bin", size: 9_000),
            entry("small.txt", size: 12), entry("plain.txt", size: 1, encrypted: false),
        ]
        #expect(Extractor.passwordProbe(entries, selection: EntrySelection([])) == 3)
        #expect(Extractor.passwordProbe(entries, selection: EntrySelection([Array("big.bin".utf8), Array("empty.txt".utf8)])) == 2)
        #expect(Extractor.passwordProbe(Array(entries.prefix(2)), selection: EntrySelection([])) == 1, "an empty file still beats a folder")
        #expect(Extractor.passwordProbe([entries[4]], selection: EntrySelection([])) == nil)
    }
}
