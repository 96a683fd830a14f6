import ArchiverCore
import ArchiverTestSupport
import Foundation
import JobProtocol
import SystemPackage
import Testing

@Suite struct JSONTests {
    @Test func rendersEscapedCompactJSON() {
        let value = JSON.object([
            ("name", .string("a \"quoted\" \\ path\n\u{1}")), ("n", .int(3)), ("ok", .bool(true)), ("none", .null),
            ("list", .array([.double(1.5), .string("日本語")])),
        ])
        #expect(value.rendered == #"{"name":"a \"quoted\" \\ path\n\u0001","n":3,"ok":true,"none":null,"list":[1.5,"日本語"]}"#)
    }

    @Test func parsesWhatItRenders() {
        let value = JSON.object([
            ("name", .string("a \"quoted\" \\ path\n\u{1}")), ("n", .int(-3)), ("ok", .bool(true)), ("none", .null),
            ("list", .array([.double(1.5), .string("日本語 😀")])), ("big", .int(9_007_199_254_740_993)),
        ])
        let parsed = JSON.parse(value.rendered)
        #expect(parsed == value)
        #expect(parsed?["big"]?.int == 9_007_199_254_740_993, "integers stay exact, not doubles")
        #expect(parsed?["n"]?.int == -3 && parsed?["list"]?.array.first?.double == 1.5)
        #expect(JSON.parse(#"{"a":1,}"#) == nil && JSON.parse("[1 2]") == nil && JSON.parse(#"{"a":1} x"#) == nil)
        #expect(JSON.parse(#""\ud83d\ude00""#)?.string == "😀", "a surrogate pair is one scalar")
    }

    /// A Latin-1 name (`café` as one byte é) goes through JSON byte for byte: the stray byte as `\udce9`,
    /// which Python's json with `os.fsencode` reads back as the same bytes.
    @Test func aPathThatIsNotUTF8KeepsItsBytes() throws {
        let latin1: [UInt8] = Array("/tmp/caf".utf8) + [0xE9] + Array(" – ok/\u{1}x.jpg".utf8)
        let path = FilePath(platformString: latin1.map { CChar(bitPattern: $0) } + [0])
        let value = JSON.object([("path", .path(path)), ("plain", .path(FilePath("/tmp/café.jpg")))])
        #expect(value.rendered == #"{"path":"/tmp/caf\udce9 – ok/\u0001x.jpg","plain":"/tmp/café.jpg"}"#)
        let parsed = try #require(JSON.parse(value.rendered))
        #expect(parsed["path"]?.path == path)
        #expect(parsed["plain"] == .string("/tmp/café.jpg"), "UTF-8 names stay plain strings")
        #expect(parsed["path"]?.string == "/tmp/caf\u{FFFD} – ok/\u{1}x.jpg", "shown with a replacement character")
        // Bytes that merely look like UTF-8 lead bytes, overlong forms and encoded surrogates are strays too.
        for stray: [UInt8] in [[0xC3], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80]] {
            let odd = FilePath(platformString: (Array("a".utf8) + stray).map { CChar(bitPattern: $0) } + [0])
            #expect(JSON.parse(JSON.path(odd).rendered)?.path == odd, "\(stray)")
        }
        let python = try Tool.run([
            "/usr/bin/python3", "-c", "import json,os,sys; print(os.fsencode(json.loads(sys.argv[1])['path']).hex())", value.rendered,
        ])
        #expect(python.output.trimmingCharacters(in: .whitespacesAndNewlines) == latin1.map { String(format: "%02x", $0) }.joined())
    }
}

/// The library's own words travel beside the sentence, never in it (issue 33).
@Suite struct ErrorDetailTests {
    @Test func aDetailIsWrittenOnlyWhenThereIsOneAndReadBack() {
        let plain = ErrorReport(code: 3, kind: "inputUnreadable", message: "Missing.", hint: nil)
        #expect(plain.json.rendered == #"{"code":3,"kind":"inputUnreadable","message":"Missing.","hint":null}"#)
        let damaged = ErrorReport(code: 5, kind: "corrupt", message: "“cut.zip” is damaged or incomplete.", hint: nil, detail: "Truncated input file")
        #expect(damaged.json.rendered.hasSuffix(#""hint":null,"detail":"Truncated input file"}"#))
        #expect(ErrorReport(JSON.parse(damaged.json.rendered)) == damaged)
    }

    @Test func aResultGathersTheDetailsOfItsErrors() {
        let error = ErrorReport(code: 5, kind: "corrupt", message: "x", hint: nil, detail: "ZIP bad CRC")
        let other = ErrorReport(code: 5, kind: "corrupt", message: "y", hint: nil, detail: "Truncated ZIP file header")
        let result = JobResult(
            operation: "extract", exitCode: 5, durationSeconds: 0,
            fields: [
                ("results", .array([.object([("error", error.json)]), .object([("error", error.json)]), .object([("error", other.json)])])),
                ("error", .null),
            ], warnings: [])
        #expect(result.errorDetails == ["ZIP bad CRC", "Truncated ZIP file header"])
    }

    /// A damaged entry of `--test`: our reason (English) and its code for scripts, the reader's words apart;
    /// read back (the window), the code gives the reason again, in the window's language.
    @Test func aDamagedEntryKeepsItsReasonCodeAndTheReadersWords() throws {
        var archive = TestOutcome.Archive(archive: "/tmp/x.zip")
        archive.damaged = [TestOutcome.Damaged(path: "a.txt", detail: "ZIP bad CRC: 0x1 should be 0x2")]
        let result = JobResult(operation: "test", exitCode: 5, durationSeconds: 0, fields: TestOutcome(results: [archive]).fields, warnings: [])
        let rendered = result.json.rendered
        #expect(rendered.contains(#"{"path":"a.txt","reason":"a checksum does not match","reasonCode":"checksum","detail":"ZIP bad CRC: 0x1 should be 0x2"}"#), "\(rendered)")
        let parsed = try #require(JSON.parse(rendered))
        let read = try #require(JobResult(parsed)?.outcome(TestOutcome.self)?.results.first?.damaged.first)
        #expect(read == archive.damaged[0])
    }
}
