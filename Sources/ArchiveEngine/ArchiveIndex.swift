import ArchiverCore
internal import CArchive
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
        public fileprivate(set) var kind: Kind
        var mode: UInt16
        /// The entry (in the archive's order) that holds a file's data; `UInt32.max`: none.
        var entryNumber: UInt32
        public fileprivate(set) var size: Int64
        /// Seconds since 1970.
        public fileprivate(set) var modified: Int64
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

    /// Reads `archive`'s entries once and builds the tree. Entries go into the tree as they are read:
    /// only zip names that a guessed code page may change wait for the whole listing.
    /// - Parameters:
    ///   - passwords: asked when entries are encrypted (zip); the password is checked on one of them.
    ///   - progress: bytes of the archive read so far and its size.
    /// - Throws: `ArchiverError` as extraction would: unreadable, not an archive, corrupt, password.
    public static func scan(
        _ archive: FilePath, passwords: PasswordAsker?, control: JobControl, progress: (Int64, Int64) -> Void = { _, _ in }
    ) throws(ArchiverError) -> ArchiveIndex {
        let volumes = try VolumeSet.find(archive)
        let name = archive.lastComponent?.string ?? archive.string
        if let encrypted = try EncryptedArchive(volumes.parts[0], control: control) {
            // 7-Zip or unrar reads each file out.
            let (entries, password) = try encrypted.browse(passwords: passwords, control: control)
            var tree = ArchiveTree(archive: archive)
            for (number, entry) in entries.enumerated() { tree.add(entry, number: number) }
            return ArchiveIndex(
                tree: tree.finished(), refused: tree.refused, nameEncoding: nil, archive: archive, password: password,
                isStream: true, encrypted: encrypted, entryPaths: entries.map(\.path))
        }
        // A zip in one file is listed from its central directory alone, as unzip -l and fuse-zip do:
        // libarchive would read every member's local header too, a read per entry across the whole file.
        if !volumes.isMultiPart, let directory = ZipDirectory(archive) {
            var tree = ArchiveTree(archive: archive)
            var waiting: [(number: Int, entry: ArchiveEntryInfo)] = []
            var number = 0
            let listed = try directory.eachEntry(of: archive, control: control) { entry in
                defer { number += 1 }
                if NameEncoding.needsDecoding(entry.path) { waiting.append((number, entry)) } else { tree.add(entry, number: number) }
            }
            if listed {
                let encoding = addDecoded(waiting, family: .zip, to: &tree)
                let size = FileSystem.size(of: archive) ?? 0
                progress(size, size)
                return ArchiveIndex(
                    tree: tree.finished(), refused: tree.refused, nameEncoding: encoding, archive: archive, password: nil,
                    isStream: false, entryOffsets: directory.offsets, zipDirect: true)
            }
        }
        // A compressed tar notes where decoding can start again, and where each header starts, on the way.
        var reader = try ArchiveReader(path: archive, recordingSeekPoints: true)
        reader.headerPositions = []
        let family = reader.family
        var tree = ArchiveTree(archive: archive)
        var waiting: [(number: Int, entry: ArchiveEntryInfo)] = []
        var probe: (number: Int, entry: ArchiveEntryInfo)?
        // A zip's names as libarchive returns them, in order, to match its central directory.
        var zipNames = ZipDirectory.NameSequence()
        var number = 0
        try Extractor.scan(&reader, archiveName: volumes.name, control: control, keeping: false, each: { entry in
            defer { number += 1 }
            if family == .zip { zipNames.add(entry.path) }
            // The entry extraction would check the password on: the smallest encrypted file.
            if entry.encrypted, Extractor.passwordProbe([probe?.entry ?? entry, entry], selection: EntrySelection([])) == 1 || probe == nil {
                probe = (number, entry)
            }
            // Sizes a stream does not record (a single .gz) are counted below.
            if (family == .zip && NameEncoding.needsDecoding(entry.path)) || (entry.kind == .file && entry.size == nil) {
                waiting.append((number, entry))
            } else {
                tree.add(entry, number: number)
            }
        }, progress: progress)
        if waiting.contains(where: { $0.entry.kind == .file && $0.entry.size == nil }) {
            var counter = try ArchiveReader(path: archive)
            var at = 0
            for index in waiting.indices where waiting[index].entry.kind == .file && waiting[index].entry.size == nil {
                var entry: ArchiveEntryInfo?
                while at <= waiting[index].number { entry = try counter.next(); at += 1 }
                guard let entry else { break }
                var total: Int64 = 0
                while let block = try counter.readBlock(entryName: entry.path.displayName) {
                    try control.check()
                    total = max(total, block.offset + Int64(block.buffer.count))
                }
                waiting[index].entry.size = total
            }
        }
        let encoding = addDecoded(waiting, family: family, to: &tree)

        let (canDecrypt, isStream, oneFile) = (reader.canDecrypt, !reader.hasCheapHeaders, reader.readsOneFile)
        let (seekPlan, headerPositions) = (reader.seekPlan, reader.headerPositions ?? [])
        // Freed before the central directory is read below: libarchive holds its own copy of it. Its
        // many small blocks lie between the tree's, so their pages go back to the system only when asked.
        _ = consume reader
        ca_release_free_memory()
        var password: Secret?
        if let probe {
            guard canDecrypt, let passwords else { throw EncryptionSupport.cannotDecrypt(name, family: family) }
            password = try Extractor.verifiedPassword(
                asker: passwords, name: name, wrong: tr("Wrong password for “%@”; it was not opened.", name)
            ) { password throws(ArchiverError) in
                try Extractor.opens(archive, entry: probe.number, with: password)
            }
        }
        // Each zip member straight from its local header, when the central directory lists exactly the
        // entries libarchive returned, in its order.
        let parts = tree.finished()
        let zipDirectory = family == .zip && oneFile ? ZipDirectory(archive) : nil
        let zipDirect = zipDirectory?.names == zipNames
        return ArchiveIndex(
            tree: parts, refused: tree.refused, nameEncoding: encoding, archive: archive,
            password: password, isStream: isStream, seekPlan: seekPlan,
            entryOffsets: zipDirect ? zipDirectory?.offsets ?? [] : headerPositions, zipDirect: zipDirect)
    }
}

extension ArchiveIndex {
    /// Adds the entries whose names wait for a code page, guessed from all of them as extraction guesses
    /// it; the code page, if one was.
    private static func addDecoded(
        _ waiting: [(number: Int, entry: ArchiveEntryInfo)], family: EncryptionSupport.Family, to tree: inout ArchiveTree
    ) -> String? {
        let named = waiting.map(\.entry)
        let decoder = Extractor.keepingNamesApart(Extractor.guessNames(named, family: family), named).decoder
        for (number, entry) in waiting { tree.add(decoder.map { $0(entry) } ?? entry, number: number) }
        return decoder?.encoding
    }
}

/// The index as bytes for `IndexCache`, and back. Unreadable bytes (another version, cut short) give nil.
extension ArchiveIndex {
    static let codecVersion: UInt32 = 5

    /// Nil for an index with a password: its tree is not kept where the password is not.
    func encoded() -> [UInt8]? {
        var data: [UInt8] = []
        return encode { piece in
            data += piece
            return true
        } ? data : nil
    }

    /// Writes the index in pieces of about a MiB to `sink`, so that a million entries are never held
    /// twice. False for an index with a password, or when `sink` fails.
    func encode(to sink: (ArraySlice<UInt8>) -> Bool) -> Bool {
        guard password == nil else { return false }
        return withoutActuallyEscaping(sink) { sink in
            var out = IndexBytes.Writer(sink: sink)
            write(into: &out)
            return out.finish()
        }
    }

    private func write(into out: inout IndexBytes.Writer) {
        out.u32(Self.codecVersion)
        out.u8(isStream ? 1 : 0)
        out.u8(zipDirect ? 1 : 0)
        out.optionalBytes(nameEncoding.map { Array($0.utf8) })
        out.u32(UInt32(refused.count))
        for text in refused { out.bytes(Array(text.english.utf8)) }
        out.u32(UInt32(nodes.count))
        for node in nodes {
            out.u32(node.nameStart)
            out.u32(node.nameLength)
            out.u8(node.kind.rawValue)
            out.u32(UInt32(node.mode))
            out.u32(node.entryNumber)
            out.i64(node.size)
            out.i64(node.modified)
            out.u32(node.rangeStart)
            out.u32(node.rangeCount)
            out.spill()
        }
        out.bytes(names)
        out.u32(UInt32(children.count))
        for child in children {
            out.u32(child)
            out.spill()
        }
        SeekPlan.encode(seekPlan, into: &out)
        out.u32(UInt32(entryOffsets.count))
        for offset in entryOffsets {
            out.i64(offset)
            out.spill()
        }
    }

    static func decoded(_ data: [UInt8], archive: FilePath) -> ArchiveIndex? {
        decoded(from: IndexBytes.Reader(data), archive: archive)
    }

    /// Counts are checked against what they could be, so that damaged bytes cannot ask for a huge array.
    static func decoded(from reader: IndexBytes.Reader, archive: FilePath) -> ArchiveIndex? {
        var input = reader
        // What a kept index can hold at most once decompressed.
        let bound = Int(IndexCache.limit) * 4
        guard input.u32() == codecVersion, let stream = input.u8(), let zipDirect = input.u8(), let encoding = input.optionalBytes(),
            let refusedCount = input.u32(), Int(refusedCount) <= bound
        else { return nil }
        var refused: [Text] = []
        for _ in 0..<refusedCount {
            guard let text = input.bytes() else { return nil }
            refused.append(.verbatim(String(decoding: text, as: UTF8.self)))
        }
        guard let count = input.u32(), count > 0, Int(count) <= bound / 37 else { return nil }
        var tree = ArchiveTree.Parts()
        tree.nodes.reserveCapacity(min(Int(count), 1 << 20))
        for _ in 0..<count {
            guard let nameStart = input.u32(), let nameLength = input.u32(), let kindCode = input.u8(),
                let kind = Node.Kind(rawValue: kindCode), let mode = input.u32(), mode <= 0o7777, let entry = input.u32(),
                let size = input.i64(), let modified = input.i64(), let rangeStart = input.u32(), let rangeCount = input.u32()
            else { return nil }
            tree.nodes.append(Node(
                nameStart: nameStart, nameLength: nameLength, kind: kind, mode: UInt16(mode), entryNumber: entry, size: size,
                modified: modified, rangeStart: rangeStart, rangeCount: rangeCount))
        }
        guard let names = input.bytes(), let childCount = input.u32(), Int(childCount) <= bound / 4 else { return nil }
        tree.names = names
        tree.children.reserveCapacity(min(Int(childCount), 1 << 20))
        for _ in 0..<childCount {
            guard let child = input.u32(), child < count else { return nil }
            tree.children.append(child)
        }
        // Every range must lie inside what it points into: a damaged file must not make a lookup trap.
        for node in tree.nodes {
            guard UInt64(node.nameStart) + UInt64(node.nameLength) <= UInt64(names.count) else { return nil }
            let limit = node.kind == .directory ? tree.children.count : node.kind == .symlink ? names.count : Int.max
            guard UInt64(node.rangeStart) + UInt64(node.rangeCount) <= UInt64(limit) else { return nil }
        }
        guard let seekPlan = SeekPlan.decode(from: &input, bound: bound), let offsetCount = input.u32(), Int(offsetCount) <= bound / 8 else { return nil }
        var offsets: [Int64] = []
        offsets.reserveCapacity(min(Int(offsetCount), 1 << 20))
        for _ in 0..<offsetCount {
            guard let offset = input.i64() else { return nil }
            offsets.append(offset)
        }
        guard input.isAtEnd else { return nil }
        return ArchiveIndex(
            tree: tree, refused: refused, nameEncoding: encoding.map { String(decoding: $0, as: UTF8.self) },
            archive: archive, password: nil, isStream: stream == 1, seekPlan: seekPlan, entryOffsets: offsets,
            zipDirect: zipDirect == 1)
    }
}

/// Puts entries into a tree, in any order: folders a path implies are made, of two entries with one name
/// in one folder the later one in the archive stays (as extracting both would leave it), and what
/// extraction refuses is left out.
struct ArchiveTree {
    /// What an `ArchiveIndex` keeps of the tree.
    struct Parts {
        var nodes: [ArchiveIndex.Node] = []
        var names: [UInt8] = []
        var children: [UInt32] = []
    }

    private var parts = Parts()
    private(set) var refused: [Text] = []
    /// Each node's folder, and the entry that made it (for which of two namesakes stays).
    private var parents: [UInt32] = [0]
    private var order: [UInt32] = [0]
    /// Folders by parent and name, while entries come; files are found by the sorted children later.
    private var folders: [FolderKey: UInt32] = [:]
    private var hardlinks: [(node: UInt32, original: [[UInt8]], entry: ArchiveEntryInfo)] = []
    private let folderTime: Int64

    private struct FolderKey: Hashable {
        let parent: UInt32
        let name: [UInt8]
    }

    /// Folders no entry gives a time get the archive's.
    init(archive: FilePath) {
        folderTime = FileSystem.status(archive).map { Int64($0.st_mtim.tv_sec) } ?? 0
        parts.nodes = [ArchiveIndex.Node(
            nameStart: 0, nameLength: 0, kind: .directory, mode: 0o755, entryNumber: .max, size: 0, modified: folderTime,
            rangeStart: 0, rangeCount: 0)]
    }

    mutating func add(_ entry: ArchiveEntryInfo, number: Int) {
        let components: [[UInt8]]
        switch EntryPath.components(of: entry.path) {
        case .success(let safe): components = safe
        case .failure(let reason): return refuse(entry, reason)
        }
        guard let leaf = components.last else { return }
        let modified = entry.modified ?? folderTime
        let mode = UInt16(entry.permissions & 0o777)
        let order = UInt32(clamping: number)
        switch entry.kind {
        case .directory:
            let folder = folder(components[...], order: order)
            parts.nodes[Int(folder)].modified = modified
            parts.nodes[Int(folder)].mode = mode
        case .file:
            let parent = folder(components.dropLast(), order: order)
            append(leaf, .file, size: max(0, entry.size ?? 0), modified: modified, mode: mode, entry: number, under: parent, order: order)
        case .symlink:
            guard let target = entry.linkTarget, EntryPath.symlinkStaysInside(target: target, linkPath: components) else {
                return refuse(entry, .linkLeavesDestination)
            }
            let parent = folder(components.dropLast(), order: order)
            let made = append(leaf, .symlink, size: Int64(target.count), modified: modified, mode: 0o777, under: parent, order: order)
            (parts.nodes[made].rangeStart, parts.nodes[made].rangeCount) = (UInt32(parts.names.count), UInt32(target.count))
            parts.names += target
        case .hardlink:
            guard let original = entry.linkTarget.flatMap({ try? EntryPath.components(of: $0).get() }) else {
                return refuse(entry, .hardlinkLeavesDestination)
            }
            // A link to itself changes nothing, as in extraction: a file of that name stays what it was.
            if original == components { return }
            // Its data and size come from the original, found once the tree is whole.
            let parent = folder(components.dropLast(), order: order)
            let made = append(leaf, .file, size: 0, modified: modified, mode: mode, under: parent, order: order)
            hardlinks.append((UInt32(made), original, entry))
        case .characterDevice: refuse(entry, .specialFile(.characterDevice))
        case .blockDevice: refuse(entry, .specialFile(.blockDevice))
        case .fifo: refuse(entry, .specialFile(.namedPipe))
        case .socket: refuse(entry, .specialFile(.socket))
        }
    }

    /// The tree with each folder's children sorted by name, namesakes settled and hard links resolved.
    mutating func finished() -> Parts {
        sortChildren()
        // What only building needed goes now; the parts are what is kept.
        defer { (parents, order, folders) = ([], [], [:]) }
        guard !hardlinks.isEmpty else { return parts }
        let index = ArchiveIndex(tree: parts, refused: [], nameEncoding: nil, archive: FilePath(), password: nil, isStream: false)
        var unresolved: Set<UInt32> = []
        for (node, original, entry) in hardlinks {
            let path = original.joined(separator: [UInt8(ascii: "/")])
            guard let source = index.lookup(Array(path)), parts.nodes[source].kind == .file, parts.nodes[source].entry != nil else {
                unresolved.insert(node)
                refuse(entry, .hardlinkLeavesDestination)
                continue
            }
            parts.nodes[Int(node)].entryNumber = parts.nodes[source].entryNumber
            parts.nodes[Int(node)].size = parts.nodes[source].size
        }
        if !unresolved.isEmpty {
            parts.children.removeAll { unresolved.contains($0) }
            sortChildren()
        }
        hardlinks = []
        return parts
    }

    /// A new node named `name` under `parent`; its number.
    @discardableResult
    private mutating func append(
        _ name: [UInt8], _ kind: ArchiveIndex.Node.Kind, size: Int64, modified: Int64, mode: UInt16, entry: Int? = nil,
        under parent: UInt32, order: UInt32
    ) -> Int {
        parts.nodes.append(ArchiveIndex.Node(
            nameStart: UInt32(parts.names.count), nameLength: UInt32(name.count), kind: kind, mode: mode,
            entryNumber: entry.map { UInt32(clamping: $0) } ?? .max, size: size, modified: modified, rangeStart: 0, rangeCount: 0))
        parts.names += name
        parents.append(parent)
        self.order.append(order)
        if kind != .directory { folders[FolderKey(parent: parent, name: name)] = nil }
        return parts.nodes.count - 1
    }

    /// The folder at `components`, made with its parents when missing. A file added since under the same
    /// name took the name: a later path through it makes a new folder, which stays as the later one.
    private mutating func folder(_ components: ArraySlice<[UInt8]>, order: UInt32) -> UInt32 {
        var current: UInt32 = 0
        for name in components {
            let key = FolderKey(parent: current, name: name)
            if let known = folders[key] {
                current = known
                continue
            }
            let made = UInt32(append(name, .directory, size: 0, modified: folderTime, mode: 0o755, under: current, order: order))
            folders[key] = made
            current = made
        }
        return current
    }

    /// Fills `children`: every node but the root under its folder, sorted by name; of namesakes the one
    /// made by the latest entry stays.
    private mutating func sortChildren() {
        var listed = Array(UInt32(1)..<UInt32(parts.nodes.count))
        let reachable = parts.children.isEmpty ? nil : Set(parts.children)
        if let reachable { listed.removeAll { !reachable.contains($0) } }
        parts.names.withUnsafeBufferPointer { names in
            let nodes = parts.nodes
            func name(_ node: UInt32) -> UnsafeBufferPointer<UInt8> {
                let item = nodes[Int(node)]
                return UnsafeBufferPointer(rebasing: names[Int(item.nameStart)..<(Int(item.nameStart) + Int(item.nameLength))])
            }
            listed.sort { a, b in
                if parents[Int(a)] != parents[Int(b)] { return parents[Int(a)] < parents[Int(b)] }
                let (x, y) = (name(a), name(b))
                let common = min(x.count, y.count)
                let compared = common == 0 ? 0 : memcmp(x.baseAddress!, y.baseAddress!, common)
                if compared != 0 { return compared < 0 }
                if x.count != y.count { return x.count < y.count }
                return (order[Int(a)], a) < (order[Int(b)], b)
            }
            // Of a run of namesakes in one folder, the last (the latest entry) stays.
            var kept: [UInt32] = []
            kept.reserveCapacity(listed.count)
            for (position, node) in listed.enumerated() {
                if position + 1 < listed.count {
                    let next = listed[position + 1]
                    if parents[Int(next)] == parents[Int(node)], name(next).elementsEqual(name(node)) { continue }
                }
                kept.append(node)
            }
            listed = kept
        }
        for index in parts.nodes.indices where parts.nodes[index].kind == .directory {
            (parts.nodes[index].rangeStart, parts.nodes[index].rangeCount) = (0, 0)
        }
        var start = 0
        while start < listed.count {
            let parent = parents[Int(listed[start])]
            var end = start
            while end < listed.count, parents[Int(listed[end])] == parent { end += 1 }
            if parts.nodes[Int(parent)].kind == .directory {
                (parts.nodes[Int(parent)].rangeStart, parts.nodes[Int(parent)].rangeCount) = (UInt32(start), UInt32(end - start))
            }
            start = end
        }
        parts.children = listed
    }

    private mutating func refuse(_ entry: ArchiveEntryInfo, _ reason: EntryPath.Refusal) {
        // TRANSLATORS: %1$@ is an entry's name, %2$@ the reason (“its path is absolute”).
        refused.append(tr("Left out “%1$@”: %2$@.", entry.path.displayName, reason.text))
    }
}
