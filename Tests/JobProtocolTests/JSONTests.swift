import JobProtocol
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
}
