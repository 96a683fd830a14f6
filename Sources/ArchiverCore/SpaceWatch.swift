/// Keeps a job from filling a disk to its last byte, which breaks whatever else runs (a desktop session
/// cannot even save its settings): writing stops while a reserve is still free.
///
/// Free space is measured only now and then: after half of what was usable has been written (at least
/// 64 KiB, at most 64 MiB), so a job far from the limit measures rarely and one close to it often.
public struct SpaceWatch: Sendable {
    /// What is left for everything else: 1 % of the disk, at most 64 MiB.
    public let reserve: Int64
    /// Bytes that may still be written before free space must be measured again.
    private var allowance: Int64

    /// - Parameters:
    ///   - diskSize: the file system's size in bytes.
    ///   - free: the bytes free for this user now.
    public init(diskSize: Int64, free: Int64) {
        reserve = min(64 << 20, max(0, diskSize / 100))
        allowance = Self.step(free - reserve)
    }

    /// Whether `bytes` can be written, keeping the reserve; counts them as written when they can.
    /// - Parameter measure: the bytes free now; nil when the system cannot tell, and then writing goes on.
    public mutating func spend(_ bytes: Int64, measure: () -> Int64?) -> Bool {
        guard fits(bytes, measure: measure) else { return false }
        allowance -= bytes
        return true
    }

    /// Whether `bytes` more fit, keeping the reserve, without counting them (a size announced before the
    /// data, which is counted as it is written).
    public mutating func fits(_ bytes: Int64, measure: () -> Int64?) -> Bool {
        if bytes <= allowance { return true }
        guard let free = measure() else {
            allowance = Int64.max
            return true
        }
        let usable = free - reserve
        allowance = Self.step(usable)
        return bytes <= usable
    }

    private static func step(_ usable: Int64) -> Int64 {
        guard usable > 0 else { return 0 }
        return min(usable, max(64 << 10, min(usable / 2, 64 << 20)))
    }
}
