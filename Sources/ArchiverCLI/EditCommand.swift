import ArchiveEngine
import ArchiverCore
import ArgumentParser
import Desktop
import JobKit
import JobProtocol
import Platform
import SystemPackage

/// `edit-with-archiver`: adds, replaces, deletes and renames entries of an existing archive, in one commit
/// that replaces the archive only when the new one is complete.
public struct EditCommand: ParsableCommand {
    public static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "edit-with-archiver",
            abstract: tr("Change an archive: add, replace, delete and rename entries.").localized,
            usage: "edit-with-archiver ARCHIVE --add FILE... [--into PATH]\nedit-with-archiver ARCHIVE --delete ENTRY...\nedit-with-archiver ARCHIVE --rename ENTRY NEWPATH",
            discussion: helpDiscussion(tr("zip, 7z and tar archives (also tar.gz, tar.bz2, tar.xz, tar.zst) can be changed; untouched entries are copied without recompressing. The new archive replaces the old one only once it is complete; if another program changed the archive meanwhile, it is saved beside it as “NAME (edited).zip”. Deletions come first, then renames, then additions.")),
            version: archiverVersion(library: ArchiveEngineSetup.libarchiveVersion))
    }

    @Option(parsing: .upToNextOption, help: ArgumentHelp(tr("Add these files and folders (folders with everything in them)."), valueName: "FILE"))
    var add: [String] = []

    @Option(help: ArgumentHelp(tr("The folder inside the archive that --add puts the files in (\"\" = the top, the default)."), valueName: "PATH"))
    var into: String?

    @Option(parsing: .upToNextOption, help: ArgumentHelp(tr("Delete these entries (a folder with everything in it)."), valueName: "ENTRY"))
    var delete: [String] = []

    @Option(parsing: .upToNextOption, help: ArgumentHelp(tr("Rename or move an entry (a folder with everything in it): --rename ENTRY NEWPATH."), valueName: "ENTRY NEWPATH"))
    var rename: [String] = []

    @Flag(help: ArgumentHelp(tr("An added or renamed entry replaces one of the same name (else that is an error and nothing changes).")))
    var replace = false

    @Flag(help: ArgumentHelp(tr("Move the archive as it was to the trash, so that the change can be undone.")))
    var keepPrevious = false

    @Flag(help: ArgumentHelp(tr("Read the password of an encrypted archive from one line of standard input, for scripts.")))
    var passwordStdin = false

    @OptionGroup var job: JobOptions

    @OptionGroup var events: EventOptions

    @Argument(help: ArgumentHelp(tr("The archive to change.")))
    var archive: String?

    public init() {}

    public func validate() throws {
        if job.forgets { return }
        guard archive != nil else { throw ValidationError(tr("Name the archive to change.").localized) }
        if add.isEmpty, delete.isEmpty, rename.isEmpty {
            throw ValidationError(tr("Say what to change: --add FILE..., --delete ENTRY... or --rename ENTRY NEWPATH.").localized)
        }
        if !rename.isEmpty, rename.count != 2 {
            throw ValidationError(tr("--rename takes two names: the entry and its new path.").localized)
        }
        if into != nil, add.isEmpty { throw ValidationError(tr("--into says where --add puts the files; add --add FILE.").localized) }
    }

    public func run() throws {
        if job.forgets { try forgetHistory(job) }
        var raw = RawArguments.current()
        let archivePath = raw.path(for: archive ?? "").madeAbsolute
        let name = archivePath.lastComponent?.string ?? archivePath.string
        let session = JobSession(
            operation: EditOutcome.operation, job: job, events: events, label: tr("Changing"), title: tr("Changing “%@”", name),
            couldNot: tr("Could not change “%@”", name), watchesProgress: true)
        let edits = Result { () throws(ArchiverError) in try self.edits(&raw) }
        let changes = try edits.get(or: session)
        let previous = keepPrevious
            ? PreviousVersion(
                keep: { archive throws(ArchiverError) in
                    do throws(ArchiverError) { try Trash.move(archive) } catch {
                        throw ArchiverError(
                            .destination, tr("“%@” could not be moved to the trash, so it was not changed.", archive.lastComponent?.string ?? ""),
                            hint: tr("Try again without --keep-previous."), path: archive.string)
                    }
                }, restore: { _ = Trash.restore($0) })
            : nil
        let result = Result { () throws(ArchiverError) -> EditResult in
            let editing = try ArchiveEditSession(archive: archivePath, keepPrevious: previous)
            return try editing.commit(
                changes, replacing: replace, level: session.settings.compressionLevel,
                passwords: Passwords.asker(fromStandardInput: passwordStdin, nothingMade: tr("nothing was changed")).notCounted(by: session.control),
                control: session.control, progress: session.progressHandler)
        }
        let edited = try result.get(or: session)
        session.endProgress()
        for warning in edited.warnings { session.warn(warning) }
        session.tally.succeeded += 1
        let summary = Self.summary(edited)
        if !session.json { print(tr("Changed “%1$@”: %2$@.", edited.output.lastComponent?.string ?? name, summary).localized) }
        throw session.finish(outcome: Self.outcome(archivePath, edited)) {
            session.desktop.succeeded(
                summary: tr("Changed “%@”", edited.output.lastComponent?.string ?? name).localized, body: summary.localized,
                item: edited.output, attachable: edited.output)
        }
    }

    /// The changes the flags ask for, in their order: deletions, the rename, additions.
    private func edits(_ raw: inout RawArguments) throws(ArchiverError) -> [ArchiveEdit] {
        var edits: [ArchiveEdit] = delete.map { .delete(raw.bytes(for: $0)) }
        if rename.count == 2 {
            let (from, to) = (raw.bytes(for: rename[0]), raw.bytes(for: rename[1]))
            try EditPlan.checkName(to)
            edits.append(.rename(from, to: to))
        }
        let folder = EditPlan.key(into.map { raw.bytes(for: $0) } ?? [])
        if !folder.isEmpty { try EditPlan.checkName(folder) }
        for file in add {
            let path = raw.path(for: file)
            let name = Array(path.madeAbsolute.lexicallyNormalized().bytes.split(separator: UInt8(ascii: "/")).last ?? [])
            guard !name.isEmpty else {
                throw ArchiverError(.usage, tr("“%@” has no name to store it under.", file), hint: tr("Name the file or folder itself."))
            }
            edits.append(.add(path, at: folder.isEmpty ? name : folder + [UInt8(ascii: "/")] + name))
        }
        return edits
    }

    /// “2 added, 1 deleted”, or “nothing changed”.
    static func summary(_ result: EditResult) -> Text {
        var parts: [Text] = []
        // TRANSLATORS: counts of entries in the summary of a change, joined by commas.
        if !result.added.isEmpty { parts.append(ntr("%ld added", "%ld added", result.added.count)) }
        if !result.replaced.isEmpty { parts.append(ntr("%ld replaced", "%ld replaced", result.replaced.count)) }
        if !result.deleted.isEmpty { parts.append(ntr("%ld deleted", "%ld deleted", result.deleted.count)) }
        if !result.renamed.isEmpty { parts.append(ntr("%ld renamed", "%ld renamed", result.renamed.count)) }
        return parts.isEmpty ? tr("nothing changed") : Text.sentences(parts, separator: ", ")
    }

    static func outcome(_ archive: FilePath, _ result: EditResult) -> EditOutcome {
        EditOutcome(
            archive: archive.string, added: result.added.map(\.displayName), replaced: result.replaced.map(\.displayName),
            deleted: result.deleted.map(\.displayName),
            renamed: result.renamed.map { .init(from: $0.from.displayName, to: $0.to.displayName) }, output: result.output.string,
            previous: result.previous?.string)
    }
}
