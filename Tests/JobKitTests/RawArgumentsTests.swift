import ArchiverCore
import ArgumentParser
import Testing

@testable import JobKit

@Suite struct RawArgumentsTests {
    @Test func nonUTF8NamesGetTheirBytesBack() {
        let latin1: [UInt8] = [0x63, 0x61, 0x66, 0xE9, 0x2E, 0x74, 0x78, 0x74]  // "café.txt" in Latin-1
        var raw = RawArguments([Array("--format".utf8), Array("zip".utf8), latin1, Array("plain.txt".utf8)])
        let parsed = String(decoding: latin1, as: UTF8.self)
        #expect(parsed.contains("\u{FFFD}"), "Swift's own decoding loses the byte")
        #expect(raw.bytes(for: parsed) == latin1)
        #expect(raw.bytes(for: "plain.txt") == Array("plain.txt".utf8))
    }

    @Test func twoArgumentsThatDecodeAlikeKeepTheirOrder() {
        let first: [UInt8] = [0x61, 0xE9]
        let second: [UInt8] = [0x61, 0xE8]
        var raw = RawArguments([first, second])
        let text = String(decoding: first, as: UTF8.self)
        #expect(raw.bytes(for: text) == first)
        #expect(raw.bytes(for: text) == second)
    }

    @Test func optionWithEquals() {
        let name: [UInt8] = [0x6F, 0xFF]
        var raw = RawArguments([Array("--output=".utf8) + name])
        #expect(raw.bytes(for: String(decoding: name, as: UTF8.self)) == name)
    }

    @Test func shortOptionWithItsValueAttached() {
        let name: [UInt8] = [0x64, 0xE9]
        var raw = RawArguments([Array("-t".utf8) + name, Array("a.zip".utf8)])
        #expect(raw.bytes(for: String(decoding: name, as: UTF8.self)) == name)
        #expect(raw.bytes(for: "a.zip") == Array("a.zip".utf8))
    }
}
