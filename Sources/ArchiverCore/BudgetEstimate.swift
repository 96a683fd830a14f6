/// How long a job will take, guessed before it starts from its input size, so that a job far over its
/// time budget is refused at once instead of failing at the end.
public enum BudgetEstimate {
    /// Input bytes per second on the 2-core reference machine (bench/RESULTS.md, mixed corpus), for
    /// compression at each level. Faster machines only make the estimate pessimistic, which is the
    /// safe side: a refusal needs the estimate to exceed the budget by `margin`.
    static func compressRate(_ format: ArchiveFormat, _ level: CompressionLevel) -> Double {
        let mega = 1_000_000.0
        if level == .store, format.container != .raw, format.filter == .none || format.container == .zip {
            return 300 * mega
        }
        let normal: Double =
            switch format.filter {
            case .none: format.container == .sevenZip ? 2.3 * mega : 300 * mega
            case .gzip: 28 * mega
            case .bzip2: 10 * mega
            case .xz: 4.5 * mega
            case .zstd: 200 * mega
            }
        let zipNormal = format.container == .zip ? 27 * mega : normal
        switch level {
        case .store: return format.filter == .zstd ? 200 * mega : zipNormal * 4
        case .fast: return zipNormal * (format.filter == .zstd ? 1 : 3)
        case .normal: return zipNormal
        // zstd 19 is about 60 times slower than zstd 3; deflate 9 and xz 9 about half as fast.
        case .maximum: return format.filter == .zstd ? 3 * mega : zipNormal / 2
        }
    }

    /// Archive bytes per second when extracting (the slowest of the measured formats, 7z and xz).
    static let extractRate = 9_000_000.0

    /// A refusal needs the estimate to exceed the budget this many times: estimates are rough, and a
    /// job refused wrongly is worse than one stopped by the budget.
    static let margin = 3.0

    public static func compressSeconds(bytes: Int64, format: ArchiveFormat, level: CompressionLevel) -> Double {
        Double(bytes) / compressRate(format, level)
    }

    public static func extractSeconds(archiveBytes: Int64) -> Double { Double(archiveBytes) / extractRate }

    /// The refusal for a compression far over `budget`, naming what would fit; nil when it may fit.
    public static func checkCompress(
        bytes: Int64, format: ArchiveFormat, level: CompressionLevel, budget: Double?
    ) -> ArchiverError? {
        guard let budget else { return nil }
        let estimate = compressSeconds(bytes: bytes, format: format, level: level)
        guard estimate > budget * margin else { return nil }
        let fit = fasterChoice(bytes: bytes, format: format, level: level, budget: budget)
        return ArchiverError(
            .budget,
            // TRANSLATORS: %1$@ is a format (zip, tar.xz), %2$@ a level (store, fast, normal, maximum).
            tr("Not started: %1$@ at level %2$@ would take about %3$@, far over the time budget of %4$@.", format.rawValue, level.rawValue, .spoken(estimate), .spoken(budget)),
            hint: moreTime(estimate, fit: fit))
    }

    /// The refusal for an extraction far over `budget`; nil when it may fit.
    public static func checkExtract(archiveBytes: Int64, budget: Double?) -> ArchiverError? {
        guard let budget else { return nil }
        let estimate = extractSeconds(archiveBytes: archiveBytes)
        guard estimate > budget * margin else { return nil }
        return ArchiverError(
            .budget, tr("Not started: extracting it would take about %1$@, far over the time budget of %2$@.", .spoken(estimate), .spoken(budget)),
            hint: moreTime(estimate))
    }

    /// PDF bytes per second of "Compress PDF" (bench/RESULTS-pdf.md: about 7 MB/s on the 300-dpi scan, the
    /// slowest of the corpus).
    static let pdfRate = 5_000_000.0

    /// The refusal for compressing PDFs of `bytes` in all, far over `budget`; nil when it may fit.
    public static func checkPDF(bytes: Int64, budget: Double?) -> ArchiverError? {
        guard let budget else { return nil }
        let estimate = Double(bytes) / pdfRate
        guard estimate > budget * margin else { return nil }
        return ArchiverError(
            .budget, tr("Not started: compressing it would take about %1$@, far over the time budget of %2$@.", .spoken(estimate), .spoken(budget)),
            hint: moreTime(estimate))
    }

    /// The first of: this format at a faster level, then zip and tar.zst at fast, whose estimate fits
    /// the budget with room to spare.
    /// - Returns: the flags to use instead (`--format zip --level fast`) and how long that would take.
    static func fasterChoice(
        bytes: Int64, format: ArchiveFormat, level: CompressionLevel, budget: Double
    ) -> (flags: String, seconds: Double)? {
        var candidates: [(ArchiveFormat, CompressionLevel)] = []
        if level != .fast, level != .store { candidates.append((format, .fast)) }
        if !format.isSingleStream {
            candidates += [(.tarZst, .fast), (.zip, .fast)]
        } else {
            candidates.append((.zst, .fast))
        }
        for (candidate, candidateLevel) in candidates where (candidate, candidateLevel) != (format, level) {
            let seconds = compressSeconds(bytes: bytes, format: candidate, level: candidateLevel)
            if seconds <= budget * 0.8 {
                let flags = candidate == format ? "--level \(candidateLevel.rawValue)" : "--format \(candidate.rawValue) --level \(candidateLevel.rawValue)"
                return (flags, seconds)
            }
        }
        return nil
    }

    /// The hint of a refusal: a faster choice that fits, if any, then more time (rounded up generously).
    public static func moreTime(_ estimate: Double, fit: (flags: String, seconds: Double)? = nil) -> Text {
        let seconds = roundedUp(estimate * 1.5)
        guard let fit else { return tr("Allow more time with --time-budget %ld (0 = no limit).", seconds) }
        // TRANSLATORS: %1$@ are command-line flags such as "--format zip --level fast"; keep them as they are.
        return tr("%1$@ would take about %2$@; or allow more time with --time-budget %3$ld (0 = no limit).", fit.flags, .spoken(fit.seconds), seconds)
    }

    private static func roundedUp(_ seconds: Double) -> Int {
        let step = seconds < 600 ? 60.0 : 600.0
        return Int((seconds / step).rounded(.up) * step)
    }
}
