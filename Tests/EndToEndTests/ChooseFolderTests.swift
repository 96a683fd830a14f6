import ArchiverTestSupport
import Foundation
import Testing

/// "Extract to…": `--choose-folder` runs the desktop's folder dialog. The dialogs need a display, so
/// stand-ins named zenity and kdialog record their arguments and answer as the real ones do (the folder on
/// stdout and exit 0, or exit 1 when cancelled).
@Suite struct ChooseFolderTests {
    /// A folder holding stand-in dialogs that print `answer` (or fail when nil) and record their argv.
    static func dialogs(_ s: ScratchDirectory, answer: String?) throws -> String {
        let bin = s.sub("bin")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        for name in ["zenity", "kdialog"] {
            let reply = answer.map { "printf '%s\\n' '\($0)'" } ?? "exit 1"
            let script = "#!/bin/sh\n{ echo \(name); for a in \"$@\"; do printf '%s\\n' \"$a\"; done; } > '\(s.sub("asked"))'\n\(reply)\n"
            try Tool.installScript(script, at: bin + "/" + name)
        }
        return bin
    }

    static func archive(_ s: ScratchDirectory) throws {
        try FileManager.default.createDirectory(atPath: s.sub("in/Docs"), withIntermediateDirectories: true)
        try Data("chosen".utf8).write(to: URL(fileURLWithPath: s.sub("in/Docs/a.txt")))
        #expect(try E2E.run("compress-with-archiver", [s.sub("in/Docs")]).status == 0)
    }

    /// Extracts through `--choose-folder` on `desktop`, the dialog answering with a new folder `picked`.
    static func extractPicking(on desktop: String) throws -> (scratch: ScratchDirectory, status: Int32, stderr: String, argv: [String]) {
        let s = try ScratchDirectory()
        try archive(s)
        try FileManager.default.createDirectory(atPath: s.sub("picked"), withIntermediateDirectories: true)
        let bin = try dialogs(s, answer: s.sub("picked"))
        let out = try E2E.run(
            "extract-with-archiver", ["--choose-folder", s.sub("in/Docs.zip")],
            environment: ["PATH": bin + ":/usr/bin:/bin", "XDG_CURRENT_DESKTOP": desktop])
        let argv = ((try? String(contentsOfFile: s.sub("asked"), encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        return (s, out.status, out.stderr, argv)
    }

    @Test func zenityOutsideKDEAndTheChosenFolderGetsTheFiles() throws {
        let (s, status, stderr, argv) = try Self.extractPicking(on: "ubuntu:GNOME")
        #expect(status == 0, "\(stderr)")
        #expect(argv.first == "zenity")
        #expect(argv.contains("--directory") && argv.contains("--file-selection"), "\(argv)")
        #expect(argv.contains("--title=Extract “Docs.zip” to") && argv.contains("--no-markup"), "\(argv)")
        #expect(argv.contains("--filename=\(s.sub("in"))/"), "starts beside the archive: \(argv)")
        #expect(try String(contentsOfFile: s.sub("picked/Docs/a.txt"), encoding: .utf8) == "chosen")
        #expect(s.list("in") == ["Docs", "Docs.zip"], "nothing beside the archive")
    }

    @Test func kdialogOnKDE() throws {
        let (s, status, stderr, argv) = try Self.extractPicking(on: "KDE")
        #expect(status == 0, "\(stderr)")
        #expect(argv.first == "kdialog" && argv.contains("--getexistingdirectory"), "\(argv)")
        #expect(argv.last == s.sub("in"), "starts beside the archive: \(argv)")
        #expect(s.list("picked") == ["Docs"])
    }

    @Test func cancellingTheDialogCancelsTheJob() throws {
        let s = try ScratchDirectory()
        try Self.archive(s)
        let bin = try Self.dialogs(s, answer: nil)
        let before = s.list("in")
        let out = try E2E.run("extract-with-archiver", ["--choose-folder", s.sub("in/Docs.zip")], environment: ["PATH": bin])
        #expect(out.status == 8, "\(out.stderr)")
        #expect(out.stderr.contains("Cancelled"))
        #expect(s.list("in") == before)
    }

    @Test func withoutADialogProgramItSaysWhatToInstall() throws {
        let s = try ScratchDirectory()
        try Self.archive(s)
        let empty = s.sub("empty-bin")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let out = try E2E.run("extract-with-archiver", ["--choose-folder", s.sub("in/Docs.zip")], environment: ["PATH": empty])
        #expect(out.status == 2)
        #expect(out.stderr.contains("Install zenity") && out.stderr.contains("--to"), "\(out.stderr)")
        #expect(s.list("in") == ["Docs", "Docs.zip"])
    }
}
