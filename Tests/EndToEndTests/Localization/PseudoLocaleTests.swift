import ArchiverTestSupport
import Foundation
import Testing

/// Coverage: under a pseudo-locale made from the template (every string wrapped in ⟦ … ⟧), every word a
/// person reads, on the terminal and in notifications, must come from the catalog. An English word outside
/// the markers is a string that does not go through gettext, or is missing from po/archiver.pot.
@Suite(.serialized) struct PseudoLocaleTests {
    /// The words swift-argument-parser prints itself, which we cannot translate (see README, Translating).
    /// ("values:" introduces the list the library adds to an option whose type enumerates its values.)
    static let libraryWords: Set<String> = ["USAGE", "OPTIONS", "ARGUMENTS", "OVERVIEW", "Show", "help", "information", "the", "version", "values"]

    /// The letters a person reads outside ⟦ … ⟧ (which may span lines), once command-line syntax
    /// (`--flag`, `<value>`, `-h`), our executables' names, paths and the library's own words are set aside.
    static func unmarkedWords(_ text: String, allowing extra: Set<String> = []) -> [String] {
        var depth = 0
        var outside = ""
        for character in text {
            switch character {
            case "⟦": depth += 1
            case "⟧": depth = max(depth - 1, 0)
            default: outside.append(depth == 0 ? character : " ")
            }
        }
        let tokens = outside.split(whereSeparator: { $0.isWhitespace || $0 == "," || $0 == "|" || $0 == "[" || $0 == "]" || $0 == "(" || $0 == ")" })
        return tokens.map(String.init).filter { token in
            guard token.contains(where: \.isLetter) else { return false }
            if token.hasPrefix("-") || token.hasPrefix("<") || token.hasPrefix("/") || token.contains("/") { return false }
            let word = token.trimmingCharacters(in: .punctuationCharacters)
            return !(libraryWords.contains(word) || LocalizedRuns.tools.contains(word) || extra.contains(word))
        }
    }

    @Test func everyWordOfEveryJobComesFromTheCatalog() throws {
        let s = try ScratchDirectory()
        try LocalizedRuns.makeInputs(in: s)
        let runs = try LocalizedRuns.jobs(in: s, language: .pseudo)
        // A long job's progress names the file in progress (under load, the photos run that long).
        let fileNames = Set((FileManager.default.subpaths(atPath: s.path) ?? []).map { ($0 as NSString).lastPathComponent })
        var shown = 0
        for (output, notifications) in runs {
            // --help shows option value names and defaults that are ours but not words (`<px>`, `zip`).
            let isHelp = output.label.hasSuffix("--help")
            let allowed: Set<String> = isHelp ? ["zip", "7z", "tar", "tar.gz", "tar.bz2", "tar.xz", "tar.zst", "gz", "bz2", "xz", "zst", "jpeg", "webp", "avif", "heic", "best", "high", "medium", "low", "very-low", "minimum", "store", "fast", "normal", "maximum"] : []
            for (stream, text) in [("stdout", output.stdout), ("stderr", output.stderr)] {
                let loose = Self.unmarkedWords(text, allowing: allowed)
                #expect(loose.isEmpty, "\(output.label) \(stream) has words outside the catalog: \(loose)\n\(text)")
            }
            #expect(!(output.stdout + output.stderr).isEmpty || isHelp, "\(output.label) said nothing")
            for notification in notifications {
                shown += 1
                for (part, text) in [("summary", notification.summary), ("body", notification.body)] {
                    #expect(Self.unmarkedWords(text, allowing: fileNames).isEmpty, "\(output.label) notification \(part): \(text)")
                }
                // actions alternate id, label: every label from the catalog.
                let labels = notification.actions.enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
                for label in labels { #expect(label.contains("⟦"), "\(output.label) action label \(label)") }
                #expect(notification.hints.contains("desktop-entry"), "\(output.label): the desktop-entry hint")
            }
        }
        #expect(shown >= runs.count - LocalizedRuns.tools.count, "every job showed a notification: \(shown)")
        let statuses = Dictionary(uniqueKeysWithValues: runs.map { ($0.output.label, $0.output.status) })
        #expect(statuses["compress"] == 0 && statuses["extract"] == 0, "\(statuses)")
        #expect(statuses["refused entry"] == 1 && statuses["wrong password"] == 6, "\(statuses)")
        #expect(statuses["corrupt"] == 5 && statuses["missing"] == 3, "\(statuses)")
        #expect(statuses["photos"] == 0 && statuses["pdf"].map { $0 <= 1 } == true, "\(statuses)")
    }

    /// The placeholders still substitute through the pseudo-catalog, and JSON does not change at all.
    @Test func jsonIsTheSameInEveryLanguage() throws {
        func json(_ language: LocalizedRuns.Language, _ tool: String, _ arguments: [String]) throws -> String {
            // A folder of its own for each run, so each makes the same names; its path is set aside.
            let s = try ScratchDirectory()
            try LocalizedRuns.makeInputs(in: s)
            let output = try LocalizedRuns.run("json", tool, ["--json"] + arguments, language: language, in: s).output
            // Only the measured duration differs from run to run.
            return output.stdout.replacingOccurrences(of: s.path, with: "ROOT")
                .replacingOccurrences(of: #""durationSeconds":[0-9.e-]+"#, with: "", options: .regularExpression)
        }
        for (tool, arguments) in [
            ("extract-with-archiver", ["evil.tar"]), ("extract-with-archiver", ["broken.zip"]),
            ("extract-with-archiver", ["--list", "evil.tar"]), ("compress-with-archiver", ["--format", "zip", "Fotos"]),
        ] {
            let english = try json(.unset, tool, arguments)
            #expect(english.contains("{"), "\(english)")
            #expect(try json(.pseudo, tool, arguments) == english, "\(arguments)")
            #expect(try json(.german, tool, arguments) == english, "\(arguments)")
            // The refused entry's reason and the error keep their stable codes.
            if arguments == ["evil.tar"] { #expect(english.contains(#""reasonCode":"parent-reference""#), "\(english)") }
            if arguments.contains("broken.zip") { #expect(english.contains(#""kind":"corrupt""#), "\(english)") }
        }
    }
}
