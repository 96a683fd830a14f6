import ArchiverCore
import Testing

@Suite struct StatisticsLedgerTests {
    let today = CalendarDay(year: 2026, month: 3, day: 1)

    func event(_ kind: StatisticsEvent.Kind, _ before: Int64, _ after: Int64, daysAgo: Int = 0) -> StatisticsEvent {
        StatisticsEvent(kind, bytesBefore: before, bytesAfter: after, day: today.adding(days: -daysAgo))
    }

    @Test func calendarDaysCountAcrossMonthsLeapYearsAndTheEpoch() {
        #expect(CalendarDay(year: 1970, month: 1, day: 1).ordinal == 0)
        #expect(CalendarDay(year: 2000, month: 3, day: 1).ordinal - CalendarDay(year: 2000, month: 2, day: 28).ordinal == 2)
        #expect(CalendarDay(year: 2026, month: 3, day: 1).ordinal - CalendarDay(year: 2026, month: 2, day: 28).ordinal == 1)
        #expect(CalendarDay(year: 1969, month: 12, day: 31).ordinal == -1)
        #expect(CalendarDay(year: 2026, month: 11, day: 24).ordinal == 20_781)  // date -d 2026-11-24 +%s ÷ 86400
        #expect(today.adding(days: -1).description == "2026-02-28")
        #expect(CalendarDay(year: 2024, month: 3, day: 1).adding(days: -1).description == "2024-02-29")
        #expect(CalendarDay(year: 999, month: 1, day: 2).description == "0999-01-02")
        for ordinal in stride(from: -800_000, to: 800_000, by: 997) {
            let day = CalendarDay(ordinal: ordinal)
            #expect(CalendarDay(year: day.civil.year, month: day.civil.month, day: day.civil.day) == day)
        }
    }

    @Test func dayNamesParseOnlyRealDates() {
        #expect(CalendarDay("2026-11-24") == CalendarDay(year: 2026, month: 11, day: 24))
        #expect(CalendarDay("2024-02-29") != nil)
        for bad in ["2026-02-29", "2026-13-01", "2026-00-10", "2026-1-01", "26-01-01", "2026-01-01x", "all-time", "", "２０２６-01-01"] {
            #expect(CalendarDay(bad) == nil, "\(bad)")
        }
    }

    @Test func eventsAddUpPerKindAndOnlySmallerOutputsSave() {
        var ledger = StatisticsLedger()
        ledger.add([event(.archiveMade, 1000, 400), event(.archiveMade, 100, 150)], today: today)
        ledger.add([event(.pdfCompressed, 5000, 1000), event(.photoCompressed, 300, 300), event(.archiveExtracted, 400, 1000)], today: today)
        let all = ledger.allTime
        #expect(all.archivesMade == 2 && all.archivesExtracted == 1)
        #expect(all[.archiveMade].smaller == 1 && all[.archiveMade].bytesBefore == 1100 && all[.archiveMade].bytesAfter == 550)
        // The archive that grew saves nothing rather than taking 50 bytes off.
        #expect(all.archiveBytesSaved == 600)
        #expect(all.pdfsMadeSmaller == 1 && all.pdfBytesSaved == 4000)
        #expect(all.photosMadeSmaller == 0 && all.photoBytesSaved == 0 && all[.photoCompressed].count == 1)
        #expect(all.bytesSaved == 4600)
        #expect(ledger.days.count == 1 && ledger.days[today] == all)
    }

    @Test func theWindowCountsTodayAndTheDaysBeforeIt() {
        var ledger = StatisticsLedger()
        ledger.add([0, 1, 29, 30].map { event(.archiveMade, 10, 5, daysAgo: $0) }, today: today)
        #expect(ledger.totals(lastDays: 30, today: today).archivesMade == 3)
        #expect(ledger.totals(lastDays: 1, today: today).archivesMade == 1)
        #expect(ledger.totals(lastDays: 2, today: today).archivesMade == 2)
        #expect(ledger.totals(lastDays: nil, today: today).archivesMade == 4)
        // A day later, the day 29 days back falls out too.
        #expect(ledger.totals(lastDays: 30, today: today.adding(days: 1)).archivesMade == 2)
    }

    @Test func daysOlderThanTheWindowArePrunedButAllTimeKeepsThem() {
        var ledger = StatisticsLedger()
        ledger.add([event(.archiveMade, 10, 5, daysAgo: 400), event(.archiveMade, 10, 5, daysAgo: 31), event(.archiveMade, 10, 5, daysAgo: 30)], today: today)
        #expect(ledger.days.keys.sorted() == [today.adding(days: -30)])
        #expect(ledger.allTime.archivesMade == 3)
        // A clock set back: a later day stays until it is old.
        ledger.add([event(.archiveMade, 10, 5, daysAgo: -2)], today: today)
        #expect(Set(ledger.days.keys) == [today.adding(days: -30), today.adding(days: 2)])
        // Kept for a clock moved back across midnight, but outside today's 30 days, as the later day is.
        #expect(ledger.totals(lastDays: 30, today: today).archivesMade == 0)
        #expect(ledger.totals(lastDays: 30, today: today.adding(days: 2)).archivesMade == 1)
        ledger.prune(today: today.adding(days: 40))
        #expect(ledger.days.isEmpty && ledger.allTime.archivesMade == 4)
    }

    @Test func theKeyFileShapeRoundTrips() throws {
        var ledger = StatisticsLedger()
        ledger.add([event(.archiveMade, 1000, 400), event(.photoCompressed, 80, 20, daysAgo: 3)], today: today)
        let groups = ledger.groups
        #expect(groups.map(\.name) == ["store", "all-time", "2026-02-26", "2026-03-01"])
        #expect(groups[1].values.map(\.key) == [
            "archives-made", "archives-made-smaller", "archives-made-bytes-before", "archives-made-bytes-after",
            "archives-made-bytes-saved", "photos-compressed", "photos-compressed-smaller", "photos-compressed-bytes-before",
            "photos-compressed-bytes-after", "photos-compressed-bytes-saved",
        ])
        let dictionary = Dictionary(uniqueKeysWithValues: groups.map { ($0.name, Dictionary(uniqueKeysWithValues: $0.values.map { ($0.key, $0.value) })) })
        #expect(try StatisticsLedger(groups: dictionary) == ledger)
    }

    @Test func malformedContentIsRefusedAndLaterAdditionsIgnored() throws {
        #expect(throws: StatisticsLedger.Malformed.self) { try StatisticsLedger(groups: ["all-time": ["archives-made": -1]]) }
        #expect(throws: StatisticsLedger.Malformed.self) { try StatisticsLedger(groups: ["last week": [:]]) }
        #expect(throws: StatisticsLedger.Malformed.self) { try StatisticsLedger(groups: ["store": ["version": 2]]) }
        let later = try StatisticsLedger(groups: ["store": ["version": 1, "colour": 3], "all-time": ["archives-made": 2, "videos-made": 9]])
        #expect(later.allTime.archivesMade == 2 && later.days.isEmpty)
    }

    @Test func hugeStoredFiguresSaturateInsteadOfCrashing() throws {
        var ledger = try StatisticsLedger(groups: ["all-time": ["archives-made": .max, "archives-made-bytes-saved": .max - 1]])
        ledger.add([event(.archiveMade, 1000, 10)], today: today)
        #expect(ledger.allTime.archivesMade == .max && ledger.allTime.archiveBytesSaved == .max)
        #expect(ledger.allTime.bytesSaved == .max)
    }
}
