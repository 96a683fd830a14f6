import ArchiverCore
import Glibc
import SystemPackage

/// An archive's tree, for browsing it as a folder: read in one scan, with names decoded and made safe
/// exactly as the extractor does (what it would refuse is left out, and said); each file's data is read
/// again on demand through `EntryStream`.
public final class ArchiveIndex: Sendable {
    /// A folder, file or symlink of the tree. Node 0 is the root.
    public struct Node: Sendable {
        public enum Kind: Sendable { case directory, file, symlink }
        public let name: [UInt8]
        public let kind: Kind
        public fileprivate(set) var size: Int64
        /// Seconds since 1970.
        public fileprivate(set) var modified: Int64
        public fileprivate(set) var permissions: UInt32
        /// The number of the entry (in the archive's order) that holds a file's data.
        public fileprivate(set) var entry: Int?
        /// A symlink's target, which stays inside the tree.
        public fileprivate(set) var linkTarget: [UInt8]?
        public fileprivate(set) var children: [[UInt8]: Int] = [:]
    }

    public let nodes: [Node]
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
    /// For a tar.gz: where inflating can start, and where each entry's header starts in the tar.
    let seekPoints: GzipSeekPoints?
    let entryOffsets: [Int64]
    /// For an encrypted 7z, read by 7-Zip: each entry's path as 7-Zip names it.
    let encrypted: EncryptedArchive?
    let entryPaths: [[UInt8]]

    fileprivate init(
        nodes: [Node], refused: [Text], nameEncoding: String?, archive: FilePath, password: Secret?, isStream: Bool,
        seekPoints: GzipSeekPoints? = nil, entryOffsets: [Int64] = [], encrypted: EncryptedArchive? = nil,
        entryPaths: [[UInt8]] = []
    ) {
        self.encrypted = encrypted
        self.entryPaths = entryPaths
        self.nodes = nodes
        self.refused = refused
        self.nameEncoding = nameEncoding
        self.archive = archive
        self.password = password
        self.isStream = isStream
        self.seekPoints = entryOffsets.isEmpty ? nil : seekPoints
        self.entryOffsets = seekPoints == nil ? [] : entryOffsets
    }

    /// A reader whose next entry is `entry`: a kept reader not past it, when that is nearer than the seek
    /// point before it; else one started at that seek point (tar.gz) or at the archive's start.
    func reader(for entry: Int) throws(ArchiverError) -> ArchiveReader {
        let seekStart = seekPoints.map { $0.start(for: entryOffsets[entry]) }
        let pooled = readers.take(before: entry) { next in
            guard let seekStart else { return true }
            return next < entryOffsets.count && entryOffsets[next] >= seekStart
        }
        if let pooled, var kept = pooled.reader.take() {
            for _ in pooled.next..<entry { _ = try kept.next() }
            return kept
        }
        if let seekPoints {
            return try ArchiveReader(tar: GzipStream(archive, points: seekPoints, from: entryOffsets[entry]), archive: archive)
        }
        var opened = try ArchiveReader(path: archive, password: password)
        for _ in 0..<entry { _ = try opened.next() }
        return opened
    }

    /// The node at `path` (`/a/b` or `a/b`, as bytes), or nil.
    public func lookup(_ path: [UInt8]) -> Int? {
        var node = 0
        for component in path.split(separator: UInt8(ascii: "/")) {
            guard let child = nodes[node].children[Array(component)] else { return nil }
            node = child
        }
        return node
    }

    /// Reads `archive`'s entries once and builds the tree.
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
            // 7-Zip reads each file out; unrar cannot be tested here, so encrypted rar waits.
            guard encrypted.tool == .sevenZip else {
                throw ArchiverError(
                    .notAnArchive, tr("“%@” is an encrypted rar, which cannot be opened as a folder yet.", name),
                    hint: tr("Extract it instead."), path: archive.string)
            }
            let (entries, password) = try encrypted.browse(passwords: passwords, control: control)
            let tree = TreeBuilder(entries, archive: archive)
            return ArchiveIndex(
                nodes: tree.nodes, refused: tree.refused, nameEncoding: nil, archive: archive, password: password,
                isStream: true, encrypted: encrypted, entryPaths: entries.map(\.path))
        }
        // A tar.gz notes seek points and where each header starts on the way.
        var reader = try ArchiveReader(path: archive, recordingSeekPoints: true)
        reader.headerPositions = []
        var entries = try Extractor.scan(&reader, archiveName: volumes.name, control: control, progress: progress)
        // Sizes a stream does not record (a single .gz) are counted, once.
        if entries.contains(where: { $0.kind == .file && $0.size == nil }) {
            var counter = try ArchiveReader(path: archive)
            for index in entries.indices {
                guard let entry = try counter.next() else { break }
                guard entries[index].kind == .file, entries[index].size == nil else { continue }
                var total: Int64 = 0
                while let block = try counter.readBlock(entryName: entry.path.displayName) {
                    try control.check()
                    total = max(total, block.offset + Int64(block.buffer.count))
                }
                entries[index].size = total
            }
        }
        let decoder = Extractor.keepingNamesApart(
            Extractor.guessNames(entries, family: reader.family), entries
        ).decoder
        if let decoder { entries = entries.map { decoder($0) } }

        var password: Secret?
        if let probe = Extractor.passwordProbe(entries, selection: EntrySelection([])) {
            guard reader.canDecrypt, let passwords else { throw EncryptionSupport.cannotDecrypt(name, family: reader.family) }
            password = try Extractor.verifiedPassword(
                asker: passwords, name: name, wrong: tr("Wrong password for “%@”; it was not opened.", name)
            ) { password throws(ArchiverError) in
                try Extractor.opens(archive, entry: probe, with: password)
            }
        }
        let tree = TreeBuilder(entries, archive: archive)
        return ArchiveIndex(
            nodes: tree.nodes, refused: tree.refused, nameEncoding: decoder?.encoding, archive: archive, password: password,
            isStream: !reader.hasCheapHeaders, seekPoints: reader.seekPoints, entryOffsets: reader.headerPositions ?? [])
    }
}

/// The index as bytes for `IndexCache`, and back. Unreadable bytes (another version, cut short) give nil.
extension ArchiveIndex {
    static let codecVersion: UInt32 = 2

    /// Nil for an index with a password: its tree is not kept where the password is not.
    func encoded() -> [UInt8]? {
        guard password == nil else { return nil }
        var out = IndexBytes.Writer()
        out.u32(Self.codecVersion)
        out.u8(isStream ? 1 : 0)
        out.optionalBytes(nameEncoding.map { Array($0.utf8) })
        out.u32(UInt32(refused.count))
        for text in refused { out.bytes(Array(text.english.utf8)) }
        out.u32(UInt32(nodes.count))
        for node in nodes {
            out.bytes(node.name)
            out.u8(node.kind == .directory ? 0 : node.kind == .file ? 1 : 2)
            out.i64(node.size)
            out.i64(node.modified)
            out.u32(node.permissions)
            out.i64(Int64(node.entry ?? -1))
            out.optionalBytes(node.linkTarget)
            out.u32(UInt32(node.children.count))
            for child in node.children.values { out.u32(UInt32(child)) }
        }
        let points = seekPoints?.points ?? []
        out.u32(GzipSeekPoints.decoderTag)
        out.u32(UInt32(points.count))
        for point in points {
            out.i64(point.input)
            out.i64(point.output)
            out.bytes(point.state)
        }
        out.u32(UInt32(entryOffsets.count))
        for offset in entryOffsets { out.i64(offset) }
        return out.data
    }

    static func decoded(_ data: [UInt8], archive: FilePath) -> ArchiveIndex? {
        var input = IndexBytes.Reader(data)
        guard input.u32() == codecVersion, let stream = input.u8(), let encoding = input.optionalBytes(),
            let refusedCount = input.u32()
        else { return nil }
        var refused: [Text] = []
        for _ in 0..<refusedCount {
            guard let text = input.bytes() else { return nil }
            refused.append(.verbatim(String(decoding: text, as: UTF8.self)))
        }
        guard let count = input.u32(), count > 0, Int(count) <= data.count else { return nil }
        var nodes: [Node] = []
        var childLists: [[Int]] = []
        nodes.reserveCapacity(Int(count))
        for _ in 0..<count {
            guard let name = input.bytes(), let kindCode = input.u8(), kindCode <= 2, let size = input.i64(),
                let modified = input.i64(), let permissions = input.u32(), let entry = input.i64(),
                let target = input.optionalBytes(), let children = input.u32(), Int(children) <= data.count
            else { return nil }
            var list: [Int] = []
            for _ in 0..<children {
                guard let child = input.u32(), child < count else { return nil }
                list.append(Int(child))
            }
            let kind: Node.Kind = kindCode == 0 ? .directory : kindCode == 1 ? .file : .symlink
            nodes.append(Node(
                name: name, kind: kind, size: size, modified: modified, permissions: permissions,
                entry: entry < 0 ? nil : Int(entry), linkTarget: target))
            childLists.append(list)
        }
        guard input.u32() == GzipSeekPoints.decoderTag, let pointCount = input.u32(), Int(pointCount) <= data.count else {
            return nil
        }
        var points: [GzipSeekPoints.Point] = []
        for _ in 0..<pointCount {
            guard let start = input.i64(), let output = input.i64(), let state = input.bytes() else { return nil }
            points.append(.init(input: start, output: output, state: state))
        }
        guard let offsetCount = input.u32(), Int(offsetCount) <= data.count else { return nil }
        var offsets: [Int64] = []
        offsets.reserveCapacity(Int(offsetCount))
        for _ in 0..<offsetCount {
            guard let offset = input.i64() else { return nil }
            offsets.append(offset)
        }
        guard input.isAtEnd else { return nil }
        for (parent, list) in childLists.enumerated() {
            for child in list { nodes[parent].children[nodes[child].name] = child }
        }
        return ArchiveIndex(
            nodes: nodes, refused: refused, nameEncoding: encoding.map { String(decoding: $0, as: UTF8.self) },
            archive: archive, password: nil, isStream: stream == 1, seekPoints: GzipSeekPoints(points), entryOffsets: offsets)
    }
}

/// Puts entries into a tree: folders a path implies are made, a later entry of the same name replaces an
/// earlier one (as extracting both would), and what extraction refuses is left out.
private struct TreeBuilder {
    var nodes: [ArchiveIndex.Node]
    var refused: [Text] = []
    /// Files by path, for hard links to find their data.
    private var files: [[UInt8]: Int] = [:]
    private let folderTime: Int64

    /// The tree of `entries`; folders no entry gives a time get the archive's.
    init(_ entries: [ArchiveEntryInfo], archive: FilePath) {
        folderTime = FileSystem.status(archive).map { Int64($0.st_mtim.tv_sec) } ?? 0
        nodes = [ArchiveIndex.Node(name: [], kind: .directory, size: 0, modified: folderTime, permissions: 0o755)]
        for (number, entry) in entries.enumerated() { add(entry, number: number) }
    }

    mutating func add(_ entry: ArchiveEntryInfo, number: Int) {
        let components: [[UInt8]]
        switch EntryPath.components(of: entry.path) {
        case .success(let safe): components = safe
        case .failure(let reason): return refuse(entry, reason)
        }
        guard let leaf = components.last else { return }
        let parent = folder(components.dropLast())
        var node = ArchiveIndex.Node(
            name: leaf, kind: .file, size: max(0, entry.size ?? 0), modified: entry.modified ?? folderTime,
            permissions: entry.permissions & 0o777, entry: number)
        switch entry.kind {
        case .directory:
            let index = folder(components[...])
            nodes[index].modified = node.modified
            nodes[index].permissions = node.permissions
            return
        case .file: break
        case .symlink:
            guard let target = entry.linkTarget, EntryPath.symlinkStaysInside(target: target, linkPath: components) else {
                return refuse(entry, .linkLeavesDestination)
            }
            node = ArchiveIndex.Node(
                name: leaf, kind: .symlink, size: Int64(target.count), modified: node.modified, permissions: 0o777,
                linkTarget: target)
        case .hardlink:
            let original = entry.linkTarget.flatMap { try? EntryPath.components(of: $0).get() }
            guard let original, let source = files[EntryPath.join(original)] else {
                return refuse(entry, .hardlinkLeavesDestination)
            }
            node.entry = nodes[source].entry
            node.size = nodes[source].size
        case .characterDevice: return refuse(entry, .specialFile(.characterDevice))
        case .blockDevice: return refuse(entry, .specialFile(.blockDevice))
        case .fifo: return refuse(entry, .specialFile(.namedPipe))
        case .socket: return refuse(entry, .specialFile(.socket))
        }
        let index = nodes.count
        nodes.append(node)
        nodes[parent].children[leaf] = index
        if node.kind == .file { files[EntryPath.join(components)] = index }
    }

    /// The folder at `components`, made with its parents when missing (or when a file stood there).
    private mutating func folder(_ components: ArraySlice<[UInt8]>) -> Int {
        var current = 0
        for name in components {
            if let child = nodes[current].children[name], nodes[child].kind == .directory {
                current = child
                continue
            }
            let index = nodes.count
            nodes.append(ArchiveIndex.Node(name: name, kind: .directory, size: 0, modified: folderTime, permissions: 0o755))
            nodes[current].children[name] = index
            current = index
        }
        return current
    }

    private mutating func refuse(_ entry: ArchiveEntryInfo, _ reason: EntryPath.Refusal) {
        // TRANSLATORS: %1$@ is an entry's name, %2$@ the reason (“its path is absolute”).
        refused.append(tr("Left out “%1$@”: %2$@.", entry.path.displayName, reason.text))
    }
}
