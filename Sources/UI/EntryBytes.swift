import ArchiveEngine
import ArchiverCore
import Synchronization
import SystemPackage

/// Entries' bytes for the Extract… window's thumbnails and quick look, read in memory through the engine's
/// index (as Open as Folder reads a file): nothing is extracted or written anywhere. Called on worker threads
/// only: the first call scans the archive (for a zip, its central directory), which can take a while.
final class EntryBytes: Sendable {
    private struct State {
        var index: ArchiveIndex?
        /// The scan failed (damaged, or its names are encrypted and no password is known): not tried again
        /// until a password comes.
        var failed = false
        var password: Secret?
    }

    private let archive: FilePath
    private let state = Mutex(State())
    /// Stopped when the window closes: a long scan gives up.
    let control = JobControl()

    init(archive: FilePath) { self.archive = archive }

    /// The password that opened the archive: what it protects can be read from now on.
    func unlock(_ password: [UInt8]) {
        let secret = Secret(password)
        state.withLock {
            $0.password = secret
            $0.index = nil
            $0.failed = false
        }
    }

    /// The archive was changed: the next read scans it again (with the password known so far).
    func forget() {
        state.withLock {
            $0.index = nil
            $0.failed = false
        }
    }

    /// The first `limit` bytes of the file at `path` (as the tree names it), or all of it when it is
    /// smaller; nil when it cannot be read (no such file, damaged, encrypted without the password).
    func read(_ path: String, limit: Int) -> [UInt8]? {
        guard let index = index(), let node = index.lookup(Array(path.utf8)), index.nodes[node].kind == .file,
            let stream = try? EntryStream(index, node: node)
        else { return nil }
        return try? stream.prefix(limit, control: control)
    }

    /// The index, scanned once (under the lock: two workers asking at once wait for the one scan).
    private func index() -> ArchiveIndex? {
        state.withLock { state -> ArchiveIndex? in
            if let index = state.index { return index }
            guard !state.failed else { return nil }
            let asker = state.password.map { secret in PasswordAsker(attempts: 1) { _, _ in secret } }
            state.index = try? ArchiveIndex.scan(archive, passwords: asker, control: control)
            state.failed = state.index == nil
            return state.index
        }
    }
}
