import ArchiverCore
import Desktop

/// Counts a finished job's outputs in Archiver's statistics (the app's Home), even when the job stopped
/// part-way: what was made counts. Nothing is counted when the `remember-recent` setting is off, since the
/// statistics are part of the history that setting keeps. Problems with the store are warnings on stderr:
/// the job is done whatever happens here.
/// - Parameter sizes: per output, the bytes that went in and the bytes that came out.
package func recordStatistics(
    _ kind: StatisticsEvent.Kind, _ sizes: [(before: Int64, after: Int64)], settings: ArchiverSettings
) {
    guard settings.rememberRecent, !sizes.isEmpty else { return }
    let today = CalendarDay.today
    let events = sizes.map { StatisticsEvent(kind, bytesBefore: $0.before, bytesAfter: $0.after, day: today) }
    for warning in StatisticsStore().record(events, today: today) { printWarning(warning) }
}
