import Glibc
import ArchiverCore
import SystemPackage
import Testing

@Suite struct SettingsTests {
    @Test func storedValuesReplaceDefaults() {
        var settings = ArchiverSettings()
        do { let applied = settings.apply(.defaultFormat, .string("tar.zst")); #expect(applied) }
        do { let applied = settings.apply(.compressionLevel, .string("maximum")); #expect(applied) }
        do { let applied = settings.apply(.timeBudget, .number(60)); #expect(applied) }
        do { let applied = settings.apply(.skipJunk, .bool(false)); #expect(applied) }
        do { let applied = settings.apply(.mountIdleTimeout, .number(30)); #expect(applied) }
        #expect(settings.mountIdleTimeout == 30)
        #expect(settings.defaultFormat == .tarZst)
        #expect(settings.compressionLevel == .maximum)
        #expect(settings.timeBudget == 60)
        #expect(!settings.skipJunk)
    }

    @Test func unusableValuesKeepDefaults() {
        var settings = ArchiverSettings()
        // A nick from a newer schema, a single-stream format, a wrong type, a negative budget.
        do { let applied = settings.apply(.defaultFormat, .string("tar.br")); #expect(!applied) }
        do { let applied = settings.apply(.defaultFormat, .string("gz")); #expect(!applied) }
        do { let applied = settings.apply(.notifications, .string("yes")); #expect(!applied) }
        do { let applied = settings.apply(.timeBudget, .number(-1)); #expect(!applied) }
        do { let applied = settings.apply(.mountIdleTimeout, .number(-5)); #expect(!applied) }
        #expect(settings == ArchiverSettings())
    }

    @Test func theWindowStartsFromItsLastChoiceElseTheDefaults() {
        var settings = ArchiverSettings()
        settings.defaultFormat = .tarXz
        settings.compressionLevel = .fast
        #expect(settings.windowFormat == .tarXz && settings.windowLevel == .fast, "nothing chosen in the window yet")
        do { let applied = settings.apply(.lastFormat, .string("7z")); #expect(applied) }
        do { let applied = settings.apply(.lastLevel, .string("maximum")); #expect(applied) }
        #expect(settings.windowFormat == .sevenZip && settings.windowLevel == .maximum)
        #expect(settings.defaultFormat == .tarXz && settings.compressionLevel == .fast, "one-click defaults untouched")
        // The same enums as the defaults: no single-file format, no unknown nick.
        do { let applied = settings.apply(.lastFormat, .string("xz")); #expect(!applied) }
        do { let applied = settings.apply(.lastLevel, .string("ultra")); #expect(!applied) }
        #expect(settings.lastFormat == .sevenZip && settings.lastLevel == .maximum)
        #expect(ArchiverSettings.isRemembered(.lastFormat) && ArchiverSettings.isRemembered(.lastLevel))
        #expect(!ArchiverSettings.isRemembered(.defaultFormat))
    }

    @Test func flagBeatsSettingAndZeroMeansNoLimit() {
        var settings = ArchiverSettings()
        #expect(settings.budget(flag: nil) == 1800)
        #expect(settings.budget(flag: 5) == 5)
        #expect(settings.budget(flag: 0) == nil)
        settings.timeBudget = 0
        #expect(settings.budget(flag: nil) == nil)
        #expect(settings.budget(flag: 7) == 7)
    }

    @Test func extractLocationSetting() {
        let places = ExtractDestination(home: "/home/u", environment: [:])
        #expect(places.extractLocation(setting: "", userDirs: nil) == "/home/u/Downloads")
        #expect(places.extractLocation(setting: "/srv/in", userDirs: nil) == "/srv/in")
        #expect(places.extractLocation(setting: "~/Mail files", userDirs: nil) == "/home/u/Mail files")
        #expect(places.extractLocation(setting: "relative", userDirs: "XDG_DOWNLOAD_DIR=\"$HOME/DL\"") == "/home/u/DL")
    }
}

@Suite struct BudgetEstimateTests {
    @Test func jobsThatMayFitAreNotRefused() {
        // 100 MB of zip at normal is about 4 s.
        #expect(BudgetEstimate.checkCompress(bytes: 100_000_000, format: .zip, level: .normal, budget: 5) == nil)
        #expect(BudgetEstimate.checkCompress(bytes: 100_000_000, format: .zip, level: .normal, budget: 2) == nil)
        #expect(BudgetEstimate.checkCompress(bytes: 1 << 40, format: .sevenZip, level: .maximum, budget: nil) == nil)
        #expect(BudgetEstimate.checkExtract(archiveBytes: 10_000_000, budget: 1) == nil)
    }

    @Test func farOverBudgetIsRefusedWithWhatWouldFit() throws {
        // 10 GB of 7z: about 72 min at LZMA2 5; the budget is 10 min.
        let refusal = try #require(BudgetEstimate.checkCompress(bytes: 10_000_000_000, format: .sevenZip, level: .normal, budget: 600))
        #expect(refusal.code == .budget)
        #expect(refusal.message.english.contains("Not started"))
        #expect(refusal.message.english.contains("10 min"))
        let hint = try #require(refusal.hint?.english)
        #expect(hint.contains("--format tar.zst --level fast"), "\(hint)")
        #expect(hint.contains("--time-budget"))
    }

    @Test func sameFormatFasterLevelComesFirst() throws {
        // 1 GB of tar.xz at maximum: about 7 min; at fast about 1 min 15 s.
        let refusal = try #require(BudgetEstimate.checkCompress(bytes: 1_000_000_000, format: .tarXz, level: .maximum, budget: 120))
        #expect(refusal.hint?.english.hasPrefix("--level fast would take about") == true, "\(refusal.hint?.english ?? "")")
    }

    @Test func extractionFarOverBudget() throws {
        let refusal = try #require(BudgetEstimate.checkExtract(archiveBytes: 50_000_000_000, budget: 60))
        #expect(refusal.code == .budget)
    }

    @Test func spokenDurations() {
        #expect(HumanFormat.spokenText(0.2).english == "1 s")
        #expect(HumanFormat.spokenText(45).english == "45 s")
        #expect(HumanFormat.spokenText(1800).english == "30 min")
        #expect(HumanFormat.spokenText(7500).english == "2 h 5 min")
        #expect(HumanFormat.spokenText(7200).english == "2 h")
    }
}

@Suite struct BudgetPauseTests {
    @Test func timeSpentWaitingForAPersonIsNotCounted() throws {
        let control = JobControl(budget: 0.3)
        control.notCounting { usleep(500_000) }
        #expect(throws: Never.self) { try control.check() }
        usleep(400_000)
        #expect(throws: ArchiverError.self) { try control.check() }
    }
}
