import ArchiverCore
import ArchiverTestSupport
import Foundation
import SystemPackage
import Testing

@testable import ArchiveEngine

/// Encrypted zip through libarchive: AES-256 when we write, ZipCrypto and AES when we read, and the
/// password checked before anything is written. Other people's tools are the oracle.
@Suite struct ZipPasswordTests {
    static let password = "pä ss"

    /// An asker that gives these answers in turn and records how often it was asked.
    final class Answers: @unchecked Sendable {
        private(set) var asked: [Int] = []
        private let answers: [String]
        init(_ answers: [String]) { self.answers = answers }
        var asker: PasswordAsker {
            PasswordAsker(attempts: 3) { _, attempt throws(ArchiverError) in
                self.asked.append(attempt)
                guard attempt <= self.answers.count else { throw ArchiverError(.password, "No password given.") }
                return Secret(Array(self.answers[attempt - 1].utf8))
            }
        }
    }

    func extract(_ archive: String, into folder: String, _ answers: Answers) throws -> ExtractResult {
        var opts = options(into: folder)
        opts.passwords = answers.asker
        return try Extractor.run(archive: FilePath(archive), options: opts, control: JobControl())
    }

    @Test func ourAES256ZipOpensIn7ZipAndPythonWithThePasswordOnly() throws {
        let scratch = try ScratchDirectory()
        try SampleTree.make(at: scratch.sub("Sample"))
        let made = try Compressor.run(
            inputs: [FilePath(scratch.sub("Sample"))], format: .zip, level: .normal, control: JobControl(),
            password: Secret(Array(Self.password.utf8)))
        let zip = made.output.string
        #expect(try Tool.run(["/usr/bin/7zz", "t", "-p\(Self.password)", zip]).status == 0)
        #expect(try Tool.run(["/usr/bin/7zz", "t", "-pwrong", zip]).status != 0)
        // Method 99 is WinZip AES; its extra field says AES-256 (strength 3).
        let script = """
            import sys, zipfile, struct
            for i in zipfile.ZipFile(sys.argv[1]).infolist():
                # libarchive leaves a symlink's target and empty files unencrypted: nothing to hide but names.
                if i.is_dir() or i.file_size == 0 or (i.external_attr >> 16) & 0o170000 == 0o120000: continue
                e = i.extra; strength = None
                while e:
                    tag, size = struct.unpack('<HH', e[:4])
                    if tag == 0x9901: strength = e[4 + 4]
                    e = e[4 + size:]
                print(i.filename, i.compress_type, i.flag_bits & 1, strength)
            """
        let listing = try Tool.run(["/usr/bin/python3", "-c", script, zip]).output
        let lines = listing.split(separator: "\n")
        #expect(!lines.isEmpty && lines.allSatisfy { $0.hasSuffix(" 99 1 3") }, "\(listing)")

        // And back with ours: asked once, identical tree.
        let answers = Answers([Self.password])
        let result = try extract(zip, into: scratch.sub("out"), answers)
        #expect(answers.asked == [1])
        #expect(try TreeSnapshot.differences(expected: scratch.sub("Sample"), actual: scratch.sub("out/Sample")) == [])
        #expect(!result.hasWarnings)
    }

    @Test func tarHasNoEncryptionAndNothingIsWritten() throws {
        let scratch = try ScratchDirectory()
        try Data("x".utf8).write(to: URL(fileURLWithPath: scratch.sub("a.txt")))
        #expect {
            try Compressor.run(
                inputs: [FilePath(scratch.sub("a.txt"))], format: .tarXz, level: .normal, control: JobControl(),
                password: Secret(Array("x".utf8)))
        } throws: { error in
            let error = error as? ArchiverError
            return error?.code == .usage && error?.message.english.contains("no standard encryption") == true
                && error?.hint?.english.contains("zip") == true
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path) == ["a.txt"])
    }

    /// Info-ZIP's `zip -P` (ZipCrypto) and 7-Zip's AES zip, each with a wrong answer first.
    @Test(arguments: ["zipcrypto", "7zz-aes"])
    func theirEncryptedZipsOpenAfterAWrongTry(kind: String) throws {
        let scratch = try ScratchDirectory("theirs-\(kind)")
        try SampleTree.make(at: scratch.sub("Sample"))
        let zip = scratch.sub("theirs.zip")
        // 7-Zip refuses non-ASCII passwords for zip (E_INVALIDARG): their bytes would depend on a code page.
        let password = kind == "zipcrypto" ? Self.password : "pass word"
        let made =
            kind == "zipcrypto"
            ? try Tool.run(["/usr/bin/zip", "-q", "-r", "-y", "-P", password, zip, "Sample"], in: scratch.path)
            // Without -snl: libarchive 3.6 cannot read a symlink entry that 7-Zip encrypted.
            : try Tool.run(["/usr/bin/7zz", "a", "-tzip", "-mem=AES256", "-p\(password)", zip, "Sample"], in: scratch.path)
        #expect(made.status == 0, "\(made.output)")

        let answers = Answers(["wrong", password])
        _ = try extract(zip, into: scratch.sub("out"), answers)
        #expect(answers.asked == [1, 2])
        #expect(try TreeSnapshot(scratch.sub("out/Sample")).nodes.keys.sorted() == TreeSnapshot(scratch.sub("Sample")).nodes.keys.sorted())
        #expect(try String(contentsOfFile: scratch.sub("out/Sample/hello.txt"), encoding: .utf8).isEmpty == false)
    }

    /// ZipCrypto checks a password against one byte: about 1 wrong password in 256 gets past it and
    /// decrypts to garbage, which the inflater rejects. Every one of 1500 wrong passwords must still read
    /// as a wrong password, never as a damaged archive (the chance that none of them passes the check
    /// byte is about 0.3 %).
    @Test func aWrongPasswordThatPassesZipCryptosCheckByteIsStillWrong() throws {
        let scratch = try ScratchDirectory()
        try Data(String(repeating: "secret ", count: 100).utf8).write(to: URL(fileURLWithPath: scratch.sub("a.txt")))
        #expect(try Tool.run(["/usr/bin/zip", "-q", "-P", "right", "s.zip", "a.txt"], in: scratch.path).status == 0)
        var codes: [ArchiverError.Code: Int] = [:]
        for index in 0..<1500 {
            var opts = options(into: scratch.sub("out"))
            opts.passwords = PasswordAsker(attempts: 1) { _, _ throws(ArchiverError) in Secret(Array("wrong\(index)".utf8)) }
            do throws(ArchiverError) {
                _ = try Extractor.run(archive: FilePath(scratch.sub("s.zip")), options: opts, control: JobControl())
                Issue.record("wrong\(index) opened the archive")
            } catch {
                codes[error.code, default: 0] += 1
            }
        }
        #expect(codes == [.password: 1500], "\(codes)")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: scratch.sub("out")))?.isEmpty ?? true)
    }

    @Test func threeWrongPasswordsWriteNothing() throws {
        let scratch = try ScratchDirectory()
        try Data(String(repeating: "secret ", count: 100).utf8).write(to: URL(fileURLWithPath: scratch.sub("a.txt")))
        #expect(try Tool.run(["/usr/bin/zip", "-q", "-P", "right", "s.zip", "a.txt"], in: scratch.path).status == 0)
        try FileManager.default.createDirectory(atPath: scratch.sub("out"), withIntermediateDirectories: true)
        let answers = Answers(["one", "two", "three", "right"])
        #expect {
            try extract(scratch.sub("s.zip"), into: scratch.sub("out"), answers)
        } throws: { error in
            let error = error as? ArchiverError
            return error?.code == .password && error?.message.english.contains("Wrong password") == true
        }
        #expect(answers.asked == [1, 2, 3])
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.sub("out")).isEmpty)
    }

    @Test func aCancelledPromptWritesNothingAndWithoutAPromptItIsRefused() throws {
        let scratch = try ScratchDirectory()
        try Data("secret".utf8).write(to: URL(fileURLWithPath: scratch.sub("a.txt")))
        #expect(try Tool.run(["/usr/bin/zip", "-q", "-P", "right", "s.zip", "a.txt"], in: scratch.path).status == 0)
        try FileManager.default.createDirectory(atPath: scratch.sub("out"), withIntermediateDirectories: true)
        #expect(throws: ArchiverError.self) { try extract(scratch.sub("s.zip"), into: scratch.sub("out"), Answers([])) }
        #expect {
            try Extractor.run(archive: FilePath(scratch.sub("s.zip")), options: options(into: scratch.sub("out")), control: JobControl())
        } throws: { ($0 as? ArchiverError)?.code == .password }
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.sub("out")).isEmpty)
    }
}
