import Foundation

/// A 2 MB tmpfs, so that a full disk is real. Mounting needs root, which CI has.
public final class TinyDisk {
    public let path: String

    public init?(in scratch: ScratchDirectory) {
        path = scratch.sub("tiny")
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", path]) else { return nil }
    }

    deinit { _ = Self.run("/bin/umount", [path]) }

    public static let available: Bool = {
        guard getuid() == 0, let scratch = try? ScratchDirectory("probe") else { return false }
        return TinyDisk(in: scratch) != nil
    }()

    private static func run(_ tool: String, _ arguments: [String]) -> Bool {
        guard let process = try? Process.run(URL(fileURLWithPath: tool), arguments: arguments) else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}
