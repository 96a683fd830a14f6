import ArchiverCore
import ArchiverTestSupport
import Foundation
import SystemPackage
import Testing

@testable import ArchiveEngine

/// Options that extract into `folder`, with a fallback that must not be used.
func options(into folder: String, selection: [String] = [], keepJunk: Bool = false) -> ExtractOptions {
    ExtractOptions(
        folder: FilePath(folder), fallbackFolder: "/nonexistent-fallback",
        places: ExtractDestination(home: "/nonexistent-home", environment: [:]),
        selection: selection.map { Array($0.utf8) }, keepJunk: keepJunk)
}

@Suite struct RoundTripTests {
    static let containerFormats: [ArchiveFormat] = [.zip, .sevenZip, .tar, .tarGz, .tarBz2, .tarXz, .tarZst]

    @Test(arguments: containerFormats)
    func everyFormatKeepsTheTree(format: ArchiveFormat) throws {
        let scratch = try ScratchDirectory("roundtrip-\(format.rawValue)")
        try SampleTree.make(at: scratch.sub("Sample"))
        let before = try TreeSnapshot(scratch.sub("Sample"))

        let made = try Compressor.run(inputs: [FilePath(scratch.sub("Sample"))], format: format, level: .normal, control: JobControl())
        #expect(made.output == FilePath(scratch.sub("Sample" + format.fileExtension)))
        #expect(made.files == 6 && made.symlinks == 1 && made.folders == 6)

        let result = try Extractor.run(archive: made.output, options: options(into: scratch.sub("out")), control: JobControl())
        #expect(result.output == FilePath(scratch.sub("out/Sample")))
        #expect(!result.hasWarnings)
        let after = try TreeSnapshot(scratch.sub("out/Sample"))
        #expect(before.differences(to: after) == [], "\(format.rawValue):\n\(after)\n---\n\(before)")
    }

    @Test(arguments: [ArchiveFormat.gz, .bz2, .xz, .zst])
    func singleStreamsRoundTrip(format: ArchiveFormat) throws {
        let scratch = try ScratchDirectory("stream-\(format.rawValue)")
        let text = Data(String(repeating: "stream me ", count: 5000).utf8)
        try text.write(to: URL(fileURLWithPath: scratch.sub("note.txt")))
        let made = try Compressor.run(inputs: [FilePath(scratch.sub("note.txt"))], format: format, level: .normal, control: JobControl())
        #expect(made.output.lastComponent?.string == "note.txt" + format.fileExtension)
        #expect(made.size < Int64(text.count) / 10)

        let result = try Extractor.run(archive: made.output, options: options(into: scratch.sub("out")), control: JobControl())
        #expect(result.output == FilePath(scratch.sub("out/note.txt")))
        #expect(try Data(contentsOf: URL(fileURLWithPath: scratch.sub("out/note.txt"))) == text)
    }

    @Test(arguments: CompressionLevel.allCases)
    func everyLevelWorksForZipAndXz(level: CompressionLevel) throws {
        let scratch = try ScratchDirectory("level-\(level.rawValue)")
        try SampleTree.make(at: scratch.sub("Sample"))
        for format in [ArchiveFormat.zip, .tarXz, .sevenZip] {
            let made = try Compressor.run(inputs: [FilePath(scratch.sub("Sample"))], format: format, level: level, control: JobControl())
            let result = try Extractor.run(archive: made.output, options: options(into: scratch.sub("out-\(format.rawValue)")), control: JobControl())
            #expect(try TreeSnapshot.differences(expected: scratch.sub("Sample"), actual: scratch.sub("out-\(format.rawValue)/Sample")) == [])
            #expect(!result.hasWarnings)
        }
    }

    @Test func storeIsBiggerThanMaximum() throws {
        let scratch = try ScratchDirectory()
        try Data(String(repeating: "compressible ", count: 20_000).utf8).write(to: URL(fileURLWithPath: scratch.sub("a.txt")))
        let stored = try Compressor.run(inputs: [FilePath(scratch.sub("a.txt"))], format: .zip, level: .store, control: JobControl())
        let maximum = try Compressor.run(inputs: [FilePath(scratch.sub("a.txt"))], format: .zip, level: .maximum, control: JobControl())
        #expect(stored.size > 260_000)
        #expect(maximum.size < 10_000)
    }
}
