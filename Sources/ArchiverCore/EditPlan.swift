/// One change to an archive, as the edit engine applies it. Names are entry paths inside the archive
/// (bytes, `/` between folders, no leading or trailing slash needed).
public enum ArchiveChange: Sendable, Equatable {
    /// A new entry at `path`: a file or symlink (`isFolder` false) or a folder, whose content the engine
    /// knows by `source` (an index into its own list of items from disk). An existing name is a clash
    /// unless the plan replaces.
    case add(path: [UInt8], isFolder: Bool, source: Int)
    /// New content for the existing file `path`, from the engine's item `source`.
    case replaceContent(path: [UInt8], source: Int)
    /// An entry and, for a folder, everything under it.
    case delete([UInt8])
    /// An entry (with everything under it) moves to `to`.
    case rename([UInt8], to: [UInt8])
    case makeFolder([UInt8])
    /// New permission bits and/or modification time for an existing entry.
    case setAttributes([UInt8], mode: UInt32?, modified: Int64?)
}

/// What a list of changes makes of an archive's entries: the new archive's entries in order, each either
/// an old entry (copied as it was, or with a new name or attributes) or a new one, and what changed, for
/// the report. Pure: the engine lists the entries, the plan decides, the engine writes.
public struct EditPlan: Sendable, Equatable {
    /// An entry of the archive as it is.
    public struct Existing: Sendable, Equatable {
        public var path: [UInt8]
        public var isFolder: Bool

        public init(path: [UInt8], isFolder: Bool) {
            self.path = path
            self.isFolder = isFolder
        }
    }

    /// One entry of the new archive.
    public enum Step: Sendable, Equatable {
        /// Old entry `index`: copied untouched when `name`, `mode` and `modified` are all nil.
        case old(index: Int, name: [UInt8]?, mode: UInt32?, modified: Int64?)
        /// A new entry from the engine's item `source`; nil for a folder made by the plan (a parent of an
        /// added entry, or `makeFolder`).
        case new(path: [UInt8], isFolder: Bool, source: Int?, mode: UInt32?, modified: Int64?)
    }

    public var steps: [Step]
    public var added: [[UInt8]] = []
    public var replaced: [[UInt8]] = []
    public var deleted: [[UInt8]] = []
    public var renamed: [(from: [UInt8], to: [UInt8])] = []

    public static func == (a: Self, b: Self) -> Bool {
        a.steps == b.steps && a.added == b.added && a.replaced == b.replaced && a.deleted == b.deleted
            && a.renamed.map(\.from) == b.renamed.map(\.from) && a.renamed.map(\.to) == b.renamed.map(\.to)
    }

    /// Whether the new archive is the old one: nothing to write.
    public var changesNothing: Bool {
        added.isEmpty && replaced.isEmpty && deleted.isEmpty && renamed.isEmpty
            && steps.allSatisfy { if case .old(_, nil, nil, nil) = $0 { true } else { false } }
    }

    /// The old entries that go into the new archive with new content (their old data is not copied).
    public var oldIndices: Set<Int> {
        Set(steps.compactMap { if case .old(let index, _, _, _) = $0 { index } else { nil } })
    }

    /// Applies `changes` in order to `entries`.
    /// - Parameters:
    ///   - archive: the archive's name, for messages.
    ///   - replacing: an added or renamed entry replaces one of the same name (else that is a clash).
    /// - Throws: `ArchiverError`: `.usage` for a name that is not safe or an entry that does not exist
    ///   (with the closest names), `.destination` for a clash; nothing is then changed.
    ///   - lenient: a delete, rename or attribute change of a name the archive lacks is let go, not an
    ///     error: a mount's folder that only its files made (and which they left) has no entry of its own.
    public static func make(archive: String, entries: [Existing], changes: [ArchiveChange], replacing: Bool, lenient: Bool = false)
        throws(ArchiverError) -> EditPlan
    {
        var items = Items(entries.enumerated().map { index, entry in Item(key: key(entry.path), isFolder: entry.isFolder, origin: .old(index)) })
        var plan = EditPlan(steps: [])
        func matching(_ name: [UInt8]) throws(ArchiverError) -> (key: [UInt8], positions: [Int]) {
            let wanted = key(name)
            let positions = wanted.isEmpty ? [] : items.standing(wanted)
            guard !positions.isEmpty else {
                throw Suggestions.missingEntry(archive: archive, name: name, in: items.live.map(\.key))
            }
            return (wanted, positions)
        }
        /// Removes what stands at `target` (an entry of that name, or a folder's content), or says it clashes.
        /// - Returns: the position of the entry left standing there (the one of that name, else the first one
        ///   inside), for the caller to replace or remove; -1 when `merging` a folder into a folder of that name.
        func clear(_ target: [UInt8], keeping: Set<Int>, merging folder: Bool = false) throws(ArchiverError) -> Int? {
            let standing = items.standing(target).filter { !keeping.contains($0) }
            if standing.isEmpty { return nil }
            if folder, let only = standing.first(where: { items[$0].key == target }), items[only].isFolder { return -1 }
            guard replacing else {
                throw ArchiverError(
                    // TRANSLATORS: %1$@ is the archive, %2$@ an entry of it.
                    .destination, tr("“%1$@” already has “%2$@”; nothing was changed.", archive, target.displayName),
                    hint: tr("Add --replace to replace it, or choose another name."))
            }
            let position = standing.first { items[$0].key == target } ?? standing[0]
            for other in standing where other != position { items.remove(at: other) }
            return position
        }
        for change in changes {
            if lenient {
                let name: [UInt8]? = switch change {
                case .delete(let name), .rename(let name, _), .setAttributes(let name, _, _): name
                default: nil
                }
                if let name, !items.has(key(name)) { continue }
            }
            switch change {
            case .delete(let name):
                let (_, positions) = try matching(name)
                for position in positions { items.remove(at: position) }
                plan.deleted.append(name)
            case .rename(let name, let to):
                try checkName(to)
                let (from, positions) = try matching(name)
                let target = key(to)
                if target == from { continue }
                if Item(key: target, isFolder: false, origin: .made).isInside(from) {
                    throw ArchiverError(
                        .usage, tr("“%1$@” cannot move into itself (“%2$@”).", name.displayName, to.displayName),
                        hint: tr("Choose a name outside it."))
                }
                try checkParents(of: target, archive: archive, items: items)
                if let position = try clear(target, keeping: Set(positions)) {
                    plan.replaced.append(to)
                    items.remove(at: position)
                }
                for position in positions { items.move(position, to: target + items[position].key.dropFirst(from.count)) }
                plan.renamed.append((name, to))
            case .add(let path, let isFolder, let source):
                try checkName(path)
                let target = key(path)
                try checkParents(of: target, archive: archive, items: items)
                let item = Item(key: target, isFolder: isFolder, origin: .new(source))
                let position = try clear(target, keeping: [], merging: isFolder)
                if position == -1 {
                    continue  // a folder that is there already: its content merges
                } else if let position {
                    items.put(item, at: position)
                    plan.replaced.append(path)
                } else {
                    items.append(item)
                    plan.added.append(path)
                }
            case .replaceContent(let path, let source):
                let (target, _) = try matching(path)
                guard let position = items.named(target).first(where: { !items[$0].isFolder }) else {
                    throw ArchiverError(.usage, tr("“%@” is a folder; only a file's content can be replaced.", path.displayName))
                }
                items.put(Item(key: target, isFolder: false, origin: .new(source)), at: position)
                plan.replaced.append(path)
            case .makeFolder(let path):
                try checkName(path)
                let target = key(path)
                try checkParents(of: target, archive: archive, items: items)
                if let existing = items.named(target).first {
                    if items[existing].isFolder { continue }
                    throw ArchiverError(
                        .destination, tr("“%1$@” already has “%2$@”; nothing was changed.", archive, path.displayName),
                        hint: tr("Add --replace to replace it, or choose another name."))
                }
                items.append(Item(key: target, isFolder: true, origin: .made))
                plan.added.append(path)
            case .setAttributes(let path, let mode, let modified):
                let (target, _) = try matching(path)
                for position in items.named(target) {
                    items.update(position) { item in
                        if let mode { item.mode = mode }
                        if let modified { item.modified = modified }
                    }
                }
            }
        }
        plan.steps = steps(items.live, entries: entries)
        return plan
    }

    /// The steps for `items`, with a folder entry made before each added entry whose folders the archive
    /// does not have yet (most readers do without, but a tree view shows them as they are).
    private static func steps(_ items: [Item], entries: [Existing]) -> [Step] {
        var present = Set(items.map { $0.key[...] })
        for item in items where !item.origin.isAdded { for parent in item.parents { present.insert(parent) } }
        var steps: [Step] = []
        steps.reserveCapacity(items.count)
        for item in items {
            switch item.origin {
            case .old(let index):
                let renamed = item.key != key(entries[index].path)
                steps.append(.old(index: index, name: renamed ? item.name(folder: item.isFolder) : nil, mode: item.mode, modified: item.modified))
            case .new, .made:
                for parent in item.parents where !present.contains(parent) {
                    present.insert(parent)
                    steps.append(.new(path: Array(parent) + [slash], isFolder: true, source: nil, mode: nil, modified: nil))
                }
                let source: Int? = if case .new(let source) = item.origin { source } else { nil }
                steps.append(.new(path: item.name(folder: item.isFolder), isFolder: item.isFolder, source: source, mode: item.mode, modified: item.modified))
            }
        }
        return steps
    }

    /// Refuses a name given for a new or renamed entry that no archive should hold: absolute, climbing
    /// with `..`, empty, or with a NUL or control character.
    public static func checkName(_ name: [UInt8]) throws(ArchiverError) {
        let reason: Text? =
            if name.contains(where: { $0 < 0x20 || $0 == 0x7F }) { tr("it holds a control character") }
            else if name.first == slash { EntryPath.Refusal.absolutePath.text }
            else if key(name).isEmpty { EntryPath.Refusal.emptyName.text }
            else if key(name).split(separator: slash, omittingEmptySubsequences: false).contains(where: { $0.isEmpty || $0.elementsEqual([dot]) || $0.elementsEqual([dot, dot]) }) {
                tr("its path goes up with “..” or has an empty or “.” folder")
            } else { nil }
        guard let reason else { return }
        // TRANSLATORS: %1$@ is a name given for an entry, %2$@ the reason, such as “its path is absolute”.
        throw ArchiverError(.usage, tr("“%1$@” cannot be a name inside an archive: %2$@.", name.displayName, reason), hint: tr("Give a relative name such as docs/report.pdf."))
    }

    /// Refuses a target whose parent is a file of the archive.
    private static func checkParents(of target: [UInt8], archive: String, items: Items) throws(ArchiverError) {
        let probe = Item(key: target, isFolder: false, origin: .made)
        for parent in probe.parents.map(Array.init) {
            if items.named(parent).contains(where: { !items[$0].isFolder }) {
                throw ArchiverError(
                    .destination, tr("“%1$@” is a file in “%2$@”, so nothing can go inside it; nothing was changed.", parent.displayName, archive),
                    hint: tr("Choose another folder."))
            }
        }
    }

    /// A name compared as the archive means it: without a leading `./` or trailing slashes.
    public static func key(_ path: [UInt8]) -> [UInt8] {
        // Most names have nothing to take off: they are kept, not copied.
        guard path.first == dot || path.last == slash else { return path }
        var path = path[...]
        while path.starts(with: [dot, slash]) { path = path.dropFirst(2) }
        while path.last == slash { path = path.dropLast() }
        return Array(path)
    }

    private static let slash = UInt8(ascii: "/")
    private static let dot = UInt8(ascii: ".")

    private struct Item {
        enum Origin: Hashable {
            case old(Int), new(Int), made
            var isAdded: Bool { if case .old = self { false } else { true } }
        }
        var key: [UInt8]
        var isFolder: Bool
        var origin: Origin
        var mode: UInt32?
        var modified: Int64?

        init(key: [UInt8], isFolder: Bool, origin: Origin) {
            (self.key, self.isFolder, self.origin) = (key, isFolder, origin)
        }

        func isInside(_ folder: [UInt8]) -> Bool {
            key.count > folder.count && key.starts(with: folder) && key[folder.count] == slash
        }

        /// The keys of the folders above it, outermost first: slices of its own key, as an archive of
        /// 20,000 entries asks for 100,000 of them and a copy each made planning a third of a commit.
        var parents: some Sequence<ArraySlice<UInt8>> {
            let key = key
            return key.indices.lazy.filter { key[$0] == slash }.map { key[..<$0] }
        }

        func name(folder: Bool) -> [UInt8] { folder ? key + [slash] : key }
    }

    /// The entries while the changes apply to them: in the new archive's order, a removed one leaving a
    /// hole so that positions stay, each found by its name and each folder's content counted, so that a
    /// change costs what its names hold, not the archive's length (1,000 files added to an archive of
    /// 20,000 entries once took 20 million comparisons).
    private struct Items {
        private var list: [Item?]
        /// The positions of the entries of each name (an archive may hold a name twice), in no order.
        private var byKey: [[UInt8]: [Int]] = [:]
        /// How many entries lie inside each folder name, at any depth.
        private var inside: [ArraySlice<UInt8>: Int] = [:]

        init(_ items: [Item]) {
            list = []
            list.reserveCapacity(items.count)
            for item in items { append(item) }
        }

        subscript(position: Int) -> Item { list[position]! }

        /// The entries left, in order.
        var live: [Item] { list.compactMap { $0 } }

        /// The positions of the entries named `key`, in order.
        func named(_ key: [UInt8]) -> [Int] { (byKey[key] ?? []).sorted() }

        /// The positions of the entries named `key` or inside it, in order. Only a folder with content
        /// costs a walk over all entries.
        func standing(_ key: [UInt8]) -> [Int] {
            guard inside[key[...], default: 0] > 0 else { return named(key) }
            return list.indices.filter { list[$0].map { $0.key == key || $0.isInside(key) } ?? false }
        }

        /// Whether an entry is named `key` or lies inside it.
        func has(_ key: [UInt8]) -> Bool { !(byKey[key]?.isEmpty ?? true) || inside[key[...], default: 0] > 0 }

        mutating func append(_ item: Item) {
            list.append(nil)
            put(item, at: list.count - 1)
        }

        /// Puts `item` at `position`, in place of the entry there, if any.
        mutating func put(_ item: Item, at position: Int) {
            if list[position] != nil { remove(at: position) }
            list[position] = item
            byKey[item.key, default: []].append(position)
            for parent in item.parents { inside[parent, default: 0] += 1 }
        }

        mutating func remove(at position: Int) {
            guard let item = list[position] else { return }
            list[position] = nil
            byKey[item.key]?.removeAll { $0 == position }
            if byKey[item.key]?.isEmpty == true { byKey[item.key] = nil }
            for parent in item.parents { inside[parent, default: 0] -= 1 }
        }

        /// Gives the entry at `position` a new name, where it is.
        mutating func move(_ position: Int, to key: [UInt8]) {
            guard var item = list[position] else { return }
            remove(at: position)
            item.key = key
            put(item, at: position)
        }

        mutating func update(_ position: Int, _ change: (inout Item) -> Void) {
            guard list[position] != nil else { return }
            change(&list[position]!)
        }
    }
}

extension Suggestions {
    /// The error for a name the archive has no entry of: “x.zip” has no entry “a”, with the closest names.
    public static func missingEntry(archive: String, name: [UInt8], in names: [[UInt8]]) -> ArchiverError {
        let matches = closeMatches(for: name.displayName, in: names.map(\.displayName))
        // TRANSLATORS: one suggested entry name, in quotes; several are listed with “, ” between them.
        let quoted = matches.map { tr("“%@”", $0) }
        let hint = matches.isEmpty
            ? tr("Use --list to see what it holds.")
            // TRANSLATORS: %@ is one or more quoted entry names, separated by commas.
            : tr("Did you mean %@?", Text.sentences(quoted, separator: ", "))
        return ArchiverError(.usage, tr("“%1$@” has no entry “%2$@”.", archive, name.displayName), hint: hint)
    }
}
