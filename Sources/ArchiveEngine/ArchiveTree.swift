import ArchiverCore
import Glibc
import Platform
import SystemPackage

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
