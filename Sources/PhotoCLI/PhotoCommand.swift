import JobKit
import JobProtocol
import ArchiverCore
import ArgumentParser
import Desktop
import Glibc
import PhotoEngine
import SystemPackage

extension PhotoFormat: ExpressibleByArgument {}

/// `compress-photos-with-archiver`: photos and folders of photos → smaller copies with their metadata.
public struct PhotoCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "compress-photos-with-archiver",
        abstract: tr("Make smaller copies of photos, keeping their date, place and camera data.").localized,
        discussion: Self.discussion,
        version: archiverVersion(library: "libvips \(PhotoCodec.vipsVersion)"))

    // TRANSLATORS: %@ is the name of a setting (photo-max-size).
    @Option(help: ArgumentHelp(tr("Longest side in pixels; smaller photos are never enlarged (default: the %@ setting, 1500).", PhotoSettings.Key.maxSize.rawValue).localized, valueName: "px"))
    var maxSize: Int?

    @Flag(help: ArgumentHelp(tr("Keep the size; only recompress.").localized))
    var keepSize = false

    // TRANSLATORS: %@ is the name of a setting (photo-quality).
    @Option(help: ArgumentHelp(tr("Quality on JPEG's scale, 1-100; 60-90 is the useful range (default: the %@ setting, 75). AVIF and HEIC encoders get 25 less, the same look.", PhotoSettings.Key.quality.rawValue).localized, valueName: "q"))
    var quality: Int?

    // TRANSLATORS: %@ is the name of a setting (photo-format); jpeg is a value of --format.
    @Option(help: ArgumentHelp(tr("Format of the copies (default: the %@ setting, jpeg); all four are writable with Debian 12's libheif.", PhotoSettings.Key.format.rawValue).localized))
    var format: PhotoFormat?

    // TRANSLATORS: %@ is the name of a setting (photo-strip-location).
    @Flag(inversion: .prefixedNo, help: ArgumentHelp(tr("Remove the GPS position, and only that, for sharing (default: the %@ setting, off).", PhotoSettings.Key.stripLocation.rawValue).localized))
    var stripLocation: Bool?

    @Flag(help: ArgumentHelp(tr("Put the copies in place of the originals, which go to the desktop trash.").localized))
    var replace = false

    @Option(name: [.short, .long], help: ArgumentHelp(tr("Put the copies in this folder (created if needed): a folder as DIR/Folder/…, a photo as DIR/IMG_1.jpg.").localized, valueName: "dir"))
    var output: String?

    @Option(help: .hidden)
    var workers: Int?

    @Flag(help: ArgumentHelp(tr("Write nothing: estimate each photo's copy under these settings from its header, and the total.").localized))
    var estimate = false

    @Flag(help: ArgumentHelp(tr("Find large photos: scan the folders named (default: the Pictures folder) and list those that would save the most, largest saving first; photos already small, under 500 kB or copies Archiver made are skipped. Writes nothing.").localized))
    var suggest = false

    @Flag(help: ArgumentHelp(tr("Go on with a batch that was interrupted (same photos and options): the finished copies are kept, the rest is done.").localized))
    var resume = false

    @OptionGroup var job: JobOptions

    @OptionGroup var events: EventOptions

    @Argument(help: ArgumentHelp(tr("Photos (JPEG, HEIC/HEIF, AVIF, PNG, WebP, TIFF) and folders of photos.").localized))
    var files: [String] = []

    public init() {}

    /// The `--help` discussion; the names of copies are made by rule and stay as they are in every language.
    static var discussion: String {
        // TRANSLATORS: %1$@ … %4$@ are names Archiver gives copies (“Compressed - Album”, “IMG_1 (compressed).jpg”, “… (2)”) and %3$@ the word “kept” of --json: keep them as they are.
        helpDiscussion(tr("A folder Album gets its copies in “%1$@” beside it, subfolders mirrored; a photo IMG_1.HEIC gets “%2$@” beside it. Copies are upright (Orientation 1), keep EXIF, GPS, dates, ICC profile and XMP, lose the stale embedded thumbnail, and keep the original's modification time. A copy that would not be smaller is the original's bytes (“%3$@”). A Live Photo's video (IMG_1.MOV) is copied beside its still. Originals are never changed; --replace moves them to the trash. Nothing is overwritten: “%4$@”.", "Compressed - Album", "IMG_1 (compressed).jpg", PhotoItem.Outcome.kept.rawValue, "… (2)"))
    }

    public func validate() throws {
        if job.forgets { return }
        if estimate, suggest { throw ValidationError(tr("Use either --estimate or --suggest, not both.").localized) }
        if files.isEmpty, !suggest { throw ValidationError(tr("Name at least one photo or folder.").localized) }
        if replace, output != nil { throw ValidationError(tr("Use either --replace or --output, not both.").localized) }
        if keepSize, maxSize != nil { throw ValidationError(tr("Use either --keep-size or --max-size, not both.").localized) }
        if let maxSize, !PhotoOptions.sizeRange.contains(maxSize) {
            let range = PhotoOptions.sizeRange
            throw ValidationError(tr("--max-size must be between %1$ld and %2$ld pixels.", range.lowerBound, range.upperBound).localized)
        }
        if let quality, !PhotoOptions.qualityRange.contains(quality) {
            throw ValidationError(tr("--quality must be between 1 and 100 (75 is a good default for JPEG).").localized)
        }
        if let workers, !(1...64).contains(workers) { throw ValidationError(tr("--workers must be between 1 and 64.").localized) }
    }

    public func run() throws {
        if job.forgets { try forgetHistory(job) }
        let photoSettings = Self.photoSettings()
        let options = PhotoOptions(
            maxSize: keepSize ? nil : (maxSize ?? (photoSettings.maxSize > 0 ? photoSettings.maxSize : nil)),
            quality: quality ?? photoSettings.quality, format: format ?? photoSettings.format,
            stripLocation: stripLocation ?? photoSettings.stripLocation)
        var raw = RawArguments.current()
        let inputs = files.map { raw.path(for: $0) }
        if estimate || suggest { return try survey(inputs, options: options) }
        let destination: PhotoDestination =
            if replace { .replace } else if let output { .folder(raw.path(for: output)) } else { .beside }
        // The one input's name, or nil for several: each sentence about them has both forms.
        let single = inputs.count == 1 ? inputs[0].lastComponent?.string ?? inputs[0].string : nil
        let session = JobSession(
            operation: PhotoOutcome.operation, job: job, events: events, label: tr("Compressing photos"),
            title: single.map { tr("Compressing “%@”", $0) } ?? ntr("Compressing %ld item", "Compressing %ld items", inputs.count),
            couldNot: single.map { tr("Could not compress “%@”", $0) }
                ?? ntr("Could not compress %ld item", "Could not compress %ld items", inputs.count))
        let batch = PhotoBatchJob(session: session, inputs: inputs, destination: destination, options: options, workers: workers)
        try batch.plan(resume: resume, single: single)
        throw batch.finish(try batch.run(), single: single)
    }

    /// `--replace`: the original goes to the desktop trash once its copy is ready.
    @Sendable static func moveToTrash(_ file: FilePath) throws(ArchiverError) {
        do throws(ArchiverError) {
            try Trash.move(file)
        } catch {
            var error = error
            error.hint = tr("The original is unchanged and no copy was made; without --replace the copy goes beside it.")
            throw error
        }
    }
}

extension PhotoCommand {
    /// The `photo-*` settings as stored; an unusable one is said on stderr and keeps its default.
    static func photoSettings() -> PhotoSettings {
        let (settings, unusable) = SettingsStore.shared.load(PhotoSettings.self)
        for key in unusable {
            let warning = key == .format
                // TRANSLATORS: %@ is the name of a setting (photo-format); jpeg is a format name.
                ? tr("warning: the setting %@ is unusable; using jpeg.", key.rawValue)
                // TRANSLATORS: %@ is the name of a setting (photo-max-size, photo-quality, photo-strip-location).
                : tr("warning: the setting %@ is unusable; using the default.", key.rawValue)
            printError(warning.localized)
        }
        return settings
    }
}
