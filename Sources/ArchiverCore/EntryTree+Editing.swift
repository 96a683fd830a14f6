/// What the Extract… window's Delete, Rename and drops act on (issue 29): pure decisions over the tree.
extension EntryTree {
    /// The entries Delete removes: the checked ones when the person checked only some (the fewest names, as
    /// `selectedPaths`); else, with everything checked as the window starts, only the row with the focus
    /// (`focused`), so that Delete on a row never offers to empty the whole archive. Empty when there is neither.
    public func deletionTargets(focused: Int?) -> [String] {
        if anythingSelected, !everythingSelected { return selectedPaths }
        guard let focused, focused > 0, focused < nodes.count else { return [] }
        return [path(focused)]
    }

    /// The folder inside the archive that files dropped on `node` go into: a folder row itself, a file's
    /// folder; "" (the top) for the empty space below the rows (nil).
    public func dropFolder(on node: Int?) -> String {
        guard let node, node > 0, node < nodes.count else { return "" }
        return nodes[node].isDirectory ? path(node) : (nodes[node].parent > 0 ? path(nodes[node].parent) : "")
    }

    /// The path `node` gets when renamed to `name` in its own folder; nil when `name` cannot be one name
    /// there (empty, ".", "..", a "/" or a control character) or is the name it has.
    public func renamedPath(_ node: Int, to name: String) -> String? {
        guard node > 0, node < nodes.count, name != nodes[node].name, name != ".", name != "..", !name.isEmpty,
            !name.unicodeScalars.contains(where: { $0 == "/" || $0.properties.generalCategory == .control })
        else { return nil }
        let parent = nodes[node].parent
        return parent > 0 ? path(parent) + "/" + name : name
    }
}
