import ArchiverCore
import ArchiverTestSupport
import Foundation
import Glibc
import Platform
import SystemPackage
import Testing

@testable import ArchiveEngine

/// Extraction writes from inside its staging folder (relative paths spare libarchive's symlink check a
/// walk down the whole destination per entry). That folder change must stay in the extracting thread.
@Suite struct WorkingFolderTests {
    /// A tree of many small files, so an extraction lasts long enough to be watched.
    private static func manyFiles(at folder: String, count: Int) throws {
        for index in 0..<count {
            let sub = "\(folder)/d\(index % 20)"
            try FileManager.default.createDirectory(atPath: sub, withIntermediateDirectories: true)
            try Data("file \(index)\n".utf8).write(to: URL(fileURLWithPath: "\(sub)/f\(index).txt"))
        }
    }

    private static func currentFolder() -> String {
        guard let cwd = getcwd(nil, 0) else { return "?" }
        defer { free(cwd) }
        return String(cString: cwd)
    }

    @Test func otherThreadsKeepTheirFolder() throws {
        let scratch = try ScratchDirectory()
        try Self.manyFiles(at: scratch.sub("Many"), count: 1500)
        let made = try Compressor.run(inputs: [FilePath(scratch.sub("Many"))], format: .tar, level: .normal, control: JobControl())
        let before = Self.currentFolder()
        let out = scratch.sub("out")

        let done = ManagedAtomicFlag()
        let outcome = ResultBox()
        let thread = Thread {
            outcome.value = Result { try Extractor.run(archive: made.output, options: options(into: out), control: JobControl()) }
            done.set()
        }
        thread.start()
        var seen = Set<String>()
        while !done.isSet {
            seen.insert(Self.currentFolder())
            usleep(200)
        }

        #expect(seen == [before], "another thread saw the folder change: \(seen)")
        #expect(Self.currentFolder() == before)
        let result = try #require(try outcome.value?.get())
        #expect(result.output == FilePath(scratch.sub("out/Many")))
        #expect(try TreeSnapshot.differences(expected: scratch.sub("Many"), actual: scratch.sub("out/Many")) == [])
    }

    /// A set named by a relative path, extracted into a relative folder: the later parts are opened while
    /// the extracting thread works inside the staging folder.
    @Test func relativePartsOfASet() throws {
        let scratch = try ScratchDirectory()
        try Self.manyFiles(at: scratch.sub("Parts"), count: 200)
        try Data((0..<300_000).map { _ in UInt8.random(in: 0...255) }).write(to: URL(fileURLWithPath: scratch.sub("Parts/big.bin")))
        let made = try Compressor.run(inputs: [FilePath(scratch.sub("Parts"))], format: .tar, level: .normal, control: JobControl())
        let whole = try Data(contentsOf: URL(fileURLWithPath: made.output.string))
        let third = whole.count / 3 + 1
        for part in 0..<3 {
            let slice = whole[(part * third)..<min(whole.count, (part + 1) * third)]
            try Data(slice).write(to: URL(fileURLWithPath: scratch.sub("Parts.tar.00\(part + 1)")))
        }
        try FileManager.default.removeItem(atPath: made.output.string)

        let outcome = ResultBox()
        let folder = scratch.path
        let thread = Thread {
            // This thread alone starts in the scratch folder, so the relative names below mean its files.
            guard ProcessState.takeOwnWorkingFolder(), chdir(folder) == 0 else { return }
            outcome.value = Result {
                try Extractor.run(archive: FilePath("Parts.tar.002"), options: options(into: "out"), control: JobControl())
            }
        }
        thread.start()
        while thread.isExecuting || !thread.isFinished { usleep(10_000) }

        let result = try #require(try outcome.value?.get())
        #expect(result.output == FilePath(scratch.sub("out/Parts")))
        #expect(try TreeSnapshot.differences(expected: scratch.sub("Parts"), actual: scratch.sub("out/Parts")) == [])
    }
}

private final class ResultBox: @unchecked Sendable {
    var value: Result<ExtractResult, any Error>?
}

private final class ManagedAtomicFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var flag = false
    func set() { lock.withLock { flag = true } }
    var isSet: Bool { lock.withLock { flag } }
}
