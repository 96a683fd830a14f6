import Glibc
import MountEngine
import Platform
import SystemPackage

/// `open-with-archiver --watch PID FOLDER`: started by a daemon once its folder is mounted, waits for that
/// daemon to end and detaches the folder if the daemon left it mounted but dead (killed). fusermount3's own
/// `auto_unmount` misses some deaths: its check of the folder can meet the connection while it is being
/// torn down and take ECONNABORTED for a live mount, leaving "Transport endpoint is not connected" behind.
enum DeathWatch {
    /// Starts the watcher of this process's `folder`; it outlives us, holding nothing of ours.
    static func start(folder: FilePath) {
        let me = FilePath(bytes: FileSystem.symlinkTarget(FilePath("/proc/self/exe")) ?? Array(CommandLine.arguments[0].utf8))
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        guard null >= 0 else { return }
        defer { close(null) }
        _ = try? ChildProcess.startDaemon(me, [Array("--watch".utf8), Array("\(getpid())".utf8), folder.bytes], stdin: null, stdout: null)
    }

    static func run(daemon: pid_t, folder: FilePath) -> Never {
        ProcessState.waitForEnd(of: daemon)
        // The process is gone with all its descriptors: a folder still mounted there is dead, unless
        // another daemon has mounted it again meanwhile (then it answers).
        if MountPoints.isOurs(folder), MountPoints.isDead(folder) {
            MountPoints.detach(folder)
            if MountPoints.isOwnFolder(folder) { _ = folder.withPlatformString { rmdir($0) } }
        }
        exit(0)
    }
}
