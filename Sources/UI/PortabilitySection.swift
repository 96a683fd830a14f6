import ArchiverCore
import CGtk
import Dispatch
import JobProtocol

/// The Compress… window's "Will it open for them?" section: what `compress-with-archiver --check` finds in
/// the archive as the form would make it (names Windows cannot create, paths too long, names differing
/// only in capitals, symlinks, AES, 4 GiB on FAT, names that are not UTF-8, what is never stored), a row per
/// kind with the items and its fix where there is one (`--fix CODE`, `--follow-symlinks`). A fix chosen is
/// part of the next check, so its row goes; one row counts the fixes chosen, with Undo. Hidden when there
/// is nothing to say. The check is a child process, run again a moment after the form changes.
@MainActor
final class PortabilitySection {
    let group: UnsafeMutablePointer<GtkWidget>
    /// "2 fixes chosen", with Undo.
    private let fixedRow: UnsafeMutablePointer<GtkWidget>
    private let undo: UnsafeMutablePointer<GtkWidget>
    private var rows: [UnsafeMutablePointer<GtkWidget>] = []
    private let runner = JobRunner()
    /// The check's arguments last run (or waiting to run): the same form is not checked twice.
    private var checked: Arguments?
    private var waiting: Arguments?
    /// What the last check found, by kind in the order the rows show them.
    private(set) var found: [(PortabilityProblem.Kind, [String])] = []
    /// The fixes chosen (`--fix`), and whether symlinks are followed.
    private(set) var fixes: Set<PortabilityProblem.Kind> = []
    private(set) var followsSymlinks = false
    /// Called when a fix is chosen or undone: the form checks again with it.
    var onChange: () -> Void = {}

    /// What a row's button does.
    private enum Fix {
        case make(PortabilityProblem.Kind)
        case followSymlinks
    }

    init() {
        group = adw_preferences_group_new()!
        adw_preferences_group_set_title(cast(group), tr("Will it open for them?").localized)
        fixedRow = adw_action_row_new()!
        adw_action_row_set_subtitle(cast(fixedRow), markupEscaped(tr("Made when the archive is written; the renames are listed in the result.").localized))
        undo = Names.button(tr("_Undo").localized)
        Names.set(undo, tr("Undo the fixes").localized)
        gtk_widget_set_valign(undo, GTK_ALIGN_CENTER)
        adw_action_row_add_suffix(cast(fixedRow), undo)
        adw_preferences_group_add(cast(group), fixedRow)
        gtk_widget_set_visible(fixedRow, 0)
        gtk_widget_set_visible(group, 0)
        on(undo, "clicked") { [unowned self] in
            fixes = []
            followsSymlinks = false
            showFixes()
            onChange()
        }
    }

    /// compress-with-archiver's flags for the fixes chosen, for the check and the job alike.
    var arguments: [String] {
        (fixes.isEmpty ? [] : ["--fix", fixes.map(\.rawValue).sorted().joined(separator: ",")])
            + (followsSymlinks ? ["--follow-symlinks"] : [])
    }

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
            let buttons = Self.fixes(for: kind)
            if !buttons.isEmpty {
                // Stacked: two buttons side by side leave the title no room on a phone.
                let box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6)!
                gtk_widget_set_valign(box, GTK_ALIGN_CENTER)
                let boxObj = Obj(box)
                for (label, name, explanation, fix) in buttons {
                    let button = gtk_button_new_with_label(label.localized)!
                    Names.set(button, name.localized)
                    gtk_widget_set_tooltip_text(button, explanation.localized)
                    on(button, "clicked") { [unowned self] in choose(fix, buttons: boxObj.p) }
                    gtk_box_append(cast(box), button)
                }
                adw_action_row_add_suffix(cast(row), box)
            }
            adw_preferences_group_add(cast(group), row)
            rows.append(row)
        }
        showFixes()
    }

    /// A fix chosen: its buttons grey out at once, and the check that follows takes its row away (or says
    /// what is left); the focus goes to Undo, which now says how many fixes are chosen.
    private func choose(_ fix: Fix, buttons: UnsafeMutablePointer<GtkWidget>) {
        switch fix {
        case .make(let kind): fixes.insert(kind)
        case .followSymlinks: followsSymlinks = true
        }
        gtk_widget_set_sensitive(buttons, 0)
        showFixes()
        // Once Undo is shown: a button greyed out keeps no focus.
        DispatchQueue.main.async { [weak self] in
            MainActor.assumeIsolated {
                guard let self else { return }
                _ = gtk_widget_grab_focus(self.undo)
            }
        }
        onChange()
    }

    /// The row counting the fixes chosen, and whether the section shows at all.
    private func showFixes() {
        let count = fixes.count + (followsSymlinks ? 1 : 0)
        adw_preferences_row_set_title(
            cast(fixedRow), markupEscaped(ntr("%ld fix chosen", "%ld fixes chosen", count).localized))
        gtk_widget_set_visible(fixedRow, count > 0 ? 1 : 0)
        gtk_widget_set_visible(group, found.isEmpty && count == 0 ? 0 : 1)
    }

    /// A kind's fixes, as (button label, accessible name, what it does, fix); none for what has no fix.
    private static func fixes(for kind: PortabilityProblem.Kind) -> [(Text, Text, Text, Fix)] {
        let rename = tr("Rename")
        return switch kind {
        case .reservedName:
            [(rename, tr("Rename the names Windows keeps for devices"), tr("“CON.txt” becomes “CON_.txt” in the archive"), .make(kind))]
        case .forbiddenCharacter:
            [(rename, tr("Rename the names with characters Windows cannot use"), tr("“a:b” becomes “a_b” in the archive"), .make(kind))]
        case .trailingDotOrSpace:
            [(rename, tr("Rename the names ending in a dot or space"), tr("“notes.” becomes “notes_” in the archive"), .make(kind))]
        case .notUTF8:
            [(rename, tr("Rename the names that are not UTF-8"), tr("Each byte that is not UTF-8 becomes “_” in the archive"), .make(kind))]
        case .caseClash:
            [(rename, tr("Rename the names differing only in capitals"), tr("The second of two such names gets “ (2)” in the archive"), .make(kind))]
        case .symlink:
            [
                (tr("Follow"), tr("Follow the symbolic links"), tr("Each link is stored as the file or folder it points to"), .followSymlinks),
                (tr("Leave Out"), tr("Leave out the symbolic links"), tr("The links are not stored"), .make(kind)),
            ]
        case .encryptedZip:
            [(tr("Use ZipCrypto"), tr("Use ZipCrypto"),
              tr("The older zip encryption, which Windows and macOS open; it is weak: it keeps out the curious, not an attacker"), .make(kind))]
        case .pathTooLong, .tooLargeForFAT, .specialFile, .danglingSymlink, .symlinkLoop:
            []
        }
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
