internal import CFuseShim
import ArchiveEngine
import ArchiverCore
import Dispatch
import Glibc
import Platform
import Synchronization
import SystemPackage

/// What a commit of a writable folder did.
public enum CommitOutcome: Sendable {
    /// Nothing was changed since the last commit.
    case nothing
    /// `changes` names changed, in the archive itself or (`savedBeside`) in `x (edited).zip` beside it.
    case saved(changes: Int, result: EditResult)
    /// The changes stay in the layer.
    case failed(ArchiverError)
}

/// A writable Open as Folder: the archive's tree served through FUSE with every change kept in a private
/// layer (`LiveTree`) until it is committed through the edit engine: once no file has been open for
/// `commitDelay` seconds, and when the folder is unmounted. Reads see the changes at once.
public final class LayeredFileSystem: @unchecked Sendable {
    private struct Open {
        var inode: UInt64
        /// An archive entry read as it is.
        var stream: EntryStream?
        /// The layer's file, read and written.
        var descriptor: Int32 = -1
    }

    private struct State {
        var tree: LiveTree
        var files: [UInt64: Open] = [:]
        var nextHandle: UInt64 = 1
        /// When the last change came, in seconds of the monotonic clock.
        var lastChange = 0.0
        var lastAccess = 0.0
    }

    private let state: Mutex<State>
    private let session: ArchiveEditSession
    private let owner: (uid: uid_t, gid: gid_t)
    private let onReady: @Sendable () -> Void
    /// Commits one at a time: the idle one and the last one at unmount.
    private let committing = Mutex<Void>(())
    private let commitSettings: CommitSettings
    /// The archive as the tree last read it: a commit that finds another file saves beside it.
    private let readAs: Mutex<stat?>

    /// How commits are made.
    public struct CommitSettings: Sendable {
        public var level: CompressionLevel
        public var passwords: PasswordAsker?
        /// Called after each commit that saved or failed, from the committing thread.
        public var committed: @Sendable (CommitOutcome) -> Void

        public init(level: CompressionLevel, passwords: PasswordAsker?, committed: @escaping @Sendable (CommitOutcome) -> Void) {
            (self.level, self.passwords, self.committed) = (level, passwords, committed)
        }
    }

    /// - Parameters:
    ///   - session: holds the archive's one-writer lock for as long as the folder is served.
    ///   - layer: an empty private folder for new bytes.
    ///   - ready: called once the folder answers, from a FUSE thread.
    public init(
        _ index: ArchiveIndex, session: ArchiveEditSession, layer: FilePath, settings: CommitSettings,
        ready: @escaping @Sendable () -> Void
    ) {
        state = Mutex(State(tree: LiveTree(index, layer: layer)))
        self.session = session
        commitSettings = settings
        owner = (getuid(), getgid())
        onReady = ready
        readAs = Mutex(FileSystem.status(session.archive))
        touch(changed: false)
    }

    /// Mounts at `mountPoint` and serves until unmounted, committing when idle; the caller commits the
    /// rest (`commit()`) once this returns.
    public func serve(at mountPoint: FilePath, source: String, idleTimeout: Double?, commitDelay: Double) throws(ArchiverError) {
        let options = "rw,nodev,nosuid,noatime,default_permissions,auto_unmount,subtype=archiver,fsname="
            + MountPlace.optionValue(source)
        let operations = UnsafeMutablePointer<cfuse_operations>.allocate(capacity: 1)
        operations.initialize(to: Self.operations)
        defer { operations.deallocate() }
        let context = Unmanaged.passRetained(self)
        defer { context.release() }
        // Short: a commit reads the new archive, and names must then be asked again.
        let fuse = mountPoint.withPlatformString { point in cfuse_mount(point, options, operations, context.toOpaque(), 1) }
        guard let fuse else {
            throw ArchiverError(
                .destination, tr("Cannot mount “%@” as a folder.", source),
                hint: tr("FUSE must be available: install fuse3 and check that /dev/fuse exists."), path: mountPoint.string)
        }
        watch(mountPoint, idleTimeout: idleTimeout, commitDelay: commitDelay)
        _ = cfuse_serve(fuse, 8)
    }

    /// Commits once changes have rested `commitDelay` seconds with no file open, and unmounts once nothing
    /// has been used for `idleTimeout` seconds.
    private func watch(_ mountPoint: FilePath, idleTimeout: Double?, commitDelay: Double) {
        DispatchQueue(label: "idle").async { [self] in
            // A commit that failed is tried again after the next change, and at unmount.
            var failedAt: Double?
            while true {
                usleep(250_000)
                let (changed, lastChange, idleFor, nothingOpen) = state.withLock { state in
                    (state.tree.isChanged, state.lastChange, monotonic() - state.lastAccess, state.files.isEmpty)
                }
                guard nothingOpen else { continue }
                if changed, monotonic() - lastChange >= commitDelay, failedAt != lastChange {
                    if case .failed = commit() { failedAt = lastChange }
                    continue
                }
                if let idleTimeout, idleFor >= idleTimeout {
                    if MountPoints.unmount(mountPoint, patience: .zero) { return }
                    touch(changed: false)
                }
            }
        }
    }

    /// Commits the changes made since the last commit, if any: the tree then shows the new archive.
    @discardableResult
    public func commit() -> CommitOutcome {
        committing.withLock { _ in
            // The tree stays as it is while the engine reads it: requests wait (reads of the archive too,
            // which is replaced under them).
            let outcome: CommitOutcome = state.withLock { state in
                guard state.tree.isChanged else { return .nothing }
                let count = state.tree.changedNames
                let changes = state.tree.changes
                changes.prepare(state.tree.layer)
                do throws(ArchiverError) {
                    let result = try Self.commit(changes.edits, session: session, settings: commitSettings, readAs: readAs.withLock { $0 })
                    let index = try ArchiveIndex.scan(session.archive, passwords: commitSettings.passwords, control: JobControl())
                    readAs.withLock { $0 = FileSystem.status(session.archive) }
                    // Saved beside: the folder shows the archive as the other program left it.
                    state.tree.rebase(on: index, keepingInodes: !result.savedBeside)
                    return .saved(changes: count, result: result)
                } catch {
                    return .failed(error)
                }
            }
            if case .nothing = outcome {} else { commitSettings.committed(outcome) }
            return outcome
        }
    }

    private static func commit(_ edits: [ArchiveEdit], session: ArchiveEditSession, settings: CommitSettings, readAs: stat?)
        throws(ArchiverError) -> EditResult
    {
        // 7-Zip's update keeps no mode or time change: those are let go rather than failing the rest.
        let kept = ArchiveEditSession.keepsAttributes(session.archive)
            ? edits : edits.filter { if case .setAttributes = $0 { false } else { true } }
        return try session.commit(
            kept, replacing: true, level: settings.level, passwords: settings.passwords, lenient: true, readAs: readAs,
            control: JobControl())
    }

    /// Commits what killed daemons of this archive left in their layers (`LayerPlace.leftovers`), each as
    /// its own commit; a layer is removed once committed, and stays when its commit fails.
    public static func recover(_ session: ArchiveEditSession, settings: CommitSettings) {
        for layer in LayerPlace.leftovers(for: session.archive) {
            guard let bytes = FileSystem.wholeFile(layer.appending("changes")),
                let (changes, readAs) = LayerChanges.decoded(bytes, layer: layer), !changes.edits.isEmpty
            else {
                FileSystem.removeTree(layer)
                continue
            }
            changes.prepare(layer)
            do throws(ArchiverError) {
                let result = try commit(changes.edits, session: session, settings: settings, readAs: readAs)
                FileSystem.removeTree(layer)
                settings.committed(.saved(changes: changes.edits.count, result: result))
            } catch {
                Log.line("The changes kept in \(layer) could not be saved: " + error.message.english)
                settings.committed(.failed(error))
            }
        }
    }

    /// Keeps the tree's changes in the layer (`changes`, replaced whole), for the next mount if this
    /// daemon is killed before it commits them. The bytes are in the layer's files already.
    private func keep(_ tree: LiveTree) {
        let file = tree.layer.appending("changes")
        let temporary = tree.layer.appending(".changes")
        let bytes = tree.changes.encoded(layer: tree.layer, readAs: readAs.withLock { $0 })
        let descriptor = temporary.withPlatformString { Glibc.open($0, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600) }
        guard descriptor >= 0 else { return }
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        if written == bytes.count { _ = temporary.withPlatformString { from in file.withPlatformString { Glibc.rename(from, $0) } } }
    }

    private func touch(changed: Bool) {
        let now = monotonic()
        state.withLock { state in
            state.lastAccess = now
            if changed { state.lastChange = now }
        }
    }

    private func monotonic() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    private func status(_ inode: UInt64, _ node: LiveTree.Node) -> stat {
        var result = stat()
        result.st_ino = ino_t(inode)
        result.st_uid = owner.uid
        result.st_gid = owner.gid
        result.st_nlink = 1
        switch node.kind {
        case .directory: result.st_mode = S_IFDIR | node.mode | 0o700
        case .file: result.st_mode = S_IFREG | node.mode
        case .symlink: result.st_mode = S_IFLNK | 0o777
        }
        result.st_size = off_t(node.size)
        result.st_blocks = blkcnt_t((node.size + 511) / 512)
        result.st_blksize = 128 * 1024
        let time = timespec(tv_sec: time_t(node.modified), tv_nsec: 0)
        (result.st_mtim, result.st_ctim, result.st_atim) = (time, time, time)
        return result
    }

    // MARK: - Requests

    private func lookup(_ parent: UInt64, _ name: [UInt8], _ out: UnsafeMutablePointer<stat>?) -> Int32 {
        touch(changed: false)
        return state.withLock { state in
            guard let folder = state.tree.nodes[parent] else { return -ENOENT }
            guard folder.kind == .directory else { return -ENOTDIR }
            guard let child = folder.children[name], let node = state.tree.nodes[child] else { return -ENOENT }
            out?.pointee = status(child, node)
            return 0
        }
    }

    private func getattr(_ inode: UInt64, _ out: UnsafeMutablePointer<stat>?) -> Int32 {
        state.withLock { state in
            guard let node = state.tree.nodes[inode] else { return -ENOENT }
            out?.pointee = status(inode, node)
            return 0
        }
    }

    /// Opens the layer's copy of `inode`, copying the entry's bytes there first unless `truncating`.
    private static func layerCopy(_ state: inout State, _ inode: UInt64, truncating: Bool, flags: Int32) -> Int32 {
        guard let node = state.tree.nodes[inode] else { return -ENOENT }
        let file = state.tree.layerFile(inode)
        if node.inLayer {
            let descriptor = file.withPlatformString { Glibc.open($0, flags | O_CLOEXEC) }
            guard descriptor >= 0 else { return -errno }
            if truncating { state.tree.setSize(inode, 0) }
            return descriptor
        }
        let descriptor = file.withPlatformString { Glibc.open($0, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600) }
        guard descriptor >= 0 else { return -errno }
        if !truncating, let origin = node.origin {
            do throws(ArchiverError) {
                var offset: Int64 = 0
                var failure: Int32 = 0
                try EntryStream(state.tree.index, node: origin).readFromStart { chunk in
                    let written = pwrite(descriptor, chunk.baseAddress, chunk.count, off_t(offset))
                    guard written == chunk.count else {
                        failure = written < 0 ? errno : ENOSPC
                        return false
                    }
                    offset += Int64(chunk.count)
                    return true
                }
                if failure != 0 {
                    close(descriptor)
                    return -failure
                }
            } catch {
                Log.line(error.message.english)
                close(descriptor)
                return -EIO
            }
        }
        state.tree.rewrote(inode)
        if truncating { state.tree.setSize(inode, 0) }
        if flags & O_ACCMODE == O_RDWR || flags & O_ACCMODE == O_WRONLY, flags & O_APPEND == 0 { return descriptor }
        close(descriptor)
        let again = file.withPlatformString { Glibc.open($0, (flags & ~(O_CREAT | O_TRUNC | O_EXCL)) | O_CLOEXEC) }
        return again >= 0 ? again : -errno
    }

    private func open(_ inode: UInt64, flags: Int32, handle: UnsafeMutablePointer<UInt64>?) -> Int32 {
        touch(changed: false)
        return state.withLock { state in
            guard let node = state.tree.nodes[inode] else { return -ENOENT }
            guard node.kind == .file else { return -EISDIR }
            var opened = Open(inode: inode)
            let writing = flags & O_ACCMODE != O_RDONLY
            if writing || node.inLayer {
                let descriptor = Self.layerCopy(&state, inode, truncating: flags & O_TRUNC != 0 && writing, flags: flags & ~O_CREAT)
                guard descriptor >= 0 else { return descriptor }
                opened.descriptor = descriptor
                if writing {
                    state.lastChange = monotonic()
                    keep(state.tree)
                }
            } else {
                guard let origin = node.origin, let stream = try? EntryStream(state.tree.index, node: origin) else { return -EIO }
                opened.stream = stream
            }
            defer { state.nextHandle += 1 }
            state.files[state.nextHandle] = opened
            handle?.pointee = state.nextHandle
            return 0
        }
    }

    private func read(_ handle: UInt64, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Int32 {
        touch(changed: false)
        guard let opened = state.withLock({ $0.files[handle] }) else { return -EBADF }
        if opened.descriptor >= 0 {
            let count = pread(opened.descriptor, buffer.baseAddress, buffer.count, off_t(offset))
            return count >= 0 ? Int32(count) : -errno
        }
        do {
            return Int32(try opened.stream!.read(into: buffer, at: offset))
        } catch {
            Log.line(error.message.english + (error.hint.map { " " + $0.english } ?? ""))
            return -EIO
        }
    }

    private func write(_ handle: UInt64, _ buffer: UnsafeRawBufferPointer, at offset: Int64) -> Int32 {
        touch(changed: true)
        guard let opened = state.withLock({ $0.files[handle] }), opened.descriptor >= 0 else { return -EBADF }
        let count = pwrite(opened.descriptor, buffer.baseAddress, buffer.count, off_t(offset))
        guard count >= 0 else { return -errno }
        var info = stat()
        fstat(opened.descriptor, &info)
        state.withLock { $0.tree.setSize(opened.inode, Int64(info.st_size)) }
        return Int32(count)
    }

    private func release(_ handle: UInt64) {
        touch(changed: false)
        guard let opened = state.withLock({ $0.files.removeValue(forKey: handle) }) else { return }
        if opened.descriptor >= 0 { close(opened.descriptor) }
    }

    private func create(_ parent: UInt64, _ name: [UInt8], mode: UInt32, flags: Int32, _ out: UnsafeMutablePointer<stat>?, handle: UnsafeMutablePointer<UInt64>?) -> Int32 {
        touch(changed: true)
        return state.withLock { state in
            let refusal = state.tree.refusal(of: name, in: parent)
            guard refusal == 0 else { return -refusal }
            guard state.tree.child(of: parent, named: name) == nil else { return -EEXIST }
            let inode = state.tree.makeNode(.file, named: name, in: parent, mode: mode)
            let file = state.tree.layerFile(inode)
            let descriptor = file.withPlatformString { Glibc.open($0, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600) }
            guard descriptor >= 0 else {
                let error = errno
                state.tree.remove(inode)
                return -error
            }
            if flags & O_APPEND != 0 { _ = fcntl(descriptor, F_SETFL, O_APPEND) }
            defer { state.nextHandle += 1 }
            state.files[state.nextHandle] = Open(inode: inode, descriptor: descriptor)
            handle?.pointee = state.nextHandle
            out?.pointee = status(inode, state.tree.nodes[inode]!)
            keep(state.tree)
            return 0
        }
    }

    private func setattr(_ inode: UInt64, _ wanted: stat, which: Int32, handle: UInt64, _ out: UnsafeMutablePointer<stat>?) -> Int32 {
        touch(changed: true)
        return state.withLock { state in
            guard state.tree.nodes[inode] != nil else { return -ENOENT }
            if which & Int32(CFUSE_SET_SIZE) != 0 {
                guard state.tree.nodes[inode]!.kind == .file else { return -EISDIR }
                let descriptor: Int32
                if let open = state.files[handle], open.descriptor >= 0 {
                    descriptor = dup(open.descriptor)
                } else {
                    descriptor = Self.layerCopy(&state, inode, truncating: false, flags: O_RDWR)
                }
                guard descriptor >= 0 else { return descriptor }
                defer { close(descriptor) }
                guard ftruncate(descriptor, wanted.st_size) == 0 else { return -errno }
                state.tree.setSize(inode, Int64(wanted.st_size))
            }
            var mode: UInt32?
            var modified: Int64?
            if which & Int32(CFUSE_SET_MODE) != 0 { mode = wanted.st_mode & 0o7777 }
            if which & Int32(CFUSE_SET_MTIME_NOW) != 0 {
                modified = Int64(time(nil))
            } else if which & Int32(CFUSE_SET_MTIME) != 0 {
                modified = Int64(wanted.st_mtim.tv_sec)
            }
            if mode != nil || modified != nil { state.tree.setAttributes(inode, mode: mode, modified: modified) }
            out?.pointee = status(inode, state.tree.nodes[inode]!)
            keep(state.tree)
            return 0
        }
    }

    private func make(_ parent: UInt64, _ name: [UInt8], _ kind: ArchiveIndex.Node.Kind, mode: UInt32, link: [UInt8]?, _ out: UnsafeMutablePointer<stat>?) -> Int32 {
        touch(changed: true)
        return state.withLock { state in
            let refusal = state.tree.refusal(of: name, in: parent)
            guard refusal == 0 else { return -refusal }
            guard state.tree.child(of: parent, named: name) == nil else { return -EEXIST }
            let inode = state.tree.makeNode(kind, named: name, in: parent, mode: mode, link: link)
            if let link {
                // The layer holds the symlink itself, which the engine stores as one.
                let made = (link + [0]).withUnsafeBufferPointer { target in
                    target.withMemoryRebound(to: CChar.self) { target in
                        state.tree.layerFile(inode).withPlatformString { symlink(target.baseAddress!, $0) }
                    }
                }
                if made != 0 {
                    let error = errno
                    state.tree.remove(inode)
                    return -error
                }
            }
            out?.pointee = status(inode, state.tree.nodes[inode]!)
            keep(state.tree)
            return 0
        }
    }

    private func remove(_ parent: UInt64, _ name: [UInt8], folder: Bool) -> Int32 {
        touch(changed: true)
        return state.withLock { state in
            guard let inode = state.tree.child(of: parent, named: name), let node = state.tree.nodes[inode] else { return -ENOENT }
            if folder {
                guard node.kind == .directory else { return -ENOTDIR }
                guard node.children.isEmpty else { return -ENOTEMPTY }
            } else if node.kind == .directory {
                return -EISDIR
            }
            state.tree.remove(inode)
            keep(state.tree)
            return 0
        }
    }

    private func rename(_ parent: UInt64, _ name: [UInt8], to newParent: UInt64, _ newName: [UInt8], flags: UInt32) -> Int32 {
        touch(changed: true)
        return state.withLock { state in
            guard flags & Self.exchange == 0 else { return -EINVAL }
            guard let inode = state.tree.child(of: parent, named: name), let node = state.tree.nodes[inode] else { return -ENOENT }
            let refusal = state.tree.refusal(of: newName, in: newParent)
            guard refusal == 0 else { return -refusal }
            // Not into itself: no folder above the new place may be the one that moves.
            var above = newParent
            while above != LiveTree.root {
                if above == inode { return -EINVAL }
                above = state.tree.nodes[above]?.parent ?? LiveTree.root
            }
            if let standing = state.tree.child(of: newParent, named: newName), let there = state.tree.nodes[standing] {
                if standing == inode { return 0 }
                if flags & Self.noReplace != 0 { return -EEXIST }
                if node.kind == .directory {
                    guard there.kind == .directory else { return -ENOTDIR }
                    guard there.children.isEmpty else { return -ENOTEMPTY }
                } else if there.kind == .directory {
                    return -EISDIR
                }
            }
            state.tree.move(inode, to: newParent, name: newName)
            keep(state.tree)
            return 0
        }
    }

    private func readdir(_ inode: UInt64, offset: Int64, buffer: UnsafeMutableRawPointer?, fill: cfuse_fill) -> Int32 {
        touch(changed: false)
        let listing: [(name: [UInt8], status: stat)]? = state.withLock { state in
            guard let node = state.tree.nodes[inode], node.kind == .directory else { return nil }
            // By inode: the archive's order, then what was made here.
            var listing: [(name: [UInt8], status: stat)] = [(Array(".".utf8), status(inode, node))]
            for (name, child) in node.children.sorted(by: { $0.value < $1.value }) {
                if let item = state.tree.nodes[child] { listing.append((name, status(child, item))) }
            }
            return listing
        }
        guard let listing else { return -ENOTDIR }
        let total = listing.count + 1
        for position in min(Int(max(0, offset)), total)..<total {
            let next = Int64(position + 1)
            let full: Int32
            switch position {
            case 0:
                var own = listing[0].status
                full = fill(buffer, ".", &own, next)
            case 1:
                full = fill(buffer, "..", nil, next)
            default:
                var entry = listing[position - 1]
                full = (entry.name + [0]).withUnsafeBufferPointer { name in
                    name.withMemoryRebound(to: CChar.self) { fill(buffer, $0.baseAddress, &entry.status, next) }
                }
            }
            if full != 0 { break }
        }
        return 0
    }

    /// rename2's RENAME_NOREPLACE and RENAME_EXCHANGE (<linux/fs.h>, not imported).
    private static let noReplace: UInt32 = 1, exchange: UInt32 = 2

    private static func this(_ context: UnsafeMutableRawPointer?) -> LayeredFileSystem {
        Unmanaged<LayeredFileSystem>.fromOpaque(context!).takeUnretainedValue()
    }

    private static func bytes(_ name: UnsafePointer<CChar>?) -> [UInt8] { name.map(CString.bytes) ?? [] }

    /// The callbacks: C calls them on its own threads; each answers -errno or 0.
    private static let operations: cfuse_operations = {
        var table = cfuse_operations()
        table.lookup = { context, parent, name, status in this(context).lookup(parent, bytes(name), status) }
        table.getattr = { context, inode, status in this(context).getattr(inode, status) }
        table.readlink = { context, inode, target, size in
            let link = this(context).state.withLock { $0.tree.nodes[inode]?.link }
            guard let link, let target, size > 0 else { return -EINVAL }
            let count = min(link.count, size - 1)
            link.withUnsafeBytes { if count > 0 { UnsafeMutableRawPointer(target).copyMemory(from: $0.baseAddress!, byteCount: count) } }
            target[count] = 0
            return 0
        }
        table.readdir = { context, inode, offset, buffer, fill in
            guard let fill else { return -EINVAL }
            return this(context).readdir(inode, offset: offset, buffer: buffer, fill: fill)
        }
        table.open = { context, inode, flags, handle in this(context).open(inode, flags: flags, handle: handle) }
        table.read = { context, handle, buffer, size, offset in
            this(context).read(handle, into: UnsafeMutableRawBufferPointer(start: buffer, count: size), at: offset)
        }
        table.release = { context, handle in
            this(context).release(handle)
            return 0
        }
        table.ready = { context in this(context).onReady() }
        table.create = { context, parent, name, mode, flags, status, handle in
            this(context).create(parent, bytes(name), mode: UInt32(mode), flags: flags, status, handle: handle)
        }
        table.write = { context, handle, buffer, size, offset in
            this(context).write(handle, UnsafeRawBufferPointer(start: buffer, count: size), at: offset)
        }
        table.setattr = { context, inode, wanted, which, handle, status in
            guard let wanted else { return -EINVAL }
            return this(context).setattr(inode, wanted.pointee, which: which, handle: handle, status)
        }
        table.mkdir = { context, parent, name, mode, status in
            this(context).make(parent, bytes(name), .directory, mode: UInt32(mode), link: nil, status)
        }
        table.symlink = { context, parent, name, target, status in
            this(context).make(parent, bytes(name), .symlink, mode: 0o777, link: bytes(target), status)
        }
        table.unlink = { context, parent, name in this(context).remove(parent, bytes(name), folder: false) }
        table.rmdir = { context, parent, name in this(context).remove(parent, bytes(name), folder: true) }
        table.rename = { context, parent, name, newParent, newName, flags in
            this(context).rename(parent, bytes(name), to: newParent, bytes(newName), flags: flags)
        }
        return table
    }()
}
