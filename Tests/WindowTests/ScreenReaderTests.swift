import ArchiverTestSupport
import Foundation
import Testing

/// The windows as a screen-reader user meets them (issue 33): keyboard only, every focus stop said over
/// AT-SPI with a name (once, without a mnemonic's underscore), a role and its state; in English, German and
/// the pseudo-locale. Serialized like the other window suites.
@Suite(.serialized, .disabled(if: WindowSession.missing != nil, Comment(rawValue: WindowSession.missing ?? "")))
struct ScreenReaderTests {
    enum Language: String, CaseIterable, CustomTestStringConvertible {
        case english, german, pseudo
        var testDescription: String { rawValue }

        func environment() throws -> [String: String] {
            switch self {
            case .english: [:]
            case .german: try TestLanguages.german()
            case .pseudo: try TestLanguages.pseudo()
            }
        }

        /// The accessible name of a mnemonic label in this language ("_Password" → "Passwort").
        func name(_ english: String, _ german: String) -> String {
            switch self {
            case .english: english
            case .german: german
            case .pseudo: "⟦" + english + "⟧"
            }
        }
    }

    /// What a focus stop may be: something a person can use.
    private static let controls: Set = [
        "push button", "toggle button", "check box", "radio button", "text", "password text", "entry", "combo box",
        "spin button", "list item", "menu item", "switch", "slider", "link", "page tab", "tree item", "table cell",
        "table row", "row", "menu button", "scroll pane", "table", "tree table", "list",
    ]

    /// Tabs through the window once round and checks every stop; returns them.
    @discardableResult
    private func walk(_ session: WindowSession, _ what: String, atLeast minimum: Int) throws -> [WindowSession.Spoken] {
        let stops = try session.tabWalk()
        #expect(stops.count >= minimum, "\(what): \(stops.count) focus stops: \(stops)")
        for stop in stops {
            #expect(WindowSession.nameProblem(stop.name) == nil, "\(what): \(stop): \(WindowSession.nameProblem(stop.name) ?? "")")
            #expect(Self.controls.contains(stop.role), "\(what): \(stop) has no control's role")
            #expect(stop.states.contains("sensitive"), "\(what): \(stop) takes the focus greyed out")
            if ["check box", "switch", "toggle button"].contains(stop.role) {
                #expect(stop.states.contains("checkable") || stop.states.contains("checked") || stop.states.contains("pressed"),
                        "\(what): \(stop) says no checked state")
            }
        }
        return stops
    }

    private func executable(_ name: String, with others: [String]) throws -> String {
        try #require(BuiltProducts.folder(holding: [name] + others).map { $0 + "/" + name }, "build \(name) first")
    }

    /// `Keys.zip` (AES, password "pw"): `report/a.txt`, `report/b.txt`, `readme.md`.
    private func encryptedZip(_ scratch: ScratchDirectory) throws -> String {
        let input = scratch.sub("input")
        try FileManager.default.createDirectory(atPath: input + "/report", withIntermediateDirectories: true)
        for name in ["report/a.txt", "report/b.txt", "readme.md"] { try "text\n".write(toFile: input + "/" + name, atomically: true, encoding: .utf8) }
        let compress = try executable("compress-with-archiver", with: [])
        let made = try Tool.run(["/bin/sh", "-c", "cd '\(input)' && printf 'pw\\n' | '\(compress)' --no-notify --output '\(scratch.sub("Keys.zip"))' --encrypt --password-stdin report readme.md"])
        #expect(made.status == 0, "\(made.output)")
        try FileManager.default.removeItem(atPath: input)
        return scratch.sub("Keys.zip")
    }

    private func files(under folder: String) -> [String] {
        (FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] ?? []).filter {
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: folder + "/" + $0, isDirectory: &isDirectory) && !isDirectory.boolValue
                && !$0.hasSuffix(".zip")
        }
    }

    /// Extract…, keyboard only: one Tab leaves the tree (whose rows say their name and checked state) for the
    /// password field; a wrong password is said with the field and goes when the person types; Enter then
    /// extracts (it did nothing once the window had come back from the job).
    @Test(arguments: Language.allCases)
    func extractByKeyboardAfterAWrongPassword(_ language: Language) throws {
        let scratch = try ScratchDirectory()
        let zip = try encryptedZip(scratch)
        let session = try WindowSession()
        defer { session.stop() }
        try session.launch([try executable("archiver-extract", with: ["extract-with-archiver"]), zip], environment: try language.environment())
        try session.waitForApp("archiver-extract")
        try session.waitForText("readme.md")

        // The tree has the focus ("Contents"); its rows are named after their entries and say their state.
        #expect(try eventually(within: 5) { try session.focused().name == language.name("Contents", "Inhalt") })
        var rows = try session.nodes().filter { $0.role == "table row" }
        #expect(rows.first?.name == language.name("Column headings", "Spaltenüberschriften"), "\(rows)")
        rows = Array(rows.dropFirst())
        #expect(rows.map(\.name) == ["report", "a.txt", "b.txt", "readme.md"], "\(rows)")
        #expect(rows.allSatisfy { $0.states.contains("checked") }, "\(rows)")
        try session.press("space")
        #expect(try eventually(within: 5) { try session.nodes().first { $0.name == "report" && $0.role == "table row" }?.states.contains("checked") == false },
                "Space unchecks the first row")
        try session.press("space")

        try session.press("Tab")
        let field = try session.focused()
        #expect(field.name == language.name("Password", "Passwort"), "one Tab from the tree: \(field)")
        #expect(field.role == "password text", "\(field)")

        try session.typeKeys("wrong")
        try session.press("Return")
        #expect(try eventually(within: 30) { !(try session.focused().detail.isEmpty) }, "the wrong password is said with the field")
        let wrong = try session.focused()
        #expect(wrong.name == field.name, "the field keeps its name: \(wrong)")
        #expect(wrong.detail.contains("Keys.zip"), "the message is the field's description: \(wrong)")
        try session.screenshot("a11y/extract-wrong-password-\(language)")
        #expect(files(under: scratch.path).isEmpty)

        try session.press("ctrl+a")
        try session.typeKeys("pw")
        #expect(try eventually(within: 5) { try session.focused().detail.isEmpty }, "typing clears it")
        try session.press("Return")
        #expect(try eventually(within: 30) { files(under: scratch.path).count == 3 }, "Enter extracts: \(files(under: scratch.path))")
        try session.screenshot("a11y/extract-result-\(language)")
    }

    /// Compress…: Cancel during the job, Back, and Enter starts it again (GTK had dropped the hidden button as
    /// the window's default, so Enter did nothing). The page says "Cancelled" once, with a stop sign's words
    /// after it, not the child's "Cancelled; …" again. The job is held (`ARCHIVER_TEST_HANG`) so Cancel is in time.
    @Test(arguments: [Language.english, .german])
    func compressAgainWithEnterAfterCancelAndBack(_ language: Language) throws {
        let scratch = try ScratchDirectory()
        let folder = scratch.sub("Photos")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try String(repeating: "notes\n", count: 5000).write(toFile: folder + "/notes.txt", atomically: true, encoding: .utf8)
        let session = try WindowSession()
        defer { session.stop() }
        let environment = try language.environment().merging(["ARCHIVER_TEST_HANG": "1"]) { $1 }
        try session.launch([try executable("archiver-compress", with: ["compress-with-archiver"]), folder], environment: environment)
        try session.waitForApp("archiver-compress")
        let compressing = language.name("Compressing “Photos”", "„Photos“ wird komprimiert")
        let cancelled = language.name("Cancelled", "Abgebrochen")
        #expect(try eventually(within: 5) { try session.focused().name == language.name("Archive name", "Archivname") })

        for attempt in 1...2 {
            try session.press("Return")
            try session.waitForText(compressing, exact: true, timeout: 20)
            // The progress page's Cancel has the focus: Space presses it.
            #expect(try eventually(within: 5) { try session.focused().name == language.name("Cancel", "Abbrechen") })
            try session.press("space")
            try session.waitForText(cancelled, exact: true, timeout: 20)
            let said = try session.labels().filter { $0.hasPrefix(cancelled) }
            let labels = try session.labels()
            #expect(said == [cancelled], "said once (attempt \(attempt)): \(labels)")
            if attempt == 1 { try session.screenshot("a11y/compress-cancelled-\(language)") }
            try session.click(language.name("Back", "Zurück"), role: "push button")
            // The form again, the focus in the name field (GTK 4.8 keeps the job page's labels "visible").
            let back = try eventually(within: 5) { try session.focused().name == language.name("Archive name", "Archivname") }
            let focus = try session.focused()
            #expect(back, "the focus after Back: \(focus)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path) == ["Photos"])
    }
}
