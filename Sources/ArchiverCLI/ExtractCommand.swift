import ArchiveEngine
import ArchiverCore
import ArgumentParser
import Desktop
import Glibc
import JobKit
import JobProtocol
import Platform
import SystemPackage

/// `extract-with-archiver`: archives → files, beside them or where `--to` says.
public struct ExtractCommand: ParsableCommand {
    public static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "extract-with-archiver",
            abstract: tr("Extract archives, safely, without overwriting anything.").localized,
            discussion: helpDiscussion(tr("An archive holding one top-level item extracts it as is; otherwise a folder named after the archive holds everything. --entry NAME (repeatable) extracts only those entries (a folder selects everything under it). Put -- before the archives when a name may start with a dash.")),
            version: archiverVersion(library: ArchiveEngineSetup.libarchiveVersion))
    }

    @Option(name: [.short, .long], help: ArgumentHelp(tr("Extract into this folder (created if missing).")))
    var to: String?

    @Flag(name: [.short, .long], help: ArgumentHelp(tr("List the entries instead of extracting.")))
    var list = false

    @Flag(help: ArgumentHelp(tr("Test the archives instead of extracting: read every entry through to its end and check what the format stores (CRC-32, stream checksums); writes nothing.")))
    var test = false

    @Flag(inversion: .prefixedNo, help: ArgumentHelp(tr("Also extract the archives found inside, each in its place (never documents or packages such as .docx, .jar, .deb), up to 8 levels deep (default: the extract-nested setting, off).")))
    var nested: Bool?

    @Flag(help: ArgumentHelp(tr("With --list: also compute the SHA-256 of each archive file (--json's sha256).")))
    var checksum = false

    @Flag(help: ArgumentHelp(tr("Ask for the folder to extract into (kdialog on KDE, else zenity): the menus' \"Extract to…\".")))
    var chooseFolder = false

    @Flag(help: ArgumentHelp(tr("Extract beside the archive even when it lies in a temporary folder (the menus' \"Extract Here\"); the extract-location setting only when that folder cannot be written.")))
    var here = false

    @Flag(help: ArgumentHelp(tr("Also extract macOS junk (__MACOSX/, ._*, .DS_Store); the skip-junk setting's opposite.")))
    var keepJunk = false

    @Flag(help: ArgumentHelp(tr("Skip macOS junk even when the skip-junk setting is off.")))
    var skipJunk = false

    @Flag(inversion: .prefixedNo, help: ArgumentHelp(tr("Move each archive to the trash once it is fully extracted, or keep it (default: the trash-archive-after-extract setting).")))
    var trashArchive: Bool?

    @Flag(help: ArgumentHelp(tr("Read the password of encrypted archives from one line of standard input, for scripts.")))
    var passwordStdin = false

    @Option(help: ArgumentHelp(tr("Read names stored without the UTF-8 flag in this code page (CP437, CP932, GBK, CP1252, … as iconv names them); default: guessed from all of a zip's names."), valueName: "NAME"))
    var encoding: String?

    @Option(name: .customLong("entry"), help: ArgumentHelp(tr("Extract only this entry (repeatable); a folder selects everything under it.")))
    var entries: [String] = []

    @OptionGroup var job: JobOptions

    @OptionGroup var events: EventOptions

    @Argument(help: ArgumentHelp(tr("Archives to extract.")))
    var archives: [String] = []

    public init() {}

    public func validate() throws {
        if job.forgets { return }
        if archives.isEmpty { throw ValidationError(tr("Name at least one archive to extract.").localized) }
        if list, to != nil || chooseFolder { throw ValidationError(tr("--list does not extract, so --to and --choose-folder mean nothing with it.").localized) }
        if to != nil, chooseFolder { throw ValidationError(tr("Use either --to or --choose-folder, not both.").localized) }
        if here, list || to != nil || chooseFolder {
            throw ValidationError(tr("--here extracts beside the archive, so --list, --to and --choose-folder mean nothing with it.").localized)
        }
        if keepJunk, skipJunk { throw ValidationError(tr("Use either --keep-junk or --skip-junk, not both.").localized) }
        if test, list || to != nil || chooseFolder || here || !entries.isEmpty || trashArchive != nil {
            throw ValidationError(tr("--test writes nothing, so --list, --to, --choose-folder, --here, --entry and --trash-archive mean nothing with it.").localized)
        }
        if checksum, !list { throw ValidationError(tr("--checksum goes with --list.").localized) }
        if list, !entries.isEmpty { throw ValidationError(tr("--list shows every entry, so --entry means nothing with it.").localized) }
        if let encoding, NameDecoder(encoding) == nil {
            throw ValidationError(tr("“%@” is not an encoding this system knows; try CP437, CP932, GBK or CP1252 (iconv -l lists them all).", encoding).localized)
        }
    }

    public func run() throws {
        if job.forgets { try forgetHistory(job) }
        var raw = RawArguments.current()
        let archivePaths = VolumeName.oncePerSet(archives.map { raw.path(for: $0).madeAbsolute })
        if list { throw listArchives(archivePaths) }
        if test { throw testArchives(archivePaths) }
        let what = JobSubject(archivePaths)
        // Started before the folder dialog, as the job's signals and budget always were.
        let session = JobSession(
            operation: ExtractOutcome.operation, job: job, events: events, label: tr("Extracting"),
            title: what.say({ tr("Extracting “%@”", $0) }, { ntr("Extracting %ld archive", "Extracting %ld archives", $0) }),
            couldNot: Self.couldNotExtract(what), watchesProgress: true)
        let environment = ProcessEnvironment.current
        var destination = to.map { raw.path(for: $0) }
        if chooseFolder { destination = try Self.askForFolder(near: archivePaths[0], environment: environment) }
        throw extractArchives(
            archivePaths, entries: entries.map { raw.bytes(for: $0) }, destination: destination, environment: environment,
            session: session)
    }

    /// "Extract to…": the folder the person picks; cancelling the dialog cancels the job.
    private static func askForFolder(near archive: FilePath, environment: ProcessEnvironment) throws -> FilePath {
        // TRANSLATORS: the title of the folder chooser; %@ is the archive.
        let title = tr("Extract “%@” to", archive.lastComponent?.string ?? "")
        switch FolderChooser.ask(
            title: title.localized, startingAt: archive.removingLastComponent(), currentDesktop: environment.variables["XDG_CURRENT_DESKTOP"])
        {
        case .chosen(let folder): return folder
        case .cancelled:
            printError(tr("Cancelled; nothing was extracted.").localized)
            throw ExitCode(ArchiverError.Code.cancelled.exitStatus)
        case .unavailable:
            printProblem(ArchiverError(
                .usage, tr("No folder chooser is installed."), hint: tr("Install zenity (or kdialog on KDE), or use --to FOLDER.")))
            throw ExitCode(ArchiverError.Code.usage.exitStatus)
        }
    }

    private func extractArchives(
        _ archives: [FilePath], entries: [[UInt8]], destination: FilePath?, environment: ProcessEnvironment, session: JobSession
    ) -> ExitCode {
        let options = extractOptions(entries: entries, destination: destination, environment: environment, session: session)
        var results: [ExtractOutcome.Archive] = []
        var made: [(archive: FilePath, result: ExtractResult)] = []
        var failures: [ArchiverError] = []
        // For the statistics: the archive's size (all its parts), taken before --trash-archive moves them.
        var counted: [(before: Int64, after: Int64)] = []
        for (index, archive) in archives.enumerated() {
            if archives.count > 1 {
                // TRANSLATORS: %1$@ is the archive's name; %2$ld of %3$ld count the archives of the batch.
                session.desktop.title = tr("Extracting “%1$@” (%2$ld of %3$ld)", archive.lastComponent?.string ?? "", index + 1, archives.count).localized
            }
            do throws(ArchiverError) {
                let result = try extract(archive, options: options, session: session)
                if result.output != nil { counted.append((FileSystem.size(of: result.parts), result.bytes)) }
                trashIfAsked(result, session: session)
                results.append(Self.outcome(archive: archive, result: result))
                made.append((archive, result))
                session.tally.succeeded += 1
                if !session.json { Self.describe(archive: archive, result: result) }
            } catch {
                session.itemFailed(error)
                failures.append(error)
                var failed = ExtractOutcome.Archive(archive: archive.string)
                failed.error = ErrorReport(error)
                results.append(failed)
                // Cancellation and the budget stop the whole batch.
                if error.code == .cancelled || error.code == .budget { break }
            }
        }
        Self.notify(session.desktop, what: JobSubject(archives), made: made, failures: failures)
        return session.finish(outcome: ExtractOutcome(results: results), statistics: (.archiveExtracted, counted))
    }

    /// The flags and settings every archive of the run is extracted with.
    private func extractOptions(entries: [[UInt8]], destination: FilePath?, environment: ProcessEnvironment, session: JobSession) -> ExtractOptions {
        let settings = session.settings
        let places = ExtractDestination(home: environment.home, environment: environment.variables)
        let userDirs = environment.readFile(places.configFolder.appending("user-dirs.dirs"))
        return ExtractOptions(
            folder: destination, fallbackFolder: places.extractLocation(setting: settings.extractLocation, userDirs: userDirs),
            places: places, here: here, selection: entries, keepJunk: keepJunk || (!skipJunk && !settings.skipJunk),
            passwords: Passwords.asker(fromStandardInput: passwordStdin).notCounted(by: session.control),
            names: encoding.flatMap(NameDecoder.init))
    }

    /// One archive, and the archives inside it when asked; its refusals and warnings said.
    private func extract(_ archive: FilePath, options: ExtractOptions, session: JobSession) throws(ArchiverError) -> ExtractResult {
        let result = try Extractor.run(
            archive: archive, options: options, control: session.control, progress: session.progressHandler,
            preflight: { bytes throws(ArchiverError) in
                if let refusal = BudgetEstimate.checkExtract(archiveBytes: bytes, budget: session.control.budget) { throw refusal }
            })
        if nested ?? session.settings.extractNested, let output = result.output {
            let inside = try NestedExtraction.run(
                in: output, written: result.bytes, archiveBytes: FileSystem.size(of: result.parts), options: options,
                control: session.control)
            for warning in inside.warnings { session.warn(warning) }
        }
        session.endProgress()
        report(result, session)
        return result
    }

    /// `--trash-archive` (or its setting): only a complete extraction lets the archive go, and only to the trash.
    private func trashIfAsked(_ result: ExtractResult, session: JobSession) {
        guard trashArchive ?? session.settings.trashArchiveAfterExtract, !result.hasWarnings, result.output != nil else { return }
        do throws(ArchiverError) {
            for part in result.parts { try Trash.move(part) }
        } catch {
            session.warn(JobWarning("trash-failed", error.message))
        }
    }

    /// An archive's refused entries and warnings, as warnings of the job.
    private func report(_ result: ExtractResult, _ session: JobSession) {
        for refused in result.refused {
            // TRANSLATORS: %1$@ is an entry of the archive; %2$@ the reason, such as “its path is absolute”.
            session.warn(JobWarning("entry-refused", tr("Refused “%1$@”: %2$@.", refused.path, refused.reason)))
        }
        for warning in result.warnings { session.warn(warning) }
        if result.hasWarnings { session.tally.warned = true }
    }

    private static func couldNotExtract(_ what: JobSubject) -> Text {
        what.say({ tr("Could not extract “%@”", $0) }, { ntr("Could not extract %ld archive", "Could not extract %ld archives", $0) })
    }

    /// One result notification for the whole batch: the folder and item count, or the first failure.
    private static func notify(
        _ desktop: DesktopFeedback, what: JobSubject, made: [(archive: FilePath, result: ExtractResult)], failures: [ArchiverError]
    ) {
        if made.isEmpty, let failure = failures.first {
            desktop.failed(summary: couldNotExtract(what).localized, failure)
            return
        }
        let outputs = made.compactMap { $0.result.output }
        let files = made.reduce(0) { $0 + $1.result.files }
        let folders = made.reduce(0) { $0 + $1.result.folders }
        let symlinks = made.reduce(0) { $0 + $1.result.symlinks }
        let counts = countWords(files: files, folders: folders, symlinks: symlinks)
        var lines = [counts]
        if let only = outputs.first, outputs.count == 1 {
            // TRANSLATORS: %1$@ “3 files, 1 folder”, %2$@ the folder or file made; the next line says where it is.
            lines = [tr("%1$@ → %2$@", counts, only.lastComponent?.string ?? ""), tr("in %@", only.removingLastComponent())]
        }
        if let failure = failures.first {
            // TRANSLATORS: %2$@ is the first failed archive's error.
            lines.append(ntr("%1$ld archive failed: %2$@", "%1$ld archives failed: %2$@", failures.count, failure.message))
        }
        let summary = what.say({ tr("Extracted “%@”", $0) }, { ntr("Extracted %ld archive", "Extracted %ld archives", $0) })
        desktop.succeeded(summary: summary.localized, body: Text.sentences(lines, separator: "\n").localized, item: outputs.first)
    }

    private static func describe(archive: FilePath, result: ExtractResult) {
        let name = archive.lastComponent?.string ?? archive.string
        if let output = result.output {
            let counts = countWords(files: result.files, folders: result.folders, symlinks: result.symlinks)
            // TRANSLATORS: %1$@ the archive, %2$@ the folder or file made, %3$@ “3 files, 1 folder”.
            print(tr("Extracted “%1$@” to %2$@ (%3$@).", name, output, counts).localized)
        } else {
            print(tr("“%@” holds nothing to extract.", name).localized)
        }
        if let junk = result.skippedJunk.first {
            let count = result.skippedJunk.count
            // TRANSLATORS: %2$@ is the first skipped name, such as “__MACOSX/a.jpg”.
            printError(ntr("Skipped %1$ld macOS junk item, “%2$@”; --keep-junk keeps it.", "Skipped %1$ld macOS junk items such as “%2$@”; --keep-junk keeps them.", count, junk).localized)
        }
    }

    private static func outcome(archive: FilePath, result: ExtractResult) -> ExtractOutcome.Archive {
        var outcome = ExtractOutcome.Archive(archive: archive.string)
        outcome.output = result.output?.string
        outcome.format = result.format
        outcome.nameEncoding = result.nameEncoding
        outcome.files = Int64(result.files)
        outcome.folders = Int64(result.folders)
        outcome.symlinks = Int64(result.symlinks)
        outcome.bytes = result.bytes
        outcome.refused = result.refused.map { .init(path: $0.path, reason: $0.reason.english, reasonCode: $0.refusal.code) }
        outcome.skippedJunk = result.skippedJunk
        outcome.warnings = result.warnings.map(WarningEvent.init)
        return outcome
    }

    /// `--list`; with `--progress-json`, each entry is also an event as soon as it is read.
    private func listArchives(_ archives: [FilePath]) -> ExitCode {
        let session = JobSession(
            operation: ListOutcome.operation, job: job, events: events, label: tr("Listing"), title: .verbatim(""),
            couldNot: .verbatim(""), watchesProgress: true, notifies: false)
        let stream = session.stream
        var listed: [ListOutcome.Archive] = []
        for archive in archives {
            do {
                var (format, entries, names, properties) = try Extractor.list(
                    archive: archive, control: session.control,
                    passwords: Passwords.asker(fromStandardInput: passwordStdin, nothingMade: tr("nothing was listed")).notCounted(by: session.control),
                    names: encoding.flatMap(NameDecoder.init), each: { stream?.entry(Self.listed($0)) })
                // The stream's result counts the entries it already carried: repeating 100,000 of them in one
                // line would double what the reader (a window) holds.
                var item = ListOutcome.Archive(
                    archive: archive.string, format: format, nameEncoding: names,
                    entries: stream == nil ? entries.map(Self.listed) : nil, entryCount: Int64(entries.count), error: nil)
                let sha256 = checksum ? try FileChecksum.sha256(of: archive, control: session.control) : nil
                var facts = properties
                facts.sha256 = sha256
                item.properties = facts
                listed.append(item)
                session.tally.succeeded += 1
                if !session.json {
                    Self.printListing(
                        archive: archive, format: format, names: names, entries: entries, several: archives.count > 1,
                        comment: properties.comment, sha256: sha256)
                }
                entries = []
            } catch {
                session.itemFailed(error)
                listed.append(.init(
                    archive: archive.string, format: nil, nameEncoding: nil, entries: stream == nil ? [] : nil, entryCount: 0,
                    error: ErrorReport(error)))
            }
        }
        return session.finish(outcome: ListOutcome(archives: listed))
    }

    /// An entry of `--list --json`, and of `--progress-json`'s entry events.
    private static func listed(_ entry: ArchiveEntryInfo) -> ListedEntry {
        ListedEntry(
            path: entry.path.displayName, type: entry.kind.rawValue, size: entry.size, packedSize: entry.packedSize,
            mtime: entry.modified.map(HumanFormat.iso8601), encrypted: entry.encrypted, linkTarget: entry.linkTarget?.displayName,
            crc32: entry.crc32.map(Self.hex))
    }

    /// `1A2B3C4D`, as 7-Zip shows a CRC.
    static func hex(_ crc: UInt32) -> String {
        let digits = String(crc, radix: 16, uppercase: true)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }

    private static func printListing(
        archive: FilePath, format: String, names: String?, entries: [ArchiveEntryInfo], several: Bool, comment: String?,
        sha256: String?
    ) {
        if several { print("\(archive):") }
        print(tr("Format: %@", format).localized)
        // TRANSLATORS: the archive's comment follows on the next lines, as its author wrote it.
        if let comment { print(tr("Comment:").localized + "\n" + comment) }
        if let sha256 { print("SHA-256: \(sha256)") }
        // TRANSLATORS: %@ is the code page the names were read in, such as CP437.
        if let names { print(tr("Names: %@ (stored without the UTF-8 flag; --encoding NAME reads them otherwise)", names).localized) }
        for entry in entries {
            let size = entry.size.map { String($0) } ?? "-"
            let packed = entry.packedSize.map { String($0) } ?? "-"
            let time = entry.modified.map(Formatters.date) ?? "-"
            let link = entry.linkTarget.map { " -> \($0.displayName)" } ?? ""
            let kind = Self.word(for: entry.kind).localized.padding(10)
            print("\(kind) \(size.padding(12, left: true)) \(packed.padding(12, left: true)) \(time) \(entry.encrypted ? "E" : "-") \(entry.path.displayName)\(link)")
        }
        print(ntr("%ld entry", "%ld entries", entries.count).localized)
    }

    /// The listing's first column, for a person (`--json` keeps the kind's code).
    private static func word(for kind: ArchiveEntryInfo.Kind) -> Text {
        switch kind {
        case .file: ptr("entry type", "file")
        case .directory: ptr("entry type", "directory")
        case .symlink: ptr("entry type", "symlink")
        case .hardlink: ptr("entry type", "hardlink")
        case .characterDevice: ptr("entry type", "character-device")
        case .blockDevice: ptr("entry type", "block-device")
        case .fifo: ptr("entry type", "fifo")
        case .socket: ptr("entry type", "socket")
        }
    }
}

extension String {
    fileprivate func padding(_ width: Int, left: Bool = false) -> String {
        let pad = String(repeating: " ", count: max(0, width - count))
        return left ? pad + self : self + pad
    }
}
