import ArchiverCore
import Desktop
import Glibc
import MountEngine
import Platform
import Synchronization
import SystemPackage

/// The Undo of "Saved 3 changes to “x.zip”": the version before the folder's first commit back from the
/// trash, in place of the archive the commit wrote.
///
/// The button must work after the daemon that committed has ended (it ends at unmount). A notification
/// server tells a click only to the process that showed the notification, and the freedesktop protocol
/// has no application to start for it (only GNOME's own GNotification route does, on GNOME alone). So a
/// small process of its own, `open-with-archiver --offer-undo`, shows the notification and waits for the
/// click: until the notification is closed, a newer commit of the archive offers its own Undo (this one's
/// would find the archive changed), or an hour has passed (then the notification is taken away; the
/// previous version stays in the trash).
enum UndoOffer {
    /// What the daemon hands over: the commit's count of changes, the archive it wrote, the version in the
    /// trash, and the notification's body.
    struct Offer {
        var archive: FilePath
        var changes: Int
        var written: FileIdentity
        var previous: FileIdentity
        var body: String

        var operands: [[UInt8]] {
            [Array("\(changes)".utf8), Array(written.text.utf8), Array(previous.text.utf8), Array(body.utf8), archive.bytes]
        }

        init(archive: FilePath, changes: Int, written: FileIdentity, previous: FileIdentity, body: String) {
            (self.archive, self.changes, self.written, self.previous, self.body) = (archive, changes, written, previous, body)
        }

        /// From the operands of `--offer-undo`, the archive last.
        init?(_ operands: [String], archive: FilePath) {
            guard operands.count == 5, let changes = Int(operands[0]), let written = FileIdentity(text: operands[1]),
                let previous = FileIdentity(text: operands[2])
            else { return nil }
            self.init(archive: archive, changes: changes, written: written, previous: previous, body: operands[3])
        }
    }

    /// Starts the process that offers the Undo; it outlives us, holding nothing of ours.
    static func start(_ offer: Offer) {
        let me = FilePath(bytes: FileSystem.symlinkTarget(FilePath("/proc/self/exe")) ?? Array(CommandLine.arguments[0].utf8))
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        guard null >= 0 else { return }
        defer { close(null) }
        // `--` first: a body may start with a dash.
        _ = try? ChildProcess.startDaemon(me, [Array("--offer-undo".utf8), Array("--".utf8)] + offer.operands, stdin: null, stdout: null)
    }

    private static let stopped = Atomic<Bool>(false)
    private static let asked = Atomic<Bool>(false)

    static func run(_ offer: Offer) -> Never {
        // The static is made now, not on its first use inside the handler, where making it is not safe.
        _ = stopped.load(ordering: .relaxed)
        signal(SIGTERM) { _ in UndoOffer.stopped.store(true, ordering: .relaxed) }
        guard let notifier = Notifier.connect() else { exit(0) }
        takeOver(offer.archive)
        let name = offer.archive.lastComponent?.string ?? offer.archive.string
        // Offered only while the trash holds the version to put back (not, say, when the archive's disk has none).
        let offered = notifier.supportsActions && previousInTrash(offer) != nil
        // TRANSLATORS: a button on the notification "Saved 3 changes to “x.zip”": puts the archive as it was back.
        let undo = Notifier.Action(id: "undo", label: tr("Undo").localized) { UndoOffer.asked.store(true, ordering: .relaxed) }
        // TRANSLATORS: %ld is a count of changed files and folders, %@ the archive.
        let summary = ntr("Saved %ld change to “%@”", "Saved %ld changes to “%@”", offer.changes, name)
        notifier.show(summary: summary.localized, body: offer.body, actions: offered ? [undo] : [], wait: true)
        guard offered else { exit(0) }
        let deadline = monotonicSeconds() + 3600
        while !stopped.load(ordering: .relaxed), monotonicSeconds() < deadline {
            guard notifier.waitForInteraction(timeout: 1) else { continue }
            // Closed without the button.
            guard asked.load(ordering: .relaxed) else { exit(0) }
            let (summary, body, urgency) = putBack(offer)
            notifier.show(summary: summary.localized, body: body.localized, urgency: urgency, wait: true)
            exit(0)
        }
        notifier.close()
        exit(0)
    }

    /// Puts the previous version back, only while the archive is still the one the commit wrote.
    /// - Returns: what the notification then says.
    static func putBack(_ offer: Offer) -> (summary: Text, body: Text, urgency: Notifier.Urgency) {
        let archive = offer.archive
        let name = archive.lastComponent?.string ?? archive.string
        // TRANSLATORS: %@ is an archive; the notification's title when its Undo failed.
        func failed(_ why: Text) -> (Text, Text, Notifier.Urgency) { (tr("Could not undo the changes to “%@”", name), why, .critical) }
        // A folder of the archive still open holds its lock and shows the changed archive: it is closed
        // first (which saves what it still holds; the archive is then not the one to undo any more).
        for mount in MountPoints.current() where mount.type == MountPlace.type && mount.source == archive.bytes {
            guard MountPoints.unmount(FilePath(bytes: mount.mountPoint)) else {
                return failed(tr("“%@” is open as a folder that is in use. Close the files that use it, then put the previous version back from the trash.", name))
            }
        }
        let lock: ArchiveLock
        do throws(ArchiverError) {
            lock = try ArchiveLock.take(archive, wait: .seconds(60))
        } catch {
            return failed(error.message)
        }
        defer { withExtendedLifetime(lock) {} }
        guard FileIdentity.of(archive) == offer.written else {
            return failed(tr("“%@” was changed after Archiver saved it, so the previous version was not put back; it is still in the trash.", name))
        }
        guard let previous = previousInTrash(offer) else {
            return failed(tr("The previous version of “%@” is no longer in the trash.", name))
        }
        // The version with the changes goes to the trash in turn, so that the undo can be undone too.
        do throws(ArchiverError) {
            try Trash.move(archive)
        } catch {
            return failed(error.message)
        }
        guard Trash.putBack(previous, at: archive) else {
            if let changed = Trash.items(from: archive).first(where: { FileIdentity.of($0.file) == offer.written }) {
                _ = Trash.putBack(changed.file, at: archive)
            }
            return failed(tr("The previous version of “%@” could not be put back; it is still in the trash.", name))
        }
        // TRANSLATORS: %@ is an archive, after the Undo of changes saved into it.
        return (tr("Put back the previous version of “%@”", name), tr("The version with the changes is in the trash."), .normal)
    }

    /// The trash's copy of the version the first commit replaced: the same file, moved there.
    private static func previousInTrash(_ offer: Offer) -> FilePath? {
        Trash.items(from: offer.archive).first { FileIdentity.of($0.file) == offer.previous }?.file
    }

    /// Ends the offer of an older commit of the same archive (its Undo would only find the archive changed)
    /// and leaves this process's ID for the next one.
    private static func takeOver(_ archive: FilePath) {
        guard let runtime = ProcessEnvironment.current.variables["XDG_RUNTIME_DIR"], !runtime.isEmpty else { return }
        let folder = FilePath(runtime).appending("archiver").appending("undo")
        try? FileSystem.makeDirectories(folder)
        let file = folder.appending(ArchiveLock.key(for: archive.bytes))
        if let bytes = FileSystem.wholeFile(file, limit: 64), let older = pid_t(String(decoding: bytes, as: UTF8.self)), older != getpid(),
            let line = FileSystem.wholeFile(FilePath("/proc/\(older)/cmdline")),
            line.split(separator: 0).contains(where: { $0.elementsEqual("--offer-undo".utf8) }), line.split(separator: 0).last?.elementsEqual(archive.bytes) == true
        {
            kill(older, SIGTERM)
        }
        let temporary = folder.appending(".\(getpid())")
        let descriptor = temporary.withPlatformString { open($0, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600) }
        guard descriptor >= 0 else { return }
        let text = Array("\(getpid())".utf8)
        let written = text.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        if written == text.count { _ = temporary.withPlatformString { from in file.withPlatformString { rename(from, $0) } } }
    }
}
