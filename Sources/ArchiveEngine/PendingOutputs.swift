import ArchiverCore
import Glibc
import Synchronization
import SystemPackage

/// The temporary outputs of the running job, so that a cancellation that cannot wait for libarchive (the
/// last flush of a large xz block or 7z archive takes seconds to minutes) can still remove them and exit.
///
/// A path is registered when created and withdrawn just before it is published; whoever takes it first
/// owns it, so a job is never half published and half removed.
public enum PendingOutputs {
    private static let paths = Mutex<[FilePath]>([])
    /// Programs writing into those outputs (7-Zip), killed before their output is removed.
    private static let children = Mutex<Set<pid_t>>([])

    static func register(child: pid_t) { _ = children.withLock { $0.insert(child) } }

    static func forget(child: pid_t) { _ = children.withLock { $0.remove(child) } }

    package static func register(_ path: FilePath) {
        paths.withLock { $0.append(path) }
    }

    /// Takes `path` back for publishing or cleanup. False when a cancellation already took it.
    package static func withdraw(_ path: FilePath) -> Bool {
        paths.withLock { list in
            guard let index = list.firstIndex(of: path) else { return false }
            list.remove(at: index)
            return true
        }
    }

    /// Removes every registered output; the caller then exits at once. Returns false when there was
    /// nothing to remove, because the job is already publishing its result and should be left to finish.
    public static func abandonAll() -> Bool {
        let taken = paths.withLock { list in
            defer { list.removeAll() }
            return list
        }
        // A child left running would go on writing into what is being removed, and outlive us.
        if !taken.isEmpty { for child in children.withLock({ $0 }) { kill(child, SIGKILL) } }
        for path in taken { FileSystem.removeTree(path) }
        return !taken.isEmpty
    }
}
