import ArchiverCore
import Glibc
import Platform
import SystemPackage

/// The edit engine's 7z: 7-Zip's own update (`7zz d`, `rn`, `a`), which copies the solid blocks it need not
/// touch, run on a copy of the archive under our temporary name, never on the archive itself. The password
/// reaches 7-Zip on its standard input only; header encryption is kept.
enum SevenZipEditing {
    static func write(_ context: EditContext, into pending: PendingFile) throws(ArchiverError) -> EditPlan {
        let encryption = try SevenZip.encryption(of: context.archive, control: context.control)
        var password: Secret?
        if encryption != .none {
            let attempts = max(1, context.passwords?.attempts ?? 1)
            for attempt in 1...attempts {
                let asked = try attempt == 1 ? context.askPassword() : context.passwords!.ask(context.name, attempt)
                if try SevenZip.accepts(context.archive, password: asked, control: context.control) {
                    password = asked
                    break
                }
            }
            guard password != nil else {
                throw ArchiverError(.password, tr("Wrong password for “%@”.", context.name), hint: tr("Check it and try again."), path: context.archive.string)
            }
        }
        let entries = try SevenZip.list(context.archive, password: password)
        let plan = try context.plan(entries.map { .init(path: $0.path, isFolder: $0.kind == .directory) })
        if plan.changesNothing { return plan }
        if plan.steps.contains(where: { if case .old(_, _, let mode, let modified) = $0 { mode != nil || modified != nil } else { false } }) {
            throw ArchiverError(
                .notAnArchive, tr("Archiver cannot change the permissions or times of entries of a 7z archive; nothing was changed.", context.name))
        }

        let total = context.size + context.newBytes
        context.progress(0, total)
        guard FileSystem.copyRange(from: context.descriptor, at: 0, count: context.size, to: pending.descriptor) else {
            throw FileSystem.destinationError(errno, context.folder)
        }
        let target = pending.path
        // 7-Zip writes `NAME.tmp` beside the archive it updates, then renames it over.
        let scratch = FilePath(target.string + ".tmp")
        PendingOutputs.register(scratch)
        defer { PendingOutputs.discard(scratch) }
        func update(_ switches: [String], _ names: [[UInt8]], items: Bool = false) throws(ArchiverError) {
            guard !names.isEmpty else { return }
            var switches = switches
            if password != nil {
                switches.append("-p")
                if encryption == .names { switches.append("-mhe=on") }
            }
            let run = try SevenZip.run(
                switches, files: [target.bytes] + names, password: password, times: 3, control: context.control)
            try context.control.check()
            guard run.status == 0 else {
                throw items ? SevenZip.creationFailure(run, output: context.archive) : SevenZip.readFailure(run, archive: context.archive)
            }
        }
        let kept = plan.oldIndices
        let dropped = entries.indices.filter { !kept.contains($0) }.map { entries[$0].path }
        try update(["d"], dropped)
        try update(["rn"], plan.renamed.flatMap { [EditPlan.key($0.from), EditPlan.key($0.to)] })
        context.progress(context.size, total)

        let additions = plan.steps.compactMap { step -> (path: [UInt8], item: Sources.Item?, mode: UInt32?, modified: Int64?)? in
            guard case .new(let path, _, let source, let mode, let modified) = step else { return nil }
            return (EditPlan.key(path), source.map { context.items[$0] }, mode, modified)
        }
        if !additions.isEmpty {
            // The new entries as a tree of their names, of links to (or copies of) the files, given to 7-Zip
            // by its top folders: it stores each as its last component, with everything under it.
            let staging = try FileSystem.makeStaging(in: context.folder)
            defer { PendingOutputs.discard(staging) }
            var tops: [[UInt8]] = []
            for addition in additions {
                try context.control.check()
                try stage(addition.path, item: addition.item, mode: addition.mode, modified: addition.modified, in: staging)
                if let top = addition.path.split(separator: UInt8(ascii: "/")).first.map(Array.init), !tops.contains(top) { tops.append(top) }
            }
            // Folders get their times last: making what is inside them changed those.
            for addition in additions.reversed() where addition.item?.kind ?? .directory == .directory {
                setTimes(staging.appending(bytes: addition.path), modified: addition.modified ?? addition.item?.modified)
            }
            let level = ArchiveFormat.sevenZip.settings(for: context.level).level ?? 0
            try update(["a", "-t7z", "-mx\(level)", "-mmt=on", "-snl", "-sse"], tops.map { staging.appending(bytes: $0).bytes }, items: true)
        }
        context.progress(total, total)
        return plan
    }

    /// Puts the item at `path` in `staging`: a hard link to the file (a copy across file systems), the
    /// symlink, or a folder.
    private static func stage(_ path: [UInt8], item: Sources.Item?, mode: UInt32?, modified: Int64?, in staging: FilePath) throws(ArchiverError) {
        let target = staging.appending(bytes: path)
        try FileSystem.makeDirectories(target.removingLastComponent())
        switch item?.kind ?? .directory {
        case .directory:
            try FileSystem.makeDirectories(target)
            if let mode = mode ?? item.map({ $0.mode & 0o7777 }) { _ = target.withPlatformString { chmod($0, mode_t(mode)) } }
        case .symlink:
            let made = withCString(item?.linkTarget ?? []) { link in target.withPlatformString { symlink(link, $0) } }
            guard made == 0 else { throw FileSystem.destinationError(errno, staging) }
        case .file:
            guard let item else { return }
            let linked = item.path.withPlatformString { from in target.withPlatformString { link(from, $0) } }
            if linked != 0 || mode != nil || modified != nil {
                if linked == 0 { _ = target.withPlatformString { unlink($0) } }
                try copy(item.path, to: target)
                _ = target.withPlatformString { chmod($0, mode_t(mode ?? item.mode & 0o7777)) }
                setTimes(target, modified: modified ?? item.modified)
            }
        }
    }

    private static func copy(_ source: FilePath, to target: FilePath) throws(ArchiverError) {
        let (input, size, failure) = FileSystem.openForReading(source)
        if let failure { throw failure }
        defer { close(input) }
        let output = target.withPlatformString { open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
        guard output >= 0 else { throw FileSystem.destinationError(errno, target.removingLastComponent()) }
        defer { close(output) }
        guard FileSystem.copyRange(from: input, at: 0, count: size, to: output) else {
            throw FileSystem.destinationError(errno, target.removingLastComponent())
        }
    }

    private static func setTimes(_ path: FilePath, modified: Int64?) {
        guard let modified else { return }
        var times = [timespec(tv_sec: Int(modified), tv_nsec: 0), timespec(tv_sec: Int(modified), tv_nsec: 0)]
        _ = path.withPlatformString { utimensat(AT_FDCWD, $0, &times, AT_SYMLINK_NOFOLLOW) }
    }
}
