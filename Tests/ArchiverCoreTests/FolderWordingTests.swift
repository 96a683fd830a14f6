import Foundation
import Testing

@testable import ArchiverCore

@Suite struct FolderWordingTests {
    /// Opening as a folder extracts nothing: a damaged archive's hint says no folder was opened; other
    /// errors stay as they are.
    @Test func aDamagedArchiveSaysNoFolderWasOpened() {
        let damaged = FailureClassifier.describeReadFailure(message: "Truncated input file", archive: "x.tar.gz", place: nil)
        #expect(damaged.hint?.english.contains("nothing was extracted") == true)
        let forFolder = damaged.forFolder
        #expect(forFolder.hint?.english == "Download or copy it again; no folder was opened.")
        #expect(forFolder.message.english == damaged.message.english)
        #expect(forFolder.code == .corrupt)
        let other = FailureClassifier.describeReadFailure(message: "Unrecognized archive format", archive: "x", place: nil)
        #expect(other.forFolder.hint?.english == other.hint?.english)
    }

    /// Sentences that only extraction can meet (its destination, its cancel, its own tools' windows).
    static let extractionOnly: Set<String> = [
        "“%1$@” is %2$@, larger than a file on the %3$@ disk holding “%4$@” can be (4 GiB); nothing was extracted.",
        "Cancelled; nothing was extracted.",
        "nothing was extracted",
    ]

    /// Every sentence of the catalog that says "nothing was extracted" has a folder wording with the same
    /// values, unless only extraction meets it: a new one cannot reach Open as Folder unworded.
    @Test func everyNothingWasExtractedSentenceHasAFolderWording() throws {
        let catalog = try String(contentsOf: Self.packageRoot.appendingPathComponent("po/archiver.pot"), encoding: .utf8)
        let lines = catalog.split(separator: "\n").map(String.init)
        var checked = 0
        for (number, line) in lines.enumerated() where line.hasPrefix("msgid \"") && line.contains("nothing was extracted") {
            let msgid = Self.unquoted(line.dropFirst(6))
            if Self.extractionOnly.contains(msgid) { continue }
            let plural = lines.indices.contains(number + 1) && lines[number + 1].hasPrefix("msgid_plural \"")
                ? Self.unquoted(lines[number + 1].dropFirst(13)) : nil
            let text: Text
            if let plural {
                text = Text(.plural(msgid, plural, count: 3), [.int(3), .string("VALUE-2")])
            } else {
                let count = Self.placeholders(msgid)
                text = Text(.message(msgid), (0..<count).map { .string("VALUE-\($0 + 1)") })
            }
            let folder = ArchiverError(.corrupt, text, hint: text).forFolder
            for said in [folder.message.english, folder.hint?.english ?? ""] {
                #expect(!said.contains("nothing was extracted"), "\(msgid)")
                #expect(said.contains("no folder was opened") || said.contains("was not opened"), "\(msgid) → \(said)")
                for value in 0..<Self.placeholders(msgid) where plural == nil {
                    #expect(said.contains("VALUE-\(value + 1)"), "\(msgid) → \(said)")
                }
            }
            checked += 1
        }
        #expect(checked >= 10)
    }

    /// Reworded inside sentences joined into one (a multi-part set's "the set ends at …" after it).
    @Test func joinedSentencesAreRewordedOneByOne() {
        let joined = Text.sentences([tr("“%@” is password-protected; nothing was extracted.", "a.zip"), tr("Put all parts in one folder; nothing was extracted.")])
        let folder = ArchiverError(.password, joined).forFolder
        #expect(folder.message.english == "“a.zip” is password-protected; no folder was opened. Put all parts in one folder; no folder was opened.")
    }

    private static func unquoted(_ quoted: Substring) -> String {
        String(quoted.dropFirst().dropLast()).replacingOccurrences(of: "\\\"", with: "\"")
    }

    private static func placeholders(_ msgid: String) -> Int {
        var count = 0
        for n in 1...9 where msgid.contains("%\(n)$") { count = n }
        return count > 0 ? count : msgid.components(separatedBy: "%@").count - 1
    }

    private static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }
}
