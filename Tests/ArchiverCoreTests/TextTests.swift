import Testing

@testable import ArchiverCore

/// `Text` without a catalog: the English rendering that `--json` and an untranslated desktop get, and the
/// placeholder rules a translation relies on.
@Suite struct TextTests {
    @Test func valuesGoInOrderOrByPosition() {
        #expect(Placeholders.substitute("%@ of %@", ["3", "10"]) == "3 of 10")
        #expect(Placeholders.substitute("%2$@ Dateien in „%1$@“", ["Fotos.zip", "3"]) == "3 Dateien in „Fotos.zip“")
        #expect(Placeholders.substitute("%ld%% done, %1$ld again", ["42"]) == "42% done, 42 again")
        #expect(Placeholders.substitute("%d and %ld and %lld", ["1", "2", "3"]) == "1 and 2 and 3")
    }

    /// A translation with a typo or a missing value must never crash or print garbage from memory.
    @Test func brokenFormatsDegradeToText() {
        #expect(Placeholders.substitute("%3$@ and %@", ["a"]) == " and ")
        #expect(Placeholders.substitute("100 % sure", []) == "100 % sure")
        #expect(Placeholders.substitute("trailing %", ["x"]) == "trailing %")
        #expect(Placeholders.substitute("%x is not ours", ["1"]) == "%x is not ours")
        #expect(Placeholders.substitute("„ü“ %@ ✓", ["ß"]) == "„ü“ ß ✓")
    }

    @Test func englishRendersTheTemplateWithEnglishValues() {
        let size = tr("%1$@ needs %2$@", "x.zip", .bytes(1_500_000))
        #expect(size.english == "x.zip needs 1.5 MB")
        #expect(size.msgid == "%1$@ needs %2$@")
        let nested = tr("Stopped: %@", tr("Cancelled; nothing was left behind."))
        #expect(nested.english == "Stopped: Cancelled; nothing was left behind.")
        #expect(tr("about %@", .spoken(3725)).english == "about 1 h 2 min")
    }

    @Test func pluralsChooseTheFormByCount() {
        #expect(ntr("%ld file", "%ld files", 1).english == "1 file")
        #expect(ntr("%ld file", "%ld files", 0).english == "0 files")
        #expect(ntr("%1$ld photo in “%2$@”", "%1$ld photos in “%2$@”", 48, "Album").english == "48 photos in “Album”")
    }

    @Test func joinedTextsKeepPercentSignsOfTheirOwn() {
        let joined = Text.sentences([.verbatim("50% off"), tr("%ld left", 3)], separator: " – ")
        #expect(joined.english == "50% off – 3 left")
        #expect(Text.verbatim("100% %@").english == "100% %@", "verbatim text is never a format")
    }

    @Test func errorsKeepEnglishForScriptsAndWordsForPeople() {
        let error = ArchiverError(.corrupt, tr("“%@” is damaged.", "a.zip"), hint: tr("Download it again."))
        #expect(error.message.english == "“a.zip” is damaged.")
        #expect(error.code.name == "corrupt")
        #expect(EntryPath.Refusal.parentReference.code == "parent-reference")
        #expect(EntryPath.Refusal.specialFile(.namedPipe).text.english == "it is a named pipe, which is never extracted")
    }

    /// `--json`'s `kind` and the exit status of every code, as scripts read them (DESIGN.md's table).
    @Test func errorCodesKeepTheirNamesAndExitStatuses() {
        let codes: [(ArchiverError.Code, String, Int32)] = [
            (.usage, "usage", 2), (.inputUnreadable, "inputUnreadable", 3), (.notAnArchive, "notAnArchive", 4),
            (.corrupt, "corrupt", 5), (.password, "password", 6), (.destination, "destination", 7),
            (.cancelled, "cancelled", 8), (.budget, "budget", 9),
        ]
        for (code, name, status) in codes {
            #expect(code.name == name && code.description == name)
            #expect(code.exitStatus == status && ArchiverError.Code(exitStatus: status) == code)
        }
        #expect(ArchiverError.Code(exitStatus: 0) == nil && ArchiverError.Code(exitStatus: 1) == nil)
    }
}
