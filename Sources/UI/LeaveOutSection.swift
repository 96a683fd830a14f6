import ArchiverCore
import CGtk
import Desktop
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
    /// One switch: the rules it turns on, the flag pair it passes to compress-with-archiver, and the setting
    /// that holds its default.
    private struct Switch {
        let rules: [LeaveOutRule]
        let flag: String
        let key: Setting<Bool>
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
    /// The format and level chosen, for the estimated size.
    var chosen: () -> (ArchiveFormat, CompressionLevel) = { (.zip, .normal) }
    /// The last report shown, and what deflate made of a sample of what is kept (the estimated size).
    private var report: LeaveOutReport?
    private var deflated: (sampled: Int64, deflated: Int64)?

    /// The rules counted: every one the window offers.
    private nonisolated static let offered: Set<LeaveOutRule> = [.vcs, .nodeModules, .caches, .editor, .junk, .gitignore]

    /// The section for the folders among the selected items; nothing is scanned when there is none.
    init(folders: [FilePath], settings: ArchiverSettings) {
        self.folders = folders
        group = adw_preferences_group_new()!
        adw_preferences_group_set_title(cast(group), tr("Leave out").localized)
        let defaults = LeaveOutChoice.make(settings: settings).rules
        let kinds: [([LeaveOutRule], String, Setting<Bool>, Text)] = [
            ([.nodeModules], "exclude-node-modules", .excludeNodeModules, tr("Leave out _node__modules")),
            ([.caches, .editor], "exclude-caches", .excludeCaches, tr("Leave out _build and cache folders")),
            ([.vcs], "exclude-vcs", .excludeVCS, tr("Leave out _version control (.git)")),
            ([.junk], "exclude-junk", .excludeJunk, tr("Leave out OS _junk (Thumbs.db, desktop.ini, …)")),
            ([.gitignore], "gitignore", .followGitignore, tr("Follow ._gitignore")),
        ]
        for (rules, flag, key, title) in kinds {
            let (row, toggle) = Widgets.switchRow(title: title.localized, on: defaults.contains(rules[0]))
            gtk_widget_set_visible(row, 0)
            adw_preferences_group_add(cast(group), row)
            switches.append(Switch(rules: rules, flag: flag, key: key, row: row, toggle: toggle))
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

    /// Writes the switches shown back to their settings, as the defaults of the next window and of the
    /// one-click jobs (issue 31: the choices are remembered). A hidden switch was never seen, so it stays.
    func remember() {
        guard !folders.isEmpty else { return }
        let store = SettingsStore.shared
        for item in switches where gtk_widget_get_visible(item.row) != 0 {
            let on = gtk_switch_get_active(cast(item.toggle)) != 0
            if store.value(item.key) != on { _ = store.set(item.key, on) }
        }
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
            // Partial reports come every LeaveOutScan.reportEvery: the window redraws, the walk goes on.
            let result = try? LeaveOutScan.run(folders, choice: choice, considering: Self.offered, control: control) { report in
                DispatchQueue.main.async { MainActor.assumeIsolated { self.show(report, generation: generation) } }
            }
            guard let sample = result?.sample, !control.isCancelled else { return }
            let deflated = Self.deflate(sample)
            DispatchQueue.main.async {
                MainActor.assumeIsolated {
                    guard generation == self.generation else { return }
                    self.deflated = deflated
                    self.showTotal()
                }
            }
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
        self.report = report
        showTotal()
        // bench/leave-out-scan.sh: the first figures and the whole count, when a person can see them.
        if anyShown { Timings.afterNextFrame(of: group, "leave-out-first") }
        if first {
            Timings.afterNextFrame(of: group, "leave-out-counted") { [group] in
                if Timings.exitsAfterThumbnails, let root = gtk_widget_get_root(group) { gtk_window_destroy(cast(root)) }
            }
            onChange()
        }
    }

    /// The total under the section's title, with the archive's estimated size once the count is whole; again
    /// when the format or level changes.
    func showTotal() {
        guard let report else { return }
        var text = Self.total(report).localized
        if report.finished, let deflated {
            let (format, level) = chosen()
            if let size = SizeEstimate.archive(
                bytes: report.kept.bytes, sampled: deflated.sampled, deflated: deflated.deflated, format: format, level: level)
            {
                // TRANSLATORS: after the leave-out total; %@ is a size such as “1.2 MB”, from a sample of the files.
                text += " " + tr("Estimated archive size: %@.", .bytes(size)).localized
            }
        }
        adw_preferences_group_set_description(cast(group), markupEscaped(text))
    }

    /// What raw deflate (level 6) makes of the first 64 KiB of each file in the sample: a few milliseconds
    /// for 32 files, on the scanning thread.
    private nonisolated static func deflate(_ paths: [[UInt8]]) -> (sampled: Int64, deflated: Int64) {
        var sampled: Int64 = 0, deflated: Int64 = 0
        var input = [UInt8](repeating: 0, count: 65_536), output = [UInt8](repeating: 0, count: 16_384)
        for path in paths {
            let fd = withCString(path) { open($0, O_RDONLY | O_CLOEXEC) }
            guard fd >= 0 else { continue }
            let count = input.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            close(fd)
            guard count > 0, let compressor = g_zlib_compressor_new(G_ZLIB_COMPRESSOR_FORMAT_RAW, 6) else { continue }
            var offset = 0
            while true {
                var used: gsize = 0, made: gsize = 0
                let result = input.withUnsafeBytes { source in
                    output.withUnsafeMutableBytes { target in
                        g_converter_convert(
                            cast(compressor), source.baseAddress! + offset, gsize(count - offset), target.baseAddress, gsize(target.count),
                            G_CONVERTER_INPUT_AT_END, &used, &made, nil)
                    }
                }
                offset += Int(used)
                deflated += Int64(made)
                if result == G_CONVERTER_FINISHED || result == G_CONVERTER_ERROR { break }
            }
            g_object_unref(compressor.raw)
            sampled += Int64(count)
        }
        return (sampled, deflated)
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
