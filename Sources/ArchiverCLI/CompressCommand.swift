import ArchiveEngine
import ArchiverCore
import ArgumentParser
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
        do {
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
                    password: password,
                    preflight: { bytes throws(ArchiverError) in
                        if let refusal = BudgetEstimate.checkCompress(bytes: bytes, format: format, level: level, budget: control.budget) {
                            throw refusal
                        }
                    },
                    progress: { progress.update(done: $0, total: $1); desktop.update(done: $0, total: $1) })
                progress.finish()
                for warning in result.warnings { report.warn(warning) }
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
        let name = first.output.lastComponent?.string ?? first.output.string
        if made.count == 1, failures.isEmpty {
            desktop.succeeded(
                summary: "Compressed to \(name)",
                body: "\(countWords(files: first.files, folders: first.folders, symlinks: first.symlinks)) → \(name), \(HumanFormat.bytes(first.size))\(JobReport.saving(first))\nin \(first.output.removingLastComponent())",
                item: first.output, attachable: first.output)
        } else {
            let failedLine = failures.first.map { "\n\(failures.count) failed: \($0.message)" } ?? ""
            desktop.succeeded(
                summary: "Compressed \(made.count) archives",
                body: "\(made.map { $0.output.lastComponent?.string ?? "" }.joined(separator: ", "))\nin \(first.output.removingLastComponent())\(failedLine)",
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
