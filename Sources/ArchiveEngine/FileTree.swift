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
        /// Where the name starts in the arena; a symlink's target follows it.
        var start: Int
        var nameCount: UInt32
        var targetCount: UInt32
        /// The input it was found under, in `inputs`.
        var input: UInt32
        var kind: Kind
    }

    /// One item, as the writer reads it.
    struct Item {
        var kind: Kind
        var status: Status
        var nameInArchive: [UInt8]
        var symlinkTarget: [UInt8]?
        fileprivate var input: Input

        /// Where the item is read from: its input's path with the rest of its name, which the walk built
        /// from the same folder names.
        var sourceBytes: [UInt8] {
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

    init(inputs: [CompressPlan.Item]) {
        self.inputs = inputs.map { Input(source: $0.source.bytes, nameCount: $0.nameInArchive.count) }
    }

    var startIndex: Int { records.startIndex }
    var endIndex: Int { records.endIndex }

    subscript(position: Int) -> Item {
        let record = records[position]
        let nameEnd = record.start + Int(record.nameCount)
        return Item(
            kind: record.kind, status: record.status, nameInArchive: Array(arena[record.start..<nameEnd]),
            symlinkTarget: record.kind == .symlink ? Array(arena[nameEnd..<nameEnd + Int(record.targetCount)]) : nil,
            input: inputs[Int(record.input)])
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

    /// Adds an item found under `inputs[input]`.
    mutating func append(_ kind: Kind, name: [UInt8], status: Status, symlinkTarget: [UInt8] = [], input: Int) {
        records.append(
            Record(
                status: status, start: arena.count, nameCount: UInt32(name.count),
                targetCount: UInt32(symlinkTarget.count), input: UInt32(input), kind: kind))
        arena += name
        arena += symlinkTarget
        if kind == .file { totalBytes += status.size }
    }

    /// Lists every item under the planned inputs without following symlinks.
    /// - Parameter leavingOut: absolute paths of items to skip with everything under them (the inputs
    ///   themselves are never skipped).
    static func walk(_ inputs: [CompressPlan.Item], leavingOut: Set<[UInt8]> = [], control: JobControl) throws(ArchiverError)
        -> FileTree
    {
        var tree = FileTree(inputs: inputs)
        for (number, input) in inputs.enumerated() {
            try tree.add(input.source, as: input.nameInArchive, input: number, leavingOut: leavingOut, control: control)
        }
        return tree
    }

    private mutating func add(_ path: FilePath, as name: [UInt8], input: Int, leavingOut: Set<[UInt8]>, control: JobControl)
        throws(ArchiverError)
    {
        try control.check()
        guard let info = FileSystem.status(path) else {
            throw ArchiverError(.inputUnreadable, tr("“%@” disappeared while it was being read.", path), path: path.string)
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            append(.file, name: name, status: Status(info), input: input)
        case S_IFDIR:
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
                if !leavingOut.isEmpty, leavingOut.contains(childPath.bytes) { continue }
                try add(childPath, as: name + [UInt8(ascii: "/")] + child, input: input, leavingOut: leavingOut, control: control)
            }
        case S_IFLNK:
            guard let target = FileSystem.symlinkTarget(path) else {
                throw ArchiverError(.inputUnreadable, tr("Cannot read the symlink “%@”.", path), path: path.string)
            }
            append(.symlink, name: name, status: Status(info), symlinkTarget: target, input: input)
        default:
            warnings.append(JobWarning("special-file-skipped", tr("Skipped “%@”: sockets, pipes and device files are not archived.", path)))
        }
    }
}
