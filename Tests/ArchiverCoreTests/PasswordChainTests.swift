import ArchiverCore
import Testing

struct PasswordChainTests {
    private func method(
        _ environment: [String: String] = [:], terminal: Bool = false, installed: Set<String> = []
    ) -> PasswordMethod? {
        PasswordChain.method(environment: environment, stdinIsTerminal: terminal, isInstalled: installed.contains)
    }

    private let everything: [String: String] = [
        "ARCHIVER_ASKPASS": "/opt/ours", "SSH_ASKPASS": "/usr/bin/ssh-askpass", "XDG_CURRENT_DESKTOP": "KDE",
    ]

    @Test func aTerminalOnStandardInputComesFirst() {
        #expect(method(everything, terminal: true, installed: ["kdialog", "zenity"]) == .terminal)
        #expect(method(terminal: true) == .terminal)
    }

    @Test func thenArchiversOwnAskpass() {
        #expect(method(everything, installed: ["kdialog", "zenity"]) == .askpass(program: "/opt/ours"))
    }

    @Test func thenSSHAskpassWhenOursIsUnsetOrEmpty() {
        var environment = everything
        environment["ARCHIVER_ASKPASS"] = ""
        #expect(method(environment, installed: ["kdialog", "zenity"]) == .askpass(program: "/usr/bin/ssh-askpass"))
        environment["ARCHIVER_ASKPASS"] = nil
        #expect(method(environment, installed: ["kdialog", "zenity"]) == .askpass(program: "/usr/bin/ssh-askpass"))
        environment["SSH_ASKPASS"] = ""
        #expect(method(environment, installed: ["kdialog", "zenity"]) == .kdialog, "an empty one is no program")
    }

    @Test func kdialogFirstOnKDE() {
        #expect(method(["XDG_CURRENT_DESKTOP": "KDE"], installed: ["kdialog", "zenity"]) == .kdialog)
        #expect(method(["XDG_CURRENT_DESKTOP": "foo:kde"], installed: ["kdialog", "zenity"]) == .kdialog)
        #expect(method(["XDG_CURRENT_DESKTOP": "KDE"], installed: ["zenity"]) == .zenity)
    }

    @Test func zenityFirstElsewhereThenKdialog() {
        #expect(method(["XDG_CURRENT_DESKTOP": "ubuntu:GNOME"], installed: ["kdialog", "zenity"]) == .zenity)
        #expect(method(installed: ["kdialog", "zenity"]) == .zenity)
        #expect(method(["XDG_CURRENT_DESKTOP": "KDEish"], installed: ["kdialog", "zenity"]) == .zenity)
        #expect(method(["XDG_CURRENT_DESKTOP": "GNOME"], installed: ["kdialog"]) == .kdialog)
    }

    @Test func noneWithoutATerminalOrAHelper() {
        #expect(method(["XDG_CURRENT_DESKTOP": "KDE"]) == nil)
        #expect(method() == nil)
    }
}
