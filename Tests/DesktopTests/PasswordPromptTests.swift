import ArchiverCore
import ArchiverTestSupport
import Foundation
import Testing

@testable import Desktop

/// Stand-in helper programs, shell scripts of builtins only (so a `PATH` holding just their folder works),
/// record each call's argv and answer as told. No terminal and no display are needed.
@Suite struct PasswordPromptTests {
    private let prompt = "Password for “Photos.zip”"

    /// A folder of stand-ins; every call of any of them is numbered and recorded.
    private final class StandIns {
        let scratch: ScratchDirectory
        /// The folder to put on `PATH`.
        let bin: String

        init(_ label: String = #function) throws {
            scratch = try ScratchDirectory(label)
            bin = scratch.sub("bin")
            try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        }

        /// Writes the program `name`; `answer` is shell code run after recording, with `$n` the call's number.
        @discardableResult
        func program(_ name: String, answer: String) throws -> String {
            let path = "\(bin)/\(name)"
            let record = scratch.path
            let script = """
                #!/bin/sh
                n=0
                [ -f '\(record)/count' ] && read n < '\(record)/count'
                n=$((n + 1))
                echo "$n" > '\(record)/count'
                printf '%s\\n' "${0##*/}" "$@" > '\(record)/call.'"$n"
                \(answer)

                """
            try Tool.installScript(script, at: path)
            return path
        }

        /// Each call's program name and arguments, in order.
        func calls() -> [[String]] {
            var calls: [[String]] = []
            while let text = try? String(contentsOfFile: scratch.sub("call.\(calls.count + 1)"), encoding: .utf8) {
                let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
                calls.append(lines.map(String.init))
            }
            return calls
        }
    }

    /// Shell code that prints `text` exactly.
    private static func prints(_ text: String) -> String {
        "printf '\(text.replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\r", with: "\\r"))'"
    }

    private func ask(
        confirm: Bool = false, retry: Bool = false, prompt: String? = nil, _ environment: [String: String]
    ) -> PasswordPrompt.Answer {
        PasswordPrompt.ask(
            prompt: .verbatim(prompt ?? self.prompt), confirm: confirm, retry: retry, environment: environment, stdinIsTerminal: false)
    }

    private func password(_ answer: PasswordPrompt.Answer) -> [UInt8]? {
        guard case .password(let secret) = answer else { return nil }
        return secret.withBytes { Array($0) }
    }

    private func isCancelled(_ answer: PasswordPrompt.Answer) -> Bool {
        if case .cancelled = answer { return true }
        return false
    }

    // MARK: askpass programs

    @Test func askpassGetsThePromptAndGivesThePassword() throws {
        let standIns = try StandIns()
        let askpass = try standIns.program("askpass", answer: Self.prints("pässwörd ✓\n"))
        let answer = ask(["PATH": standIns.bin, "ARCHIVER_ASKPASS": askpass])
        #expect(password(answer) == Array("pässwörd ✓".utf8))
        #expect(standIns.calls() == [["askpass", prompt]])
    }

    @Test(arguments: [
        (" two words \n", " two words "), ("no newline", "no newline"), ("first\n\nsecond\n", "first"),
        ("crlf\r\n", "crlf"), ("\n", ""), ("", ""),
    ])
    func onlyTheLineEndingIsStripped(output: String, expected: String) throws {
        let standIns = try StandIns()
        let askpass = try standIns.program("askpass", answer: Self.prints(output))
        #expect(password(ask(["ARCHIVER_ASKPASS": askpass])) == Array(expected.utf8))
    }

    @Test func aFailingExitIsACancelWhateverItPrinted() throws {
        let standIns = try StandIns()
        let askpass = try standIns.program("askpass", answer: Self.prints("typed\n") + "; exit 1")
        #expect(isCancelled(ask(["ARCHIVER_ASKPASS": askpass])))
    }

    @Test func aRetrySaysThePasswordWasWrong() throws {
        let standIns = try StandIns()
        let askpass = try standIns.program("askpass", answer: Self.prints("again\n"))
        #expect(password(ask(retry: true, ["ARCHIVER_ASKPASS": askpass])) == Array("again".utf8))
        #expect(standIns.calls() == [["askpass", "Wrong password. \(prompt)"]])
    }

    @Test func sshAskpassWhenOursIsUnset() throws {
        let standIns = try StandIns()
        let ours = try standIns.program("ours", answer: Self.prints("ours\n"))
        let ssh = try standIns.program("ssh-askpass", answer: Self.prints("from ssh\n"))
        #expect(password(ask(["SSH_ASKPASS": ssh, "ARCHIVER_ASKPASS": ""])) == Array("from ssh".utf8))
        #expect(password(ask(["SSH_ASKPASS": ssh, "ARCHIVER_ASKPASS": ours])) == Array("ours".utf8))
        #expect(standIns.calls().map(\.[0]) == ["ssh-askpass", "ours"])
    }

    @Test func theHelperRunsWithTheGivenEnvironment() throws {
        let standIns = try StandIns()
        try standIns.program("askpass", answer: #"printf '%s\n' "$MARK""#)
        let answer = ask(["PATH": standIns.bin, "ARCHIVER_ASKPASS": "askpass", "MARK": "from the environment"])
        #expect(password(answer) == Array("from the environment".utf8), "found on the given PATH, run with its env")
    }

    @Test func aMissingAskpassProgramIsUnavailable() throws {
        let standIns = try StandIns()
        let answer = ask(["PATH": standIns.bin, "ARCHIVER_ASKPASS": standIns.scratch.sub("nowhere")])
        guard case .unavailable(let error) = answer else {
            Issue.record("expected .unavailable, got \(answer)")
            return
        }
        #expect(error.code == .password)
        #expect(error.message.english.contains("nowhere"))
    }

    // MARK: confirmation

    @Test func confirmAsksTwiceAndGivesTheAgreedPassword() throws {
        let standIns = try StandIns()
        let askpass = try standIns.program("askpass", answer: Self.prints("same one\n"))
        #expect(password(ask(confirm: true, ["ARCHIVER_ASKPASS": askpass])) == Array("same one".utf8))
        #expect(standIns.calls() == [["askpass", prompt], ["askpass", "\(prompt) (again)"]])
    }

    @Test func aMismatchAsksAgainSayingSo() throws {
        let standIns = try StandIns()
        let answer = """
            case $n in 1) \(Self.prints("first\n")) ;; *) \(Self.prints("second\n")) ;; esac
            """
        let askpass = try standIns.program("askpass", answer: answer)
        #expect(password(ask(confirm: true, ["ARCHIVER_ASKPASS": askpass])) == Array("second".utf8))
        #expect(
            standIns.calls().map(\.[1]) == [
                prompt, "\(prompt) (again)", "The passwords did not match. \(prompt)", "\(prompt) (again)",
            ])
    }

    @Test func threeMismatchesCancel() throws {
        let standIns = try StandIns()
        let askpass = try standIns.program("askpass", answer: #"printf 'answer %s\n' "$n""#)
        #expect(isCancelled(ask(confirm: true, ["ARCHIVER_ASKPASS": askpass])))
        #expect(standIns.calls().count == 6)
    }

    @Test func aCancelAtTheSecondQuestionCancels() throws {
        let standIns = try StandIns()
        let askpass = try standIns.program("askpass", answer: #"[ "$n" = 1 ] && echo typed || exit 1"#)
        #expect(isCancelled(ask(confirm: true, ["ARCHIVER_ASKPASS": askpass])))
        #expect(standIns.calls().count == 2)
    }

    // MARK: desktop dialogs

    @Test(arguments: [
        ("ubuntu:GNOME", ["zenity", "--password", "--title=Password for “Photos.zip”", "--no-markup"]),
        ("KDE", ["kdialog", "--title", "Archiver", "--password", "<qt>Password for “Photos.zip”</qt>"]),
    ])
    func theDesktopsOwnDialog(desktop: String, argv: [String]) throws {
        let standIns = try StandIns()
        for name in ["zenity", "kdialog"] {
            try standIns.program(name, answer: #"printf 'from %s\n' "${0##*/}""#)
        }
        let answer = ask(["PATH": standIns.bin, "XDG_CURRENT_DESKTOP": desktop])
        #expect(password(answer) == Array("from \(argv[0])".utf8))
        #expect(standIns.calls() == [argv])
    }

    /// A name is not markup: zenity shows its title as plain text (and gets `--no-markup` for its text),
    /// kdialog gets the text escaped and marked as rich text, an askpass program the words as they are.
    @Test(arguments: [
        ("GNOME", ["zenity", "--password", "--title=Password for “Tom & Jerry <1>.zip”", "--no-markup"]),
        ("KDE", ["kdialog", "--title", "Archiver", "--password", "<qt>Password for “Tom &amp; Jerry &lt;1&gt;.zip”</qt>"]),
    ])
    func aNameWithMarkupCharactersShowsExactly(desktop: String, argv: [String]) throws {
        let standIns = try StandIns()
        for name in ["zenity", "kdialog"] {
            try standIns.program(name, answer: Self.prints("secret\n"))
        }
        let answer = ask(prompt: "Password for “Tom & Jerry <1>.zip”", ["PATH": standIns.bin, "XDG_CURRENT_DESKTOP": desktop])
        #expect(password(answer) == Array("secret".utf8))
        #expect(standIns.calls() == [argv])
    }

    @Test func askpassGetsTheNameAsItIs() throws {
        let standIns = try StandIns()
        let askpass = try standIns.program("askpass", answer: Self.prints("x\n"))
        _ = ask(prompt: "Password for “Tom & Jerry <1>.zip”", ["ARCHIVER_ASKPASS": askpass])
        #expect(standIns.calls() == [["askpass", "Password for “Tom & Jerry <1>.zip”"]])
    }

    @Test func kdialogElsewhereWhenZenityIsMissing() throws {
        let standIns = try StandIns()
        try standIns.program("kdialog", answer: "exit 1")
        #expect(isCancelled(ask(["PATH": standIns.bin])))
        #expect(standIns.calls().map(\.[0]) == ["kdialog"])
    }

    @Test func noTerminalAndNoHelperIsUnavailable() throws {
        let standIns = try StandIns()
        let answer = ask(["PATH": standIns.bin, "XDG_CURRENT_DESKTOP": "KDE"])
        guard case .unavailable(let error) = answer else {
            Issue.record("expected .unavailable, got \(answer)")
            return
        }
        #expect(error.code == .password)
        #expect(error.code.exitStatus == 6)
        #expect(error.message.english == "No way to ask for the password: no terminal and no password dialog.")
        #expect(error.hint?.english.contains("ARCHIVER_ASKPASS") == true && error.hint?.english.contains("--password-stdin") == true)
    }
}

/// "Compress in parts…": the dialogs' argv, built for whichever program is installed.
@Suite struct PartSizeChooserTests {
    @Test func zenityHasATitleNoMarkupAndEscapedText() throws {
        let command = try #require(
            PartSizeChooser.commands(title: "Compress “Tom & Jerry <1>” in parts", currentDesktop: "GNOME") { _ in true })
        for argv in [command.list, command.entry] {
            #expect(argv[0] == "zenity")
            #expect(argv.contains("--title=Compress “Tom & Jerry <1>” in parts"), "a window title is plain text: \(argv)")
            #expect(argv.contains("--no-markup"), "\(argv)")
        }
        #expect(command.list.contains("--text=Split the archive into parts of"))
        #expect(command.list.contains("15M") && command.list.contains("Mail attachments (fits a 20–25 MB limit)"))
        #expect(command.entry.contains("--text=Part size (700k, 100M, 4G):"))
    }

    @Test func kdialogOnKDEWithItsTextsEscaped() throws {
        let command = try #require(
            PartSizeChooser.commands(title: "Compress “Tom & Jerry <1>” in parts", currentDesktop: "KDE") { _ in true })
        #expect(Array(command.list.prefix(5)) == ["kdialog", "--title", "Compress “Tom & Jerry <1>” in parts", "--menu", "<qt>Split the archive into parts of</qt>"])
        #expect(command.entry == ["kdialog", "--title", "Compress “Tom & Jerry <1>” in parts", "--inputbox", "<qt>Part size (700k, 100M, 4G):</qt>", "100M"])
        #expect(PartSizeChooser.commands(title: "t", currentDesktop: "KDE") { $0 == "zenity" }?.list.first == "zenity")
        #expect(PartSizeChooser.commands(title: "t", currentDesktop: nil) { _ in false } == nil)
    }

    @Test func markupIsEscapedForEveryReader() {
        #expect(Markup.escaped("Tom & Jerry <1>.zip") == "Tom &amp; Jerry &lt;1&gt;.zip")
        #expect(Markup.kdialog("a < b") == "<qt>a &lt; b</qt>")
    }
}
