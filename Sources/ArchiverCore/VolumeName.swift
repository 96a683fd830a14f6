import SystemPackage

/// One part of a multi-part archive set, read from its name alone: which set it belongs to and where it
/// comes in it. Which parts exist is for the caller to look up on disk; `VolumeName.arrange` then decides
/// the order and whether the set is whole.
public struct VolumeName: Hashable, Sendable {
    public enum Style: Hashable, Sendable {
        /// `x.7z.001`, `x.zip.002`, `x.tar.gz.01` (7-Zip, HJSplit, `split -d`): byte-split.
        case numbered(width: Int)
        /// `x.tar.gz.aa`, `x.tar.gz.ab` (`split`'s own suffixes): byte-split.
        case lettered(width: Int)
        /// `x.part1.rar`, `x.part01.rar` (RAR 3 and later).
        case rarPart(width: Int)
        /// `x.rar`, `x.r00`, `x.r01` (old RAR naming): the `.rar` comes first.
        case rarOld
        /// `x.z01`, `x.z02`, …, `x.zip` (Info-ZIP and WinZip spanning): the `.zip` comes last.
        case zipSpanned
    }

    /// The name before the part suffix: `x.7z` for `x.7z.001`, `x` for `x.part1.rar` and `x.z01`.
    public var base: [UInt8]
    public var style: Style
    /// The position the name gives: `.001` is 1, `.aa` 0, `part1` 1, `.r00` 0, `.z01` 1; the `.rar` of
    /// old RAR naming is -1 (first) and the `.zip` of a spanned set `Int.max` (last).
    public var number: Int
    /// Whether the suffix is written in capitals (`.R00`, `.Z01`), so that sibling names are spelled alike.
    public var capitals: Bool

    public init(base: [UInt8], style: Style, number: Int, capitals: Bool = false) {
        self.base = base
        self.style = style
        self.number = number
        self.capitals = capitals
    }

    /// Whether parts are cut at a fixed byte count, so every part but the last has the first one's size.
    public var isByteSplit: Bool {
        switch style {
        case .numbered, .lettered: true
        case .rarPart, .rarOld, .zipSpanned: false
        }
    }

    /// The name of the whole set, which names the folder it extracts into: `x.7z` for `x.7z.003`, `x.rar`
    /// for `x.part2.rar`, `x.zip` for `x.z01`.
    public var setName: [UInt8] {
        switch style {
        case .numbered, .lettered: base
        case .rarPart, .rarOld: base + Array(".rar".utf8)
        case .zipSpanned: base + Array(".zip".utf8)
        }
    }

    /// `NAME.001`, part `number` of a set we write: three digits, as 7-Zip writes them, more when a set
    /// has over 999 parts.
    public static func writtenPartName(_ name: [UInt8], _ number: Int) -> [UInt8] {
        VolumeName(base: name, style: .numbered(width: max(3, String(number).count)), number: number).name(number: number)
    }

    /// The file name of part `number` of this set.
    public func name(number: Int) -> [UInt8] {
        let suffix: String
        switch style {
        case .numbered(let width): suffix = "." + Self.padded(number, width)
        case .lettered(let width): suffix = "." + Self.letters(number, width)
        case .rarPart(let width): suffix = ".part" + Self.padded(number, width) + ".rar"
        case .rarOld: suffix = number < 0 ? ".rar" : ".r" + Self.padded(number, 2)
        case .zipSpanned: suffix = number == .max ? ".zip" : ".z" + Self.padded(number, 2)
        }
        return base + Array((capitals ? suffix.uppercased() : suffix).utf8)
    }

    /// No tool writes a set of a million parts; a bigger number is a name that only looks like a part, and
    /// would otherwise reach `Int.max`, the spanned `.zip`'s place.
    public static let highestPart = 999_999

    /// Reads a part's name; nil when the name is not one of the part namings. The plain `x.rar` and
    /// `x.zip` parse too, as the first and last parts of sets that exist only when their siblings do.
    public static func parse(_ name: [UInt8]) -> VolumeName? {
        guard let dot = name.lastIndex(of: UInt8(ascii: ".")), dot > name.startIndex else { return nil }
        let base = Array(name[..<dot])
        let rawSuffix = String(decoding: name[(dot + 1)...], as: UTF8.self)
        let suffix = rawSuffix.lowercased()
        let capitals = rawSuffix != suffix
        let baseHasArchiveExtension = ArchiveNaming.hasArchiveExtension(base)

        if suffix.count >= 2, suffix.allSatisfy(\.isASCIIDigit), let number = Int(suffix), number <= highestPart {
            // 7-Zip counts on past `.999` to `.1000`: a longer number without a leading zero continues a
            // three-digit set, while `.0001` is a set padded to four.
            let width = suffix.count > 3 && !suffix.hasPrefix("0") ? 3 : suffix.count
            // `.001` is a part whatever came before; `.01` and `.0001` only after an archive extension.
            guard width == 3 || baseHasArchiveExtension else { return nil }
            return VolumeName(base: base, style: .numbered(width: width), number: number, capitals: capitals)
        }
        if (2...3).contains(suffix.count), suffix.allSatisfy(\.isASCIILowercaseLetter), !capitals,
            baseHasArchiveExtension, !ArchiveNaming.archiveExtensions.contains(suffix)
        {
            let number = suffix.unicodeScalars.reduce(0) { $0 * 26 + Int($1.value - 97) }
            return VolumeName(base: base, style: .lettered(width: suffix.count), number: number)
        }
        if suffix.count == 3, let first = suffix.first, first == "r" || first == "z",
            suffix.dropFirst().allSatisfy(\.isASCIIDigit), let number = Int(suffix.dropFirst()), !base.isEmpty
        {
            return VolumeName(base: base, style: first == "r" ? .rarOld : .zipSpanned, number: number, capitals: capitals)
        }
        if suffix == "rar" {
            let inner = ArchiveNaming.lastSuffix(base)
            if let inner, inner.lowercased().hasPrefix("part"), inner.count > 4,
                inner.dropFirst(4).allSatisfy(\.isASCIIDigit), let number = Int(inner.dropFirst(4)),
                number <= highestPart
            {
                let setBase = Array(base.dropLast(inner.utf8.count + 1))
                guard !setBase.isEmpty else { return nil }
                return VolumeName(
                    base: setBase, style: .rarPart(width: inner.count - 4), number: number, capitals: capitals)
            }
            return VolumeName(base: base, style: .rarOld, number: -1, capitals: capitals)
        }
        if suffix == "zip" {
            return VolumeName(base: base, style: .zipSpanned, number: .max, capitals: capitals)
        }
        return nil
    }

    /// Whether `other` belongs to the same set as this part.
    public func isSibling(of other: VolumeName) -> Bool { base == other.base && style == other.style }

    /// What the parts found on disk make.
    public enum Arrangement: Equatable, Sendable {
        /// The parts in reading order (one part: a plain archive).
        case parts([VolumeName])
        /// This part is missing: nothing can be read past it.
        case missing(VolumeName)
        /// This part is shorter than the first, though later parts exist: it was cut short.
        case shortPart(VolumeName)
    }

    /// Orders the parts of `given`'s set found on disk and checks that none is missing or short.
    /// - Parameter siblings: every part of the set found in the folder, `given` included, with its size.
    public static func arrange(_ given: VolumeName, siblings: [VolumeName: Int64]) -> Arrangement {
        let numbers = Set(siblings.keys.filter { $0.isSibling(of: given) }.map(\.number))
        func part(_ number: Int) -> VolumeName {
            VolumeName(base: given.base, style: given.style, number: number, capitals: given.capitals)
        }
        let first: Int
        var anchor: Int?  // the part that must exist whatever the numbers: `.rar` first, `.zip` last
        switch given.style {
        case .numbered, .rarPart: first = numbers.contains(0) ? 0 : 1
        case .lettered: first = 0
        case .rarOld: first = 0; anchor = -1
        case .zipSpanned: first = 1; anchor = .max
        }
        let counted = numbers.subtracting([-1, .max])
        // A lone `x.rar` or `x.zip` is a plain archive, not the end of a set; so is `x.zip.bak`, which
        // reads like `split`'s letters but has no `.aa` to start from.
        if counted.isEmpty, anchor != nil { return .parts([given]) }
        if case .lettered = given.style, !numbers.contains(0) { return .parts([given]) }
        if let anchor, !numbers.contains(anchor), given.style == .rarOld { return .missing(part(anchor)) }
        let last = counted.max() ?? first
        var ordered: [VolumeName] = []
        if given.style == .rarOld { ordered.append(part(-1)) }
        for number in first...max(first, last) {
            guard counted.contains(number) else { return .missing(part(number)) }
            ordered.append(part(number))
        }
        if let anchor, given.style == .zipSpanned {
            guard numbers.contains(anchor) else { return .missing(part(anchor)) }
            ordered.append(part(anchor))
        }
        if given.isByteSplit, ordered.count > 1 {
            // Every part but the last is cut at the same size; a smaller one was cut short.
            let sizes = ordered.map { siblings[$0] ?? 0 }
            let full = sizes.dropLast().max() ?? 0
            if let short = ordered.indices.dropLast().first(where: { sizes[$0] < full }) { return .shortPart(ordered[short]) }
            if sizes[sizes.count - 1] > full { return .shortPart(ordered[0]) }
        }
        return .parts(ordered)
    }

    private static func padded(_ number: Int, _ width: Int) -> String {
        let digits = String(number)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    private static func letters(_ number: Int, _ width: Int) -> String {
        var scalars: [Character] = []
        var rest = number
        for _ in 0..<width {
            scalars.append(Character(UnicodeScalar(UInt8(97 + rest % 26))))
            rest /= 26
        }
        return String(scalars.reversed())
    }
}

extension Character {
    // A Character is a whole grapheme: "a" with a combining mark sorts between "a" and "z" too.
    fileprivate var isASCIIDigit: Bool { isASCII && ("0"..."9").contains(self) }
    fileprivate var isASCIILowercaseLetter: Bool { isASCII && ("a"..."z").contains(self) }
}

extension VolumeName {
    /// The archives to extract when several files were selected: a set's parts given together (all
    /// parts selected in a file manager) count once, at the first of them given.
    public static func oncePerSet(_ paths: [FilePath]) -> [FilePath] {
        var seen: Set<[UInt8]> = []
        return paths.filter { path in
            let name = path.lastComponent?.bytes ?? []
            // A plain `x.zip` or `x.rar` may also be the anchor of a set; either way one key per set.
            let key = parse(name).map { path.removingLastComponent().bytes + [0] + $0.setName + [0] + Array("\($0.style)".utf8) } ?? path.bytes
            return seen.insert(key).inserted
        }
    }
}
