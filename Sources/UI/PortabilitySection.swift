import ArchiverCore
import CGtk
import Dispatch
import JobProtocol

/// The Compress… window's "Will it open for them?" section: what `compress-with-archiver --check` finds in
/// the archive as the form would make it (names Windows cannot create, paths too long, names differing
/// only in capitals, symlinks, AES, 4 GiB on FAT, names that are not UTF-8), a row per kind with the items,
/// and one switch that makes the fixes (`--portable`). Hidden when there is nothing to say. The check is a
/// child process, run again a moment after the form changes what it would find.
@MainActor
final class PortabilitySection {
    let group: UnsafeMutablePointer<GtkWidget>
    let fixRow: UnsafeMutablePointer<GtkWidget>
    private let fixToggle: UnsafeMutablePointer<GtkWidget>
    private var rows: [UnsafeMutablePointer<GtkWidget>] = []
    private let runner = JobRunner()
    /// The check's arguments last run (or waiting to run): the same form is not checked twice.
    private var checked: Arguments?
    private var waiting: Arguments?
    /// What the last check found, by kind in the order the rows show them.
    private(set) var found: [(PortabilityProblem.Kind, [String])] = []

    init() {
        group = adw_preferences_group_new()!
        adw_preferences_group_set_title(cast(group), tr("Will it open for them?").localized)
        (fixRow, fixToggle) = Widgets.switchRow(title: tr("Make it open every_where").localized, on: false)
        adw_action_row_set_subtitle(
            cast(fixRow), markupEscaped(tr("Renames what Windows cannot create and leaves out symbolic links; the renames are listed in the result.").localized))
        adw_preferences_group_add(cast(group), fixRow)
        gtk_widget_set_visible(group, 0)
    }

    /// Whether the fixes are chosen (and offered).
    var fixing: Bool { gtk_widget_get_visible(fixRow) != 0 && gtk_switch_get_active(cast(fixToggle)) != 0 }

    /// compress-with-archiver's flag for the switch.
    var arguments: [String] { fixing ? ["--portable"] : [] }

    /// Checks `arguments` (a `--check` call) half a second from now, unless the form changes again
    /// meanwhile; nil: nothing to check (no name yet, converting), the section goes away.
    func check(_ arguments: Arguments?) {
        guard let arguments else {
            waiting = nil
            checked = nil
            runner.cancel()
            show([])
            return
        }
        guard arguments != checked, arguments != waiting else { return }
        waiting = arguments
        DispatchQueue.main.asyncAfter(deadline: .now() + 0.5) { [weak self] in
            MainActor.assumeIsolated {
                guard let self, self.waiting == arguments else { return }
                self.run(arguments)
            }
        }
    }

    private func run(_ arguments: Arguments) {
        // One check at a time: a newer form waits until the running one has ended.
        guard !runner.isRunning else {
            runner.cancel()
            return
        }
        waiting = nil
        checked = arguments
        let started = runner.start(program: JobRunner.sibling("compress-with-archiver"), arguments: arguments, onEvent: { _ in }) {
            [weak self] outcome in
            guard let self else { return }
            if let waiting, waiting != checked {
                run(waiting)
                return
            }
            guard let made = outcome.outcome(CompressOutcome.self) else { return }
            show(made.problems)
        }
        if !started { checked = nil }
    }

    /// Stops a check that runs (the window is closing).
    func cancel() {
        waiting = nil
        runner.cancel()
    }

    private func show(_ problems: [CompressOutcome.Problem]) {
        for row in rows { adw_preferences_group_remove(cast(group), row) }
        rows = []
        var byKind: [PortabilityProblem.Kind: [String]] = [:]
        for problem in problems {
            guard let kind = PortabilityProblem.Kind(rawValue: problem.code) else { continue }
            byKind[kind, default: []].append(problem.path)
        }
        found = PortabilityProblem.Kind.allCases.compactMap { kind in byKind[kind].map { (kind, $0) } }
        for (kind, paths) in found {
            let row = adw_action_row_new()!
            adw_preferences_row_set_title(cast(row), markupEscaped(Self.heading(kind, count: paths.count).localized))
            let shown = paths.filter { !$0.isEmpty }.prefix(3).map { "“\($0)”" }
            if !shown.isEmpty {
                let more = paths.count > shown.count ? ntr(" and %ld more", " and %ld more", paths.count - shown.count).localized : ""
                adw_action_row_set_subtitle(cast(row), markupEscaped(shown.joined(separator: ", ") + more))
            }
            let icon = gtk_image_new_from_icon_name("dialog-warning-symbolic")!
            Names.set(icon, tr("Warning").localized)
            adw_action_row_add_prefix(cast(row), icon)
            adw_preferences_group_add(cast(group), row)
            rows.append(row)
        }
        let fixable = found.contains { Portability.portable.contains($0.0) }
        gtk_widget_set_visible(fixRow, fixable ? 1 : 0)
        gtk_widget_set_visible(group, found.isEmpty ? 0 : 1)
    }

    /// What a kind of problem means for the recipient, and what can be done, as a row's title.
    static func heading(_ kind: PortabilityProblem.Kind, count: Int) -> Text {
        switch kind {
        case .reservedName:
            ntr("%ld name Windows keeps for devices (CON, NUL, COM1…)", "%ld names Windows keeps for devices (CON, NUL, COM1…)", count)
        case .forbiddenCharacter:
            ntr("%ld name with characters Windows cannot use (< > : \" | ? *)", "%ld names with characters Windows cannot use (< > : \" | ? *)", count)
        case .trailingDotOrSpace:
            ntr("%ld name ending in a dot or space, which Windows drops", "%ld names ending in a dot or space, which Windows drops", count)
        case .pathTooLong:
            ntr("%ld path too long for Windows’ Explorer: shorten its folders’ names", "%ld paths too long for Windows’ Explorer: shorten their folders’ names", count)
        case .caseClash:
            ntr("%ld name differing from another only in capitals: Windows and macOS keep one", "%ld names differing from others only in capitals: Windows and macOS keep one", count)
        case .symlink:
            ntr("%ld symbolic link, which Windows does not make", "%ld symbolic links, which Windows does not make", count)
        case .encryptedZip:
            tr("Windows’ File Explorer and macOS’s Archive Utility cannot open zips encrypted with AES: the recipient needs 7-Zip, Keka or The Unarchiver")
        case .tooLargeForFAT:
            ntr("%ld file of 4 GiB or more, which the FAT drive cannot hold", "%ld files of 4 GiB or more, which the FAT drive cannot hold", count)
        case .notUTF8:
            ntr("%ld name that is not UTF-8, shown garbled on other systems", "%ld names that are not UTF-8, shown garbled on other systems", count)
        case .specialFile:
            ntr("%ld pipe, socket or device, which no archive holds: left out", "%ld pipes, sockets or devices, which no archive holds: left out", count)
        case .danglingSymlink:
            ntr("%ld symbolic link to nothing: left out", "%ld symbolic links to nothing: left out", count)
        case .symlinkLoop:
            ntr("%ld symbolic link into a folder that holds it: left out", "%ld symbolic links into a folder that holds them: left out", count)
        }
    }
}
