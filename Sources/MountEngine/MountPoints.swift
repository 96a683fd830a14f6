import ArchiveEngine
import ArchiverCore
import Glibc
import Platform
import SystemPackage

/// The mount table and unmounting, through the same setuid helper that mounted (`fusermount3`).
public enum MountPoints {
    /// Our mounts and everyone else's, as this process sees them.
    public static func current() -> [MountEntry] {
        MountEntry.parse(mountinfo: FileSystem.wholeFile("/proc/self/mountinfo") ?? [])
    }

    /// Whether `folder` is one of our mounts now.
    public static func isOurs(_ folder: FilePath) -> Bool {
        current().contains { $0.type == MountPlace.type && $0.mountPoint == folder.bytes }
    }

    /// Unmounts `folder` unless something uses it (an open file, a shell's current folder).
    /// - Returns: whether it is unmounted.
    @discardableResult
    public static func unmount(_ folder: FilePath) -> Bool {
        guard let helper = Programs.find("fusermount3") else { return false }
        let outcome = try? ChildProcess.run(
            helper, [Array("-u".utf8), Array("--".utf8), folder.bytes], environment: [], input: .nothing, control: nil
        ) { _ in }
        return outcome?.status == 0
    }
}
