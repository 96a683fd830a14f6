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
