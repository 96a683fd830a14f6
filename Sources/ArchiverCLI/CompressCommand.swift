import ArchiveEngine
import ArchiverCore
import ArgumentParser
import Desktop
import SystemPackage

extension ArchiveFormat: ExpressibleByArgument {}
extension CompressionLevel: ExpressibleByArgument {}

/// `compress-with-archiver`: files and folders → one archive beside them.
public struct CompressCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "compress-with-archiver",
        abstract: "Compress files and folders into one archive.",
        discussion: """
            One item a.pdf becomes a.zip beside it, a folder Photos becomes Photos.zip holding Photos/, several \
            items become Archive.zip in their common folder. Nothing is overwritten: Archive (2).zip, (3)…
            \(exitCodesHelp)
            """,
        version: archiverVersion)

    @Option(name: [.short, .long], help: "zip, 7z, tar, tar.gz, tar.bz2, tar.xz, tar.zst, gz, bz2, xz or zst (default: the default-format setting, zip).")
    var format: ArchiveFormat?

    @Option(name: [.short, .long], help: "store, fast, normal (each library's default) or maximum (default: the compression-level setting, normal).")
    var level: CompressionLevel?

    @Option(name: [.short, .long], help: "Write exactly this file; fails if it exists.")
    var output: String?

    @Option(name: [.short, .long], help: "Name of the archive, in the folder of the inputs.")
    var name: String?

    @Flag(help: "Make one archive per item instead of one for all (the menus' \"Compress Each Separately\").")
    var each = false

    @Option(help: ArgumentHelp(
        "Split the archive into parts NAME.001, NAME.002, … of SIZE each: 700k, 100M, 4092M (KiB, MiB, GiB); 0 for one file; ask shows a dialog (default: the split-size setting, off).",
        valueName: "SIZE"))
    var split: String?

    @Flag(help: "Protect the archive with a password, asked twice (zip: AES-256; 7z: AES-256 with hidden names).")
    var encrypt = false

    @Flag(help: "Read the password for --encrypt from one line of standard input, for scripts.")
    var passwordStdin = false

    @OptionGroup var job: JobOptions

    @Argument(help: "Files and folders to compress.")
    var files: [String] = []

    public init() {}

    public func validate() throws {
        if job.forgetRecent { return }
        if files.isEmpty { throw ValidationError("Name at least one file or folder to compress.") }
        if output != nil, name != nil { throw ValidationError("Use either --output or --name, not both.") }
        if each, output != nil || name != nil { throw ValidationError("--each names each archive after its item, so --output and --name mean nothing with it.") }
        if passwordStdin, !encrypt { throw ValidationError("--password-stdin gives the password for --encrypt; add --encrypt.") }
        if let split, split != "ask", split != "0", PartSize.parse(split) == nil {
            throw ValidationError("--split takes a size such as 700k, 100M or 4092M (at least 1k), not “\(split)”.")
        }
    }

    /// The part size: `--split`, the dialog for `--split ask`, else the split-size setting.
    private func partSize(settings: ArchiverSettings, what: String) throws(ArchiverError) -> Int64? {
        guard let split else { return settings.splitSize }
        if split == "0" { return nil }
        if split != "ask" { return PartSize.parse(split) }
        switch PartSizeChooser.ask(
            title: "Compress \(what) in parts", currentDesktop: ProcessEnvironment.current.variables["XDG_CURRENT_DESKTOP"])
        {
        case .chosen(let answer):
            guard let size = PartSize.parse(answer) else {
                throw ArchiverError(.usage, "“\(answer)” is not a part size.", hint: "Write it as 700k, 100M or 4G.")
            }
            return size
        case .cancelled: throw ArchiverError(.cancelled, "Cancelled; nothing was compressed.")
        case .unavailable:
            throw ArchiverError(.usage, "No dialog program is installed to ask for the part size.", hint: "Install zenity (or kdialog on KDE), or give --split SIZE.")
        }
    }

    public func run() throws {
        if job.forgetRecent { try ArchiverCLI.forgetRecent() }
        let settings = UserSettings.current
        // "Compress with Password…" keeps the default format when it can carry a password, else zip.
        let format = format ?? (encrypt && !settings.defaultFormat.canEncrypt ? .zip : settings.defaultFormat)
        let level = level ?? settings.compressionLevel
        var raw = RawArguments.current()
        let inputs = files.map { raw.path(for: $0) }
        let destination: CompressPlan.Destination =
            if let output { .path(raw.path(for: output)) } else if let name { .name(raw.bytes(for: name)) } else { .automatic }
        let what = inputs.count == 1 ? "“\(inputs[0].lastComponent?.string ?? inputs[0].string)”" : "\(inputs.count) items"
        // Asked before the job's clock starts: the time budget is for compressing, not for typing.
        let password: Secret?
        let partSize: Int64?
        do {
            partSize = try self.partSize(settings: settings, what: what)
            password = try encrypt ? Self.password(for: what, format: format, fromStandardInput: passwordStdin) : nil
        } catch {
            // From a menu there is no terminal: the notification is where "install zenity" is read.
            JobReport(operation: "compress", json: job.json).failed(error, elapsed: 0)
            DesktopFeedback(title: "", notify: job.notifications, settings: settings, control: JobControl())
                .failed(summary: "Could not compress \(what)", error)
            throw ExitCode(error.code.exitStatus)
        }
        let control = JobControl(budget: settings.budget(flag: job.timeBudget))
        CommandRunner.installSignalHandlers(control)
        let progress = TerminalProgress(label: "Compressing")
        let report = JobReport(operation: "compress", json: job.json)
        let desktop = DesktopFeedback(title: "Compressing \(what)", notify: job.notifications, settings: settings, control: control)
        let failed = { (error: ArchiverError) in
            report.failed(error, elapsed: progress.elapsed)
            desktop.failed(summary: "Could not compress \(what)", error)
        }
        CommandRunner.onAbandon = failed
        // --each: one job after another, each named after its item; the batch goes on past a failure.
        let groups = each ? inputs.map { [$0] } : [inputs]
        var made: [CompressResult] = []
        var failures: [ArchiverError] = []
        for (index, group) in groups.enumerated() {
            if groups.count > 1 {
                desktop.title = "Compressing “\(group[0].lastComponent?.string ?? "")” (\(index + 1) of \(groups.count))"
            }
            do throws(ArchiverError) {
                let result = try Compressor.run(
                    inputs: group, format: format, level: level, destination: destination, control: control,
                    password: password, partSize: partSize,
                    preflight: { bytes throws(ArchiverError) in
                        if let partSize, let refusal = PartSize.check(partSize, inputBytes: bytes) { throw refusal }
                        if let refusal = BudgetEstimate.checkCompress(bytes: bytes, format: format, level: level, budget: control.budget) {
                            throw refusal
                        }
                    },
                    progress: { progress.update(done: $0, total: $1); desktop.update(done: $0, total: $1) })
                progress.finish()
                for warning in result.warnings { report.warn(warning.text.localized) }
                made.append(result)
            } catch {
                progress.finish()
                guard each, error.code != .cancelled, error.code != .budget else {
                    failed(error)
                    throw ExitCode(error.code.exitStatus)
                }
                printProblem(error)
                failures.append(error)
            }
        }
        guard !made.isEmpty, let first = made.first else {
            failed(failures[0])
            throw ExitCode(failures[0].code.exitStatus)
        }
        report.succeeded(compress: made, failures: failures, elapsed: progress.elapsed)
        let name = JobReport.outputName(first)
        if made.count == 1, failures.isEmpty {
            desktop.succeeded(
                summary: "Compressed to \(name)",
                body: "\(countWords(files: first.files, folders: first.folders, symlinks: first.symlinks)) → \(name), \(HumanFormat.bytes(first.size))\(JobReport.saving(first))\nin \(first.output.removingLastComponent())",
                item: first.output, attachable: first.parts.count > 1 ? nil : first.output)
        } else {
            let failedLine = failures.first.map { "\n\(failures.count) failed: \($0.message)" } ?? ""
            desktop.succeeded(
                summary: "Compressed \(made.count) archives",
                body: "\(made.map(JobReport.outputName).joined(separator: ", "))\nin \(first.output.removingLastComponent())\(failedLine)",
                item: first.output)
        }
        desktop.waitForAction()
        throw ExitCode(failures.isEmpty && made.allSatisfy(\.warnings.isEmpty) ? ExitStatus.success : ExitStatus.warnings)
    }
}

extension CompressCommand {
    /// The password for `--encrypt`, once the format is known to carry one (tar is refused before asking).
    static func password(for what: String, format: ArchiveFormat, fromStandardInput: Bool) throws(ArchiverError) -> Secret {
        try EncryptionSupport.checkCanEncrypt(format, sevenZipInstalled: Compressor.canEncrypt7z)
        return try Passwords.forNewArchive(what, fromStandardInput: fromStandardInput)
    }
}

package let archiverVersion = "Archiver 0.1 (\(ArchiveEngineSetup.libarchiveVersion))"

package let exitCodesHelp = """

    Exit codes: 0 done, 1 done with warnings, 2 usage error, 3 input missing or unreadable, 4 not an archive \
    or unsupported, 5 corrupt or truncated, 6 password needed or wrong, 7 cannot write the destination, \
    8 cancelled, 9 time budget exceeded.
    """
