import ArchiverCore

/// How long a batch will take, guessed from its files before it starts, so that a batch far over its
/// time budget is refused at once instead of stopping part way (DESIGN.md: time budget).
public enum PhotoBudget {
    /// A refusal needs the estimate to exceed the budget this many times: the rates are rough, and a
    /// batch refused wrongly is worse than one stopped by the budget with its finished photos kept.
    static let margin = 3.0
    /// Nor is a batch refused that would be over by less than this many seconds: short batches are the
    /// least predictable (start-up, cold disk cache), and stopping one costs little.
    static let slack = 10.0

    /// Seconds one worker spends on `job`, from bench/RESULTS-photos.md on the 2-core reference machine:
    /// a 2 MB 12 MP JPEG takes about 0.17 s (decoded at half size by shrink-on-load); PNG, TIFF and WebP
    /// are decoded whole; HEVC decoding costs about 0.6 s a photo; WebP, AV1 and HEVC encoding 0.1, 0.25 and 1.6 s.
    static func seconds(for job: PhotoJob, format: PhotoFormat) -> Double {
        let megabytes = Double(job.bytes) / 1_000_000
        guard job.kind == .photo, let name = job.source.lastComponent?.bytes else { return megabytes / 200 }
        let decode: Double =
            switch PhotoNaming.stemAndExtension(name).extension {
            case "jpg", "jpeg", "jpe", "jfif": megabytes / 12
            case "heic", "heif", "hif", "avif": 0.6 + megabytes / 20
            default: megabytes / 6
            }
        let encode: Double =
            switch format {
            case .jpeg: 0.02
            case .webp: 0.12
            case .avif: 0.25
            case .heic: 1.6
            }
        return decode + encode
    }

    /// Seconds the whole plan should take with `workers` photos at a time.
    public static func estimate(_ plan: PhotoPlan, format: PhotoFormat, workers: Int) -> Double {
        plan.jobs.reduce(0) { $0 + seconds(for: $1, format: format) } / Double(max(1, min(workers, plan.jobs.count)))
    }

    /// The refusal for a batch far over `budget`, naming what would fit; nil when it may fit.
    public static func check(_ plan: PhotoPlan, format: PhotoFormat, workers: Int, budget: Double?) -> ArchiverError? {
        guard let budget else { return nil }
        let estimate = estimate(plan, format: format, workers: workers)
        guard estimate > budget * margin, estimate > budget + slack else { return nil }
        var hint = "Allow more time with --time-budget \(Int((estimate * 1.5 / 60).rounded(.up)) * 60) (0 = no limit)"
        let jpeg = Self.estimate(plan, format: .jpeg, workers: workers)
        if format != .jpeg, jpeg <= budget * 0.8 {
            hint += ", or use --format jpeg, which would take about \(HumanFormat.spokenDuration(jpeg))"
        }
        let photos = plan.photoCount
        return ArchiverError(
            .budget,
            "Not started: compressing \(photos) photo\(photos == 1 ? "" : "s") would take about \(HumanFormat.spokenDuration(estimate)), far over the time budget of \(HumanFormat.spokenDuration(budget)).",
            hint: hint + ".")
    }
}
