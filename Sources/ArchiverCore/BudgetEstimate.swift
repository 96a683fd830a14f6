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
        var options: [String] = []
        if let fit = fasterChoice(bytes: bytes, format: format, level: level, budget: budget) {
            options.append(fit)
        }
        options.append("allow more time with --time-budget \(roundedUp(estimate * 1.5)) (0 = no limit)")
        return refusal(estimate: estimate, budget: budget, what: "\(format.rawValue) at level \(level.rawValue)", options: options)
    }

    /// The refusal for an extraction far over `budget`; nil when it may fit.
    public static func checkExtract(archiveBytes: Int64, budget: Double?) -> ArchiverError? {
        guard let budget else { return nil }
        let estimate = extractSeconds(archiveBytes: archiveBytes)
        guard estimate > budget * margin else { return nil }
        return refusal(
            estimate: estimate, budget: budget, what: "extracting it",
            options: ["allow more time with --time-budget \(roundedUp(estimate * 1.5)) (0 = no limit)"])
    }

    /// PDF bytes per second of "Compress PDF" (bench/RESULTS-pdf.md: about 7 MB/s on the 300-dpi scan, the
    /// slowest of the corpus).
    static let pdfRate = 5_000_000.0

    /// The refusal for compressing PDFs of `bytes` in all, far over `budget`; nil when it may fit.
    public static func checkPDF(bytes: Int64, budget: Double?) -> ArchiverError? {
        guard let budget else { return nil }
        let estimate = Double(bytes) / pdfRate
        guard estimate > budget * margin else { return nil }
        return refusal(
            estimate: estimate, budget: budget, what: "compressing it",
            options: ["allow more time with --time-budget \(roundedUp(estimate * 1.5)) (0 = no limit)"])
    }

    /// The first of: this format at a faster level, then zip and tar.zst at fast, whose estimate fits
    /// the budget with room to spare.
    static func fasterChoice(bytes: Int64, format: ArchiveFormat, level: CompressionLevel, budget: Double) -> String? {
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
                return "\(flags) would take about \(HumanFormat.spokenDuration(seconds))"
            }
        }
        return nil
    }

    private static func refusal(estimate: Double, budget: Double, what: String, options: [String]) -> ArchiverError {
        ArchiverError(
            .budget,
            "Not started: \(what) would take about \(HumanFormat.spokenDuration(estimate)), far over the time budget of \(HumanFormat.spokenDuration(budget)).",
            hint: options.joined(separator: "; or ").capitalizedFirst + ".")
    }

    private static func roundedUp(_ seconds: Double) -> Int {
        let step = seconds < 600 ? 60.0 : 600.0
        return Int((seconds / step).rounded(.up) * step)
    }
}

extension String {
    fileprivate var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
