import ArchiverCore
import Glibc
import SystemPackage

/// What the header of a photo says: enough to estimate its copy without decoding it.
public struct PhotoHeader: Equatable, Sendable {
    /// Upright dimensions (as the copy will be).
    public var width: Int
    public var height: Int
    /// libvips's loader: `jpegload`, `heifload`, `pngload`, `webpload`, `tiffload`, …
    public var loader: String
    /// Its XMP names Archiver as its CreatorTool: a copy we made.
    public var ours: Bool
    /// A JPEG's quality, 1-100, guessed from its quantisation table; nil for other formats.
    public var quality: Int?
    /// When it was taken, whether it has a position, the place written in it (the window's filters).
    public var facts: PhotoFacts

    public init(width: Int, height: Int, loader: String, ours: Bool = false, quality: Int? = nil, facts: PhotoFacts = PhotoFacts()) {
        self.width = width
        self.height = height
        self.loader = loader
        self.ours = ours
        self.quality = quality
        self.facts = facts
    }
}

/// The marker every copy carries, so that a copy is recognised by its content, whatever it is called.
public enum PhotoMarker {
    /// XMP `xmp:CreatorTool` of every copy: the app's name and its id, never translated.
    public static let creatorTool = "Archiver (io.github.archiver)"

    /// Whether an XMP packet names us as its CreatorTool (attribute or element form).
    public static func isOurs(_ xmp: String) -> Bool {
        var rest = Substring(xmp)
        while let range = rest.firstRange(of: "CreatorTool") {
            rest = rest[range.upperBound...]
            // `CreatorTool="Archiver (…)"` or `CreatorTool>Archiver (…)</…`.
            let value = rest.drop { $0 == " " || $0 == "=" || $0 == "\"" || $0 == "'" || $0 == ">" }
            if value.hasPrefix(creatorTool) { return true }
        }
        return false
    }
}

/// The estimated copy of one photo, from its header and size only (nothing decoded, nothing written).
public struct PhotoEstimate: Sendable {
    public enum Status: String, Sendable {
        /// It would get meaningfully smaller.
        case ok
        /// It would not get meaningfully smaller: its copy would be the original's bytes (`kept`).
        case small
        /// A copy we made before (its XMP marker).
        case ours
        /// Damaged, or not a photo: the message says why.
        case unreadable
    }

    public var source: FilePath
    public var size: Int64
    /// Upright dimensions; 0 when unreadable.
    public var width: Int
    public var height: Int
    /// The copy's estimated size: the original's for `small`, `ours` and `unreadable`.
    public var estimatedSize: Int64
    public var status: Status
    /// Why it is unreadable.
    public var message: Text?
    /// What its metadata says; nil when unreadable.
    public var facts: PhotoFacts?

    public var saving: Int64 { size - estimatedSize }
}

/// The model behind estimates and suggestions: bytes per output pixel at the run's quality and format,
/// scaled by how detailed the photo is (its own bytes per pixel). Calibrated on bench/make-photos.sh's 63
/// photos (bench/RESULTS.md has the error); pure, so that it is tested without a photo.
public enum PhotoEstimator {
    /// A copy must be at least this much smaller to be worth making (`small` otherwise); the batch's rule
    /// (kept when not smaller at all) with a margin for the model's error.
    public static let worthwhile = 0.9
    /// "Find large photos" skips photos under this size: saving a few hundred kB each is not worth a look.
    public static let suggestionFloor: Int64 = 500_000

    /// The copy's dimensions: the longest side at most `maxSize`, never enlarged (as `vips_thumbnail`).
    public static func outputDimensions(width: Int, height: Int, maxSize: Int?) -> (width: Int, height: Int) {
        guard let maxSize, max(width, height) > maxSize, width > 0, height > 0 else { return (width, height) }
        let scale = Double(maxSize) / Double(max(width, height))
        return (max(1, Int((Double(width) * scale).rounded())), max(1, Int((Double(height) * scale).rounded())))
    }

    /// How many bytes a source pixel holds in a JPEG of the same detail: lossless and better codecs hold
    /// the same detail in more or fewer bytes.
    static func jpegEquivalent(loader: String) -> Double {
        switch loader {
        case "jpegload": 1
        case "heifload": 1.02
        case "webpload": 1.4
        case "pngload", "tiffload": 0.12
        default: 0.5
        }
    }

    /// Output bytes per pixel relative to JPEG at 75, by quality on JPEG's scale (libjpeg's sizes; from 90 up
    /// libvips keeps the colour at full resolution, no 4:2:0, hence the step: measured 2.2× at 90).
    static func qualityFactor(_ quality: Int) -> Double {
        interpolate(quality, [(1, 0.15), (30, 0.45), (50, 0.66), (60, 0.77), (70, 0.9), (75, 1), (80, 1.15), (85, 1.38),
                              (89, 1.7), (90, 2.25), (95, 3.3), (100, 6.5)])
    }

    /// The same for a photo's own quality, colour at half resolution as cameras store it (no step at 90);
    /// fitted with the constants below.
    static func sourceQualityFactor(_ quality: Int) -> Double {
        interpolate(quality, [(1, 0.15), (30, 0.45), (50, 0.66), (60, 0.77), (70, 0.9), (75, 1), (80, 1.15), (85, 1.38),
                              (90, 1.75), (95, 2.3), (100, 4.6)])
    }

    private static func interpolate(_ quality: Int, _ table: [(Int, Double)]) -> Double {
        let q = min(max(quality, 1), 100)
        for (low, high) in zip(table, table.dropFirst()) where q <= high.0 {
            let t = Double(q - low.0) / Double(high.0 - low.0)
            return low.1 + (high.1 - low.1) * t
        }
        return table.last!.1
    }

    /// Output bytes relative to JPEG at the same look (the quality mapping of `PhotoOptions.encoderQuality`).
    static func formatFactor(_ format: PhotoFormat) -> Double {
        switch format {
        case .jpeg: 1
        case .webp: 0.75
        case .avif: 0.46
        case .heic: 0.91
        }
    }

    /// Model constants, fitted on the bench corpus at JPEG 75: output bytes per pixel =
    /// `base` × (source bytes per pixel as a JPEG at 75)^`detail` × (output/source pixels)^`shrink`.
    /// Least squares in log space on its 45 JPEG and HEIC photos at 800, 1500, 2500 and 4000 px (180 copies);
    /// PNG's factor above from its 3 photos, the format factors from the totals of each format at 1500 px.
    static let base = 1.08
    static let detail = 1.06
    static let shrink = -0.136

    /// The copy's estimated bytes.
    /// - Parameter sourceQuality: a JPEG's own quality: its bytes say how detailed it is only at a known quality.
    public static func estimatedBytes(
        size: Int64, width: Int, height: Int, loader: String, sourceQuality: Int? = nil, options: PhotoOptions
    ) -> Int64 {
        guard width > 0, height > 0 else { return size }
        let out = outputDimensions(width: width, height: height, maxSize: options.maxSize)
        let sourcePixels = Double(width) * Double(height)
        let outPixels = Double(out.width) * Double(out.height)
        let atSeventyFive = sourceQuality.map { 1 / sourceQualityFactor($0) } ?? 1
        let sourceBPP = max(0.01, Double(size) / sourcePixels * jpegEquivalent(loader: loader) * atSeventyFive)
        let perPixel = base * pow(sourceBPP, detail) * pow(outPixels / sourcePixels, shrink)
            * qualityFactor(options.quality) * formatFactor(options.format)
        // A few kB of headers and metadata (EXIF, ICC) ride along.
        return Int64(outPixels * perPixel) + 4_000
    }

    /// The estimate for one photo whose header was read (`header` nil: unreadable, with `reason`).
    public static func estimate(
        source: FilePath, size: Int64, header: PhotoHeader?, reason: Text? = nil, options: PhotoOptions
    ) -> PhotoEstimate {
        guard let header else {
            return PhotoEstimate(source: source, size: size, width: 0, height: 0, estimatedSize: size, status: .unreadable,
                                 message: reason ?? tr("it is not an image, or it is damaged"))
        }
        var result = PhotoEstimate(source: source, size: size, width: header.width, height: header.height,
                                   estimatedSize: size, status: .ok, message: nil, facts: header.facts)
        if header.ours {
            result.status = .ours
            return result
        }
        let bytes = estimatedBytes(size: size, width: header.width, height: header.height, loader: header.loader,
                                   sourceQuality: header.quality, options: options)
        if Double(bytes) >= Double(size) * worthwhile {
            result.status = .small
        } else {
            result.estimatedSize = bytes
        }
        return result
    }

    /// "Find large photos": those worth compressing and over the floor, the largest saving first (the path
    /// breaks ties, so that the order never changes from one scan to the next).
    public static func suggestions(_ estimates: [PhotoEstimate], floor: Int64 = suggestionFloor) -> [PhotoEstimate] {
        estimates.filter { $0.status == .ok && $0.size >= floor }.sorted {
            $0.saving != $1.saving ? $0.saving > $1.saving : $0.source.string < $1.source.string
        }
    }

    /// Whether a JPEG's end is missing (a cut-short download or copy), judged from its last 64 KiB: no
    /// end-of-image marker there. libvips reads such a header fine and fails only on the pixels.
    public static func jpegLooksCut(_ path: FilePath) -> Bool {
        let bytes = tail(of: path, bytes: 65_536)
        return bytes.count > 4 && !containsEndMarker(bytes)
    }

    /// The last `bytes` bytes of a file (all of a smaller one); empty when it cannot be read.
    static func tail(of path: FilePath, bytes: Int) -> [UInt8] { read(path, bytes: bytes, fromEnd: true) }

    /// The first `bytes` bytes of a file (all of a smaller one); empty when it cannot be read.
    static func head(of path: FilePath, bytes: Int) -> [UInt8] { read(path, bytes: bytes, fromEnd: false) }

    private static func read(_ path: FilePath, bytes: Int, fromEnd: Bool) -> [UInt8] {
        let descriptor = path.withPlatformString { open($0, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { return [] }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return [] }
        let count = Int(min(Int64(info.st_size), Int64(bytes)))
        let offset = fromEnd ? off_t(info.st_size) - off_t(count) : 0
        var data = [UInt8](repeating: 0, count: count)
        let read = data.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, offset) }
        return read == count ? data : []
    }

    /// libjpeg's luminance table at quality 50, which a JPEG's own table scales (order does not matter here).
    private static let standardLuminance: [Int] = [
        16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87,
        80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92, 49, 64, 78, 87, 103, 121, 120, 101, 72, 92,
        95, 98, 112, 100, 103, 99,
    ]

    /// A JPEG's quality on libjpeg's scale, from its first quantisation table (DQT, table 0) in `head`, the
    /// file's first bytes; nil when there is none. Cameras and editors scale libjpeg's table, so the
    /// ratio of the sums gives the scale, and the scale the quality.
    static func jpegQuality(head: [UInt8]) -> Int? {
        guard head.count > 4, head[0] == 0xFF, head[1] == 0xD8 else { return nil }
        var index = 2
        while index + 4 <= head.count, head[index] == 0xFF {
            let marker = head[index + 1]
            let length = Int(head[index + 2]) << 8 | Int(head[index + 3])
            // Start of scan: the tables are all before it.
            if marker == 0xDA || length < 2 { return nil }
            if marker == 0xDB {
                var table = index + 4
                while table < min(index + 2 + length, head.count) {
                    let precision = head[table] >> 4
                    let id = head[table] & 0x0F
                    let width = precision == 0 ? 1 : 2
                    guard table + 1 + 64 * width <= head.count else { return nil }
                    if id == 0 {
                        var sum = 0
                        for k in 0..<64 {
                            let at = table + 1 + k * width
                            sum += width == 1 ? Int(head[at]) : Int(head[at]) << 8 | Int(head[at + 1])
                        }
                        let scale = Double(sum) * 100 / Double(standardLuminance.reduce(0, +))
                        let quality = scale <= 100 ? (200 - scale) / 2 : 5000 / scale
                        return min(100, max(1, Int(quality.rounded())))
                    }
                    table += 1 + 64 * width
                }
            }
            index += 2 + length
        }
        return nil
    }

    /// Whether `bytes` hold a JPEG end-of-image marker (FF D9).
    static func containsEndMarker(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 2 else { return false }
        for index in stride(from: bytes.count - 2, through: 0, by: -1) where bytes[index] == 0xFF && bytes[index + 1] == 0xD9 {
            return true
        }
        return false
    }
}

extension PhotoEstimator {
    /// Estimates the copy of the photo at `source` (`size` bytes) from its header.
    public static func survey(_ source: FilePath, size: Int64, options: PhotoOptions) -> PhotoEstimate {
        var header: PhotoHeader
        do throws(ArchiverError) {
            header = try PhotoCodec.header(source)
        } catch {
            return estimate(source: source, size: size, header: nil, reason: error.message, options: options)
        }
        if header.loader.hasPrefix("jpegload") {
            if jpegLooksCut(source) {
                return estimate(source: source, size: size, header: nil, reason: tr("it is damaged or cut short"), options: options)
            }
            header.quality = jpegQuality(head: head(of: source, bytes: 65_536))
        }
        // libvips 8.14's HEIF loader does not read XMP; libheif writes our packet after the pixels.
        if header.loader.hasPrefix("heifload") {
            let end = String(decoding: tail(of: source, bytes: 262_144), as: UTF8.self)
            header.ours = header.ours || PhotoMarker.isOurs(end)
            if end.contains("x:xmpmeta") { PhotoFactsReader.merge(PhotoFactsReader.xmpFacts(end), into: &header.facts) }
        }
        // A photo without a date of its own (a screenshot, a scan) is dated by its file, as photo apps do.
        if header.facts.taken == nil { header.facts.taken = modified(source) }
        return estimate(source: source, size: size, header: header, options: options)
    }

    /// The local time `path` was last modified.
    static func modified(_ path: FilePath) -> PhotoDate? {
        var info = stat()
        guard path.withPlatformString({ stat($0, &info) }) == 0 else { return nil }
        return PhotoDate.local(seconds: Int(info.st_mtim.tv_sec))
    }
}
