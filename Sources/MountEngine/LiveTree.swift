import ArchiveEngine
import ArchiverCore
import Glibc
import Platform
import SystemPackage

/// A writable folder's tree as it is now: the archive's index with the changes made through the folder,
/// and those changes in the order they were made, as the edit engine applies them. New and changed files
/// keep their bytes in the layer, a private folder of files named after their inodes. Not thread-safe:
/// `LayeredFileSystem` holds it under its lock.
struct LiveTree {
    struct Node {
        var parent: UInt64
        var name: [UInt8]
        var kind: ArchiveIndex.Node.Kind
        /// Permission bits.
        var mode: UInt32
        var modified: Int64
        var size: Int64
        var children: [[UInt8]: UInt64] = [:]
        /// The index's node whose data it shows, while its data is not in the layer.
        var origin: Int?
        /// Its bytes (or a symlink) are the layer's file named after its inode.
        var inLayer = false
        var link: [UInt8]?
        /// Mode or time changed on an entry the archive has: the commit says so.
        var attributesChanged = false
    }

    /// A change as the edit engine will apply it; new content is read from the layer at the commit.
    enum Step: Equatable {
        case add(UInt64, [UInt8])
        case makeFolder([UInt8])
        case rename([UInt8], to: [UInt8])
        case delete([UInt8])
    }

    private(set) var index: ArchiveIndex
    private(set) var nodes: [UInt64: Node] = [:]
    private(set) var steps: [Step] = []
    /// Archive entries given new bytes (copied up into the layer).
    private(set) var rewritten: Set<UInt64> = []
    /// Nodes whose bytes are in the layer, and nodes with a mode or time change: what a commit looks at
    /// besides the steps, without a walk of every node.
    private var layered: Set<UInt64> = []
    private var attributed: Set<UInt64> = []
    private var nextInode: UInt64
    let layer: FilePath

    static let root: UInt64 = 1

    init(_ index: ArchiveIndex, layer: FilePath) {
        self.index = index
        self.layer = layer
        nextInode = UInt64(index.nodes.count) + 1
        nodes = Self.nodes(of: index) { UInt64($0) + 1 }
    }

    /// Every node of `index`, numbered by `inode` (the root always 1).
    private static func nodes(of index: ArchiveIndex, inode: (Int) -> UInt64) -> [UInt64: Node] {
        var nodes: [UInt64: Node] = [:]
        nodes.reserveCapacity(index.nodes.count)
        func number(_ node: Int) -> UInt64 { node == 0 ? root : inode(node) }
        for (node, item) in index.nodes.enumerated() {
            // An archive from Windows keeps no mode: what extraction would give.
            let mode = item.permissions & 0o777 == 0 ? (item.kind == .directory ? 0o755 : 0o644) : item.permissions & 0o7777
            nodes[number(node)] = Node(
                parent: root, name: Array(index.name(of: node)), kind: item.kind, mode: mode,
                modified: item.modified, size: item.size, origin: node, link: index.linkTarget(of: node).map(Array.init))
        }
        for (node, item) in index.nodes.enumerated() where item.kind == .directory {
            for child in index.children(of: node) {
                let name = Array(index.name(of: Int(child)))
                nodes[number(Int(child))]!.parent = number(node)
                nodes[number(node)]!.children[name] = number(Int(child))
            }
        }
        return nodes
    }

    var isChanged: Bool { !steps.isEmpty || !rewritten.isEmpty || !attributed.isEmpty }

    func layerFile(_ inode: UInt64) -> FilePath { layer.appending(String(inode)) }

    func path(of inode: UInt64) -> [UInt8] {
        var parts: [[UInt8]] = []
        var current = inode
        while current != Self.root, let node = nodes[current] {
            parts.append(node.name)
            current = node.parent
        }
        return Array(parts.reversed().joined(separator: [UInt8(ascii: "/")]))
    }

    func child(of parent: UInt64, named name: [UInt8]) -> UInt64? { nodes[parent]?.children[name] }

    /// Why a new name cannot be made in `parent`, as an errno; 0 when it can. A file manager's trash
    /// (`.Trash`, `.Trash-1000`) is refused at the top, so that "Move to Trash" offers to delete instead of
    /// adding the trash to the archive; names with control characters cannot be stored.
    func refusal(of name: [UInt8], in parent: UInt64) -> Int32 {
        guard let folder = nodes[parent] else { return ENOENT }
        guard folder.kind == .directory else { return ENOTDIR }
        if parent == Self.root, name.starts(with: Array(".Trash".utf8)) { return EACCES }
        if name.contains(where: { $0 < 0x20 || $0 == 0x7F }) { return EINVAL }
        return 0
    }

    // MARK: - Changes

    mutating func makeNode(_ kind: ArchiveIndex.Node.Kind, named name: [UInt8], in parent: UInt64, mode: UInt32, link: [UInt8]? = nil)
        -> UInt64
    {
        let inode = nextInode
        nextInode += 1
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        nodes[inode] = Node(
            parent: parent, name: name, kind: kind, mode: mode & 0o7777, modified: Int64(time.tv_sec), size: Int64(link?.count ?? 0),
            inLayer: kind != .directory, link: link)
        nodes[parent]!.children[name] = inode
        if kind != .directory { layered.insert(inode) }
        steps.append(kind == .directory ? .makeFolder(path(of: inode)) : .add(inode, path(of: inode)))
        return inode
    }

    /// Takes `inode` out of the tree (with what a folder still holds, which a commit deletes with it).
    mutating func remove(_ inode: UInt64) {
        guard let node = nodes[inode] else { return }
        steps.append(.delete(path(of: inode)))
        nodes[node.parent]?.children[node.name] = nil
        drop(inode)
    }

    private mutating func drop(_ inode: UInt64) {
        guard let node = nodes.removeValue(forKey: inode) else { return }
        rewritten.remove(inode)
        layered.remove(inode)
        attributed.remove(inode)
        for child in node.children.values { drop(child) }
    }

    /// Moves `inode` to `name` in `parent`, replacing what is there (the caller has checked that it may).
    mutating func move(_ inode: UInt64, to parent: UInt64, name: [UInt8]) {
        guard let node = nodes[inode] else { return }
        let from = path(of: inode)
        if let standing = nodes[parent]?.children[name] { drop(standing) }
        nodes[node.parent]?.children[node.name] = nil
        nodes[inode]!.parent = parent
        nodes[inode]!.name = name
        nodes[parent]!.children[name] = inode
        steps.append(.rename(from, to: path(of: inode)))
    }

    /// Marks an archive entry's bytes as now in the layer.
    mutating func rewrote(_ inode: UInt64) {
        nodes[inode]?.inLayer = true
        layered.insert(inode)
        if nodes[inode]?.origin != nil { rewritten.insert(inode) }
    }

    mutating func setSize(_ inode: UInt64, _ size: Int64) {
        nodes[inode]?.size = size
        touch(inode)
    }

    mutating func touch(_ inode: UInt64) {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        nodes[inode]?.modified = Int64(time.tv_sec)
        if nodes[inode]?.inLayer == false {
            nodes[inode]?.attributesChanged = true
            attributed.insert(inode)
        }
    }

    mutating func setAttributes(_ inode: UInt64, mode: UInt32?, modified: Int64?) {
        if let mode { nodes[inode]?.mode = mode & 0o7777 }
        if let modified { nodes[inode]?.modified = modified }
        guard nodes[inode] != nil else { return }
        nodes[inode]!.attributesChanged = true
        attributed.insert(inode)
    }

    // MARK: - Commit

    /// The changes for the edit engine, each layer file with its node's mode and time (`prepare` gives
    /// them to the files, which the engine reads them from).
    var changes: LayerChanges {
        var changes = LayerChanges()
        for inode in layered.sorted() {
            guard let node = nodes[inode] else { continue }
            changes.files.append((String(inode), node.kind == .file ? node.mode : nil, node.modified))
        }
        changes.edits = steps.map { step in
            switch step {
            case .add(let inode, let path): .add(layerFile(inode), at: path)
            case .makeFolder(let path): .makeFolder(path)
            case .rename(let from, let to): .rename(from, to: to)
            case .delete(let path): .delete(path)
            }
        }
        for inode in rewritten.sorted() { changes.edits.append(.replaceContent(path(of: inode), with: layerFile(inode))) }
        for inode in attributed.sorted() {
            guard let node = nodes[inode], !node.inLayer else { continue }
            changes.edits.append(.setAttributes(path(of: inode), mode: node.mode, modified: node.modified))
        }
        return changes
    }

    /// How many names a commit changes, for the person: each path changed, once.
    var changedNames: Int {
        var names = Set<[UInt8]>()
        for step in steps {
            switch step {
            case .add(_, let path), .makeFolder(let path), .delete(let path): names.insert(path)
            case .rename(_, let to): names.insert(to)
            }
        }
        for inode in rewritten.union(attributed) where nodes[inode] != nil { names.insert(path(of: inode)) }
        return names.count
    }

    /// After a commit: the tree reads the new archive's index; a name the kernel knows keeps its inode
    /// when the archive still has it (`keepingInodes`), so that an open folder window goes on working.
    mutating func rebase(on index: ArchiveIndex, keepingInodes: Bool) {
        var fresh = Self.nodes(of: index) { [nextInode] in nextInode + UInt64($0) }
        if keepingInodes {
            // The same path, the same inode: new numbers go only to what the old tree did not have.
            var renumbered: [UInt64: UInt64] = [Self.root: Self.root]
            func walk(_ old: UInt64, _ new: UInt64) {
                guard let oldNode = nodes[old], let newNode = fresh[new] else { return }
                for (name, newChild) in newNode.children {
                    if let oldChild = oldNode.children[name] {
                        renumbered[newChild] = oldChild
                        walk(oldChild, newChild)
                    }
                }
            }
            walk(Self.root, Self.root)
            var result: [UInt64: Node] = [:]
            func number(_ inode: UInt64) -> UInt64 { renumbered[inode] ?? inode }
            for (inode, var node) in fresh {
                node.parent = number(node.parent)
                node.children = node.children.mapValues(number)
                result[number(inode)] = node
            }
            fresh = result
        }
        nextInode += UInt64(index.nodes.count) + 1
        // Everything in the layer is in the archive now, also the bytes of files made and removed since.
        for name in (try? FileSystem.entries(of: layer)) ?? [] { _ = layer.appending(bytes: name).withPlatformString { unlink($0) } }
        (self.index, nodes, steps, rewritten, layered, attributed) = (index, fresh, [], [], [], [])
    }
}

/// A layer's changes as the edit engine takes them, and as they are kept in the layer (`changes`, rewritten
/// after each change of the tree) so that the next mount commits them when the daemon was killed.
struct LayerChanges {
    var edits: [ArchiveEdit] = []
    /// Each layer file's name, mode (nil: a symlink) and time.
    var files: [(name: String, mode: UInt32?, modified: Int64)] = []

    /// Gives each layer file in `layer` its node's mode and time.
    func prepare(_ layer: FilePath) {
        for file in files {
            let path = layer.appending(file.name)
            if let mode = file.mode { _ = path.withPlatformString { chmod($0, mode_t(mode)) } }
            let times = [timespec(tv_sec: time_t(file.modified), tv_nsec: 0), timespec(tv_sec: time_t(file.modified), tv_nsec: 0)]
            _ = path.withPlatformString { utimensat(AT_FDCWD, $0, times, AT_SYMLINK_NOFOLLOW) }
        }
    }

    /// One line each: a letter, then tab-separated fields, paths in hexadecimal (they are bytes).
    func encoded(layer: FilePath, readAs: stat?) -> [UInt8] {
        func hex(_ bytes: [UInt8]) -> String {
            let digits = Array("0123456789abcdef".utf8)
            return bytes.isEmpty ? "-" : String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
        }
        func name(_ file: FilePath) -> String { file.lastComponent?.string ?? "" }
        var lines: [String] = []
        if let readAs {
            lines.append("S\t\(readAs.st_dev)\t\(readAs.st_ino)\t\(readAs.st_size)\t\(readAs.st_mtim.tv_sec)\t\(readAs.st_mtim.tv_nsec)")
        }
        for file in files { lines.append("P\t\(file.name)\t\(file.mode.map { String($0) } ?? "-")\t\(file.modified)") }
        for edit in edits {
            switch edit {
            case .add(let file, let path): lines.append("A\t\(name(file))\t\(hex(path))")
            case .replaceContent(let path, let file): lines.append("C\t\(hex(path))\t\(name(file))")
            case .delete(let path): lines.append("D\t\(hex(path))")
            case .rename(let from, let to): lines.append("R\t\(hex(from))\t\(hex(to))")
            case .makeFolder(let path): lines.append("F\t\(hex(path))")
            case .setAttributes(let path, let mode, let modified):
                lines.append("M\t\(hex(path))\t\(mode.map { String($0) } ?? "-")\t\(modified.map { String($0) } ?? "-")")
            }
        }
        return Array(lines.map { $0 + "\n" }.joined().utf8)
    }

    /// What `encoded` wrote; nil for anything else.
    static func decoded(_ bytes: [UInt8], layer: FilePath) -> (changes: LayerChanges, readAs: stat?)? {
        func path(_ text: Substring) -> [UInt8]? {
            if text == "-" { return [] }
            guard text.count % 2 == 0 else { return nil }
            var result: [UInt8] = []
            var index = text.startIndex
            while index < text.endIndex {
                let next = text.index(index, offsetBy: 2)
                guard let byte = UInt8(text[index..<next], radix: 16) else { return nil }
                result.append(byte)
                index = next
            }
            return result
        }
        func file(_ text: Substring) -> FilePath? {
            text.isEmpty || text.contains("/") || text.hasPrefix(".") ? nil : layer.appending(String(text))
        }
        var changes = LayerChanges()
        var readAs: stat?
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            switch (fields.first, fields.count) {
            case ("S", 6):
                var info = stat()
                guard let device = UInt(fields[1]), let inode = UInt(fields[2]), let size = Int(fields[3]), let seconds = Int(fields[4]),
                    let nanoseconds = Int(fields[5])
                else { return nil }
                (info.st_dev, info.st_ino, info.st_size) = (dev_t(device), ino_t(inode), off_t(size))
                info.st_mtim = timespec(tv_sec: seconds, tv_nsec: nanoseconds)
                readAs = info
            case ("P", 4):
                guard file(fields[1]) != nil, let modified = Int64(fields[3]) else { return nil }
                changes.files.append((String(fields[1]), UInt32(fields[2]), modified))
            case ("A", 3):
                guard let source = file(fields[1]), let at = path(fields[2]) else { return nil }
                changes.edits.append(.add(source, at: at))
            case ("C", 3):
                guard let at = path(fields[1]), let source = file(fields[2]) else { return nil }
                changes.edits.append(.replaceContent(at, with: source))
            case ("D", 2):
                guard let at = path(fields[1]) else { return nil }
                changes.edits.append(.delete(at))
            case ("R", 3):
                guard let from = path(fields[1]), let to = path(fields[2]) else { return nil }
                changes.edits.append(.rename(from, to: to))
            case ("F", 2):
                guard let at = path(fields[1]) else { return nil }
                changes.edits.append(.makeFolder(at))
            case ("M", 4):
                guard let at = path(fields[1]) else { return nil }
                changes.edits.append(.setAttributes(at, mode: UInt32(fields[2]), modified: Int64(fields[3])))
            default: return nil
            }
        }
        return (changes, readAs)
    }
}
