import ArchiverCore
import FuzzSupport

/// Entry-path sanitising: input is `path \0 link-target \0 selected-name`.
runFuzzer { data, size in
    let parts = fields(fuzzInput(data, size), limit: 3)
    let path = parts[0]
    let target = parts.count > 1 ? parts[1] : []
    let slash = UInt8(ascii: "/")
    let pieces = path.split(separator: slash).map(Array.init)

    switch EntryPath.components(of: path) {
    case .success(let components):
        require(!path.isEmpty && path.first != slash, "accepted an empty or absolute path \(shown(path))")
        for component in components {
            require(!component.isEmpty && component != [46] && component != [46, 46], "kept a bad component in \(shown(path))")
            require(!component.contains(slash), "a component holds a slash in \(shown(path))")
        }
        require(components == pieces.filter { $0 != [46] }, "lost or invented components of \(shown(path))")
        let joined = EntryPath.join(components)
        require(!joined.isEmpty || components.isEmpty, "join made nothing of \(shown(path))")
        if !components.isEmpty {
            require((try? EntryPath.components(of: joined).get()) == components, "not idempotent on \(shown(path))")
        }
        checkLink(target, at: components)
        let selection = EntrySelection(parts.count > 2 ? [parts[2]] : [path])
        if parts.count <= 2, !components.isEmpty {
            require(selection.includes(joined), "a name does not select itself: \(shown(path))")
            require(selection.includes(joined + [slash, 120]), "a folder does not select its contents: \(shown(path))")
            require(selection.unmatched(in: [joined]).isEmpty, "a name matched nothing: \(shown(path))")
        } else {
            _ = selection.includes(joined)
        }
        _ = EntryPath.isMacJunk(components)
    case .failure(let refusal):
        let expected: EntryPath.Refusal =
            path.isEmpty ? .emptyName : path.first == slash ? .absolutePath : .parentReference
        require(refusal == expected, "refused \(shown(path)) as \(refusal.code), expected \(expected.code)")
        if refusal == .parentReference { require(pieces.contains([46, 46]), "no `..` in \(shown(path))") }
    }
    return 0
}

/// A link the lexical check lets through resolves inside the destination, and inside the link's own
/// top-level item unless it is said to reach the top.
private func checkLink(_ target: [UInt8], at link: [[UInt8]]) {
    guard !link.isEmpty, EntryPath.symlinkStaysInside(target: target, linkPath: link) else { return }
    require(!target.isEmpty && target.first != UInt8(ascii: "/"), "an empty or absolute target stays inside")
    var resolved = Array(link.dropLast())
    var lowest = resolved.count
    for part in target.split(separator: UInt8(ascii: "/")).map(Array.init) where part != [46] {
        if part == [46, 46] {
            require(!resolved.isEmpty, "\(shown(target)) from \(shown(EntryPath.join(link))) leaves the destination")
            resolved.removeLast()
        } else {
            resolved.append(part)
        }
        lowest = min(lowest, resolved.count)
    }
    if !EntryPath.symlinkReachesTop(target: target, linkPath: link) {
        require(lowest >= 1 && resolved.first == link.first, "\(shown(target)) reaches the top unnoticed")
    }
}
