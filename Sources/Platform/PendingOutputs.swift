import ArchiverCore
import Glibc
import Synchronization
import SystemPackage

/// The temporary outputs of the running jobs, so that a stop that cannot wait for the engine (a libarchive
/// call that never returns on malformed data, the last flush of a large xz block or 7z archive) can still
/// remove them and exit.
///
/// A path is registered when created and taken back just before it is published; whoever takes it first
/// owns it, so a job is never half published and half removed.
public enum PendingOutputs {
    private struct State {
        var paths: [FilePath] = []
        /// Taken back to be published or removed, and not yet in place or gone: a stop waits for these.
        var claimed: [FilePath] = []
        /// Engine jobs under way (an archive, a PDF, a batch of photos).
        var jobs = 0
        /// Programs writing into those outputs (7-Zip, unrar), killed before their output is removed.
        var children: Set<pid_t> = []
        /// Threads writing into those outputs (the extractor's file workers), halted before their output is
        /// removed, by the token `register(writers:)` gave.
        var writers: [Int: @Sendable () -> Void] = [:]
        var lastWriters = 0
    }

    private static let state = Mutex(State())
    private static let helperProgress = Atomic<Int>(0)

    /// Work done for the job by threads other than the engine's (the extractor's file workers, the read-ahead
    /// thread): the stall watch reads only the engine thread's kernel I/O counters, and adds this, so that a
    /// job whose reading thread waits on healthy helpers is not taken for one that makes no progress.
    package static func noteProgress(_ amount: Int) { helperProgress.wrappingAdd(amount, ordering: .relaxed) }

    /// The sum of `noteProgress(_:)` so far: it changes whenever a helper thread got something done.
    public static var helperWork: Int { helperProgress.load(ordering: .relaxed) }

    /// An engine job (an archive, a PDF, a batch of photos) begins: until `endJob()`, a stop may abandon
    /// it, even before it has created anything.
    package static func beginJob() { state.withLock { $0.jobs += 1 } }

    package static func endJob() { state.withLock { $0.jobs -= 1 } }

    static func register(child: pid_t) { _ = state.withLock { $0.children.insert(child) } }

    static func forget(child: pid_t) { _ = state.withLock { $0.children.remove(child) } }

    /// `halt` stops threads writing into the job's outputs and returns once they are through (or have had a
    /// moment); a stop that cannot wait for the engine calls it before removing the outputs.
    /// - Returns: the token for `forget(writers:)`.
    package static func register(writers halt: @escaping @Sendable () -> Void) -> Int {
        state.withLock { state in
            state.lastWriters += 1
            state.writers[state.lastWriters] = halt
            return state.lastWriters
        }
    }

    package static func forget(writers token: Int) { _ = state.withLock { $0.writers.removeValue(forKey: token) } }

    /// Whether a program such as 7-Zip is doing the job's work now (its progress is not this process's).
    public static var hasChildren: Bool { state.withLock { !$0.children.isEmpty } }

    package static func register(_ path: FilePath) {
        state.withLock { $0.paths.append(path) }
    }

    /// Takes `path` back from a stop, for publishing or removing it: a stop then waits until `release(_:)`.
    /// False when a stop already took it.
    package static func claim(_ path: FilePath) -> Bool {
        state.withLock { state in
            guard state.paths.remove(path) else { return false }
            state.claimed.append(path)
            return true
        }
    }

    /// `path`, claimed, is in place or gone.
    package static func release(_ path: FilePath) {
        _ = state.withLock { $0.claimed.remove(path) }
    }

    /// Removes `path` unless a stop already took it (and removes it).
    package static func discard(_ path: FilePath) {
        guard claim(path) else { return }
        FileSystem.removeTree(path)
        release(path)
    }

    /// Whether a stop may abandon the work now: a job is under way and none is publishing or removing an
    /// output. (Before and after the jobs, and while a result is moved into place, the command finishes
    /// itself.)
    public static var isAbandonable: Bool {
        state.withLock { $0.claimed.isEmpty && ($0.jobs > 0 || !$0.paths.isEmpty) }
    }

    /// Kills the programs working for the job and removes every registered output; the caller then exits
    /// at once. Returns false, doing nothing, while an output is being published or removed.
    public static func abandonAll() -> Bool {
        let taken: (paths: [FilePath], children: Set<pid_t>, writers: [@Sendable () -> Void])? = state.withLock { state in
            guard state.claimed.isEmpty else { return nil }
            defer { state.paths.removeAll() }
            return (state.paths, state.children, Array(state.writers.values))
        }
        guard let taken else { return false }
        // A child or thread left running would go on writing into what is being removed, and outlive us.
        for child in taken.children { kill(child, SIGKILL) }
        for halt in taken.writers { halt() }
        for path in taken.paths { FileSystem.removeTree(path) }
        return true
    }
}

extension Array where Element == FilePath {
    /// Removes one `path`; false when it was not there.
    fileprivate mutating func remove(_ path: FilePath) -> Bool {
        guard let index = firstIndex(of: path) else { return false }
        remove(at: index)
        return true
    }
}

/// One output file being written under a hidden temporary name in its destination folder: made with
/// O_EXCL (nobody else's file is written over), registered so that a stop removes it, and published under
/// its final name only when complete. Whatever is not published is removed when this goes away, so the
/// owner keeps it alive (`withExtendedLifetime`) for as long as the path or descriptor is in use.
package final class PendingFile {
    package let path: FilePath
    /// Open for writing; closed when this goes away.
    package let descriptor: Int32
    private let folder: FilePath
    private var withdrawn = false
    private var published = false
    private var closed = false

    package init(in folder: FilePath) throws(ArchiverError) {
        self.folder = folder
        path = folder.appending(TemporaryName.make(pid: getpid(), token: FileSystem.randomToken(), isDirectory: false))
        descriptor = path.withPlatformString { open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666) }
        guard descriptor >= 0 else { throw FileSystem.destinationError(errno, folder) }
        PendingOutputs.register(path)
    }

    deinit {
        if !closed { close(descriptor) }
        guard withdrawn else { return PendingOutputs.discard(path) }
        if !published { FileSystem.removeTree(path) }
        PendingOutputs.release(path)
    }

    /// Its size now, in bytes.
    package var size: Int64 { FileSystem.status(path).map { Int64($0.st_size) } ?? 0 }

    /// Takes it back from the stop's clean-up, before publishing or anything that must go with it; a stop
    /// then waits until it is published or removed.
    /// - Returns: false when a stop already took it (and removes it).
    package func withdraw() -> Bool {
        if !withdrawn { withdrawn = PendingOutputs.claim(path) }
        return withdrawn
    }

    /// Moves it to `name` in its folder (numbered when taken, unless `exact`).
    /// - Throws: `.cancelled` when a stop already took it; the publisher's error, the file then removed.
    package func publish(as name: [UInt8], exact: Bool = false) throws(ArchiverError) -> FilePath {
        guard withdraw() else { throw ArchiverError(.cancelled, tr("Cancelled.")) }
        try closeForPublishing()
        let output = try FileSystem.publish(path, in: folder, as: name, isDirectory: false, exact: exact)
        published = true
        return output
    }

    /// Closes the descriptor, which reports a write the disk could not keep (NFS, a full quota report a
    /// lost write only here).
    func closeForPublishing() throws(ArchiverError) {
        guard !closed else { return }
        closed = true
        if close(descriptor) != 0 { throw FileSystem.destinationError(errno, folder) }
    }

    /// It is in place under its final name: nothing to remove.
    func markPublished() { published = true }
}
