import ArchiverCore
import Glibc

/// The arithmetic of `--estimate`, apart from the measuring (the shim's trials), so that it can be tested
/// on figures: how a trial on a sample becomes an image's bytes, how the images that were not sampled
/// borrow from those that were, and whether a level is worth it.
public enum EstimateMath {
    /// A level helps when its copy would be at least this much smaller than the original: 5 %. Below that,
    /// the JPEG loss costs more than the bytes are worth, and the estimate's own error (it is within
    /// 25 % of the images' bytes, far less on the whole file) could turn a "smaller" into a "larger".
    public static let helpfulSaving = 0.05

    /// One measurement: JPEG bytes per pixel of the image resampled to `width` pixels across.
    public struct Sample: Sendable, Equatable {
        public var width: Int64
        public var bytesPerPixel: Double

        public init(width: Int64, bytesPerPixel: Double) {
            self.width = width
            self.bytesPerPixel = bytesPerPixel
        }
    }

    /// An image's trial at one level.
    public struct LevelTrial: Sendable, Equatable {
        /// The size the image pass would resample it to; nil when it leaves the image as it is.
        public var newWidth: Int64
        public var newHeight: Int64
        /// At the new width itself, or at a smaller width and half that (extrapolated); empty when not
        /// measured.
        public var samples: [Sample]
        /// The JPEG's tables and markers, once per image.
        public var headerBytes: Int64

        public init(newWidth: Int64, newHeight: Int64, samples: [Sample] = [], headerBytes: Int64 = 0) {
            self.newWidth = newWidth
            self.newHeight = newHeight
            self.samples = samples
            self.headerBytes = headerBytes
        }

        public var resampled: Bool { newWidth > 0 && newHeight > 0 }

        /// The JPEG bytes of the resampled image; nil when nothing was measured.
        ///
        /// Bytes per pixel change with the scale (a reduced picture packs more detail in each pixel), so a
        /// trial taken below the new width is carried up along the line through its two samples on a log-log
        /// scale. The slope is kept between -1 (bytes independent of resolution) and 0.25 (a picture would not
        /// get denser as it grows): outside that, two samples say more about noise than about the picture.
        public var bytes: Double? {
            guard resampled, let first = samples.first, first.bytesPerPixel > 0, first.width > 0 else { return nil }
            var perPixel = first.bytesPerPixel
            if first.width != newWidth, samples.count > 1, samples[1].bytesPerPixel > 0, samples[1].width > 0,
                samples[1].width != first.width
            {
                let slope = log(first.bytesPerPixel / samples[1].bytesPerPixel)
                    / log(Double(first.width) / Double(samples[1].width))
                let bounded = min(0.25, max(-1, slope))
                perPixel *= pow(Double(newWidth) / Double(first.width), bounded)
            }
            return perPixel * Double(newWidth) * Double(newHeight) + Double(headerBytes)
        }
    }

    /// What the shim learnt of one image some level would resample.
    public struct ImageTrial: Sendable, Equatable {
        public var width: Int64
        public var height: Int64
        /// Its bytes in the file, and those it keeps when the writer copies it (no ASCII85 layer).
        public var storedBytes: Int64
        public var keptBytes: Int64
        /// Its soft mask, resampled with it when larger than the new size: pixels and kept bytes (0 without).
        public var maskPixels: Int64
        public var maskWidth: Int64
        public var maskKeptBytes: Int64
        public var jpeg: Bool
        /// The thorough trial (sampled images), else new sizes only; one per level.
        public var levels: [LevelTrial]
        /// The quick trial of every JPEG image, nil for the others.
        public var quick: [LevelTrial]?

        public init(
            width: Int64, height: Int64, storedBytes: Int64, keptBytes: Int64, maskWidth: Int64 = 0,
            maskHeight: Int64 = 0, maskKeptBytes: Int64 = 0, jpeg: Bool, levels: [LevelTrial],
            quick: [LevelTrial]? = nil
        ) {
            self.width = width
            self.height = height
            self.storedBytes = storedBytes
            self.keptBytes = keptBytes
            self.maskWidth = maskWidth
            self.maskPixels = maskWidth * maskHeight
            self.maskKeptBytes = maskKeptBytes
            self.jpeg = jpeg
            self.levels = levels
            self.quick = quick
        }

        var sampled: Bool { levels.contains { !$0.samples.isEmpty } }

        /// The image's bytes at `level` when it is kept as it is.
        func kept(level: Int) -> Double { Double(keptBytes) + Double(maskKeptBytes) }

        /// The soft mask's bytes when the image is resampled at `level`: the mask follows it (Flate, so
        /// about in proportion to its pixels) when it is larger.
        func maskBytes(level: Int) -> Double {
            let trial = levels[level]
            guard maskPixels > 0 else { return 0 }
            guard trial.newWidth < maskWidth else { return Double(maskKeptBytes) }
            return Double(maskKeptBytes) * Double(trial.newWidth * trial.newHeight) / Double(maskPixels)
        }

        /// The pixel share the level keeps, times the stored bytes: the crudest guess, for an image that was
        /// not measured at all.
        func scaledStored(level: Int) -> Double {
            let trial = levels[level]
            return Double(storedBytes) * Double(trial.newWidth * trial.newHeight) / Double(max(1, width * height))
        }
    }

    /// The estimated size of the copy at `level`: the rest of the file plus each image's bytes.
    ///
    /// A sampled image counts its own trial. A JPEG image outside the sample counts its quick trial, scaled
    /// by how the thorough trials of the sampled JPEG images compare with their own quick ones at this level.
    /// An image with neither (past the quick trials' limit, or not a JPEG and not sampled) scales its stored
    /// bytes as the images of its kind that have one did. An image whose JPEG would not be smaller than what
    /// is stored keeps its place, as the image pass does.
    public static func size(rest: Int64, images: [ImageTrial], level: Int) -> Int64 {
        // How the thorough trials compare with the quick ones.
        var thorough = 0.0, quick = 0.0
        for image in images {
            guard let measured = image.levels[level].bytes, let fast = image.quick?[level].bytes else { continue }
            thorough += measured
            quick += fast
        }
        let quickFactor = quick > 0 ? thorough / quick : 1
        let estimates = images.map { image in
            image.levels[level].bytes ?? image.quick?[level].bytes.map { $0 * quickFactor }
        }
        // How the estimates compare with the stored bytes, per kind.
        var estimatedOverStored: [Bool: (estimated: Double, scaled: Double)] = [:]
        for (image, estimate) in zip(images, estimates) where image.levels[level].resampled {
            guard let estimate else { continue }
            estimatedOverStored[image.jpeg, default: (0, 0)].estimated += estimate
            estimatedOverStored[image.jpeg, default: (0, 0)].scaled += image.scaledStored(level: level)
        }
        var total = Double(rest)
        for (image, estimate) in zip(images, estimates) {
            guard image.levels[level].resampled else {
                total += image.kept(level: level)
                continue
            }
            let bytes: Double
            if let estimate {
                bytes = estimate
            } else if let kind = estimatedOverStored[image.jpeg], kind.scaled > 0 {
                bytes = image.scaledStored(level: level) * kind.estimated / kind.scaled
            } else {
                bytes = image.scaledStored(level: level)
            }
            total += bytes < Double(image.storedBytes) ? bytes + image.maskBytes(level: level) : image.kept(level: level)
        }
        return Int64(total.rounded())
    }

    /// What a person is told of a level: the estimated size (the original's when the copy would not be
    /// smaller, since the original is then kept) and whether it helps.
    public static func verdict(inputBytes: Int64, estimated: Int64) -> (size: Int64, helps: Bool) {
        guard estimated < inputBytes else { return (inputBytes, false) }
        return (estimated, Double(estimated) <= Double(inputBytes) * (1 - helpfulSaving))
    }
}
