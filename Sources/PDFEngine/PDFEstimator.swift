import ArchiverCore
internal import CPDFShim
import Platform
import SystemPackage

/// What `--estimate` says of one PDF: its size at each quality level, before any copy is made.
public struct PDFEstimate: Sendable {
    public struct Level: Sendable {
        public var quality: PDFQuality
        /// The estimated size of the result: the copy's, or the original's when the copy would not be
        /// smaller (the original is then kept).
        public var estimatedBytes: Int64
        /// The copy would be meaningfully smaller (`EstimateMath.helpfulSaving`).
        public var helps: Bool
    }

    public var input: FilePath
    public var inputBytes: Int64
    public var pages: Int
    public var encrypted: Bool
    /// One per `PDFQuality.allCases`, in that order.
    public var levels: [Level]
    /// Images drawn on the pages, and those some level would resample.
    public var imagesPlaced: Int
    public var imagesResampled: Int

    /// No level would help: the PDF is already as small as this tool makes it.
    public var alreadyOptimal: Bool { !levels.contains { $0.helps } }
}

/// Estimates, without writing anything, the size `PDFCompressor` would make of a PDF at each level: the
/// shim decodes the images small, tries the levels on a sample of them and measures the rest of the file
/// as the writer would write it; `EstimateMath` adds it up.
public enum PDFEstimator {
    /// JPEG images tried thoroughly (the others get the quick trial only); as many non-JPEG images.
    /// Three keep the benchmark PDFs within about 10 % at every level (measuring all of them is no better)
    /// for about 1.2 s of CPU on the 35 MB mixed PDF, spread over the cores.
    static let sampled: Int32 = 3

    public static func run(input: FilePath, passwords: PasswordAsker) throws(ArchiverError) -> PDFEstimate {
        let input = input.madeAbsolute
        let inputBytes = try PDFCompressor.checkInput(input)
        let qualities = PDFQuality.allCases
        var levels = qualities.map { pdfshim_level(target_dpi: Int32($0.dpi), jpeg_quality: Int32($0.jpegQuality)) }
        let collector = TrialCollector(levels: qualities.count)
        var outcome = pdfshim_result()
        var rest: Int64 = 0
        let (status, _) = try PDFCompressor.opening(input, passwords: passwords) { secret in
            collector.images = []
            return collector.withContext { context in
                input.withPlatformString { path in
                    levels.withUnsafeMutableBufferPointer { ladder in
                        pdfshim_estimate(
                            path, secret, ladder.baseAddress, Int32(ladder.count), sampled, trialTrampoline, context,
                            &rest, &outcome)
                    }
                }
            }
        }
        try PDFCompressor.check(status, outcome, input: input, temporary: input, callback: nil)
        let estimated = qualities.indices.map { level in
            let size = EstimateMath.size(rest: rest, images: collector.images, level: level)
            let verdict = EstimateMath.verdict(inputBytes: inputBytes, estimated: size)
            return PDFEstimate.Level(quality: qualities[level], estimatedBytes: verdict.size, helps: verdict.helps)
        }
        return PDFEstimate(
            input: input, inputBytes: inputBytes, pages: Int(outcome.pages), encrypted: outcome.encrypted != 0,
            levels: estimated, imagesPlaced: Int(outcome.images_placed),
            imagesResampled: Int(outcome.images_candidates))
    }
}

/// Gathers the shim's trials (called on the estimating thread).
private final class TrialCollector {
    let levels: Int
    var images: [EstimateMath.ImageTrial] = []

    init(levels: Int) { self.levels = levels }

    func withContext<R>(_ body: (UnsafeMutableRawPointer) -> R) -> R {
        let context = Unmanaged.passRetained(self)
        defer { context.release() }
        return body(context.toOpaque())
    }

    func add(_ trial: pdfshim_image_trial) {
        var trial = trial
        let thorough = withUnsafeBytes(of: &trial.levels) { Self.levels($0, count: levels) }
        let quick = withUnsafeBytes(of: &trial.quick) { Self.levels($0, count: levels) }
        images.append(
            EstimateMath.ImageTrial(
                width: trial.width, height: trial.height, storedBytes: trial.stored_bytes,
                keptBytes: trial.kept_bytes, maskWidth: trial.mask_width, maskHeight: trial.mask_height,
                maskKeptBytes: trial.mask_kept_bytes, jpeg: trial.jpeg != 0,
                levels: trial.measured != 0 ? thorough : thorough.map { Self.sizesOnly($0) },
                quick: trial.quick_measured != 0 ? quick : nil))
    }

    private static func sizesOnly(_ trial: EstimateMath.LevelTrial) -> EstimateMath.LevelTrial {
        EstimateMath.LevelTrial(newWidth: trial.newWidth, newHeight: trial.newHeight)
    }

    /// The C array of level trials (a tuple to Swift) as values.
    private static func levels(_ raw: UnsafeRawBufferPointer, count: Int) -> [EstimateMath.LevelTrial] {
        let all = raw.bindMemory(to: pdfshim_level_trial.self)
        return all.prefix(count).map { level in
            let samples = [(level.sample_width.0, level.bytes_per_pixel.0), (level.sample_width.1, level.bytes_per_pixel.1)]
                .filter { $0.0 > 0 && $0.1 > 0 }
                .map { EstimateMath.Sample(width: $0.0, bytesPerPixel: $0.1) }
            return EstimateMath.LevelTrial(
                newWidth: level.new_width, newHeight: level.new_height, samples: samples,
                headerBytes: level.header_bytes)
        }
    }
}

private let trialTrampoline: pdfshim_trial_callback = { context, trial in
    guard let context, let trial else { return }
    Unmanaged<TrialCollector>.fromOpaque(context).takeUnretainedValue().add(trial.pointee)
}
