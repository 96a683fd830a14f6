import ArchiverCore
import CGtk
import Dispatch
import Glibc
import Platform
import SystemPackage

/// The Compress… window's "Leave out" section: a switch per kind of thing found in the selected folders
/// (version control, node_modules and caches, OS junk, what git ignores), each with what it would leave
/// out, and the total that the switches leave out. Hidden while there is nothing to leave out. The
/// folders are scanned off the main thread (partial figures as the walk goes); a switch rescans for the
/// total, and closing the window stops the scan.
@MainActor
final class LeaveOutSection {
    /// One switch: the rules it turns on, and the flag pair it passes to compress-with-archiver.
    private struct Switch {
        let rules: [LeaveOutRule]
        let flag: String
        let row: UnsafeMutablePointer<GtkWidget>
        let toggle: UnsafeMutablePointer<GtkWidget>
    }

    let group: UnsafeMutablePointer<GtkWidget>
    private var switches: [Switch] = []
    private let folders: [FilePath]
    /// What each rule would leave out on its own. Every scan counts every offered rule, so this is the
    /// same whatever the switches: taken until one scan has finished.
    private var available: [LeaveOutRule: LeaveOutFigures] = [:]
    private var counted = false
    private var control: JobControl?
    /// Which scan the reports arriving belong to: a switch starts a new one.
    private var generation = 0
    /// After a switch changes, and when the first figures arrive (the window re-checks what it will write).
    var onChange: () -> Void = {}

    /// The rules counted: every one the window offers.
    private nonisolated static let offered: Set<LeaveOutRule> = [.vcs, .nodeModules, .caches, .editor, .junk, .gitignore]

    /// The section for the folders among the selected items; nothing is scanned when there is none.
    init(folders: [FilePath], settings: ArchiverSettings) {
        self.folders = folders
        group = adw_preferences_group_new()!
        adw_preferences_group_set_title(cast(group), tr("Leave out").localized)
        let defaults = LeaveOutChoice.make(settings: settings).rules
        let kinds: [([LeaveOutRule], String, Text)] = [
            ([.nodeModules, .caches, .editor], "exclude-caches", tr("Leave out node__modules, _build and cache folders")),
            ([.vcs], "exclude-vcs", tr("Leave out _version control (.git)")),
            ([.junk], "exclude-junk", tr("Leave out OS _junk (Thumbs.db, desktop.ini, …)")),
            ([.gitignore], "gitignore", tr("Follow ._gitignore")),
        ]
        for (rules, flag, title) in kinds {
            let (row, toggle) = Widgets.switchRow(title: title.localized, on: defaults.contains(rules[0]))
            gtk_widget_set_visible(row, 0)
            adw_preferences_group_add(cast(group), row)
            switches.append(Switch(rules: rules, flag: flag, row: row, toggle: toggle))
            onNotify(toggle, "active") { [unowned self] in
                scan()
                onChange()
            }
        }
        gtk_widget_set_visible(group, 0)
        if !folders.isEmpty { scan() }
    }

    /// The rules the switches choose.
    var choice: LeaveOutChoice {
        var rules: Set<LeaveOutRule> = [.archiverignore]
        for item in switches where gtk_switch_get_active(cast(item.toggle)) != 0 { rules.formUnion(item.rules) }
        return LeaveOutChoice(rules: rules)
    }

    /// compress-with-archiver's flags for the switches: each said either way, so the settings' defaults
    /// (read again by the tool) cannot differ from what the window showed. None without folders.
    var arguments: [String] {
        guard !folders.isEmpty else { return [] }
        return switches.map { gtk_switch_get_active(cast($0.toggle)) != 0 ? "--\($0.flag)" : "--no-\($0.flag)" }
    }

    /// Stops the scan (the window is closing).
    func cancel() {
        control?.cancel()
        control = nil
    }

    /// Scans the folders for the switches' choice, all offered rules counted; reports reach `show`.
    private func scan() {
        guard !folders.isEmpty else { return }
        control?.cancel()
        let control = JobControl()
        self.control = control
        generation += 1
        let generation = generation
        if generation == 1, Timings.enabled { Timings.record("leave-out-started", String(Timings.nowMilliseconds())) }
        let folders = folders
        let choice = choice
        DispatchQueue.global().async {
            // Partial reports at most ten times a second: the window redraws, the walk goes on.
            var last = ContinuousClock.now - .seconds(1)
            let result = try? LeaveOutScan.run(folders, choice: choice, considering: Self.offered, control: control) { report in
                let now = ContinuousClock.now
                guard report.finished || now - last >= .milliseconds(100) else { return }
                last = now
                DispatchQueue.main.async { MainActor.assumeIsolated { self.show(report, generation: generation) } }
            }
            _ = result
        }
    }

    private func show(_ report: LeaveOutReport, generation: Int) {
        guard generation == self.generation else { return }
        let first = !counted && report.finished
        if !counted { available = report.available }
        counted = counted || report.finished
        var anyShown = false
        for item in switches {
            let found = item.rules.compactMap { rule in available[rule].map { (rule, $0) } }.filter { $0.1.items > 0 }
            gtk_widget_set_visible(item.row, found.isEmpty ? 0 : 1)
            anyShown = anyShown || !found.isEmpty
            let parts = found.map { rule, figures in
                // TRANSLATORS: what one leave-out rule would leave out: its size and how many files and folders.
                let counted = ntr("%2$@, %1$ld item", "%2$@, %1$ld items", Int(figures.items), .bytes(figures.bytes))
                // TRANSLATORS: %1$@ names what was found (node_modules, caches, editor leftovers), %2$@ its figures.
                return found.count > 1 ? tr("%1$@: %2$@", Self.name(rule), counted) : counted
            }
            adw_action_row_set_subtitle(cast(item.row), markupEscaped(parts.map(\.localized).joined(separator: " · ")))
        }
        gtk_widget_set_visible(group, anyShown ? 1 : 0)
        adw_preferences_group_set_description(cast(group), markupEscaped(Self.total(report).localized))
        // bench/leave-out-scan.sh: the first figures and the whole count, when a person can see them.
        if anyShown { Timings.afterNextFrame(of: group, "leave-out-first") }
        if first {
            Timings.afterNextFrame(of: group, "leave-out-counted") { [group] in
                if Timings.exitsAfterThumbnails, let root = gtk_widget_get_root(group) { gtk_window_destroy(cast(root)) }
            }
            onChange()
        }
    }

    /// The part of the caches switch a rule is.
    private static func name(_ rule: LeaveOutRule) -> Text {
        switch rule {
        case .nodeModules: .verbatim("node_modules")
        case .editor: tr("editor leftovers")
        default: tr("build and cache folders")
        }
    }

    /// The saving, up front: what the switches leave out and what remains to compress.
    static func total(_ report: LeaveOutReport) -> Text {
        let left = report.totalLeftOut
        guard report.finished else {
            // TRANSLATORS: while the folders are still being counted.
            return ntr("Counting… %1$ld item left out so far (%2$@)", "Counting… %1$ld items left out so far (%2$@)", Int(left.items), .bytes(left.bytes))
        }
        guard left.items > 0 else {
            // TRANSLATORS: %@ is the size of what goes into the archive.
            return tr("Nothing is left out; %@ to compress.", .bytes(report.kept.bytes))
        }
        // TRANSLATORS: %1$ld items (%2$@ in size) are not put into the archive; %3$@ is the size of what is.
        return ntr("Leaves out %1$ld item (%2$@); %3$@ to compress.", "Leaves out %1$ld items (%2$@); %3$@ to compress.",
                   Int(left.items), .bytes(left.bytes), .bytes(report.kept.bytes))
    }
}
