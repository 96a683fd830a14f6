import ArchiverCore
import CGtk
import Glibc
import JobProtocol
import Platform
import SystemPackage

/// The Extract… window as an editor (issue 29): Add Files…, drops, Delete, Rename and opening an entry in
/// its application. Every change is one `edit-with-archiver` job on the window's job page (progress,
/// Cancel), after which the window lists the archive again.
///
/// An entry is opened from the archive's Open as Folder mount (`open-with-archiver --mount`, reused when
/// there is one), so that saving in that application commits back into the archive. The mount's daemon
/// holds the archive's lock, so before a change of its own the window unmounts the mount it used
/// (`--unmount` returns once what was saved there is in the archive, and refuses while a file in it is
/// open); a mount someone else made and the window did not use makes the change say the archive is busy.
@MainActor
final class ExtractEditing {
    private let archive: FilePath
    private let name: String
    private let chrome: JobWindow
    private let tree: EntryTreeView
    /// The folder of the mount the window opened entries from (nil: none yet, or unmounted since).
    private var mounted: FilePath?
    /// The window's first change sends the archive as it was to the trash; later ones do not.
    private var keptPrevious = false

    /// The password typed in the window, if any.
    var password: () -> [UInt8]? = { nil }
    /// Whether the window can change the archive now (listed, no job running).
    var canEdit: () -> Bool = { false }
    /// A job of ours is about to take the window's job page.
    var willChange: () -> Void = {}
    /// A change is in the archive: the window lists it again.
    var changed: () -> Void = {}
    /// Words under the list (nil clears them), as the window says other things.
    var say: (String?, _ error: Bool) -> Void = { _, _ in }

    init(archive: FilePath, name: String, chrome: JobWindow, tree: EntryTreeView) {
        self.archive = archive
        self.name = name
        self.chrome = chrome
        self.tree = tree
    }

    // MARK: - The changes

    /// Add Files…: the desktop's chooser, then the files at the archive's top (a drop on a folder row puts
    /// them in that folder: the row that happens to have the focus says nothing about where they belong).
    func chooseFiles() {
        guard canEdit() else { return }
        // TRANSLATORS: the title of the file chooser of the Extract… window's Add Files…; %@ is the archive.
        FilesPicker.pick(title: tr("Add Files to “%@”", name).localized, accept: tr("_Add").localized, parent: chrome.window) {
            [unowned self] paths in add(paths, into: "")
        }
    }

    /// Files dropped on the tree (or chosen) go into `into` ("" = the top).
    func add(_ paths: [String], into: String) {
        guard canEdit(), !paths.isEmpty else { return }
        run(.add(paths.map { FilePath($0) }, into: into))
    }

    /// Delete: asks first, naming what goes.
    func delete(_ entries: [String]) {
        guard canEdit() else { return }
        guard !entries.isEmpty else {
            say(tr("Move the focus to an entry (or check the ones to delete) first.").localized, false)
            return
        }
        let shown = entries.prefix(8).map { "“" + EntryTreeView.shown($0) + "”" }
        var body = shown.joined(separator: "\n")
        // TRANSLATORS: after the names listed in the Delete question, when there are more than eight.
        if entries.count > shown.count { body += "\n" + ntr("and %ld more", "and %ld more", entries.count - shown.count).localized }
        Widgets.ask(
            chrome.window,
            // TRANSLATORS: the question before entries are deleted from an archive in the Extract… window.
            heading: ntr("Delete %1$ld entry from “%2$@”?", "Delete %1$ld entries from “%2$@”?", entries.count, name).localized,
            body: body,
            answers: [
                .init(id: "cancel", label: tr("_Cancel").localized),
                .init(id: "delete", label: tr("_Delete").localized, appearance: ADW_RESPONSE_DESTRUCTIVE),
            ],
            preferred: "cancel", close: "cancel"
        ) { [unowned self] answer in
            if answer == "delete" { run(.delete(entries)) }
        }
    }

    /// F2 / Rename…: a field holding the entry's name; the new name stays in the entry's folder.
    func rename(_ node: Int?) {
        guard canEdit() else { return }
        guard let node, node > 0 else {
            say(tr("Move the focus to the entry to rename first.").localized, false)
            return
        }
        let old = tree.tree.nodes[node].name
        let dialog = adw_message_dialog_new(chrome.window, tr("Rename “%@”", EntryTreeView.shown(old)).localized, nil)!
        let field = gtk_entry_new()!
        gtk_editable_set_text(cast(field), old)
        gtk_entry_set_activates_default(cast(field), 1)
        // TRANSLATORS: the field of the Rename dialog in the Extract… window.
        accessibleLabel(field, tr("New name").localized)
        adw_message_dialog_set_extra_child(cast(dialog), field)
        adw_message_dialog_add_response(cast(dialog), "cancel", tr("_Cancel").localized)
        adw_message_dialog_add_response(cast(dialog), "rename", tr("_Rename").localized)
        adw_message_dialog_set_response_appearance(cast(dialog), "rename", ADW_RESPONSE_SUGGESTED)
        adw_message_dialog_set_default_response(cast(dialog), "rename")
        adw_message_dialog_set_close_response(cast(dialog), "cancel")
        let fieldObj = Obj(field)
        onPointer(dialog, "response") { [unowned self] response in
            guard String(cString: response.assumingMemoryBound(to: CChar.self)) == "rename" else { return }
            let typed = Widgets.text(fieldObj.p)
            guard typed != old else { return }
            guard let target = tree.tree.renamedPath(node, to: typed) else {
                // TRANSLATORS: a name typed in Rename that cannot be one (empty, "..", with a "/").
                say(tr("“%@” cannot be a name in the archive: it must not be empty, “.” or “..”, nor hold a “/”.", typed).localized, true)
                return
            }
            run(.rename(tree.tree.path(node), to: target))
        }
        gtk_window_present(cast(dialog))
        // Once shown (the dialog gives its default button the focus first): the name without its extension
        // selected, as the file manager does, so typing replaces just that.
        let isFolder = tree.tree.nodes[node].isDirectory
        Idle.run {
            gtk_widget_grab_focus(fieldObj.p)
            let dot = isFolder ? nil : old.dropFirst().lastIndex(of: ".")
            gtk_editable_select_region(cast(fieldObj.p), 0, Int32(dot.map { old.distance(from: old.startIndex, to: $0) } ?? old.count))
        }
    }

    /// Unmounts the window's own mount first (its daemon holds the lock), then runs the change.
    private func run(_ change: WindowEdit) {
        willChange()
        say(nil, false)
        // TRANSLATORS: the job page's title while the Extract… window changes the archive.
        let title = tr("Changing “%@”", name).localized
        if let folder = mounted, isMount(folder) {
            chrome.startJob(
                title: title, program: "open-with-archiver", arguments: .unmount(folder), password: nil,
                notStarted: tr("open-with-archiver could not be started.").localized
            ) { [unowned self] outcome in
                guard outcome.succeeded else { return ended(outcome) }
                mounted = nil
                edit(change, title: title)
            }
            return
        }
        mounted = nil
        edit(change, title: title)
    }

    private func edit(_ change: WindowEdit, title: String) {
        chrome.startJob(
            title: title, program: "edit-with-archiver", arguments: .edit(archive, change, keepPrevious: !keptPrevious),
            password: password() ?? [], notStarted: tr("edit-with-archiver could not be started.").localized
        ) { [unowned self] outcome in
            if outcome.succeeded { keptPrevious = true }
            ended(outcome)
        }
    }

    private func ended(_ outcome: JobRunner.Outcome) {
        guard outcome.succeeded, !chrome.hiddenDuringJob else {
            // The error page with Back (a busy or read-only archive, a clash, Cancel), as the window's other jobs.
            chrome.finish(outcome, failed: tr("Could not change “%@”", name).localized) {
                JobWindow.Made(heading: tr("Changed “%@”", name).localized, body: "", item: archive, shareable: nil)
            }
            return
        }
        chrome.showForm()
        changed()
    }

    // MARK: - Opening an entry

    /// Opens `node` in its default application from the archive's mount (mounting it first when needed).
    func open(_ node: Int) {
        guard canEdit() else { return }
        let entry = tree.tree.path(node)
        if let folder = mounted ?? currentMount(), isMount(folder) {
            mounted = folder
            launch(entry, in: folder)
            return
        }
        // TRANSLATORS: under the list while the archive is opened as a folder to open one of its entries.
        say(tr("Opening “%@”…", EntryTreeView.shown(tree.tree.nodes[node].name)).localized, false)
        let started = chrome.runner.start(
            program: JobRunner.sibling("open-with-archiver"), arguments: .mount(archive), password: password() ?? [],
            onEvent: { _ in },
            onEnd: { [unowned self] outcome in
                guard outcome.succeeded, let folder = currentMount() else {
                    say(outcome.stderr.trimmingSpaces.isEmpty ? tr("“%@” could not be opened as a folder.", name).localized : outcome.stderr.trimmingSpaces, true)
                    return
                }
                mounted = folder
                say(nil, false)
                launch(entry, in: folder)
            })
        if !started { say(tr("open-with-archiver could not be started.").localized, true) }
    }

    private func launch(_ entry: String, in folder: FilePath) {
        let path = folder.appending(entry)
        let file = path.string.withCString { g_file_new_for_path($0) }
        defer { g_object_unref(file.map { UnsafeMutableRawPointer($0) }) }
        var error: UnsafeMutablePointer<GError>?
        guard let uri = takeString(g_file_get_uri(file)), g_app_info_launch_default_for_uri(uri, nil, &error) != 0 else {
            let reason = error.map { String(cString: $0.pointee.message) } ?? ""
            g_clear_error(&error)
            // TRANSLATORS: an entry of the archive that no application opens; %2$@ is the system's reason.
            say(tr("“%1$@” could not be opened: %2$@", path.lastComponent?.string ?? entry, reason).localized, true)
            return
        }
    }

    /// The folder our Open as Folder mounted this archive on, if it is mounted.
    private func currentMount() -> FilePath? {
        MountEntry.parse(mountinfo: FileSystem.wholeFile("/proc/self/mountinfo") ?? [])
            .first { $0.type == MountPlace.type && $0.source == archive.bytes }
            .map { FilePath(bytes: $0.mountPoint) }
    }

    private func isMount(_ folder: FilePath) -> Bool {
        MountEntry.parse(mountinfo: FileSystem.wholeFile("/proc/self/mountinfo") ?? [])
            .contains { $0.type == MountPlace.type && $0.mountPoint == folder.bytes }
    }
}
