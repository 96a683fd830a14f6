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

    /// Whether `folder` is a mount whose daemon is gone (ENOTCONN): fusermount3's watchdog, which unmounts
    /// it, can lose the race with the kernel and leave it.
    public static func isDead(_ folder: FilePath) -> Bool {
        var info = stat()
        return folder.withPlatformString { stat($0, &info) } != 0 && errno == ENOTCONN
    }

    /// Detaches a dead mount (`fusermount3 -u -z`): nothing can be read from it any more.
    public static func detach(_ folder: FilePath) {
        guard let helper = Programs.find("fusermount3") else { return }
        _ = try? ChildProcess.run(
            helper, [Array("-u".utf8), Array("-z".utf8), Array("--".utf8), folder.bytes], environment: [], input: .nothing, control: nil
        ) { _ in }
    }

    /// Unmounts `folder` unless something uses it (an open file, a shell's current folder).
    /// A use that ends within `patience` (a thumbnailer closing its file, a child that inherited a
    /// descriptor for the moment before its exec) is waited for, so a folder just closed is not "in use".
    /// - Returns: whether it is unmounted.
    @discardableResult
    public static func unmount(_ folder: FilePath, patience: Duration = .seconds(1)) -> Bool {
        guard let helper = Programs.find("fusermount3") else { return false }
        let deadline = ContinuousClock.now + patience
        while true {
            let outcome = try? ChildProcess.run(
                helper, [Array("-u".utf8), Array("--".utf8), folder.bytes], environment: [], input: .nothing, control: nil
            ) { _ in }
            if outcome?.status == 0 { return true }
            guard ContinuousClock.now < deadline, isOurs(folder) else { return false }
            usleep(100_000)
        }
    }
}

/// Where a writable folder keeps its changes until they are committed, and where its daemon leaves the
/// last commit's failure for `--unmount`.
public enum LayerPlace {
    /// A new private folder for one mount's changes: under `$XDG_CACHE_HOME`, or for an encrypted archive
    /// under `$XDG_RUNTIME_DIR` (memory, gone at logout), so that no decrypted byte reaches the disk.
    public static func make(for archive: FilePath, encrypted: Bool) throws(ArchiverError) -> FilePath {
        let base: FilePath
        if encrypted {
            guard let runtime = runtime else {
                throw ArchiverError(.destination, tr("There is no $XDG_RUNTIME_DIR to keep the changes of an encrypted archive in."))
            }
            base = runtime.appending("layers")
        } else {
            base = BaseFolders.current.cache.appending("io.github.archiver/layers")
        }
        try FileSystem.makeDirectories(base)
        let folder = base.appending(ArchiveLock.key(for: archive.bytes) + "-\(getpid())")
        guard folder.withPlatformString({ mkdir($0, 0o700) }) == 0 else { throw FileSystem.destinationError(errno, folder) }
        return folder
    }

    /// The layers that daemons of `archive` left: each one's changes are still to be committed (a daemon
    /// removes its layer once committed). Called with the archive's lock held, so none is in use.
    public static func leftovers(for archive: FilePath) -> [FilePath] {
        let prefix = Array((ArchiveLock.key(for: archive.bytes) + "-").utf8)
        let bases = [BaseFolders.current.cache.appending("io.github.archiver/layers")] + (runtime.map { [$0.appending("layers")] } ?? [])
        return bases.flatMap { base in
            ((try? FileSystem.entries(of: base)) ?? []).filter { $0.starts(with: prefix) }.map { base.appending(bytes: $0) }
        }
    }

    /// The file in which the daemon serving `folder` says why its last commit failed.
    public static func result(for folder: FilePath) -> FilePath {
        (runtime ?? FilePath("/tmp").appending("archiver-\(getuid())")).appending("results").appending(ArchiveLock.key(for: folder.bytes))
    }

    private static var runtime: FilePath? { archiverRuntimeFolder }
}

/// `$XDG_RUNTIME_DIR/archiver`, where Archiver makes its own folders; nil without a runtime folder.
private var archiverRuntimeFolder: FilePath? {
    guard let runtime = ProcessEnvironment.current.variables["XDG_RUNTIME_DIR"], !runtime.isEmpty else { return nil }
    return FilePath(runtime).appending("archiver")
}

extension MountPoints {
    /// Whether `folder` is one Archiver made under $XDG_RUNTIME_DIR/archiver (always ours to remove); a folder
    /// the person named is not.
    public static func isOwnFolder(_ folder: FilePath) -> Bool {
        archiverRuntimeFolder.map { folder.starts(with: $0) } ?? false
    }
}
