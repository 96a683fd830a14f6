import ArchiverCore
import JobProtocol
import CGtk
import Desktop

/// Home's Statistics: archives made, space saved by compression, PDFs and photos made smaller and the
/// space that saved, all time (the row's value) and the last 30 days (its subtitle), from the store every
/// executable records its jobs in (Desktop's StatisticsStore).
@MainActor
final class StatisticsPanel {
    let root: UnsafeMutablePointer<GtkWidget>
    private let store = StatisticsStore()
    private var rows: [(row: UnsafeMutablePointer<GtkWidget>, value: UnsafeMutablePointer<GtkWidget>)] = []

    init() {
        root = adw_preferences_group_new()!
        adw_preferences_group_set_title(cast(root), tr("Statistics").localized)
        for _ in 0..<4 {
            let row = adw_action_row_new()!
            let value = gtk_label_new("")!
            gtk_widget_add_css_class(value, "title-4")
            gtk_widget_add_css_class(value, "numeric")
            adw_action_row_add_suffix(cast(row), value)
            adw_preferences_group_add(cast(root), row)
            rows.append((row, value))
        }
        reload()
    }

    /// Reads the store again (a job may have ended since).
    func reload() {
        let all = store.totals()
        let recent = store.totals(lastDays: 30)
        adw_preferences_group_set_description(
            cast(root), all.isEmpty ? tr("Nothing counted yet: jobs add up here as they end.").localized : nil)
        let lines: [(title: Text, value: Text, subtitle: Text)] = [
            (tr("Archives made"), tr("%ld", Int(all.archivesMade)),
             ntr("%ld in the last 30 days", "%ld in the last 30 days", Int(recent.archivesMade), Int(recent.archivesMade))),
            (tr("Space saved by compression"), tr("%@", Unbroken.bytes(all.archiveBytesSaved)),
             tr("%@ in the last 30 days", Unbroken.bytes(recent.archiveBytesSaved))),
            (tr("PDFs made smaller"), tr("%ld", Int(all.pdfsMadeSmaller)),
             tr("%1$@ saved; %2$ld in the last 30 days, %3$@ saved", Unbroken.bytes(all.pdfBytesSaved),
                Int(recent.pdfsMadeSmaller), Unbroken.bytes(recent.pdfBytesSaved))),
            (tr("Photos made smaller"), tr("%ld", Int(all.photosMadeSmaller)),
             tr("%1$@ saved; %2$ld in the last 30 days, %3$@ saved", Unbroken.bytes(all.photoBytesSaved),
                Int(recent.photosMadeSmaller), Unbroken.bytes(recent.photoBytesSaved))),
        ]
        for (line, parts) in zip(lines, rows) {
            adw_preferences_row_set_title(cast(parts.row), line.title.localized)
            adw_action_row_set_subtitle(cast(parts.row), line.subtitle.localized)
            gtk_label_set_text(cast(parts.value), line.value.localized)
            // Read out as one: "Archives made: 12, 3 in the last 30 days".
            accessibleLabel(parts.value, tr("%1$@: %2$@", line.title, line.value).localized)
        }
    }
}
