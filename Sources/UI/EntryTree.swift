/// An archive's entries as a tree, with what is selected for extraction; filled as the listing streams in.
///
/// No GTK here: the view (EntryTreeView) shows node indices. Every node keeps the totals of its subtree (itself
/// included), so the header line, a folder's size and its checked/mixed state are read without walking, and a
/// toggle costs the size of the subtree plus the depth.
struct EntryTree {
    struct Node {
        /// The last path component, as shown.
        var name: String
        /// The entry's path in the archive, components joined by "/" (what `--entry` takes).
        var path: String
        var isDirectory: Bool
        /// A file's own size (0 for folders).
        var size: Int64
        /// Seconds since 1970 (UTC); nil when the archive has none, or for a folder it only implies.
        var modified: Int64?
        var parent: Int
        var children: [Int] = []
        /// Checked by the person (a folder: whether anything under it is meant to be extracted).
        var checked: Bool
        // Subtree totals, this node included.
        var nodes = 1
        var checkedNodes: Int
        var files = 0
        var bytes: Int64 = 0
        var selectedFiles = 0
        var selectedBytes: Int64 = 0
    }

    enum CheckState { case on, off, mixed }

    /// Node 0 is the archive itself (never shown).
    private(set) var nodes: [Node] = [Node(name: "", path: "", isDirectory: true, size: 0, parent: -1, checked: true, checkedNodes: 1)]
    private var byPath: [String: Int] = ["": 0]
    /// Whether any entry is encrypted (then Extract needs the password).
    private(set) var encrypted = false

    var root: Node { nodes[0] }

    /// Adds one listed entry (and the folders its path implies); returns the nodes made, parents first.
    @discardableResult
    mutating func add(path: String, isDirectory: Bool, size: Int64, modified: Int64?, encrypted: Bool) -> [Int] {
        if encrypted { self.encrypted = true }
        let components = path.split(separator: "/", omittingEmptySubsequences: true).filter { $0 != "." }
        guard !components.isEmpty else { return [] }
        var made: [Int] = []
        var parent = 0
        var prefix = ""
        for (position, component) in components.enumerated() {
            prefix = prefix.isEmpty ? String(component) : prefix + "/" + component
            let last = position == components.count - 1
            if let existing = byPath[prefix] {
                if last, isDirectory || !nodes[existing].isDirectory { nodes[existing].modified = modified }
                parent = existing
                continue
            }
            let folder = !last || isDirectory
            let index = insert(
                Node(name: String(component), path: prefix, isDirectory: folder, size: folder ? 0 : size,
                     modified: last ? modified : nil, parent: parent, checked: nodes[parent].checked, checkedNodes: 0),
                under: parent)
            made.append(index)
            parent = index
        }
        return made
    }

    private mutating func insert(_ node: Node, under parent: Int) -> Int {
        var node = node
        let isFile = !node.isDirectory
        node.checkedNodes = node.checked ? 1 : 0
        node.files = isFile ? 1 : 0
        node.bytes = node.size
        node.selectedFiles = isFile && node.checked ? 1 : 0
        node.selectedBytes = node.checked ? node.size : 0
        let index = nodes.count
        nodes.append(node)
        byPath[node.path] = index
        nodes[parent].children.append(index)
        var ancestor = parent
        while ancestor >= 0 {
            nodes[ancestor].nodes += 1
            nodes[ancestor].checkedNodes += node.checkedNodes
            nodes[ancestor].files += node.files
            nodes[ancestor].bytes += node.bytes
            nodes[ancestor].selectedFiles += node.selectedFiles
            nodes[ancestor].selectedBytes += node.selectedBytes
            ancestor = nodes[ancestor].parent
        }
        return index
    }

    func state(_ index: Int) -> CheckState {
        let node = nodes[index]
        if !node.isDirectory || node.nodes == 1 { return node.checked ? .on : .off }
        if node.checkedNodes == node.nodes { return .on }
        return node.checkedNodes == 0 ? .off : .mixed
    }

    /// Checks or unchecks a node and everything under it; the folders above become checked when anything
    /// under them is (their state then reads mixed).
    mutating func set(_ index: Int, checked: Bool) {
        let before = nodes[index]
        var stack = [index]
        while let next = stack.popLast() {
            nodes[next].checked = checked
            nodes[next].checkedNodes = checked ? nodes[next].nodes : 0
            nodes[next].selectedFiles = checked ? nodes[next].files : 0
            nodes[next].selectedBytes = checked ? nodes[next].bytes : 0
            stack += nodes[next].children
        }
        var changedNodes = nodes[index].checkedNodes - before.checkedNodes
        let changedFiles = nodes[index].selectedFiles - before.selectedFiles
        let changedBytes = nodes[index].selectedBytes - before.selectedBytes
        var ancestor = nodes[index].parent
        while ancestor >= 0 {
            nodes[ancestor].checkedNodes += changedNodes
            nodes[ancestor].selectedFiles += changedFiles
            nodes[ancestor].selectedBytes += changedBytes
            let below = nodes[ancestor].checkedNodes - (nodes[ancestor].checked ? 1 : 0)
            let flag = below > 0
            if flag != nodes[ancestor].checked {
                nodes[ancestor].checked = flag
                nodes[ancestor].checkedNodes += flag ? 1 : -1
                changedNodes += flag ? 1 : -1
            }
            ancestor = nodes[ancestor].parent
        }
    }

    /// Whether nothing at all is unchecked (then Extract passes no `--entry`).
    var everythingSelected: Bool { root.checkedNodes == root.nodes }

    /// The fewest `--entry` names that select exactly what is checked: a fully checked folder by its name,
    /// else what is checked inside it. Empty when nothing is.
    var selectedPaths: [String] {
        var paths: [String] = []
        var stack = Array(root.children.reversed())
        while let next = stack.popLast() {
            switch state(next) {
            case .on: paths.append(nodes[next].path)
            case .off: break
            case .mixed: stack += nodes[next].children.reversed()
            }
        }
        return paths
    }
}
