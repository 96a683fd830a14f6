internal import CFuseShim
import ArchiveEngine
import ArchiverCore
import Dispatch
import Glibc
import Synchronization
import SystemPackage

/// An `ArchiveIndex` served read-only through FUSE, each open file through an `EntryStream` of its own
/// so that several readers are served at once.
public final class ArchiveFileSystem: Sendable {
    let index: ArchiveIndex
    private let owner: (uid: uid_t, gid: gid_t)
    private let files = Mutex<(next: UInt64, open: [UInt64: EntryStream])>((1, [:]))
    /// When the last request came, in seconds of the monotonic clock.
    private let lastAccess = Atomic<Int64>(0)
    private let onReady: @Sendable () -> Void

    /// - Parameter ready: called once the folder answers, from a FUSE thread.
    public init(_ index: ArchiveIndex, ready: @escaping @Sendable () -> Void) {
        self.index = index
        owner = (getuid(), getgid())
        onReady = ready
        touch()
    }

    /// Mounts at `mountPoint` and serves until unmounted (`fusermount3 -u`, or idle for `idleTimeout`
    /// seconds with no file open). The mount goes when this process dies, even by SIGKILL
    /// (`auto_unmount`: fusermount3 stays behind to watch).
    /// - Parameter source: what the mount table shows as mounted (the archive's path).
    public func serve(at mountPoint: FilePath, source: String, idleTimeout: Double?) throws(ArchiverError) {
        let options = "ro,nodev,nosuid,noatime,default_permissions,auto_unmount,subtype=archiver,fsname="
            + MountPlace.optionValue(source)
        let operations = UnsafeMutablePointer<cfuse_operations>.allocate(capacity: 1)
        operations.initialize(to: Self.operations)
        defer { operations.deallocate() }
        let context = Unmanaged.passRetained(self)
        defer { context.release() }
        let fuse = mountPoint.withPlatformString { point in
            cfuse_mount(point, options, operations, context.toOpaque(), 3600)
        }
        guard let fuse else {
            throw ArchiverError(
                .destination, tr("Cannot mount “%@” as a folder.", source),
                hint: tr("FUSE must be available: install fuse3 and check that /dev/fuse exists."), path: mountPoint.string)
        }
        if let idleTimeout { watchIdle(mountPoint, timeout: idleTimeout) }
        _ = cfuse_serve(fuse, 8)
    }

    /// Unmounts once nothing has been open or asked for `timeout` seconds. A folder still in use (a
    /// shell's current folder) refuses, and the wait starts again.
    private func watchIdle(_ mountPoint: FilePath, timeout: Double) {
        DispatchQueue(label: "idle").async { [self] in
            while true {
                sleep(1)
                let idle = Double(Self.now() - lastAccess.load(ordering: .relaxed))
                guard idle >= timeout, files.withLock({ $0.open.isEmpty }) else { continue }
                if MountPoints.unmount(mountPoint, patience: .zero) { return }
                touch()
            }
        }
    }

    private func touch() { lastAccess.store(Self.now(), ordering: .relaxed) }

    private static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec)
    }

    private func status(of node: Int) -> stat {
        let item = index.nodes[node]
        var result = stat()
        result.st_ino = ino_t(node + 1)
        result.st_uid = owner.uid
        result.st_gid = owner.gid
        switch item.kind {
        case .directory:
            result.st_mode = S_IFDIR | 0o555
            // 1: "not counted", which tells fts and find not to infer the number of subfolders from it.
            result.st_nlink = 1
        case .file:
            // Readable by all, executable where it was: nothing here can be written.
            result.st_mode = S_IFREG | 0o444 | (item.permissions & 0o111)
            result.st_nlink = 1
        case .symlink:
            result.st_mode = S_IFLNK | 0o777
            result.st_nlink = 1
        }
        result.st_size = off_t(item.size)
        result.st_blocks = blkcnt_t((item.size + 511) / 512)
        result.st_blksize = 128 * 1024
        let time = timespec(tv_sec: time_t(item.modified), tv_nsec: 0)
        (result.st_mtim, result.st_ctim, result.st_atim) = (time, time, time)
        return result
    }

    /// The node of inode `inode` (the node's number + 1, FUSE's root being 1), if there is one.
    private func node(_ inode: UInt64) -> Int? {
        touch()
        return inode >= 1 && inode <= UInt64(index.nodes.count) ? Int(inode - 1) : nil
    }

    private func open(_ inode: UInt64) -> (handle: UInt64?, error: Int32) {
        guard let node = node(inode) else { return (nil, ENOENT) }
        guard index.nodes[node].kind == .file, let stream = try? EntryStream(index, node: node) else { return (nil, EISDIR) }
        let handle = files.withLock { files in
            defer { files.next += 1 }
            files.open[files.next] = stream
            return files.next
        }
        return (handle, 0)
    }

    private func read(_ handle: UInt64, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Int32 {
        touch()
        guard let stream = files.withLock({ $0.open[handle] }) else { return -EBADF }
        do {
            return Int32(try stream.read(into: buffer, at: offset))
        } catch {
            // The reason goes to the log (the journal, for a daemon started from the desktop); the reader gets EIO.
            Log.line(error.message.english + (error.hint.map { " " + $0.english } ?? ""))
            return -EIO
        }
    }

    private func release(_ handle: UInt64) {
        touch()
        _ = files.withLock { $0.open.removeValue(forKey: handle) }
    }

    private static func this(_ context: UnsafeMutableRawPointer?) -> ArchiveFileSystem {
        Unmanaged<ArchiveFileSystem>.fromOpaque(context!).takeUnretainedValue()
    }

    /// The callbacks: C calls them on its own threads, so they only look up, copy and return -errno.
    private static let operations: cfuse_operations = {
        var table = cfuse_operations()
        table.lookup = { context, parent, name, status in
            let this = this(context)
            guard let parent = this.node(parent), let name else { return -ENOENT }
            guard this.index.nodes[parent].kind == .directory else { return -ENOTDIR }
            guard let child = this.index.child(of: parent, named: CString.bytes(name)[...]) else { return -ENOENT }
            status?.pointee = this.status(of: child)
            return 0
        }
        table.getattr = { context, inode, status in
            let this = this(context)
            guard let node = this.node(inode) else { return -ENOENT }
            status?.pointee = this.status(of: node)
            return 0
        }
        table.readlink = { context, inode, target, size in
            let this = this(context)
            guard let node = this.node(inode), let link = this.index.linkTarget(of: node), let target, size > 0 else { return -EINVAL }
            let count = min(link.count, size - 1)
            link.withUnsafeBytes { if count > 0 { UnsafeMutableRawPointer(target).copyMemory(from: $0.baseAddress!, byteCount: count) } }
            target[count] = 0
            return 0
        }
        table.readdir = { context, inode, offset, buffer, fill in
            let this = this(context)
            guard let node = this.node(inode), let fill else { return -ENOENT }
            guard this.index.nodes[node].kind == .directory else { return -ENOTDIR }
            // In the archive's order: a copy of the folder then reads a compressed stream front to back.
            let children = this.index.children(of: node).sorted()
            for position in min(Int(max(0, offset)), children.count + 2)..<(children.count + 2) {
                let next = Int64(position + 1)
                let full: Int32
                switch position {
                case 0:
                    var own = this.status(of: node)
                    full = fill(buffer, ".", &own, next)
                case 1:
                    full = fill(buffer, "..", nil, next)
                default:
                    let child = Int(children[position - 2])
                    var status = this.status(of: child)
                    full = (this.index.name(of: child) + [0]).withUnsafeBufferPointer { name in
                        name.withMemoryRebound(to: CChar.self) { fill(buffer, $0.baseAddress, &status, next) }
                    }
                }
                if full != 0 { break }
            }
            return 0
        }
        table.open = { context, inode, _, handle in
            let (opened, error) = this(context).open(inode)
            guard let opened else { return -error }
            handle?.pointee = opened
            return 0
        }
        table.read = { context, handle, buffer, size, offset in
            this(context).read(handle, into: UnsafeMutableRawBufferPointer(start: buffer, count: size), at: offset)
        }
        table.release = { context, handle in
            this(context).release(handle)
            return 0
        }
        table.ready = { context in this(context).onReady() }
        return table
    }()
}

/// Lines for the log: standard error, which the desktop's session sends to the journal.
public enum Log {
    public static func line(_ text: String) {
        let bytes = Array((text.hasSuffix("\n") ? text : text + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}
