import ArchiverCore
import ArgumentParser
import Testing

@testable import ArchiverCLI

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

