import ArchiverCore
import ArchiverTestSupport
import Foundation
import SystemPackage
import Testing

@testable import ArchiveEngine

@Suite struct NamingAndLayoutTests {
    @Test func compressingTwiceNumbersTheSecondArchive() throws {
        let scratch = try ScratchDirectory()
        try Data("x".utf8).write(to: URL(fileURLWithPath: scratch.sub("a.txt")))
        try Data("y".utf8).write(to: URL(fileURLWithPath: scratch.sub("b.txt")))
        let inputs = [FilePath(scratch.sub("a.txt")), FilePath(scratch.sub("b.txt"))]
        let first = try Compressor.run(inputs: inputs, format: .tarGz, level: .fast, control: JobControl())
        let second = try Compressor.run(inputs: inputs, format: .tarGz, level: .fast, control: JobControl())
        let third = try Compressor.run(inputs: inputs, format: .tarGz, level: .fast, control: JobControl())
        #expect(first.output.lastComponent?.string == "Archive.tar.gz")
        #expect(second.output.lastComponent?.string == "Archive (2).tar.gz")
        #expect(third.output.lastComponent?.string == "Archive (3).tar.gz")
    }

    @Test func outputThatExistsIsRefusedAndKept() throws {
        let scratch = try ScratchDirectory()
        try Data("x".utf8).write(to: URL(fileURLWithPath: scratch.sub("a.txt")))
        try Data("precious".utf8).write(to: URL(fileURLWithPath: scratch.sub("set.zip")))
        #expect(throws: ArchiverError.self) {
            try Compressor.run(
                inputs: [FilePath(scratch.sub("a.txt"))], format: .zip, level: .normal,
                destination: .path(FilePath(scratch.sub("set.zip"))), control: JobControl())
        }
        #expect(try String(contentsOfFile: scratch.sub("set.zip"), encoding: .utf8) == "precious")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).sorted() == ["a.txt", "set.zip"])
    }

    @Test func severalTopLevelItemsGetAFolderNamedAfterTheArchive() throws {
        let scratch = try ScratchDirectory()
        try Data("x".utf8).write(to: URL(fileURLWithPath: scratch.sub("a.txt")))
        try Data("y".utf8).write(to: URL(fileURLWithPath: scratch.sub("b.txt")))
        let made = try Compressor.run(
            inputs: [FilePath(scratch.sub("a.txt")), FilePath(scratch.sub("b.txt"))], format: .tarXz, level: .fast,
            destination: .name(Array("bundle".utf8)), control: JobControl())
        #expect(made.output.lastComponent?.string == "bundle.tar.xz")
        let first = try Extractor.run(archive: made.output, options: options(into: scratch.sub("out")), control: JobControl())
        let second = try Extractor.run(archive: made.output, options: options(into: scratch.sub("out")), control: JobControl())
        #expect(first.output == FilePath(scratch.sub("out/bundle")))
        #expect(second.output == FilePath(scratch.sub("out/bundle (2)")))
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.sub("out/bundle (2)")).sorted() == ["a.txt", "b.txt"])
    }

    @Test func oneFileExtractsAsIsAndIsNeverOverwritten() throws {
        let scratch = try ScratchDirectory()
        try Data("new".utf8).write(to: URL(fileURLWithPath: scratch.sub("report.pdf")))
        let made = try Compressor.run(inputs: [FilePath(scratch.sub("report.pdf"))], format: .zip, level: .normal, control: JobControl())
        #expect(made.output.lastComponent?.string == "report.zip")
        // Extracting beside the original must not touch it.
        let result = try Extractor.run(archive: made.output, options: options(into: scratch.path), control: JobControl())
        #expect(result.output == FilePath(scratch.sub("report (2).pdf")))
        #expect(try String(contentsOfFile: scratch.sub("report.pdf"), encoding: .utf8) == "new")
    }

    @Test func besideTheArchiveUnlessItIsInATemporaryPlace() throws {
        let scratch = try ScratchDirectory()
        try FileManager.default.createDirectory(atPath: scratch.sub("mail"), withIntermediateDirectories: true)
        try Data("x".utf8).write(to: URL(fileURLWithPath: scratch.sub("mail/a.txt")))
        let made = try Compressor.run(inputs: [FilePath(scratch.sub("mail/a.txt"))], format: .zip, level: .normal, control: JobControl())
        let beside = ExtractOptions(
            folder: nil, fallbackFolder: FilePath(scratch.sub("Downloads")),
            places: ExtractDestination(home: FilePath(scratch.path), environment: ["TMPDIR": BuiltProducts.temporaryFolder]))
        try FileManager.default.removeItem(atPath: scratch.sub("mail/a.txt"))
        #expect(try Extractor.run(archive: made.output, options: beside, control: JobControl()).output == FilePath(scratch.sub("mail/a.txt")))

        let temporary = ExtractOptions(
            folder: nil, fallbackFolder: FilePath(scratch.sub("Downloads")),
            places: ExtractDestination(home: FilePath(scratch.path), environment: ["TMPDIR": scratch.sub("mail")]))
        let result = try Extractor.run(archive: made.output, options: temporary, control: JobControl())
        #expect(result.output == FilePath(scratch.sub("Downloads/a.txt")))
    }

    @Test func selectionAndJunk() throws {
        let scratch = try ScratchDirectory()
        let fm = FileManager.default
        for dir in ["T/docs/sub", "T/__MACOSX/docs", "T/pics"] {
            try fm.createDirectory(atPath: scratch.sub(dir), withIntermediateDirectories: true)
        }
        for file in ["T/docs/sub/a.txt", "T/docs/.DS_Store", "T/docs/._a.txt", "T/__MACOSX/docs/._x", "T/pics/p.jpg"] {
            try Data("x".utf8).write(to: URL(fileURLWithPath: scratch.sub(file)))
        }
        let made = try Compressor.run(inputs: [FilePath(scratch.sub("T"))], format: .zip, level: .fast, control: JobControl())
        let clean = try Extractor.run(archive: made.output, options: options(into: scratch.sub("clean")), control: JobControl())
        #expect(try fm.subpathsOfDirectory(atPath: scratch.sub("clean/T")).sorted() == ["docs", "docs/sub", "docs/sub/a.txt", "pics", "pics/p.jpg"])
        #expect(Set(clean.skippedJunk) == ["T/docs/.DS_Store", "T/docs/._a.txt", "T/__MACOSX/", "T/__MACOSX/docs/", "T/__MACOSX/docs/._x"])
        let kept = try Extractor.run(archive: made.output, options: options(into: scratch.sub("kept"), keepJunk: true), control: JobControl())
        #expect(kept.skippedJunk.isEmpty)
        #expect(fm.fileExists(atPath: scratch.sub("kept/T/__MACOSX/docs/._x")))

        let chosen = try Extractor.run(archive: made.output, options: options(into: scratch.sub("chosen"), selection: ["T/docs/"]), control: JobControl())
        #expect(chosen.output == FilePath(scratch.sub("chosen/T")))
        #expect(try fm.subpathsOfDirectory(atPath: scratch.sub("chosen/T")).sorted() == ["docs", "docs/sub", "docs/sub/a.txt"])

        do {
            _ = try Extractor.run(archive: made.output, options: options(into: scratch.sub("none"), selection: ["T/pix"]), control: JobControl())
            Issue.record("an unknown name must fail")
        } catch {
            #expect(error.code == .usage)
            #expect(error.hint?.english.contains("T/pics") == true)
        }
        let left = (try? fm.contentsOfDirectory(atPath: scratch.sub("none"))) ?? []
        #expect(left.isEmpty, "nothing is written before an unknown name is reported")
    }
}
