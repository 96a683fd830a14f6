import ArchiverCore
import Glibc
import Platform
import SystemPackage

/// The inputs of a compression, expanded into every item to store, in archive order.
///
/// It holds every item of the job until the archive is written, so it is kept small: a fixed-size record
/// an item, with the names and symlink targets in one arena of bytes. A `FilePath`, a name array and a
/// whole `stat` an item cost about 390 bytes, which put the creation of 100,000 small files over 64 MiB.
struct FileTree: RandomAccessCollection {
    enum Kind { case file, directory, symlink }

    /// The fields of `lstat` that `archive_entry_copy_stat` reads, but `st_rdev`: device files are never
    /// stored, and the kinds that are have 0 there.
    struct Status {
        var size: Int64
        var device: UInt64
        var inode: UInt64
        var links: UInt64
        var accessed: Int
        var modified: Int
        var changed: Int
        var accessedNanoseconds: Int32
        var modifiedNanoseconds: Int32
        var changedNanoseconds: Int32
        var mode: UInt32
        var owner: UInt32
        var group: UInt32

        init(_ info: stat) {
            size = Int64(info.st_size)
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            links = UInt64(info.st_nlink)
            accessed = info.st_atim.tv_sec
            modified = info.st_mtim.tv_sec
            changed = info.st_ctim.tv_sec
            accessedNanoseconds = Int32(info.st_atim.tv_nsec)
            modifiedNanoseconds = Int32(info.st_mtim.tv_nsec)
            changedNanoseconds = Int32(info.st_ctim.tv_nsec)
            mode = info.st_mode
            owner = info.st_uid
            group = info.st_gid
        }

        /// A `stat` with these fields and zero in the others, for `archive_entry_copy_stat`.
        var stat: Glibc.stat {
            var info = Glibc.stat()
            info.st_size = Int(size)
            info.st_dev = dev_t(device)
            info.st_ino = ino_t(inode)
            info.st_nlink = nlink_t(links)
            info.st_atim = timespec(tv_sec: accessed, tv_nsec: Int(accessedNanoseconds))
            info.st_mtim = timespec(tv_sec: modified, tv_nsec: Int(modifiedNanoseconds))
            info.st_ctim = timespec(tv_sec: changed, tv_nsec: Int(changedNanoseconds))
            info.st_mode = mode
            info.st_uid = owner
            info.st_gid = group
            return info
        }
    }

    /// What is kept of an item. Bitwise-copyable, so it can never again hold an array, path or string of
    /// its own on the heap.
    struct Record: BitwiseCopyable {
        var status: Status
        /// Where the name starts in the arena; a symlink's target follows it, or a followed symlink's
        /// real path.
        var start: Int
        var nameCount: UInt32
        var targetCount: UInt32
        /// The input it was found under, in `inputs`.
        var input: UInt32
        var kind: Kind
        /// A file reached through a symlink that was followed: read from its real path.
        var followed: Bool
    }

    /// One item, as the writer reads it.
    struct Item {
        var kind: Kind
        var status: Status
        var nameInArchive: [UInt8]
        var symlinkTarget: [UInt8]?
        fileprivate var input: Input
        /// A followed symlink's real path (readers open files without following a last symlink).
        fileprivate var resolved: [UInt8]?

        /// Where the item is read from: its input's path with the rest of its name, which the walk built
        /// from the same folder names.
        var sourceBytes: [UInt8] {
            if let resolved { return resolved }
            let rest = nameInArchive[input.nameCount...]
            guard !rest.isEmpty else { return input.source }
            // The empty path is the current folder: its children are relative (as `appending(bytes:)`).
            return input.source.isEmpty ? Array(rest.dropFirst()) : input.source + rest
        }

        var source: FilePath { FilePath(bytes: sourceBytes) }
    }

    /// An input's path as bytes, made once rather than once an item.
    fileprivate struct Input {
        var source: [UInt8]
        var nameCount: Int
    }

    private let inputs: [Input]
    private(set) var records: [Record] = []
    /// Every name and symlink target, one after the other.
    private var arena: [UInt8] = []
    private(set) var totalBytes: Int64 = 0
    private(set) var warnings: [JobWarning] = []
    /// What the walk found and could not store (sockets, pipes, devices; followed symlinks to nothing or
    /// into a loop), by its name in the archive; each is one of `warnings` too.
    private(set) var skipped: [PortabilityProblem] = []
    /// How many symlinks were followed.
    private(set) var followedSymlinks = 0

    init(inputs: [CompressPlan.Item]) {
        self.inputs = inputs.map { Input(source: $0.source.bytes, nameCount: $0.nameInArchive.count) }
    }

    var startIndex: Int { records.startIndex }
    var endIndex: Int { records.endIndex }

    subscript(position: Int) -> Item {
        let record = records[position]
        let nameEnd = record.start + Int(record.nameCount)
        let target = Array(arena[nameEnd..<nameEnd + Int(record.targetCount)])
        return Item(
            kind: record.kind, status: record.status, nameInArchive: Array(arena[record.start..<nameEnd]),
            symlinkTarget: record.kind == .symlink ? target : nil, input: inputs[Int(record.input)],
            resolved: record.followed ? target : nil)
    }

    func count(_ kind: Kind) -> Int { records.lazy.filter { $0.kind == kind }.count }

    /// Every item as the portability check reads it, in archive order.
    var portabilityEntries: [Portability.Entry] {
        records.map { record in
            let kind: Portability.Entry.Kind = switch record.kind {
            case .file: .file
            case .directory: .directory
            case .symlink: .symlink
            }
            return Portability.Entry(
                path: Array(arena[record.start..<record.start + Int(record.nameCount)]), kind: kind,
                size: record.kind == .file ? record.status.size : 0)
        }
    }

    /// The bytes the list holds on the heap, spare capacity included.
    var footprint: Int { records.capacity * MemoryLayout<Record>.stride + arena.capacity }

    /// Adds an item found under `inputs[input]`; `resolved`: a followed file's real path.
    mutating func append(_ kind: Kind, name: [UInt8], status: Status, symlinkTarget: [UInt8] = [], resolved: [UInt8]? = nil, input: Int) {
        let extra = resolved ?? symlinkTarget
        records.append(
            Record(
                status: status, start: arena.count, nameCount: UInt32(name.count),
                targetCount: UInt32(extra.count), input: UInt32(input), kind: kind, followed: resolved != nil))
        arena += name
        arena += extra
        if kind == .file { totalBytes += status.size }
    }

    /// A folder as the system knows it, to see a walk come back into a folder it is inside.
    private struct FolderID: Hashable {
        var device: UInt64
        var inode: UInt64
        init(_ info: stat) { (device, inode) = (UInt64(info.st_dev), UInt64(info.st_ino)) }
    }

    /// What one walk goes by.
    private struct Rules {
        var input: Int
        var leavingOut: Set<[UInt8]>
        var followSymlinks: Bool
        var control: JobControl
        /// The folders the walk is inside now.
        var inside: Set<FolderID> = []
    }

    /// Lists every item under the planned inputs.
    /// - Parameters:
    ///   - leavingOut: absolute paths of items to skip with everything under them (the inputs themselves
    ///     are never skipped).
    ///   - followSymlinks: a symlink is listed as the file or folder it points to, rather than as a link.
    static func walk(_ inputs: [CompressPlan.Item], leavingOut: Set<[UInt8]> = [], followSymlinks: Bool = false, control: JobControl)
        throws(ArchiverError) -> FileTree
    {
        var tree = FileTree(inputs: inputs)
        for (number, input) in inputs.enumerated() {
            var rules = Rules(input: number, leavingOut: leavingOut, followSymlinks: followSymlinks, control: control)
            try tree.add(input.source, as: input.nameInArchive, rules: &rules)
        }
        return tree
    }

    /// Notes an item that is not stored, and why.
    private mutating func skip(_ kind: PortabilityProblem.Kind, name: [UInt8], path: FilePath) {
        skipped.append(PortabilityProblem(kind, path: name))
        warnings.append(JobWarning(kind.rawValue, PortabilityProblem(kind, path: path.bytes).message))
    }

    private mutating func add(_ path: FilePath, as name: [UInt8], rules: inout Rules) throws(ArchiverError) {
        try rules.control.check()
        guard var info = FileSystem.status(path) else {
            throw ArchiverError(.inputUnreadable, tr("“%@” disappeared while it was being read.", path), path: path.string)
        }
        var resolved: [UInt8]?
        if rules.followSymlinks, info.st_mode & S_IFMT == S_IFLNK {
            var target = stat()
            let reached = path.withPlatformString { stat($0, &target) } == 0
            let failure = errno
            guard reached, let real = FileSystem.resolve(path) else {
                skip(failure == ELOOP ? .symlinkLoop : .danglingSymlink, name: name, path: path)
                return
            }
            info = target
            resolved = real.bytes
            followedSymlinks += 1
        }
        let input = rules.input
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            append(.file, name: name, status: Status(info), resolved: resolved, input: input)
        case S_IFDIR:
            // Inside itself: only through a symlink (or a bind mount), and never ending.
            let folder = FolderID(info)
            guard !rules.inside.contains(folder) else {
                skip(.symlinkLoop, name: name, path: path)
                return
            }
            rules.inside.insert(folder)
            defer { rules.inside.remove(folder) }
            append(.directory, name: name, status: Status(info), input: input)
            let children: [[UInt8]]
            do {
                children = try FileSystem.entries(of: path)
            } catch {
                throw ArchiverError(
                    .inputUnreadable, tr("Cannot read the folder “%@”.", path), hint: tr("Check its permissions; no archive was made."),
                    path: path.string)
            }
            for child in children.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
                let childPath = path.appending(bytes: child)
                if !rules.leavingOut.isEmpty, rules.leavingOut.contains(childPath.bytes) { continue }
                try add(childPath, as: name + [UInt8(ascii: "/")] + child, rules: &rules)
            }
        case S_IFLNK:
            guard let target = FileSystem.symlinkTarget(path) else {
                throw ArchiverError(.inputUnreadable, tr("Cannot read the symlink “%@”.", path), path: path.string)
            }
            append(.symlink, name: name, status: Status(info), symlinkTarget: target, input: input)
        default:
            skip(.specialFile, name: name, path: path)
        }
    }
}
