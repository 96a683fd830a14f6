import ArchiverCore
import ArchiverTestSupport
import Foundation
import SystemPackage
import Testing

import Desktop

/// The store's API as the app uses it: totals over all time and the last 30 days, and clearing.
@Suite struct StatisticsStoreTests {
    let today = CalendarDay(year: 2026, month: 11, day: 24)

    @Test func totalsOverAllTimeAndTheLastThirtyDaysAndClear() throws {
        let scratch = try ScratchDirectory()
        let store = StatisticsStore(folder: FilePath(scratch.sub("data/io.github.archiver")))
        #expect(store.totals(today: today).isEmpty)
        let events = [0, 29, 30].map { StatisticsEvent(.archiveMade, bytesBefore: 1000, bytesAfter: 100, day: today.adding(days: -$0)) }
            + [StatisticsEvent(.pdfCompressed, bytesBefore: 5000, bytesAfter: 2000, day: today)]
        #expect(store.record(events, today: today).isEmpty)
        #expect(store.record([StatisticsEvent(.photoCompressed, bytesBefore: 300, bytesAfter: 100, day: today)], today: today).isEmpty)

        let allTime = store.totals(today: today)
        #expect(allTime.archivesMade == 3 && allTime.archiveBytesSaved == 2700)
        #expect(allTime.pdfsMadeSmaller == 1 && allTime.pdfBytesSaved == 3000)
        #expect(allTime.photosMadeSmaller == 1 && allTime.photoBytesSaved == 200 && allTime.bytesSaved == 5900)
        let month = store.totals(lastDays: 30, today: today)
        #expect(month.archivesMade == 2 && month.archiveBytesSaved == 1800 && month.bytesSaved == 5000)
        // GLib reads the same figures.
        #expect(try StatisticsFile.allTime(dataHome: scratch.sub("data"))["archives-made-bytes-saved"] == 2700)

        try store.clear()
        #expect(store.totals(today: today).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: store.file.string))
        try store.clear()
    }

    @Test func readingADamagedStoreGivesNothingAndLeavesItForTheNextWriter() throws {
        let scratch = try ScratchDirectory()
        let store = StatisticsStore(folder: FilePath(scratch.path))
        try Data("[all-time]\narchives-made=lots\n".utf8).write(to: URL(fileURLWithPath: store.file.string))
        #expect(store.totals().isEmpty)
        #expect(FileManager.default.fileExists(atPath: store.file.string))
        let warnings = store.record([StatisticsEvent(.archiveExtracted, bytesBefore: 10, bytesAfter: 30, day: today)], today: today)
        #expect(warnings.map(\.english).first?.contains("was damaged") == true, "\(warnings.map(\.english))")
        #expect(store.totals(today: today).archivesExtracted == 1)
        #expect(FileManager.default.fileExists(atPath: store.corruptFile.string))
    }

    @Test func aLaterVersionsStoreIsLeftAloneAndTheJobNotCounted() throws {
        let scratch = try ScratchDirectory()
        let store = StatisticsStore(folder: FilePath(scratch.path))
        let later = Data("[store]\nversion=2\n[all-time]\narchives-made=7\n".utf8)
        try later.write(to: URL(fileURLWithPath: store.file.string))
        let warnings = store.record([StatisticsEvent(.archiveMade, bytesBefore: 10, bytesAfter: 3, day: today)], today: today)
        #expect(warnings.map(\.english) == ["This job is not counted in Archiver's statistics: version 2 is newer than 1."])
        #expect(FileManager.default.contents(atPath: store.file.string) == later)
        #expect(!FileManager.default.fileExists(atPath: store.corruptFile.string))
    }

    /// Undo of "Clear History and Statistics": the figures come back whole, unless a job counted since.
    @Test func clearingCanBeUndoneUntilAJobCounts() throws {
        let scratch = try ScratchDirectory()
        let store = StatisticsStore(folder: FilePath(scratch.path))
        #expect(store.record([StatisticsEvent(.archiveMade, bytesBefore: 1000, bytesAfter: 100, day: today)], today: today).isEmpty)
        let before = try #require(FileManager.default.contents(atPath: store.file.string))

        let snapshot = try store.clear()
        #expect(store.totals(today: today).isEmpty)
        #expect(store.restore(snapshot))
        #expect(FileManager.default.contents(atPath: store.file.string) == before)
        #expect(store.totals(today: today).archiveBytesSaved == 900)

        let again = try store.clear()
        #expect(store.record([StatisticsEvent(.pdfCompressed, bytesBefore: 50, bytesAfter: 20, day: today)], today: today).isEmpty)
        #expect(!store.restore(again))
        let kept = store.totals(today: today)
        #expect(kept.archivesMade == 0 && kept.pdfBytesSaved == 30)
        // Nothing to put back: an empty store cleared stays empty.
        let empty = StatisticsStore(folder: FilePath(scratch.sub("none")))
        #expect(empty.restore(try empty.clear()))
        #expect(!FileManager.default.fileExists(atPath: empty.file.string))
    }
}
