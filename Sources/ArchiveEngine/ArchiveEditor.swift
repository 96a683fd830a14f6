import ArchiverCore
import Glibc
import Platform
import SystemPackage

/// A change asked of the edit engine, with items from disk by path.
public enum ArchiveEdit: Sendable {
    /// A file, symlink or folder (with everything in it) from disk, stored at `path` inside the archive.
    case add(FilePath, at: [UInt8])
    /// New content for the file entry `path`, from a file on disk.
    case replaceContent([UInt8], with: FilePath)
    case delete([UInt8])
    case rename([UInt8], to: [UInt8])
    case makeFolder([UInt8])
    case setAttributes([UInt8], mode: UInt32?, modified: Int64?)
}

/// What a commit did.
public struct EditResult: Sendable {
    /// Where the edited archive is: the archive itself, or `x (edited).zip` beside it when the archive
    /// changed meanwhile.
    public var output: FilePath
    /// Where the version before this commit went (the trash), when it was kept.
    public var previous: FilePath?
    /// The archive changed while it was being edited: the result was saved beside it.
    public var savedBeside = false
    /// The version this commit put in the trash (`previous`), and the archive it wrote in its place: an undo
    /// puts the one back only while the other is still there.
    package var previousVersion: FileIdentity?
    package var written: FileIdentity?
    public var added: [[UInt8]] = []
    public var replaced: [[UInt8]] = []
    public var deleted: [[UInt8]] = []
    public var renamed: [(from: [UInt8], to: [UInt8])] = []
    public var warnings: [JobWarning] = []
    /// The archive's size after the commit.
    public var size: Int64 = 0
}

/// Edits of one archive: holds the archive's one-writer lock for its life, and keeps the previous version
/// (through `keepPrevious`, the desktop trash) only at its first commit, so that a window or a mount that
/// commits twenty times leaves one previous version, not twenty.
public final class ArchiveEditSession {
    public let archive: FilePath
    private let lock: ArchiveLock
    private var keepPrevious: PreviousVersion?

    /// Takes the archive's lock.
    /// - Parameters:
    ///   - keepPrevious: moves the archive as it is to where it can be restored from (the trash), just
    ///     before the first commit replaces it; nil keeps nothing (the command line's default).
    ///   - wait: how long to wait for another writer (a mount committing) to finish.
    /// - Throws: `.destination` when another writer holds the archive longer.
    public init(archive: FilePath, keepPrevious: PreviousVersion? = nil, wait: Duration = .seconds(5))
        throws(ArchiverError)
    {
        // A symlink to the archive stays one: the archive it points to is what changes.
        self.archive = FileSystem.resolve(archive.madeAbsolute) ?? archive.madeAbsolute
        self.keepPrevious = keepPrevious
        lock = try ArchiveLock.take(self.archive, wait: wait)
    }

    /// Applies `changes` in one commit: a new archive under a hidden temporary name beside the old one,
    /// renamed over it only when complete.
    /// - Parameters:
    ///   - replacing: an added or renamed entry may replace one of the same name.
    ///   - level: for new members and for recompressed tars.
    ///   - passwords: asked when the archive's encryption needs it (adding to an encrypted zip, any change
    ///     of an encrypted 7z).
    ///   - lenient: a delete, rename or attribute change of a missing name is let go (`EditPlan.make`).
    ///   - readAs: the archive as the changes' author saw it (a mount's, when it read the archive): if it is
    ///     another file now, the result is saved beside, as for a change during the commit.
    /// - Throws: `ArchiverError`; the archive is then as it was and nothing is left beside it.
    public func commit(
        _ changes: [ArchiveEdit], replacing: Bool = false, level: CompressionLevel = .normal, passwords: PasswordAsker? = nil,
        lenient: Bool = false, readAs: stat? = nil, control: JobControl, progress: @escaping (Int64, Int64?) -> Void = { _, _ in }
    ) throws(ArchiverError) -> EditResult {
        ArchiveEngineSetup.ensureLocale()
        PendingOutputs.beginJob()
        defer { PendingOutputs.endJob() }
        let name = archive.lastComponent?.string ?? archive.string
        let folder = archive.removingLastComponent()
        let (descriptor, size, failure) = FileSystem.openForReading(archive)
        if let failure { throw failure }
        var closed = false
        defer { if !closed { close(descriptor) } }
        var before = stat()
        guard fstat(descriptor, &before) == 0, FileSystem.isRegular(before) else {
            throw ArchiverError(.inputUnreadable, tr("“%@” is not a file.", name), path: archive.string)
        }
        let kind = try EditableFormat.detect(archive, descriptor: descriptor, size: size)
        FileSystem.removeStaleTemporaries(in: folder)

        let sources = try Sources(changes, control: control)
        let context = EditContext(
            archive: archive, name: name, folder: folder, descriptor: descriptor, size: size, changes: sources.changes,
            items: sources.items, replacing: replacing, lenient: lenient, level: level, passwords: passwords, control: control, progress: progress)
        let pending = try PendingFile(in: folder)
        defer { withExtendedLifetime(pending) {} }
        let plan: EditPlan
        var warnings: [JobWarning] = sources.warnings
        switch kind {
        case .zip:
            let written = try ZipEditing.write(context, into: pending, warnings: warnings)
            plan = written.0
            warnings = written.1
        case .tar(let filter): plan = try TarEditing.write(context, filter: filter, into: pending)
        case .sevenZip: plan = try SevenZipEditing.write(context, into: pending)
        }
        var result = EditResult(output: archive, added: plan.added, replaced: plan.replaced, deleted: plan.deleted, renamed: plan.renamed)
        result.warnings = warnings
        if plan.changesNothing {
            result.size = size
            return result
        }
        try control.check()
        FileSystem.carryOver(from: archive, to: pending.path)
        result.size = pending.size
        // Another program wrote the archive since it was read: its write is never overwritten.
        guard FileSystem.isUnchanged(archive, since: before), readAs.map({ FileSystem.isUnchanged(archive, since: $0) }) ?? true else {
            let (stem, suffix) = ArchiveNaming.splitArchiveExtension(Array(name.utf8))
            result.output = try pending.publish(as: stem + Array(" (edited)".utf8) + suffix)
            result.savedBeside = true
            result.warnings.append(JobWarning(
                "archive-changed",
                // TRANSLATORS: %1$@ is the archive, %2$@ the file the changes were saved in instead.
                tr("“%1$@” was changed by another program meanwhile; the edited archive was saved as “%2$@”.", name, result.output.lastComponent?.string ?? "")))
            return result
        }
        let written = FileIdentity.of(pending.path)
        if let keepPrevious {
            // The old archive goes first, and the new one takes its name at once; a failure puts it back.
            try keepPrevious.keep(archive)
            self.keepPrevious = nil
            result.previous = archive
            result.previousVersion = FileIdentity(before)
            do throws(ArchiverError) {
                try pending.replace(archive)
            } catch {
                keepPrevious.restore(archive)
                throw error
            }
        } else {
            try pending.replace(archive)
            // The old archive has no name left: the kernel frees it once this is closed.
            FileSystem.closeReplaced(descriptor, size: size)
            closed = true
        }
        result.written = written
        return result
    }
}

/// Where the version an edit replaces goes so that a person can undo (the desktop trash; the engine does
/// not link GIO, the caller gives it).
public struct PreviousVersion: Sendable {
    /// Moves the archive away to where it can be restored from.
    public var keep: @Sendable (FilePath) throws(ArchiverError) -> Void
    /// Puts it back, when its replacement failed.
    public var restore: @Sendable (FilePath) -> Void

    public init(keep: @escaping @Sendable (FilePath) throws(ArchiverError) -> Void, restore: @escaping @Sendable (FilePath) -> Void) {
        self.keep = keep
        self.restore = restore
    }
}

/// What the engine knows of one commit.
struct EditContext {
    let archive: FilePath
    let name: String
    let folder: FilePath
    /// The archive, open for reading.
    let descriptor: Int32
    let size: Int64
    /// The changes, with each item from disk by its number in `items`.
    let changes: [ArchiveChange]
    let items: [Sources.Item]
    let replacing: Bool
    let lenient: Bool
    let level: CompressionLevel
    let passwords: PasswordAsker?
    let control: JobControl
    let progress: (Int64, Int64?) -> Void

    func plan(_ entries: [EditPlan.Existing]) throws(ArchiverError) -> EditPlan {
        try EditPlan.make(archive: name, entries: entries, changes: changes, replacing: replacing, lenient: lenient)
    }

    /// Asks for the password, once.
    func askPassword() throws(ArchiverError) -> Secret {
        guard let passwords else {
            throw ArchiverError(
                .password, tr("“%@” is password-protected; nothing was changed.", name),
                hint: tr("Give the password with --password-stdin."), path: archive.string)
        }
        return try passwords.ask(name, 1)
    }

    /// The bytes of all new files, for progress.
    var newBytes: Int64 { items.reduce(0) { $0 + ($1.kind == .file ? $1.size : 0) } }
}

/// The items from disk the changes name, walked into every file, folder and symlink they hold.
struct Sources {
    struct Item {
        var kind: FileTree.Kind
        var path: FilePath
        var size: Int64
        var mode: UInt32
        var modified: Int64
        var owner: UInt32
        var group: UInt32
        var linkTarget: [UInt8]?
    }

    var items: [Item] = []
    var changes: [ArchiveChange] = []
    var warnings: [JobWarning] = []

    init(_ edits: [ArchiveEdit], control: JobControl) throws(ArchiverError) {
        for edit in edits {
            switch edit {
            case .add(let path, let at):
                try EditPlan.checkName(at)
                guard FileSystem.status(path.madeAbsolute) != nil else {
                    throw ArchiverError(.inputUnreadable, tr("“%@” does not exist.", path), hint: tr("Check the name and try again."), path: path.string)
                }
                let tree = try FileTree.walk([CompressPlan.Item(source: path.madeAbsolute, nameInArchive: EditPlan.key(at))], control: control)
                warnings += tree.warnings
                for item in tree {
                    changes.append(.add(path: item.nameInArchive, isFolder: item.kind == .directory, source: items.count))
                    items.append(Self.item(item))
                }
            case .replaceContent(let name, let path):
                let tree = try FileTree.walk([CompressPlan.Item(source: path.madeAbsolute, nameInArchive: EditPlan.key(name))], control: control)
                guard let only = tree.first, tree.count == 1, only.kind == .file else {
                    throw ArchiverError(.usage, tr("“%@” is not a file; only a file can be an entry's new content.", path), path: path.string)
                }
                changes.append(.replaceContent(path: name, source: items.count))
                items.append(Self.item(only))
            case .delete(let name): changes.append(.delete(name))
            case .rename(let name, let to): changes.append(.rename(name, to: to))
            case .makeFolder(let name): changes.append(.makeFolder(name))
            case .setAttributes(let name, let mode, let modified): changes.append(.setAttributes(name, mode: mode, modified: modified))
            }
        }
    }

    private static func item(_ item: FileTree.Item) -> Item {
        Item(
            kind: item.kind, path: item.source, size: item.kind == .file ? item.status.size : 0, mode: item.status.mode,
            modified: Int64(item.status.modified), owner: item.status.owner, group: item.status.group, linkTarget: item.symlinkTarget)
    }
}

extension ArchiveEditSession {
    /// Why Archiver cannot change `archive` (its format, a multi-part set), or nil when it can.
    public static func refusal(_ archive: FilePath) -> ArchiverError? {
        let (descriptor, size, failure) = FileSystem.openForReading(archive)
        if let failure { return failure }
        defer { close(descriptor) }
        do throws(ArchiverError) {
            _ = try EditableFormat.detect(archive, descriptor: descriptor, size: size)
            return nil
        } catch {
            return error
        }
    }

    /// Whether a change of mode or time can be kept (7-Zip's update cannot).
    public static func keepsAttributes(_ archive: FilePath) -> Bool {
        let (descriptor, size, failure) = FileSystem.openForReading(archive)
        if failure != nil { return false }
        defer { close(descriptor) }
        return (try? EditableFormat.detect(archive, descriptor: descriptor, size: size)) != .sevenZip
    }
}

/// The formats the engine writes, told by their first bytes (never by the name).
enum EditableFormat: Equatable {
    case zip, sevenZip
    case tar(ArchiveFormat.Filter)

    static func detect(_ archive: FilePath, descriptor: Int32, size: Int64) throws(ArchiverError) -> EditableFormat {
        let name = archive.lastComponent?.string ?? archive.string
        if try VolumeSet.find(archive).isMultiPart {
            throw ArchiverError(
                .notAnArchive, tr("“%@” is one part of a multi-part archive, which Archiver cannot change; nothing was changed.", name),
                hint: tr("Extract it, change the files, and compress them again."), path: archive.string)
        }
        let start = FileSystem.bytes(descriptor, at: 0, count: Int(min(size, 512))) ?? []
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool { start.count >= offset + magic.count && Array(start[offset..<(offset + magic.count)]) == magic }
        if starts([0x50, 0x4B, 0x03, 0x04]) || starts([0x50, 0x4B, 0x05, 0x06]) { return .zip }
        if starts([0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C]) { return .sevenZip }
        let filter: ArchiveFormat.Filter? =
            if starts([0x1F, 0x8B]) { .gzip }
            else if starts(Array("BZh".utf8)) { .bzip2 }
            else if starts([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]) { .xz }
            else if starts([0x28, 0xB5, 0x2F, 0xFD]) { .zstd }
            else if start.count == 512, TarBlock.isHeader(start) { ArchiveFormat.Filter.none }
            else { nil }
        if let filter {
            // A compressed single file is not an archive that can take entries.
            if filter == .none || TarEditing.startsWithTar(archive) { return .tar(filter) }
            throw ArchiverError(
                .notAnArchive, tr("“%@” is one compressed file, not an archive of entries; nothing was changed.", name),
                hint: tr("Extract it, change the files, and compress them again."), path: archive.string)
        }
        throw ArchiverError(
            .notAnArchive, tr("Archiver cannot change “%@”: only zip, 7z and tar archives (also tar.gz, tar.bz2, tar.xz, tar.zst) can be changed; nothing was changed.", name),
            hint: tr("Extract it, change the files, and compress them again as zip or 7z."), path: archive.string)
    }
}
