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

@Suite struct CommandParsingTests {
    @Test func compressOptionsParse() throws {
        let command = try CompressCommand.parse(["--format", "tar.zst", "--level", "maximum", "--name", "Mail", "a", "b"])
        #expect(command.format == .tarZst)
        #expect(command.level == .maximum)
        #expect(command.files == ["a", "b"])
    }

    @Test func badValuesAreUsageErrors() {
        for arguments in [["--format", "rar", "a"], ["--level", "ultra", "a"], [], ["--output", "x", "--name", "y", "a"], ["--time-budget", "-1", "a"]] {
            #expect(throws: (any Error).self, "\(arguments)") { try CompressCommand.parse(arguments) }
        }
        #expect(throws: (any Error).self) { try ExtractCommand.parse([]) }
        #expect(throws: (any Error).self) { try ExtractCommand.parse(["--list", "--to", "d", "x.zip"]) }
    }

    /// Nemo's `Conditions=exec` for "Compress" (menu-entries.in's Flat=not-archives): any file names, no
    /// other option needed, and not in the help a person reads.
    @Test func menuConditionIsAHiddenFlag() throws {
        let command = try CompressCommand.parse(["--menu-condition", "--", "-a.zip", "b c"])
        #expect(command.menuCondition && command.files == ["-a.zip", "b c"])
        #expect(!CompressCommand.helpMessage(columns: 1000).contains("menu-condition"))
    }

    @Test func helpListsTheExitCodes() {
        let help = CompressCommand.helpMessage(columns: 1000)
        #expect(help.contains("9 time budget exceeded"))
        #expect(ExtractCommand.helpMessage().contains("--keep-junk"))
    }
}

@Suite struct JSONTests {
    @Test func rendersEscapedCompactJSON() {
        let value = JSON.object([
            ("name", .string("a \"quoted\" \\ path\n\u{1}")), ("n", .int(3)), ("ok", .bool(true)), ("none", .null),
            ("list", .array([.double(1.5), .string("日本語")])),
        ])
        #expect(value.rendered == #"{"name":"a \"quoted\" \\ path\n\u0001","n":3,"ok":true,"none":null,"list":[1.5,"日本語"]}"#)
    }
}
