/// An archive's entries as a tree, with what is selected for extraction; filled as the listing streams in.
///
/// The Extract… window shows node indices. Every node keeps the totals of its subtree (itself included), so
/// the header line, a folder's size and its checked/mixed state are read without walking, and a toggle costs
/// the size of the subtree plus the depth. A node is small (80 bytes; no path, which is rebuilt from the names
/// when asked): the window holds 100,000 of them within its memory budget.
public struct EntryTree: Sendable {
    public struct Node: Sendable {
        /// The last path component, as shown.
        public let name: String
        /// A file's own size (0 for folders).
        public let size: Int64
        private var modifiedOrMin: Int64
        fileprivate var subtreeBytes: Int64
        fileprivate var subtreeSelectedBytes: Int64
        public fileprivate(set) var children: [Int] = []
        private let parentIndex: Int32
        fileprivate var subtreeNodes: Int32 = 1
        fileprivate var subtreeCheckedNodes: Int32
        fileprivate var subtreeFiles: Int32
        fileprivate var subtreeSelectedFiles: Int32
        public let isDirectory: Bool
        /// Checked by the person (a folder: whether anything under it is meant to be extracted).
        public fileprivate(set) var checked: Bool

        fileprivate init(name: String, isDirectory: Bool, size: Int64, modified: Int64?, parent: Int, checked: Bool) {
            self.name = name
            self.isDirectory = isDirectory
            self.size = size
            modifiedOrMin = modified ?? .min
            parentIndex = Int32(parent)
            self.checked = checked
            subtreeCheckedNodes = checked ? 1 : 0
            subtreeFiles = isDirectory ? 0 : 1
            subtreeSelectedFiles = !isDirectory && checked ? 1 : 0
            subtreeBytes = size
            subtreeSelectedBytes = checked ? size : 0
        }

        /// Seconds since 1970 (UTC); nil when the archive has none, or for a folder it only implies.
        public fileprivate(set) var modified: Int64? {
            get { modifiedOrMin == .min ? nil : modifiedOrMin }
            set { modifiedOrMin = newValue ?? .min }
        }
        /// The folder above (0: the archive itself; -1 for the archive).
        public var parent: Int { Int(parentIndex) }
        // Subtree totals, this node included.
        public var nodes: Int { Int(subtreeNodes) }
        public var checkedNodes: Int { Int(subtreeCheckedNodes) }
        public var files: Int { Int(subtreeFiles) }
        public var bytes: Int64 { subtreeBytes }
        public var selectedFiles: Int { Int(subtreeSelectedFiles) }
        public var selectedBytes: Int64 { subtreeSelectedBytes }
    }

    public enum CheckState: Sendable { case on, off, mixed }

    /// Node 0 is the archive itself (never shown).
    public private(set) var nodes = [Node(name: "", isDirectory: true, size: 0, modified: nil, parent: -1, checked: true)]
    /// Folders by path: where the next entry's components attach. Files are not looked up (an archive that
    /// holds one name twice shows it twice, as it is).
    private var folders: [String: Int] = ["": 0]
    /// Whether any entry is encrypted (then Extract needs the password).
    public private(set) var encrypted = false

    public init() {}

    public var root: Node { nodes[0] }

    /// The entry's path in the archive, components joined by "/" (what `--entry` takes).
    public func path(_ index: Int) -> String {
        var names: [Substring] = []
        var next = index
        while next > 0 {
            names.append(Substring(nodes[next].name))
            next = nodes[next].parent
        }
        return names.reversed().joined(separator: "/")
    }

    /// Adds one listed entry (and the folders its path implies); returns the nodes made, parents first.
    @discardableResult
    public mutating func add(path: String, isDirectory: Bool, size: Int64, modified: Int64?, encrypted: Bool) -> [Int] {
        if encrypted { self.encrypted = true }
        let components = path.split(separator: "/", omittingEmptySubsequences: true).filter { $0 != "." }
        guard !components.isEmpty else { return [] }
        var made: [Int] = []
        var parent = 0
        var prefix = ""
        for (position, component) in components.enumerated() {
            let last = position == components.count - 1
            let folder = !last || isDirectory
            if folder {
                prefix = prefix.isEmpty ? String(component) : prefix + "/" + component
                if let existing = folders[prefix] {
                    if last { nodes[existing].modified = modified }
                    parent = existing
                    continue
                }
            }
            let index = insert(
                Node(name: String(component), isDirectory: folder, size: folder ? 0 : size, modified: last ? modified : nil,
                     parent: parent, checked: nodes[parent].checked),
                under: parent)
            if folder { folders[prefix] = index }
            made.append(index)
            parent = index
        }
        return made
    }

    private mutating func insert(_ node: Node, under parent: Int) -> Int {
        let index = nodes.count
        nodes.append(node)
        nodes[parent].children.append(index)
        var ancestor = parent
        while ancestor >= 0 {
            nodes[ancestor].subtreeNodes += 1
            nodes[ancestor].subtreeCheckedNodes += node.subtreeCheckedNodes
            nodes[ancestor].subtreeFiles += node.subtreeFiles
            nodes[ancestor].subtreeBytes += node.subtreeBytes
            nodes[ancestor].subtreeSelectedFiles += node.subtreeSelectedFiles
            nodes[ancestor].subtreeSelectedBytes += node.subtreeSelectedBytes
            ancestor = nodes[ancestor].parent
        }
        return index
    }

    public func state(_ index: Int) -> CheckState {
        let node = nodes[index]
        if !node.isDirectory || node.nodes == 1 { return node.checked ? .on : .off }
        if node.checkedNodes == node.nodes { return .on }
        return node.checkedNodes == 0 ? .off : .mixed
    }

    /// Checks or unchecks a node and everything under it; the folders above become checked when anything
    /// under them is (their state then reads mixed).
    public mutating func set(_ index: Int, checked: Bool) {
        let before = nodes[index]
        var stack = [index]
        while let next = stack.popLast() {
            nodes[next].checked = checked
            nodes[next].subtreeCheckedNodes = checked ? nodes[next].subtreeNodes : 0
            nodes[next].subtreeSelectedFiles = checked ? nodes[next].subtreeFiles : 0
            nodes[next].subtreeSelectedBytes = checked ? nodes[next].subtreeBytes : 0
            stack += nodes[next].children
        }
        var changedNodes = nodes[index].subtreeCheckedNodes - before.subtreeCheckedNodes
        let changedFiles = nodes[index].subtreeSelectedFiles - before.subtreeSelectedFiles
        let changedBytes = nodes[index].subtreeSelectedBytes - before.subtreeSelectedBytes
        var ancestor = nodes[index].parent
        while ancestor >= 0 {
            nodes[ancestor].subtreeCheckedNodes += changedNodes
            nodes[ancestor].subtreeSelectedFiles += changedFiles
            nodes[ancestor].subtreeSelectedBytes += changedBytes
            let below = nodes[ancestor].subtreeCheckedNodes - (nodes[ancestor].checked ? 1 : 0)
            let flag = below > 0
            if flag != nodes[ancestor].checked {
                nodes[ancestor].checked = flag
                nodes[ancestor].subtreeCheckedNodes += flag ? 1 : -1
                changedNodes += flag ? 1 : -1
            }
            ancestor = nodes[ancestor].parent
        }
    }

    /// Whether nothing at all is unchecked (then Extract passes no `--entry`).
    public var everythingSelected: Bool { root.checkedNodes == root.nodes }

    /// The fewest `--entry` names that select exactly what is checked: a fully checked folder by its name,
    /// else what is checked inside it. Empty when nothing is.
    public var selectedPaths: [String] {
        var paths: [String] = []
        var stack = Array(root.children.reversed())
        while let next = stack.popLast() {
            switch state(next) {
            case .on: paths.append(path(next))
            case .off: break
            case .mixed: stack += nodes[next].children.reversed()
            }
        }
        return paths
    }

    /// Whether anything is checked (cheaper than `selectedPaths`).
    public var anythingSelected: Bool { root.checkedNodes > 1 }
}
