import ArchiverCLI
import ArchiverCore
import ArgumentParser
import Desktop
import PhotoEngine
import SystemPackage

extension PhotoFormat: ExpressibleByArgument {}

/// `compress-photos-with-archiver`: photos and folders of photos → smaller copies with their metadata.
public struct PhotoCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "compress-photos-with-archiver",
        abstract: "Make smaller copies of photos, keeping their date, place and camera data.",
        discussion: """
            A folder Album gets its copies in “Compressed - Album” beside it, subfolders mirrored; a photo \
            IMG_1.HEIC gets “IMG_1 (compressed).jpg” beside it. Copies are upright (Orientation 1), keep EXIF, \
            GPS, dates, ICC profile and XMP, lose the stale embedded thumbnail, and keep the original's \
            modification time. A copy that would not be smaller is the original's bytes (“kept”). A Live \
            Photo's video (IMG_1.MOV) is copied beside its still. Originals are never changed; --replace moves \
            them to the trash. Nothing is overwritten: “… (2)”.
            \(exitCodesHelp)
            """,
        version: "Archiver 0.1 (libvips \(PhotoCodec.vipsVersion))")

    @Option(help: ArgumentHelp("Longest side in pixels; smaller photos are never enlarged (default: the photo-max-size setting, 1500).", valueName: "px"))
    var maxSize: Int?

    @Flag(help: "Keep the size; only recompress.")
    var keepSize = false

    @Option(help: ArgumentHelp("Quality on JPEG's scale, 1-100; 60-90 is the useful range (default: the photo-quality setting, 75). AVIF and HEIC encoders get 25 less, the same look.", valueName: "q"))
    var quality: Int?

    @Option(help: "Format of the copies (default: the photo-format setting, jpeg); all four are writable with Debian 12's libheif.")
    var format: PhotoFormat?

    @Flag(inversion: .prefixedNo, help: "Remove the GPS position, and only that, for sharing (default: the photo-strip-location setting, off).")
    var stripLocation: Bool?

    @Flag(help: "Put the copies in place of the originals, which go to the desktop trash.")
    var replace = false

    @Option(name: [.short, .long], help: ArgumentHelp("Put the copies in this folder (created if needed): a folder as DIR/Folder/…, a photo as DIR/IMG_1.jpg.", valueName: "dir"))
    var output: String?

    @Option(help: .hidden)
    var workers: Int?

    @OptionGroup var job: JobOptions

    @Argument(help: "Photos (JPEG, HEIC/HEIF, AVIF, PNG, WebP, TIFF) and folders of photos.")
    var files: [String] = []

    public init() {}

    public func validate() throws {
        if job.forgetRecent { return }
        if files.isEmpty { throw ValidationError("Name at least one photo or folder.") }
        if replace, output != nil { throw ValidationError("Use either --replace or --output, not both.") }
        if keepSize, maxSize != nil { throw ValidationError("Use either --keep-size or --max-size, not both.") }
        if let maxSize, !PhotoOptions.sizeRange.contains(maxSize) {
            throw ValidationError("--max-size must be between \(PhotoOptions.sizeRange.lowerBound) and \(PhotoOptions.sizeRange.upperBound) pixels.")
        }
        if let quality, !PhotoOptions.qualityRange.contains(quality) {
            throw ValidationError("--quality must be between 1 and 100 (75 is a good default for JPEG).")
        }
        if let workers, !(1...64).contains(workers) { throw ValidationError("--workers must be between 1 and 64.") }
    }

    public func run() throws {
        if job.forgetRecent { try forgetRecent() }
        let settings = UserSettings.current
        let photoSettings = PhotoSettingsStore.current
        let options = PhotoOptions(
            maxSize: keepSize ? nil : (maxSize ?? (photoSettings.maxSize > 0 ? photoSettings.maxSize : nil)),
            quality: quality ?? photoSettings.quality, format: format ?? photoSettings.format,
            stripLocation: stripLocation ?? photoSettings.stripLocation)
        var raw = RawArguments.current()
        let inputs = files.map { raw.path(for: $0) }
        let destination: PhotoDestination =
            if replace { .replace } else if let output { .folder(raw.path(for: output)) } else { .beside }
        let what = inputs.count == 1 ? "“\(inputs[0].lastComponent?.string ?? inputs[0].string)”" : "\(inputs.count) items"
        let control = JobControl(budget: settings.budget(flag: job.timeBudget))
        CommandRunner.installSignalHandlers(control)
        let progress = TerminalProgress(label: "Compressing photos")
        let report = PhotoReport(json: job.json)
        let desktop = DesktopFeedback(title: "Compressing \(what)", notify: job.notifications, settings: settings, control: control)
        let failed = { (error: ArchiverError) in
            progress.finish()
            report.failed(error, elapsed: progress.elapsed)
            desktop.failed(summary: "Could not compress \(what)", error)
        }
        CommandRunner.onAbandon = failed
        let plan: PhotoPlan
        do throws(ArchiverError) {
            try Self.checkWritable(options.format)
            plan = try PhotoPlan.make(inputs: inputs, destination: destination, format: options.format)
        } catch {
            failed(error)
            throw ExitCode(error.code.exitStatus)
        }
        guard plan.photoCount > 0 else {
            let error = plan.problems.first ?? ArchiverError(
                .notAnArchive, "No photos in \(what).", hint: "Photos are JPEG, HEIC/HEIF, AVIF, PNG, WebP and TIFF files.")
            for problem in plan.problems.dropFirst() { printProblem(problem) }
            plan.removeEmptyFolders()
            failed(error)
            throw ExitCode(error.code.exitStatus)
        }
        if let refusal = PhotoBudget.check(
            plan, format: options.format, workers: workers ?? PhotoBatch.defaultWorkers, budget: control.budget)
        {
            plan.removeEmptyFolders()
            failed(refusal)
            throw ExitCode(refusal.code.exitStatus)
        }
        // A stop that cannot wait for the photos in progress (HEIC encoding takes seconds) still keeps
        // the finished ones: only the registered temporaries go, and mirror folders left empty.
        CommandRunner.onAbandon = { error in
            plan.removeEmptyFolders()
            var error = error
            error.message = .verbatim((error.code == .cancelled ? "Cancelled" : "Stopped by the time budget")
                + "; the photos already finished are kept, the ones in progress were removed.")
            failed(error)
        }
        if plan.photoCount > 1 { desktop.title = "Compressing \(plan.photoCount) photos" }
        let display = ProgressDisplay(terminal: progress, desktop: desktop)
        let result: PhotoBatchResult
        do throws(ArchiverError) {
            result = try PhotoBatch.run(
                plan, options: options, control: control, workers: workers,
                trash: Self.moveToTrash,
                progress: { display.show($0) })
        } catch {
            failed(error)
            throw ExitCode(error.code.exitStatus)
        }
        progress.finish()
        let failures = plan.problems + result.failures
        if let stopped = result.stopped {
            let done = result.photos.count
            let kept = done == 0 ? "" : " The \(done) photo\(done == 1 ? "" : "s") finished \(done == 1 ? "is" : "are") kept."
            var error = stopped
            error.message = .verbatim((stopped.code == .cancelled ? "Cancelled" : "Stopped by the time budget")
                + " after \(done) of \(plan.photoCount) photos; the one in progress was removed.\(kept)")
            report.finished(result, plan: plan, failures: failures, exitCode: stopped.code.exitStatus, error: error, elapsed: progress.elapsed)
            desktop.failed(summary: "Stopped compressing \(what)", error)
            throw ExitCode(stopped.code.exitStatus)
        }
        guard !result.photos.isEmpty else {
            // Every photo failed: each is named (stderr, JSON), and the notification says the first.
            report.finished(result, plan: plan, failures: failures, exitCode: failures[0].code.exitStatus, error: nil, elapsed: progress.elapsed)
            desktop.failed(summary: "Could not compress \(what)", failures[0])
            throw ExitCode(failures[0].code.exitStatus)
        }
        let exitCode = failures.isEmpty ? ExitStatus.success : ExitStatus.warnings
        report.finished(result, plan: plan, failures: failures, exitCode: exitCode, error: nil, elapsed: progress.elapsed)
        Self.notify(desktop, result: result, plan: plan, failures: failures)
        desktop.waitForAction()
        throw ExitCode(exitCode)
    }

    /// `--replace`: the original goes to the desktop trash once its copy is ready.
    @Sendable static func moveToTrash(_ file: FilePath) throws(ArchiverError) {
        do throws(ArchiverError) {
            try Trash.move(file)
        } catch {
            var error = error
            error.hint = .verbatim("The original is unchanged and no copy was made; without --replace the copy goes beside it.")
            throw error
        }
    }

    /// Refuses a format this libvips/libheif cannot write, before anything is made.
    static func checkWritable(_ format: PhotoFormat) throws(ArchiverError) {
        guard format != .jpeg else { return try PhotoCodec.start() }
        guard try PhotoCodec.writableFormats().contains(format) else {
            throw ArchiverError(
                .notAnArchive, "This system's libvips cannot write \(format.rawValue.uppercased()) files.",
                hint: format == .heic || format == .avif ? "Install libheif1 with its encoders (libx265, libaom), or use --format jpeg." : "Use --format jpeg.")
        }
    }

    static func notify(_ desktop: DesktopFeedback, result: PhotoBatchResult, plan: PhotoPlan, failures: [ArchiverError]) {
        let photos = result.photos
        let line = PhotoSummary.line(photos: photos.count, inputBytes: result.inputBytes, outputBytes: result.outputBytes)
        var body = line
        if let root = plan.roots.first {
            let folder = plan.createdFolders.isEmpty ? root.removingLastComponent() : root
            body += "\nin \(folder)"
        }
        let kept = photos.count { $0.outcome == .kept }
        if kept > 0 { body += "\n\(kept) already small, kept as \(kept == 1 ? "it was" : "they were")" }
        if !failures.isEmpty {
            body += "\n\(failures.count) could not be compressed: " + failures.prefix(3).map { $0.path.map { FilePath($0).lastComponent?.string ?? $0 } ?? $0.message.localized }.joined(separator: ", ")
                + (failures.count > 3 ? ", …" : "")
        }
        let single = photos.count == 1 && plan.createdFolders.isEmpty ? photos.first?.output : nil
        let item = plan.createdFolders.first ?? photos.first?.output
        desktop.succeeded(
            summary: photos.count == 1 ? "Compressed \(photos[0].source.lastComponent?.string ?? "1 photo")" : "Compressed \(photos.count) photos",
            body: body, item: item, attachable: single,
            recent: plan.createdFolders.isEmpty ? item.map { (mimeType: RecentFiles.guessedType(of: $0), exec: "xdg-open %u") } : nil)
    }
}

/// The progress line: `12 of 48 photos  IMG_1234.jpg  35 MB saved`, on the terminal and in the notification.
private final class ProgressDisplay: @unchecked Sendable {
    private let terminal: TerminalProgress
    private let desktop: DesktopFeedback

    init(terminal: TerminalProgress, desktop: DesktopFeedback) {
        self.terminal = terminal
        self.desktop = desktop
    }

    /// The batch calls this one worker at a time.
    func show(_ progress: PhotoProgress) {
        let counts = "\(min(progress.finished + 1, progress.total)) of \(progress.total) photos"
        let saved = progress.saved > 0 ? "  \(HumanFormat.bytes(progress.saved)) saved" : ""
        let name = progress.current.displayName
        terminal.update(done: progress.bytesDone, total: progress.bytesTotal, detail: "\(counts)  \(name)\(saved)")
        desktop.update(done: progress.bytesDone, total: progress.bytesTotal, detail: "\(counts)\(saved)\n\(name)")
    }
}

/// The `photo-*` settings, read once per process.
enum PhotoSettingsStore {
    static let current: PhotoSettings = {
        var settings = PhotoSettings()
        let values = SettingsStore.values(of: PhotoSettings.Key.allCases.map(\.rawValue))
        for key in PhotoSettings.Key.allCases {
            guard let value = values[key.rawValue] else { continue }
            if !settings.apply(key, value) { printError("warning: the setting \(key.rawValue) is unusable; using \(key.rawValue == "photo-format" ? "jpeg" : "the default").") }
        }
        return settings
    }()
}
