import ArchiveEngine
import ArchiverCore
import ArgumentParser
import Desktop
import JobKit
import JobProtocol
import Platform
import SystemPackage

extension ArchiveFormat: ExpressibleByArgument {}
extension CompressionLevel: ExpressibleByArgument {}

/// `compress-with-archiver`: files and folders → one archive beside them.
public struct CompressCommand: ParsableCommand {
    public static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "compress-with-archiver",
            abstract: tr("Compress files and folders into one archive.").localized,
            discussion: helpDiscussion(tr("One item a.pdf becomes a.zip beside it, a folder Photos becomes Photos.zip holding Photos/, several items become Archive.zip in their common folder. Nothing is overwritten: Archive (2).zip, (3)…")),
            version: archiverVersion(library: ArchiveEngineSetup.libarchiveVersion))
    }

    @Option(name: [.short, .long], help: ArgumentHelp(tr("zip, 7z, tar, tar.gz, tar.bz2, tar.xz, tar.zst, gz, bz2, xz or zst (default: the default-format setting, zip).")))
    var format: ArchiveFormat?

    @Option(name: [.short, .long], help: ArgumentHelp(tr("store, fast, normal (each library's default) or maximum (default: the compression-level setting, normal).")))
    var level: CompressionLevel?

    @Option(name: [.short, .long], help: ArgumentHelp(tr("Write exactly this file; fails if it exists.")))
    var output: String?

    @Option(name: [.short, .long], help: ArgumentHelp(tr("Name of the archive, in the folder of the inputs.")))
    var name: String?

    @Flag(help: ArgumentHelp(tr("Make one archive per item instead of one for all (the menus' \"Compress Each Separately\").")))
    var each = false

    // TRANSLATORS: NAME and SIZE are the placeholders shown in the usage line; keep them, and 700k, 100M, 4092M, 0 and ask.
    @Option(help: ArgumentHelp(tr("Split the archive into parts NAME.001, NAME.002, … of SIZE each: 700k, 100M, 4092M (KiB, MiB, GiB); 0 for one file; ask shows a dialog (default: the split-size setting, off)."), valueName: "SIZE"))
    var split: String?

    @Flag(help: ArgumentHelp(tr("Protect the archive with a password, asked twice (zip: AES-256; 7z: AES-256 with hidden names).")))
    var encrypt = false

    @Flag(help: ArgumentHelp(tr("Read the password for --encrypt from one line of standard input, for scripts.")))
    var passwordStdin = false

    /// Nemo's `Conditions=exec`, run at each right-click: exit 0 (show "Compress") unless every item is an
    /// archive, then 1. Reads only the items' types; compresses nothing.
    @Flag(help: .private)
    var menuCondition = false

    @OptionGroup var finishing: FinishingOptions

    @OptionGroup var converting: ConvertOptions

    // TRANSLATORS: headings of --help's sections.
    @OptionGroup(title: tr("Leaving out").localized) var leaveOut: LeaveOutOptions

    @OptionGroup(title: tr("Will it open for them?").localized) var portability: PortabilityOptions

    @OptionGroup var job: JobOptions

    @OptionGroup var events: EventOptions

    @Argument(help: ArgumentHelp(tr("Files and folders to compress.")))
    var files: [String] = []

    public init() {}

    public func validate() throws {
        if job.forgets || menuCondition { return }
        if files.isEmpty { throw ValidationError(tr("Name at least one file or folder to compress.").localized) }
        if output != nil, name != nil { throw ValidationError(tr("Use either --output or --name, not both.").localized) }
        if each, output != nil || name != nil { throw ValidationError(tr("--each names each archive after its item, so --output and --name mean nothing with it.").localized) }
        try converting.validate(format: format, each: each, output: output, name: name, split: split)
        if passwordStdin, !encrypt, !converting.convert { throw ValidationError(tr("--password-stdin gives the password for --encrypt; add --encrypt.").localized) }
        try finishing.validate(format: format, split: split)
        if let split, split != "ask", split != "0", PartSize.parse(split) == nil {
            throw ValidationError(tr("--split takes a size such as 700k, 100M or 4092M (at least 1k), not “%@”.", split).localized)
        }
    }

    /// The part size: `--split`, the dialog for `--split ask`, else the split-size setting.
    private func askPartSize(settings: ArchiverSettings, what: JobSubject) throws(ArchiverError) -> Int64? {
        guard let split else { return settings.splitSize }
        if split == "0" { return nil }
        if split != "ask" { return PartSize.parse(split) }
        // TRANSLATORS: the title of the dialog that asks for the size of the parts.
        let title = what.say({ tr("Compress “%@” in parts", $0) }, { ntr("Compress %ld item in parts", "Compress %ld items in parts", $0) })
        switch PartSizeChooser.ask(title: title.localized, currentDesktop: ProcessEnvironment.current.variables["XDG_CURRENT_DESKTOP"]) {
        case .chosen(let answer):
            guard let size = PartSize.parse(answer) else {
                throw ArchiverError(.usage, tr("“%@” is not a part size.", answer), hint: tr("Write it as 700k, 100M or 4G."))
            }
            return size
        case .cancelled: throw ArchiverError(.cancelled, tr("Cancelled; nothing was compressed."))
        case .unavailable:
            throw ArchiverError(
                .usage, tr("No dialog program is installed to ask for the part size."), hint: tr("Install zenity (or kdialog on KDE), or give --split SIZE."))
        }
    }

    public func run() throws {
        if menuCondition { throw menuAnswer() }
        if job.forgets { try forgetHistory(job) }
        let settings = UserSettings.current
        // "Compress with Password…" keeps the default format when it can carry a password, else zip.
        let format = format ?? (encrypt && !settings.defaultFormat.canEncrypt ? .zip : settings.defaultFormat)
        let level = level ?? settings.compressionLevel
        var raw = RawArguments.current()
        let inputs = files.map { raw.path(for: $0) }
        let destination: CompressPlan.Destination =
            if let output { .path(raw.path(for: output)) } else if let name { .name(raw.bytes(for: name)) } else { .automatic }
        if converting.convert { try convertArchives(inputs.map(\.madeAbsolute), format: format, level: level, settings: settings) }
        let what = JobSubject(inputs)
        // Asked before the job's clock starts: the time budget is for compressing, not for typing.
        let asked = Result { () throws(ArchiverError) in
            (try askPartSize(settings: settings, what: what),
             try encrypt && !portability.check ? Self.password(for: what, format: format, fromStandardInput: passwordStdin) : nil)
        }
        let session = startSession(what, settings: settings)
        // From a menu there is no terminal: the notification is where "install zenity" is read.
        let (partSize, password) = try asked.get(or: session)
        if finishing.comment != nil, format != .zip || partSize != nil {
            throw session.failed(ArchiverError(.usage, tr("--comment is stored in zip archives of one part only."), hint: tr("Add --format zip, without --split.")))
        }
        let choices = Choices(
            format: format, level: level, destination: destination, partSize: partSize, password: password,
            verifies: finishing.verifies(settings))
        // --each: one job after another, each named after its item; the batch goes on past a failure.
        let (made, failures) = try compressGroups(each ? inputs.map { [$0] } : [inputs], choices, session: session)
        throw finish(made: made, failures: failures, verifies: choices.verifies, session: session)
    }

    /// What every archive of the run is made with.
    private struct Choices {
        var format: ArchiveFormat
        var level: CompressionLevel
        var destination: CompressPlan.Destination
        var partSize: Int64?
        var password: Secret?
        var verifies: Bool
    }

    /// Nemo's condition: exit 1 (no "Compress") when every item is an archive, else 0.
    private func menuAnswer() -> ExitCode {
        var raw = RawArguments.current()
        let types = files.map { ContentType.of(raw.path(for: $0)) }
        return ExitCode(MenuSelection.isArchivesOnly(types, isA: ContentType.isA) ? 1 : 0)
    }

    private func startSession(_ what: JobSubject, settings: ArchiverSettings) -> JobSession {
        JobSession(
            operation: CompressOutcome.operation, job: job, events: events, label: tr("Compressing"),
            title: what.say({ tr("Compressing “%@”", $0) }, { ntr("Compressing %ld item", "Compressing %ld items", $0) }),
            couldNot: what.say({ tr("Could not compress “%@”", $0) }, { ntr("Could not compress %ld item", "Could not compress %ld items", $0) }),
            settings: settings)
    }

    /// An archive of each group, in turn. A failure ends the batch (thrown as its exit), unless `--each`
    /// goes on past it; cancelling and the time budget always end it. Throws when nothing was made.
    private func compressGroups(
        _ groups: [[FilePath]], _ choices: Choices, session: JobSession
    ) throws -> (made: [CompressResult], failures: [ArchiverError]) {
        var made: [CompressResult] = []
        var failures: [ArchiverError] = []
        for (index, group) in groups.enumerated() {
            if groups.count > 1 {
                // TRANSLATORS: %1$@ is the item's name; %2$ld of %3$ld count the archives of the batch.
                session.desktop.title = tr("Compressing “%1$@” (%2$ld of %3$ld)", group[0].lastComponent?.string ?? "", index + 1, groups.count).localized
            }
            do throws(ArchiverError) {
                made.append(try compress(group, choices, session: session))
                session.tally.succeeded += 1
            } catch {
                guard each, error.code != .cancelled, error.code != .budget else {
                    let exit = session.failed(error)
                    Self.count(made, session)
                    throw exit
                }
                session.itemFailed(error)
                failures.append(error)
            }
        }
        guard !made.isEmpty else { throw session.failed(failures[0]) }
        return (made, failures)
    }

    /// One archive of `group`, with its warnings said.
    private func compress(_ group: [FilePath], _ choices: Choices, session: JobSession) throws(ArchiverError) -> CompressResult {
        let (format, level, partSize) = (choices.format, choices.level, choices.partSize)
        let result = try Compressor.run(
            inputs: group, format: format, level: level, destination: choices.destination, control: session.control,
            password: choices.password, partSize: partSize,
            preflight: { bytes throws(ArchiverError) in
                if let partSize, let refusal = PartSize.check(partSize, inputBytes: bytes) { throw refusal }
                if let refusal = BudgetEstimate.checkCompress(bytes: bytes, format: format, level: level, budget: session.control.budget) {
                    throw refusal
                }
            },
            progress: session.progressHandler, leaveOut: leaveOut.choice(session.settings), followSymlinks: portability.follows,
            portability: portability.mode(encrypted: encrypt), comment: format == .zip ? finishing.comment : nil,
            beforePublishing: finishing.finishing(password: choices.password, verifies: choices.verifies, control: session.control))
        session.endProgress()
        for warning in result.warnings { session.warn(warning) }
        return result
    }

    /// The end of a run that made something: `--check`'s verdict alone, or the sentences, the outcome, the
    /// statistics and the result notification.
    private func finish(made: [CompressResult], failures: [ArchiverError], verifies: Bool, session: JobSession) -> ExitCode {
        Self.sayPortability(made, session: session, checkOnly: portability.check, portable: portability.portable)
        if portability.check { return session.finish(outcome: Self.outcome([], failure: nil, checked: made), statistics: nil) {} }
        if !session.json { Self.describe(made) }
        var outcome = Self.outcome(made, failure: failures.first)
        outcome.verified = verifies
        return session.finish(
            outcome: outcome, statistics: (.archiveMade, made.map { ($0.inputBytes, $0.size) })
        ) { Self.notify(session.desktop, made: made, failures: failures) }
    }
}

extension CompressCommand {
    /// The archives made, in the statistics: their inputs' size and their own (every part). Counted after
    /// the result is shown, so that a wait for the statistics' lock never delays it.
    static func count(_ made: [CompressResult], _ session: JobSession) {
        recordStatistics(.archiveMade, made.map { ($0.inputBytes, $0.size) }, settings: session.settings)
    }

    /// - Parameter checked: what `--check` looked at without writing: counted, but no output.
    static func outcome(_ made: [CompressResult], failure: ArchiverError?, checked: [CompressResult] = []) -> CompressOutcome {
        let looked = made + checked
        return CompressOutcome(
            outputs: made.map { .init(path: $0.output.string, size: $0.size, parts: $0.parts.map(\.string)) },
            inputBytes: looked.reduce(0) { $0 + $1.inputBytes }, files: Int64(looked.reduce(0) { $0 + $1.files }),
            folders: Int64(looked.reduce(0) { $0 + $1.folders }), symlinks: Int64(looked.reduce(0) { $0 + $1.symlinks }),
            leftOut: LeaveOutOptions.figures(looked.compactMap(\.leftOut)),
            problems: looked.flatMap(\.problems).map { .init(code: $0.kind.rawValue, path: $0.path.displayName, message: $0.message.localized) },
            renames: made.flatMap(\.renames).map { .init(from: $0.from.displayName, to: $0.to.displayName) },
            error: failure.map(ErrorReport.init))
    }

    /// `Created /x/Photos.zip: 12 MB, 40 % smaller (3 files, 1 folder).`, one line per archive.
    static func describe(_ made: [CompressResult]) {
        for result in made {
            let name = result.parts.count > 1 ? outputName(result, in: result.output.removingLastComponent()) : .verbatim("\(result.output)")
            let counts = countWords(files: result.files, folders: result.folders, symlinks: result.symlinks)
            let line =
                if let saving = Saving.visible(before: result.inputBytes, after: result.size) {
                    // TRANSLATORS: %1$@ the archive, %2$@ its size, %3$ld how much smaller than its input, %4$@ “3 files, 1 folder”.
                    tr("Created %1$@: %2$@, %3$ld %% smaller (%4$@).", name, .bytes(result.size), saving, counts)
                } else {
                    tr("Created %1$@: %2$@ (%3$@).", name, .bytes(result.size), counts)
                }
            print(line.localized)
            if let leftOut = result.leftOut?.summary { print(leftOut.localized) }
        }
    }

    /// The archive's file name, or a split one's first and last parts: `x.zip.001 … x.zip.003 (3 parts)`.
    /// - Parameter folder: written before the first part, for a line that names the whole path.
    static func outputName(_ result: CompressResult, in folder: FilePath? = nil) -> Text {
        let name = result.output.lastComponent?.string ?? result.output.string
        guard result.parts.count > 1, let last = result.parts.last?.lastComponent?.string else { return .verbatim(name) }
        let first = folder.map { "\($0)/\(name)" } ?? name
        // TRANSLATORS: the first and the last part of a split archive, and how many parts there are.
        return ntr("%2$@ … %3$@ (%1$ld part)", "%2$@ … %3$@ (%1$ld parts)", result.parts.count, first, last)
    }

    /// The result notification: the archive with its saving, or the batch and its first failure.
    static func notify(_ desktop: DesktopFeedback, made: [CompressResult], failures: [ArchiverError]) {
        guard let first = made.first else { return }
        let name = outputName(first)
        // TRANSLATORS: the second line of a result notification; %@ is the folder.
        let folder = tr("in %@", first.output.removingLastComponent())
        if made.count == 1, failures.isEmpty {
            let counts = countWords(files: first.files, folders: first.folders, symlinks: first.symlinks)
            let line =
                if let saving = Saving.visible(before: first.inputBytes, after: first.size) {
                    // TRANSLATORS: %1$@ “3 files, 1 folder”, %2$@ the archive, %3$@ its size, %4$ld how much smaller than its input.
                    tr("%1$@ → %2$@, %3$@, %4$ld %% smaller", counts, name, .bytes(first.size), saving)
                } else {
                    tr("%1$@ → %2$@, %3$@", counts, name, .bytes(first.size))
                }
            let leftOut = first.leftOut?.summary.map { [$0] } ?? []
            desktop.succeeded(
                summary: tr("Compressed to %@", name).localized, body: Text.sentences([line] + leftOut + [folder], separator: "\n").localized,
                item: first.output, attachable: first.parts.count > 1 ? nil : first.output)
            return
        }
        var lines = [Text.verbatim(made.map { outputName($0).localized }.joined(separator: ", ")), folder]
        if let failure = failures.first {
            // TRANSLATORS: %1$ld items of an --each batch could not be compressed; %2$@ is the first one's error.
            lines.append(ntr("%1$ld failed: %2$@", "%1$ld failed: %2$@", failures.count, failure.message))
        }
        desktop.succeeded(
            summary: ntr("Compressed %ld archive", "Compressed %ld archives", made.count).localized,
            body: Text.sentences(lines, separator: "\n").localized, item: first.output)
    }

    /// The password for `--encrypt`, once the format is known to carry one (tar is refused before asking).
    static func password(for what: JobSubject, format: ArchiveFormat, fromStandardInput: Bool) throws(ArchiverError) -> Secret {
        try EncryptionSupport.checkCanEncrypt(format, sevenZipInstalled: Compressor.canEncrypt7z)
        let prompt = what.say({ tr("Password to protect “%@”", $0) }, { ntr("Password to protect %ld item", "Password to protect %ld items", $0) })
        return try Passwords.forNewArchive(prompt: prompt, fromStandardInput: fromStandardInput)
    }
}
