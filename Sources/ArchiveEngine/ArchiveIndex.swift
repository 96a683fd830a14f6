import ArchiverCore
import Glibc
import SystemPackage

/// An archive's tree, for browsing it as a folder: read in one scan, with names decoded and made safe
/// exactly as the extractor does (what it would refuse is left out, and said); each file's data is read
/// again on demand through `EntryStream`.
public final class ArchiveIndex: Sendable {
    /// A folder, file or symlink of the tree. Node 0 is the root. Fixed-size, with its name (and a
    /// symlink's target) in `names` and its children in `children`: a million entries take ≈ 50 MB.
    public struct Node: Sendable {
        public enum Kind: UInt8, Sendable { case directory, file, symlink }
        var nameStart: UInt32
        var nameLength: UInt32
        public internal(set) var kind: Kind
        var mode: UInt16
        /// The entry (in the archive's order) that holds a file's data; `UInt32.max`: none.
        var entryNumber: UInt32
        public internal(set) var size: Int64
        /// Seconds since 1970.
        public internal(set) var modified: Int64
        /// A folder's children in `children`, sorted by name; a symlink's target in `names`.
        var rangeStart: UInt32
        var rangeCount: UInt32

        public var permissions: UInt32 { UInt32(mode) }
        /// The number of the entry that holds a file's data.
        public var entry: Int? { entryNumber == .max ? nil : Int(entryNumber) }
    }

    public let nodes: [Node]
    /// Every name and symlink target, one after another.
    let names: [UInt8]
    /// Each folder's children, as node numbers, a folder's together and sorted by name.
    let children: [UInt32]
    /// Each entry left out and why ("Refused “../x”: its path goes up with “..”"), for the log.
    public let refused: [Text]
    /// The code page the names were read in, when one was guessed.
    public let nameEncoding: String?
    let archive: FilePath
    let password: Secret?
    /// Whether entries lie behind one another in one compressed stream (tar.gz, 7z), so that reading one
    /// means decompressing those before it, rather than each on its own (zip).
    public let isStream: Bool
    /// Readers of closed files, kept to go on from where they stopped.
    let readers = ReaderPool()
    /// Small files already decoded, where there is no way to start decoding near a file; nil otherwise.
    let cache: EntryCache?
    /// For a compressed tar: where decoding can start (`SeekPlan`), and where each entry's header starts
    /// in the tar.
    let seekPlan: SeekPlan?
    let entryOffsets: [Int64]
    /// For a zip in one file: members are read straight from their local headers (`entryOffsets`).
    let zipDirect: Bool
    /// For an encrypted 7z, read by 7-Zip: each entry's path as 7-Zip names it.
    let encrypted: EncryptedArchive?
    let entryPaths: [[UInt8]]

    init(
        tree: ArchiveTree.Parts, refused: [Text], nameEncoding: String?, archive: FilePath, password: Secret?, isStream: Bool,
        seekPlan: SeekPlan? = nil, entryOffsets: [Int64] = [], zipDirect: Bool = false,
        encrypted: EncryptedArchive? = nil, entryPaths: [[UInt8]] = []
    ) {
        self.zipDirect = zipDirect && !entryOffsets.isEmpty
        (nodes, names, children) = (tree.nodes, tree.names, tree.children)
        self.encrypted = encrypted
        self.entryPaths = entryPaths
        self.refused = refused
        self.nameEncoding = nameEncoding
        self.archive = archive
        self.password = password
        self.isStream = isStream
        // An xz file's Blocks are read again each time: the index at its end is small and cheap to read.
        self.seekPlan = entryOffsets.isEmpty ? nil : seekPlan ?? XzBlocks(archive).map(SeekPlan.xz)
        self.entryOffsets = self.seekPlan == nil && !self.zipDirect ? [] : entryOffsets
        cache = isStream && self.seekPlan == nil && !self.zipDirect && encrypted == nil ? EntryCache() : nil
    }

    /// A node's name.
    public func name(of node: Int) -> ArraySlice<UInt8> {
        let item = nodes[node]
        return names[Int(item.nameStart)..<(Int(item.nameStart) + Int(item.nameLength))]
    }

    /// A symlink's target, which stays inside the tree; nil for anything else.
    public func linkTarget(of node: Int) -> ArraySlice<UInt8>? {
        let item = nodes[node]
        guard item.kind == .symlink else { return nil }
        return names[Int(item.rangeStart)..<(Int(item.rangeStart) + Int(item.rangeCount))]
    }

    /// A folder's children by name; empty for anything else.
    public func children(of node: Int) -> ArraySlice<UInt32> {
        let item = nodes[node]
        guard item.kind == .directory else { return [] }
        return children[Int(item.rangeStart)..<(Int(item.rangeStart) + Int(item.rangeCount))]
    }

    /// The node at `path` (`/a/b` or `a/b`, as bytes), or nil.
    public func lookup(_ path: [UInt8]) -> Int? {
        var node = 0
        for component in path.split(separator: UInt8(ascii: "/")) {
            guard let child = child(of: node, named: component) else { return nil }
            node = child
        }
        return node
    }

    /// Binary search among a folder's children, which are sorted by name.
    public func child(of node: Int, named name: ArraySlice<UInt8>) -> Int? {
        let range = children(of: node)
        var low = range.startIndex, high = range.endIndex
        while low < high {
            let middle = (low + high) / 2
            let other = self.name(of: Int(range[middle]))
            if other.lexicographicallyPrecedes(name) {
                low = middle + 1
            } else if name.lexicographicallyPrecedes(other) {
                high = middle
            } else {
                return Int(range[middle])
            }
        }
        return nil
    }

    /// The data of `entry` when something other than a libarchive reader gives it: 7-Zip for an encrypted
    /// 7z, or the zip member itself; nil otherwise (or for a member kind only libarchive reads).
    func chunks(for entry: Int, size: Int64, name: String) throws(ArchiverError) -> (any EntryChunks)? {
        if let encrypted {
            let tool = try encrypted.entryData(entryPaths[entry], password: password)
            let archiveName = archive.lastComponent?.string ?? ""
            let failure =
                switch encrypted.tool {
                // TRANSLATORS: %1$@ is a file inside the archive %2$@.
                case .sevenZip: ArchiverError(.corrupt, tr("7-Zip could not read “%1$@” from “%2$@”.", name, archiveName))
                // TRANSLATORS: %1$@ is a file inside the archive %2$@; a rar may give some files a password of their own.
                case .unrar: ArchiverError(.corrupt, tr("unrar could not read “%1$@” from “%2$@”; the password may not open it.", name, archiveName))
                }
            return ToolChunks(tool, failure: failure)
        }
        guard zipDirect, password == nil else { return nil }
        return ZipMember(archive, headerAt: entryOffsets[entry], size: size, entryName: name)
    }

    /// A reader whose next entry is `entry`: a kept reader not past it, when that is nearer than the seek
    /// point before it; else one started at that seek point or at the archive's start. `name` is the
    /// entry's, for a failure to say.
    func reader(for entry: Int, name: String? = nil) throws(ArchiverError) -> ArchiveReader {
        let seekStart = seekPlan?.start(for: entryOffsets[entry])
        let pooled = readers.take(before: entry) { next in
            guard let seekStart else { return true }
            return next < entryOffsets.count && entryOffsets[next] >= seekStart
        }
        if let pooled, var kept = pooled.reader.take() {
            for passed in pooled.next..<entry { try pass(&kept, passed) }
            return kept
        }
        if let seekPlan {
            return try ArchiveReader(tar: seekPlan.stream(archive, from: entryOffsets[entry]), archive: archive, entry: name)
        }
        var opened = try ArchiveReader(path: archive, password: password)
        for passed in 0..<entry { try pass(&opened, passed) }
        return opened
    }

    /// Moves `reader` past entry `number` on the way to a later one. Its data is decoded either way, so
    /// with a cache a small file's is kept; a failure there only means it is not kept.
    private func pass(_ reader: inout ArchiveReader, _ number: Int) throws(ArchiverError) {
        guard let entry = try reader.next(), let cache, entry.kind == .file, let size = entry.size,
            size <= EntryCache.largest, cache.data(for: number) == nil
        else { return }
        var data: [UInt8] = []
        data.reserveCapacity(Int(size))
        do throws(ArchiverError) {
            while let block = try reader.readBlock(entryName: "") {
                // A hole of a sparse file: not worth the care, it is read again when asked for.
                guard block.offset == Int64(data.count) else { return }
                data.append(contentsOf: block.buffer)
            }
        } catch { return }
        if data.count == Int(size) { cache.keep(data, for: number) }
    }
}
