import Glibc

/// The Extract… window's search: which nodes of an `EntryTree` a name filter shows. A node shows when its
/// name holds the query (case-insensitive), when it is a folder on the way to such a node, or when it lies
/// inside a folder whose own name matched (a matching folder opens on its contents, not on nothing).
///
/// Built for a keystroke on 100,000 entries: every name is lowercased once, into one NUL-separated buffer,
/// so that a query is one `memmem` scan and two passes over the nodes, with no allocation per name.
public struct EntrySearch: Sendable {
    /// Every node's name lowercased and NUL-terminated, in node order.
    private var names: [UInt8] = []
    /// Where each node's name starts in `names`.
    private var starts: [Int32] = []

    public init() {}

    /// Takes in the names of the nodes added to `tree` since the last call.
    public mutating func update(_ tree: EntryTree) {
        guard starts.count < tree.nodes.count else { return }
        for index in starts.count..<tree.nodes.count {
            starts.append(Int32(names.count))
            names += index == 0 ? [] : Array(tree.nodes[index].name.lowercased().utf8)
            names.append(0)
        }
    }

    /// What a query shows.
    public struct Shown: Sendable, Equatable {
        /// The nodes whose own name matched.
        public let matches: Int
        /// By node index: shown or not (the root always is).
        private let visible: [Bool]

        fileprivate init(matches: Int, visible: [Bool]) {
            self.matches = matches
            self.visible = visible
        }

        /// Nodes the query has not seen (added after it) are shown.
        public func contains(_ node: Int) -> Bool { node >= visible.count || visible[node] }

        /// How many nodes are shown, the root left out.
        public var count: Int { visible.dropFirst().lazy.filter { $0 }.count }
    }

    /// The nodes `query` shows (call `update` first); nil when it shows everything (an empty query, or one
    /// that every name holds), so that the window keeps its whole tree.
    public func shown(_ query: String, in tree: EntryTree) -> Shown? {
        let needle = Array(query.lowercased().utf8)
        guard !needle.isEmpty, !needle.contains(0) else { return nil }
        let count = min(starts.count, tree.nodes.count)
        var matched = [Bool](repeating: false, count: count)
        var matches = 0
        names.withUnsafeBufferPointer { buffer in
            needle.withUnsafeBufferPointer { wanted in
                var offset = 0
                while let position = Self.find(wanted, in: buffer, from: offset) {
                    let node = nodeAt(position)
                    if node > 0, node < count {
                        matched[node] = true
                        matches += 1
                    }
                    // On to the next name: one hit per node.
                    offset = node + 1 < starts.count ? Int(starts[node + 1]) : buffer.count
                }
            }
        }
        // A parent always comes before its children (EntryTree adds folders first), so one pass forward
        // carries "inside a matching folder" down, and one pass backward opens the way up to every match.
        var inside = [Bool](repeating: false, count: count)
        var visible = matched
        for node in 1..<max(count, 1) {
            let parent = tree.nodes[node].parent
            inside[node] = (matched[node] && tree.nodes[node].isDirectory) || inside[parent]
            if inside[parent] { visible[node] = true }
        }
        for node in stride(from: count - 1, to: 0, by: -1) where visible[node] { visible[tree.nodes[node].parent] = true }
        if count > 0 { visible[0] = true }
        let shown = Shown(matches: matches, visible: visible)
        return count == tree.nodes.count && shown.count == count - 1 ? nil : shown
    }

    /// Where `needle` next occurs in `buffer` at or after `offset`: memchr for its first byte, memcmp for the
    /// rest (glibc's memmem is not visible to Swift without _GNU_SOURCE).
    private static func find(_ needle: UnsafeBufferPointer<UInt8>, in buffer: UnsafeBufferPointer<UInt8>, from offset: Int) -> Int? {
        guard let base = buffer.baseAddress, let wanted = needle.baseAddress, !needle.isEmpty else { return nil }
        let last = buffer.count - needle.count  // the last place it can start
        var next = offset
        while next <= last {
            guard let hit = memchr(base + next, Int32(wanted[0]), last - next + 1) else { return nil }
            let position = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            if needle.count == 1 || memcmp(base + position + 1, wanted + 1, needle.count - 1) == 0 { return position }
            next = position + 1
        }
        return nil
    }

    /// The node whose name holds byte `position` of `names`.
    private func nodeAt(_ position: Int) -> Int {
        var low = 0, high = starts.count  // the last start ≤ position
        while high - low > 1 {
            let middle = (low + high) / 2
            if Int(starts[middle]) <= position { low = middle } else { high = middle }
        }
        return low
    }
}
