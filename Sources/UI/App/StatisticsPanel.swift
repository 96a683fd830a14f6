import ArchiverCore
import CGtk

/// Home's Statistics: archives made, space saved by compression, PDFs and photos made smaller and the
/// space that saved, all time and the last 30 days.
@MainActor
final class StatisticsPanel {
    let root: UnsafeMutablePointer<GtkWidget>

    init() {
        root = adw_preferences_group_new()!
        adw_preferences_group_set_title(cast(root), tr("Statistics").localized)
        reload()
    }

    func reload() {}
}
