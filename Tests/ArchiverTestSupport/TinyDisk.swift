import Foundation

/// A small tmpfs (2 MB unless told), so that a full disk is real. Mounting needs root, which CI has.
public final class TinyDisk {
    public let path: String

    /// - Parameter options: tmpfs options, e.g. `size=1m,nr_inodes=8`.
    public convenience init?(in scratch: ScratchDirectory, options: String = "size=2m", name: String = "tiny") {
        self.init(at: scratch.sub(name), options: options)
    }

    /// Mounts it at `path` (created).
    public init?(at path: String, options: String = "size=2m") {
        self.path = path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard Self.run("/bin/mount", ["-t", "tmpfs", "-o", options, "tmpfs", path]) else { return nil }
    }

    deinit { _ = Self.run("/bin/umount", [path]) }

    /// Makes the disk read-only from now on.
    public func makeReadOnly() -> Bool { Self.run("/bin/mount", ["-o", "remount,ro", path]) }

    /// Fills the disk until only `free` bytes are left, with a file named `filler`.
    public func leave(free: Int) throws {
        let filler = path + "/filler"
        try? FileManager.default.removeItem(atPath: filler)
        FileManager.default.createFile(atPath: filler, contents: nil)
        let available = try FileManager.default.attributesOfFileSystem(forPath: path)[.systemFreeSize] as? Int ?? 0
        try Data(count: max(0, available - free)).write(to: URL(fileURLWithPath: filler))
    }

    public static let available: Bool = {
        guard getuid() == 0, let scratch = try? ScratchDirectory("probe") else { return false }
        return TinyDisk(in: scratch) != nil
    }()

    /// Runs a tool and waits for it alone. Not through Foundation's `Process`: it sees a child end only
    /// when all its descriptors close, which a FUSE daemon left running never does.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) -> Bool {
        var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([tool] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, tool, &actions, nil, argv, environ) == 0 else { return false }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        return status == 0
    }
}

/// A FAT or exFAT file system in an image file, as on a USB stick: the kernel's driver through a loop
/// device where it has one, else for exFAT the FUSE program exfat-fuse (fusefat is no stand-in for vfat:
/// its folder renames lose what they hold). Needs root and a loop device.
public final class StickDisk {
    public enum Kind: String, Sendable { case vfat, exfat }

    public let path: String
    /// How it is mounted: `kernel`, or the FUSE program's name.
    public let driver: String
    private var loop: String?

    public init?(_ kind: Kind, in folder: String, megabytes: Int = 64) {
        guard getuid() == 0 else { return nil }
        let image = folder + "/\(kind.rawValue).img"
        path = folder + "/" + kind.rawValue
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard TinyDisk.run("/usr/bin/truncate", ["-s", "\(megabytes)M", image]),
            TinyDisk.run(kind == .vfat ? "/sbin/mkfs.vfat" : "/sbin/mkfs.exfat", [image])
        else { return nil }
        if TinyDisk.run("/bin/mount", ["-t", kind.rawValue, "-o", "loop", image, path]) {
            driver = "kernel"
            return
        }
        switch kind {
        case .exfat:
            // exfat-fuse wants a block device; its mount is a plain `fuseblk`, so only trying tells what it is.
            guard let device = Self.output("/sbin/losetup", ["-f", "--show", image]) else { return nil }
            loop = device
            guard TinyDisk.run("/sbin/mount.exfat-fuse", [device, path]) else {
                TinyDisk.run("/sbin/losetup", ["-d", device])
                return nil
            }
            driver = "exfat-fuse"
        case .vfat:
            return nil
        }
    }

    deinit {
        TinyDisk.run("/bin/umount", [path])
        if let loop { TinyDisk.run("/sbin/losetup", ["-d", loop]) }
    }

    /// Why a disk of `kind` cannot be had here, for the skip note; nil when it can. Tried once per kind.
    public static func unavailable(_ kind: Kind) -> String? { kind == .vfat ? vfatMissing : exfatMissing }

    private static let vfatMissing = tryOut(.vfat)
    private static let exfatMissing = tryOut(.exfat)

    private static func tryOut(_ kind: Kind) -> String? {
        guard getuid() == 0 else { return "needs root to mount a \(kind.rawValue) image" }
        guard let scratch = try? ScratchDirectory("probe-\(kind.rawValue)") else { return "no scratch folder" }
        return StickDisk(kind, in: scratch.path, megabytes: 16) == nil
            ? "no loop device or no \(kind.rawValue) in this kernel (nor exfat-fuse for exFAT)"
            : nil
    }

    private static func output(_ tool: String, _ arguments: [String]) -> String? {
        guard let run = try? Tool.start([tool] + arguments).wait(), run.status == 0 else { return nil }
        return run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// An xfs file system in a sparse image through a loop device: one that shares extents between files
/// (reflinks), as btrfs and xfs desktops do. Needs root, a loop device and xfsprogs.
public final class ReflinkDisk {
    public let path: String

    public init?(in folder: String) {
        guard getuid() == 0 else { return nil }
        let image = folder + "/xfs.img"
        path = folder + "/xfs"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        // 300 MB is the least mkfs.xfs makes; the image is sparse, so it takes what is written.
        guard TinyDisk.run("/usr/bin/truncate", ["-s", "320M", image]), TinyDisk.run("/sbin/mkfs.xfs", ["-q", "-m", "reflink=1", image]),
            TinyDisk.run("/bin/mount", ["-t", "xfs", "-o", "loop", image, path])
        else { return nil }
    }

    deinit { TinyDisk.run("/bin/umount", [path]) }

    /// Why such a disk cannot be had here, for the skip note; nil when it can. Tried once.
    public static let unavailable: String? = {
        guard getuid() == 0 else { return "needs root to mount an xfs image" }
        guard FileManager.default.isExecutableFile(atPath: "/sbin/mkfs.xfs") else { return "no mkfs.xfs (xfsprogs)" }
        guard let scratch = try? ScratchDirectory("probe-xfs") else { return "no scratch folder" }
        return ReflinkDisk(in: scratch.path) == nil ? "no loop device or no xfs in this kernel" : nil
    }()

    /// How many of `file`'s bytes lie in extents it shares with another file, and its bytes in extents
    /// (`filefrag -v`, in the file system's blocks).
    public static func sharedBytes(_ file: String) throws -> (shared: Int, total: Int) {
        let (status, output) = try Tool.run(["/sbin/filefrag", "-v", "-b4096", file])
        guard status == 0 else { return (0, 0) }
        var shared = 0, total = 0
        // "   0:        0..     255:      24..   279:    256:             shared,last,eof"
        for line in output.split(separator: "\n") {
            let fields = line.split(separator: ":", omittingEmptySubsequences: false)
            guard fields.count >= 5, Int(fields[0].trimmingCharacters(in: .whitespaces)) != nil,
                let length = Int(fields[3].trimmingCharacters(in: .whitespaces))
            else { continue }
            total += length * 4096
            if fields.last!.contains("shared") { shared += length * 4096 }
        }
        return (shared, total)
    }
}
