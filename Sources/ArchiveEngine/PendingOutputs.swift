import ArchiverCore
import Synchronization
import SystemPackage

/// The temporary outputs of the running job, so that a cancellation that cannot wait for libarchive (the
/// last flush of a large xz block or 7z archive takes seconds to minutes) can still remove them and exit.
///
/// A path is registered when created and withdrawn just before it is published; whoever takes it first
/// owns it, so a job is never half published and half removed.
public enum PendingOutputs {
    private static let paths = Mutex<[FilePath]>([])

    static func register(_ path: FilePath) {
        paths.withLock { $0.append(path) }
    }

    /// Takes `path` back for publishing or cleanup. False when a cancellation already took it.
    static func withdraw(_ path: FilePath) -> Bool {
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
        for path in taken { FileSystem.removeTree(path) }
        return !taken.isEmpty
    }
}
