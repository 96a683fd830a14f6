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
        let allowed = Int((estimate * 1.5 / 60).rounded(.up)) * 60
        let jpeg = Self.estimate(plan, format: .jpeg, workers: workers)
        let hint =
            format != .jpeg && jpeg <= budget * 0.8
            // TRANSLATORS: %1$ld is seconds for the --time-budget flag; %2$@ a duration ("2 min").
            ? tr("Allow more time with --time-budget %1$ld (0 = no limit), or use --format jpeg, which would take about %2$@.", allowed, .spoken(jpeg))
            : tr("Allow more time with --time-budget %ld (0 = no limit).", allowed)
        return ArchiverError(
            .budget,
            // TRANSLATORS: %2$@ and %3$@ are durations ("2 h 5 min").
            ntr("Not started: compressing %1$ld photo would take about %2$@, far over the time budget of %3$@.", "Not started: compressing %1$ld photos would take about %2$@, far over the time budget of %3$@.", plan.photoCount, .spoken(estimate), .spoken(budget)),
            hint: hint)
    }
}
