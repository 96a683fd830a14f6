import ArchiverTestSupport
import Foundation
import Testing

/// German end to end: the same jobs under a de_DE.UTF-8 locale built by the test (localedef, LOCPATH),
/// checked against the German catalog compiled from po/de.po, and with LANG unset, against English.
@Suite(.serialized) struct GermanTests {
    /// The German for `msgid`, read from the compiled catalog by Python's gettext (an independent reader).
    static func german(_ msgid: String) throws -> String {
        let catalogs = try #require(TestLanguages.catalogs)
        let output = try E2E.python(
            "import gettext, sys\nt = gettext.GNUTranslations(open(sys.argv[1], 'rb'))\nsys.stdout.write(t.gettext(sys.argv[2]))",
            [catalogs + "/de/LC_MESSAGES/archiver.mo", msgid])
        return output.stdout
    }

    /// A size as de_DE writes it: a decimal comma (`1,5 MB`, `8,2 kB`; GLib's German catalog writes `KB`).
    static let germanSize = #"\d+,\d\s?(kB|KB|MB|GB)"#

    @Test func jobsSpeakGermanWithGermanNumbers() throws {
        let s = try ScratchDirectory()
        try LocalizedRuns.makeInputs(in: s)
        let runs = Dictionary(uniqueKeysWithValues: try LocalizedRuns.jobs(in: s, language: .german).map { ($0.output.label, $0) })
        let english = try ScratchDirectory()
        try LocalizedRuns.makeInputs(in: english)
        let englishRuns = Dictionary(uniqueKeysWithValues: try LocalizedRuns.jobs(in: english, language: .unset).map { ($0.output.label, $0) })

        for (label, run) in runs {
            let text = run.output.stdout + run.output.stderr
            #expect(!text.contains("⟦"), "\(label): no pseudo-locale leaks in")
            // No line a person reads is still the English one (help's option syntax aside).
            let englishLines = Set(((englishRuns[label]?.output.stdout ?? "") + (englishRuns[label]?.output.stderr ?? ""))
                .split(separator: "\n").map(String.init).filter { $0.contains(where: \.isLetter) && $0.count > 12 })
            // (A help line may hold nothing but the end of swift-argument-parser's "(values: best, high, …)".)
            let valueList = #"^\s*[a-z0-9.-]+(, [a-z0-9.-]+)*\)?$"#
            let same = text.split(separator: "\n").map(String.init).filter {
                englishLines.contains($0) && !$0.trimmingCharacters(in: .whitespaces).hasPrefix("-") && !$0.hasPrefix("USAGE")
                    && $0.range(of: valueList, options: .regularExpression) == nil
            }
            #expect(same.isEmpty, "\(label) still English: \(same)")
            #expect(run.output.status == englishRuns[label]?.output.status, "\(label): the same exit status in every language")
            for notification in run.notifications {
                let englishSummaries = Set(englishRuns[label]?.notifications.map(\.summary) ?? [])
                #expect(!englishSummaries.contains(notification.summary), "\(label) notification still English: \(notification.summary)")
            }
        }
        let compress = try #require(runs["compress"])
        #expect(compress.output.stdout.range(of: Self.germanSize, options: .regularExpression) != nil, "\(compress.output.stdout)")
        let result = try #require(compress.notifications.last)
        #expect(result.body.range(of: Self.germanSize, options: .regularExpression) != nil, "\(result.body)")
        let labels = result.actions.enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
        #expect(labels.contains(try Self.german("Open folder")), "\(labels)")

        let refused = try #require(runs["refused entry"])
        #expect(refused.output.stderr.contains(try Self.german("its path goes up with “..”")), "\(refused.output.stderr)")
        let wrong = try #require(runs["wrong password"])
        #expect(wrong.output.stderr.contains("Passwort"), "\(wrong.output.stderr)")
        #expect(try #require(runs["corrupt"]).output.stderr.contains("beschädigt"), "the damaged archive is called „beschädigt“")
        let photos = try #require(runs["photos"])
        #expect((photos.output.stdout + (photos.notifications.last?.body ?? "")).range(of: Self.germanSize, options: .regularExpression) != nil, "\(photos.output.stdout)")
        #expect(try #require(runs["compress-with-archiver --help"]).output.stdout.contains("Archiv"))
    }

    @Test func withoutLanguageEverythingStaysEnglish() throws {
        let s = try ScratchDirectory()
        try LocalizedRuns.makeInputs(in: s)
        let runs = Dictionary(uniqueKeysWithValues: try LocalizedRuns.jobs(in: s, language: .unset).map { ($0.output.label, $0) })
        let compress = try #require(runs["compress"])
        #expect(compress.output.stdout.hasPrefix("Created "), "\(compress.output.stdout)")
        #expect(compress.output.stdout.range(of: #"\d+\.\d kB"#, options: .regularExpression) != nil, "a decimal point: \(compress.output.stdout)")
        #expect(try #require(runs["refused entry"]).output.stderr.contains("Refused “../evil.txt”: its path goes up with “..”."))
        #expect(try #require(runs["wrong password"]).output.stderr.contains("Wrong password"))
        #expect(compress.notifications.last?.summary == "Compressed to Fotos.zip")
        for (label, run) in runs {
            #expect(!(run.output.stdout + run.output.stderr).contains("⟦"), "\(label)")
        }
    }
}
