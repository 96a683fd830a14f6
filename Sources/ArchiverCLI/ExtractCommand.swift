import ArchiveEngine
import ArchiverCore
import ArgumentParser
import Desktop
import Glibc
import Platform
import SystemPackage

/// `extract-with-archiver`: archives → files, beside them or where `--to` says.
public struct ExtractCommand: ParsableCommand {
    public static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "extract-with-archiver",
            abstract: tr("Extract archives, safely, without overwriting anything.").localized,
            discussion: helpDiscussion(tr("An archive holding one top-level item extracts it as is; otherwise a folder named after the archive holds everything. --entry NAME (repeatable) extracts only those entries (a folder selects everything under it). Put -- before the archives when a name may start with a dash.")),
            version: archiverVersion)
    }

    @Option(name: [.short, .long], help: ArgumentHelp(tr("Extract into this folder (created if missing).")))
    var to: String?

    @Flag(name: [.short, .long], help: ArgumentHelp(tr("List the entries instead of extracting.")))
    var list = false

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
        if list, !entries.isEmpty { throw ValidationError(tr("--list shows every entry, so --entry means nothing with it.").localized) }
        if let encoding, NameDecoder(encoding) == nil {
            throw ValidationError(tr("“%@” is not an encoding this system knows; try CP437, CP932, GBK or CP1252 (iconv -l lists them all).", encoding).localized)
        }
    }

    public func run() throws {
        if job.forgets { try forgetHistory(job) }
        let settings = UserSettings.current
        var raw = RawArguments.current()
        let archivePaths = VolumeName.oncePerSet(archives.map { raw.path(for: $0).madeAbsolute })
        let entries = entries.map { raw.bytes(for: $0) }
        let control = JobControl(budget: settings.budget(flag: job.timeBudget))
        CommandRunner.installSignalHandlers(control, watchesProgress: true)
        let stream = events.stream()
        if list {
            try listArchives(archivePaths, control: control, stream: stream)
            return
        }
        let environment = ProcessEnvironment.current
        var destination = to.map { raw.path(for: $0) }
        if chooseFolder { destination = try Self.askForFolder(near: archivePaths[0], environment: environment) }
        try extractArchives(
            archivePaths, entries: entries, destination: destination, settings: settings, environment: environment, control: control,
            stream: stream)
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
        _ archives: [FilePath], entries: [[UInt8]], destination: FilePath?, settings: ArchiverSettings,
        environment: ProcessEnvironment, control: JobControl, stream: EventStream?
    ) throws {
        let places = ExtractDestination(home: environment.home, environment: environment.variables)
        let userDirs = environment.readFile(places.configFolder.appending("user-dirs.dirs"))
        let options = ExtractOptions(
            folder: destination, fallbackFolder: places.extractLocation(setting: settings.extractLocation, userDirs: userDirs),
            places: places, here: here, selection: entries, keepJunk: keepJunk || (!skipJunk && !settings.skipJunk),
            passwords: Passwords.asker(fromStandardInput: passwordStdin).notCounted(by: control),
            names: encoding.flatMap(NameDecoder.init))
        let report = JobReport(operation: "extract", json: job.json, events: stream)
        // TRANSLATORS: the start of the terminal's progress line.
        let progress = TerminalProgress(label: tr("Extracting").localized, enabled: events.terminalProgress)
        let what = JobSubject(archives)
        let title = what.say({ tr("Extracting “%@”", $0) }, { ntr("Extracting %ld archive", "Extracting %ld archives", $0) })
        let desktop = DesktopFeedback(
            title: title.localized, notify: job.notifications(json: report.json), settings: settings, control: control)
        CommandRunner.onAbandon = {
            report.failed($0, elapsed: progress.elapsed)
            desktop.failed(summary: Self.couldNotExtract(what).localized, $0)
        }
        var results: [JSON] = []
        var failures: [ArchiverError] = []
        var made: [(archive: FilePath, result: ExtractResult)] = []
        // For the statistics: the archive's size (all its parts), taken before --trash-archive moves them.
        var counted: [(before: Int64, after: Int64)] = []
        var warned = false
        for (index, archive) in archives.enumerated() {
            if archives.count > 1 {
                // TRANSLATORS: %1$@ is the archive's name; %2$ld of %3$ld count the archives of the batch.
                desktop.title = tr("Extracting “%1$@” (%2$ld of %3$ld)", archive.lastComponent?.string ?? "", index + 1, archives.count).localized
            }
            do throws(ArchiverError) {
                let result = try Extractor.run(
                    archive: archive, options: options, control: control,
                    progress: {
                        progress.update(done: $0, total: $1)
                        desktop.update(done: $0, total: $1)
                        stream?.progress(done: $0, total: $1)
                    },
                    preflight: { bytes throws(ArchiverError) in
                        if let refusal = BudgetEstimate.checkExtract(archiveBytes: bytes, budget: control.budget) { throw refusal }
                    })
                progress.finish()
                for refused in result.refused {
                    // TRANSLATORS: %1$@ is an entry of the archive; %2$@ the reason, such as “its path is absolute”.
                    report.warn(JobWarning("entry-refused", tr("Refused “%1$@”: %2$@.", refused.path, refused.reason)))
                }
                for warning in result.warnings { report.warn(warning) }
                warned = warned || result.hasWarnings
                if result.output != nil { counted.append((FileSystem.size(of: result.parts), result.bytes)) }
                // Only a complete extraction lets the archive go, and only to the trash.
                if trashArchive ?? settings.trashArchiveAfterExtract, !result.hasWarnings, result.output != nil {
                    do throws(ArchiverError) {
                        for part in result.parts { try Trash.move(part) }
                    } catch {
                        report.warn(JobWarning("trash-failed", error.message))
                        warned = true
                    }
                }
                results.append(Self.json(archive: archive, result: result, error: nil))
                made.append((archive, result))
                if !report.json { Self.describe(archive: archive, result: result) }
            } catch {
                progress.finish()
                printProblem(error)
                failures.append(error)
                results.append(Self.json(archive: archive, result: nil, error: error))
                // Cancellation and the budget stop the whole batch.
                if error.code == .cancelled || error.code == .budget { break }
            }
        }
        Self.notify(desktop, what: what, made: made, failures: failures)
        let status: Int32 =
            if failures.count == results.count, let first = failures.first, failures.count == archives.count {
                first.code.exitStatus
            } else if let stop = failures.first(where: { $0.code == .cancelled || $0.code == .budget }) {
                stop.code.exitStatus
            } else if !failures.isEmpty || warned {
                ExitStatus.warnings
            } else {
                ExitStatus.success
            }
        if report.json { report.emit(exitCode: status, elapsed: progress.elapsed, [("results", .array(results))]) }
        // After the result is shown: a wait for the statistics' lock never delays it.
        recordStatistics(.archiveExtracted, counted, settings: settings)
        desktop.waitForAction()
        throw ExitCode(status)
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

    private static func json(archive: FilePath, result: ExtractResult?, error: ArchiverError?) -> JSON {
        var fields: [(String, JSON)] = [("archive", .string(archive.string))]
        if let result {
            fields += [
                ("output", result.output.map { .string($0.string) } ?? .null),
                ("format", .string(result.format)), ("nameEncoding", result.nameEncoding.map(JSON.string) ?? .null),
                ("files", .int(result.files)), ("folders", .int(result.folders)), ("symlinks", .int(result.symlinks)),
                ("bytes", .int(result.bytes)),
                ("refused", .array(result.refused.map { .object([("path", .string($0.path)), ("reason", .string($0.reason.english)), ("reasonCode", .string($0.refusal.code))]) })),
                ("skippedJunk", .array(result.skippedJunk.map(JSON.string))),
            ] + JobReport.json(result.warnings)
        } else {
            fields += [
                ("output", .null), ("format", .null), ("nameEncoding", .null), ("files", .int(0)), ("folders", .int(0)), ("symlinks", .int(0)),
                ("bytes", .int(0)), ("refused", .array([])), ("skippedJunk", .array([])),
            ] + JobReport.json([])
        }
        fields.append(("error", error.map(JobReport.json) ?? .null))
        return .object(fields)
    }

    /// `--list`; with `--progress-json`, each entry is also an event as soon as it is read.
    private func listArchives(_ archives: [FilePath], control: JobControl, stream: EventStream?) throws {
        let report = JobReport(operation: "list", json: job.json, events: stream)
        let clock = ContinuousClock()
        let start = clock.now
        CommandRunner.onAbandon = {
            report.failed($0, elapsed: (clock.now - start).inSeconds)
        }
        var listed: [JSON] = []
        var firstFailure: ArchiverError?
        var failures = 0
        for archive in archives {
            do {
                let (format, entries, names) = try Extractor.list(
                    archive: archive, control: control,
                    passwords: Passwords.asker(fromStandardInput: passwordStdin, nothingMade: tr("nothing was listed")).notCounted(by: control),
                    names: encoding.flatMap(NameDecoder.init), each: { stream?.entry(Self.fields($0)) })
                // The stream's result counts the entries it already carried: repeating 100,000 of them in one
                // line would double what the reader (a window) holds.
                let listing: (String, JSON) =
                    stream == nil ? ("entries", .array(entries.map { .object(Self.fields($0)) })) : ("entryCount", .int(entries.count))
                listed.append(.object([
                    ("archive", .string(archive.string)), ("format", .string(format)),
                    ("nameEncoding", names.map(JSON.string) ?? .null), listing, ("error", .null),
                ]))
                if !report.json {
                    Self.printListing(archive: archive, format: format, names: names, entries: entries, several: archives.count > 1)
                }
            } catch {
                printProblem(error)
                firstFailure = firstFailure ?? error
                failures += 1
                let none: (String, JSON) = stream == nil ? ("entries", .array([])) : ("entryCount", .int(0))
                listed.append(.object([("archive", .string(archive.string)), none, ("error", JobReport.json(error))]))
            }
        }
        let status: Int32 =
            if let firstFailure { failures == archives.count ? firstFailure.code.exitStatus : ExitStatus.warnings } else { 0 }
        if report.json { report.emit(exitCode: status, elapsed: (clock.now - start).inSeconds, [("archives", .array(listed))]) }
        throw ExitCode(status)
    }

    /// An entry of `--list --json`, and of `--progress-json`'s entry events.
    private static func fields(_ entry: ArchiveEntryInfo) -> [(String, JSON)] {
        [
            ("path", .string(entry.path.displayName)), ("type", .string(entry.kind.rawValue)),
            ("size", entry.size.map(JSON.int) ?? .null), ("packedSize", entry.packedSize.map(JSON.int) ?? .null),
            ("mtime", entry.modified.map { .string(HumanFormat.iso8601($0)) } ?? .null),
            ("encrypted", .bool(entry.encrypted)),
            ("linkTarget", entry.linkTarget.map { .string($0.displayName) } ?? .null),
        ]
    }

    private static func printListing(
        archive: FilePath, format: String, names: String?, entries: [ArchiveEntryInfo], several: Bool
    ) {
        if several { print("\(archive):") }
        print(tr("Format: %@", format).localized)
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
