@testable import ArchiveEngine
import ArchiverCore
import Testing

/// The code-page guess with glibc's real iconv tables: each sample set is encoded in its code page and
/// must be recognised as that one, over every other candidate.
@Suite struct NameDecoderTests {
    static let samples: [(String, [String])] = [
        ("CP437", ["Größe.txt"]), ("CP437", ["Ärger.doc"]), ("CP437", ["año.xls", "Résumé.txt"]),
        ("CP1252", ["Müller.pdf"]), ("CP1252", ["Émile Zola.txt", "façade.doc"]),
        ("CP932", ["ファイル.txt"]), ("CP932", ["資料.doc"]), ("CP932", ["新しいフォルダー/メモ.txt"]), ("CP932", ["会議資料2024.pdf"]),
        ("GBK", ["新建文件夹/说明.txt"]), ("GBK", ["文件/报告.txt", "中文名称.doc"]),
        ("CP866", ["Привет.txt"]), ("CP866", ["Документы/План.doc"]),
    ]

    /// `text` in `encoding`, through iconv the other way.
    static func encode(_ text: String, _ encoding: String) -> [UInt8] {
        NameDecoder.convert(Array(text.utf8), from: "UTF-8", to: encoding) ?? []
    }

    @Test(arguments: samples.indices)
    func guessesTheCodePageAndDecodesBack(_ index: Int) throws {
        let (encoding, names) = Self.samples[index]
        let raw = names.map { Self.encode($0, encoding) }
        #expect(raw.allSatisfy(NameEncoding.needsDecoding), "\(names): not UTF-8 once encoded")
        let decoder = try #require(NameDecoder.guess(raw), "\(names)")
        #expect(decoder.encoding == encoding, "\(names)")
        #expect(raw.map { String(decoding: decoder($0), as: UTF8.self) } == names)
    }

    @Test func utf8AndASCIINeedNoGuessAndUnknownEncodingsAreRefused() {
        #expect(NameDecoder.guess([Array("plain.txt".utf8), Array("Résumé.txt".utf8)]) == nil)
        #expect(NameDecoder("NO-SUCH-CODEPAGE") == nil)
        let latin = NameDecoder("CP1252")!
        #expect(latin(Array("déjà.txt".utf8)) == Array("déjà.txt".utf8), "UTF-8 stays as it is")
    }
}
