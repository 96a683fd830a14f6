/// "Will it open for them?": what in an archive's plan the places archives usually go cannot take, checked
/// before anything is written — Windows' and macOS's file systems and built-in unzippers, a FAT stick —
/// and the renames that make it portable.
public enum Portability {
    /// One item the archive would hold, as the check needs it.
    public struct Entry: Sendable, Equatable {
        public enum Kind: Sendable { case file, directory, symlink }
        /// Its path in the archive, components joined by `/`.
        public var path: [UInt8]
        public var kind: Kind
        /// A regular file's size.
        public var size: Int64

        public init(path: [UInt8], kind: Kind, size: Int64 = 0) {
            self.path = path
            self.kind = kind
            self.size = size
        }
    }

    /// What the archive is and where it goes.
    public struct Target: Sendable {
        /// The archive's name without its archive extension: Windows extracts into a folder of that name.
        public var stem: [UInt8]
        public var format: ArchiveFormat
        public var encrypted: Bool
        /// The file system the archive is written to.
        public var destination: FileSystemTraits

        public init(stem: [UInt8], format: ArchiveFormat, encrypted: Bool = false, destination: FileSystemTraits = .posix) {
            self.stem = stem
            self.format = format
            self.encrypted = encrypted
            self.destination = destination
        }
    }

    /// Windows refuses these as names, whatever follows the first dot (`CON.txt`, `lpt1.tar.gz`).
    static let reservedStems: Set<String> = Set(
        ["CON", "PRN", "AUX", "NUL"] + (1...9).map { "COM\($0)" } + (1...9).map { "LPT\($0)" })
    /// Characters no Windows name holds (`\` is its folder separator), besides the controls 1–31.
    static let forbidden: Set<UInt8> = Set("<>:\"|?*\\".utf8)
    /// Windows' MAX_PATH, in UTF-16 units.
    public static let maxPath = 260
    /// What comes before the archive's own paths when a Windows user extracts a download with Explorer:
    /// `C:\Users\` + a user name of 20 characters + `\Downloads\` + the archive's stem + `\`.
    static func windowsPrefixLength(stem: [UInt8]) -> Int {
        "C:\\Users\\".utf16.count + 20 + "\\Downloads\\".utf16.count + String(decoding: stem, as: UTF8.self).utf16.count + 1
    }

    /// Every problem of `entries` (in archive order: a folder before what it holds) for `target`.
    public static func check(_ entries: [Entry], target: Target) -> [PortabilityProblem] {
        var problems: [PortabilityProblem] = []
        if target.format.container == .zip, target.encrypted { problems.append(PortabilityProblem(.encryptedZip, path: [])) }
        var folded = CaseFoldedNames()
        var tooLong: Set<[UInt8]> = []
        let prefix = windowsPrefixLength(stem: target.stem)
        for entry in entries {
            let components = entry.path.split(separator: UInt8(ascii: "/")).map(Array.init)
            guard let name = components.last else { continue }
            let isDirectory = entry.kind == .directory
            if String(validating: name, as: UTF8.self) == nil {
                problems.append(PortabilityProblem(.notUTF8, path: entry.path))
            } else {
                if isReserved(name) { problems.append(PortabilityProblem(.reservedName, path: entry.path)) }
                if name.contains(where: { forbidden.contains($0) || $0 < 0x20 }) {
                    problems.append(PortabilityProblem(.forbiddenCharacter, path: entry.path))
                }
                if name.last == UInt8(ascii: ".") || name.last == UInt8(ascii: " ") {
                    problems.append(PortabilityProblem(.trailingDotOrSpace, path: entry.path))
                }
            }
            if let renamed = folded.place(components, isDirectory: isDirectory).renamed, renamed.from == entry.path {
                problems.append(PortabilityProblem(.caseClash, path: entry.path))
            }
            // Said once, for the shortest path too long: what is inside it is too.
            let parent = Array(components.dropLast().joined(separator: [UInt8(ascii: "/")]))
            if !tooLong.contains(parent), prefix + String(decoding: entry.path, as: UTF8.self).utf16.count > maxPath {
                tooLong.insert(entry.path)
                problems.append(PortabilityProblem(.pathTooLong, path: entry.path))
            } else if tooLong.contains(parent), isDirectory {
                tooLong.insert(entry.path)
            }
            if entry.kind == .symlink { problems.append(PortabilityProblem(.symlink, path: entry.path)) }
            if let limit = target.destination.maxFileSize, entry.kind == .file, entry.size > limit {
                problems.append(PortabilityProblem(.tooLargeForFAT, path: entry.path, size: entry.size))
            }
        }
        return problems
    }

    /// Whether Windows reserves a name: its part before the first dot, trailing spaces aside, is a device.
    static func isReserved(_ name: [UInt8]) -> Bool {
        let stem = name.split(separator: UInt8(ascii: "."), maxSplits: 1, omittingEmptySubsequences: false).first ?? []
        let text = String(decoding: stem, as: UTF8.self).uppercased()
        return reservedStems.contains(String(text.reversed().drop { $0 == " " }.reversed()))
    }

    /// Every fix there is, by the problem it removes: the renames, leaving out symlinks
    /// (`--follow-symlinks` is the other way), and ZipCrypto in place of AES (weak: only when asked).
    public static let fixable: Set<PortabilityProblem.Kind> = portable.union([.encryptedZip])
    /// What `--portable` fixes: all but the encryption, which it never weakens.
    public static let portable: Set<PortabilityProblem.Kind> = renames.union([.symlink])
    /// The fixes that rename.
    public static let renames: Set<PortabilityProblem.Kind> = [.reservedName, .forbiddenCharacter, .trailingDotOrSpace, .notUTF8, .caseClash]

    /// A name every system can create, as far as `fixes` go: not-UTF-8 bytes, forbidden characters and a
    /// trailing dot or space become `_`, and a reserved stem gets `_` after it (`CON.txt` → `CON_.txt`).
    public static func portableName(_ name: [UInt8], fixes: Set<PortabilityProblem.Kind> = renames) -> [UInt8] {
        var fixed = name
        if fixes.contains(.notUTF8), String(validating: name, as: UTF8.self) == nil {
            fixed = Array(String(decoding: name, as: UTF8.self).replacingOccurrences("\u{FFFD}", "_").utf8)
        }
        if fixes.contains(.forbiddenCharacter) {
            fixed = fixed.map { forbidden.contains($0) || $0 < 0x20 ? UInt8(ascii: "_") : $0 }
        }
        var end = fixed.count
        while fixes.contains(.trailingDotOrSpace), end > 0, fixed[end - 1] == UInt8(ascii: ".") || fixed[end - 1] == UInt8(ascii: " ") {
            fixed[end - 1] = UInt8(ascii: "_")
            end -= 1
        }
        if fixes.contains(.reservedName), isReserved(fixed) {
            let dot = fixed.firstIndex(of: UInt8(ascii: ".")) ?? fixed.count
            fixed.insert(UInt8(ascii: "_"), at: dot)
        }
        return fixed
    }

    /// What the chosen `fixes` do to `entries`: every path after the renames (`nil` for an entry left out:
    /// a symlink, when `.symlink` is chosen), and the renames to list, each once (a folder's, not again for
    /// what is inside).
    public static func fix(_ entries: [Entry], fixes: Set<PortabilityProblem.Kind> = portable)
        -> (paths: [[UInt8]?], renames: [CaseFoldedNames.Renaming])
    {
        var folded = CaseFoldedNames()
        var paths: [[UInt8]?] = []
        var renames: [CaseFoldedNames.Renaming] = []
        // Each folder's fixed components, by its path in the archive; and which path took a fixed one
        // (`a:b` and `a?b` both become `a_b`: the second is numbered, never merged into the first).
        var fixedFolders: [[UInt8]: [[UInt8]]] = [:]
        var owners: [[[UInt8]]: [UInt8]] = [:]
        for entry in entries {
            let components = entry.path.split(separator: UInt8(ascii: "/")).map(Array.init)
            let leftOut = entry.kind == .symlink && fixes.contains(.symlink)
            guard !leftOut, let name = components.last else {
                paths.append(leftOut ? nil : entry.path)
                continue
            }
            let isDirectory = entry.kind == .directory
            let parent = Array(components.dropLast().joined(separator: [UInt8(ascii: "/")]))
            let fixedParent = fixedFolders[parent] ?? components.dropLast().map { portableName($0, fixes: fixes) }
            let fixedName = portableName(name, fixes: fixes)
            var exact = fixedParent + [fixedName]
            var attempt = 2
            while let owner = owners[exact], owner != entry.path {
                exact = fixedParent + [ArchiveNaming.numbered(fixedName, isDirectory: isDirectory, attempt: attempt)]
                attempt += 1
            }
            owners[exact] = entry.path
            if isDirectory { fixedFolders[entry.path] = exact }
            let placed = fixes.contains(.caseClash) ? folded.place(exact, isDirectory: isDirectory).path : exact
            let path = Array(placed.joined(separator: [UInt8(ascii: "/")]))
            if placed.last != name { renames.append(.init(from: entry.path, to: path)) }
            paths.append(path)
        }
        return (paths, renames)
    }
}

extension String {
    fileprivate func replacingOccurrences(_ target: Character, _ replacement: Character) -> String {
        String(map { $0 == target ? replacement : $0 })
    }
}

/// One thing that may stop the archive from opening where it goes, with what `--portable` does about it.
public struct PortabilityProblem: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case reservedName = "reserved-name"
        case forbiddenCharacter = "forbidden-character"
        case trailingDotOrSpace = "trailing-dot-or-space"
        case pathTooLong = "path-too-long"
        case caseClash = "case-clash"
        case symlink
        case encryptedZip = "zip-aes"
        case tooLargeForFAT = "too-large-for-fat"
        case notUTF8 = "name-not-utf8"
        /// Found by the walk, never stored: a socket, pipe or device.
        case specialFile = "special-file-skipped"
        /// Found by the walk with `--follow-symlinks`: a link to nothing, or to a folder that holds it.
        case danglingSymlink = "symlink-dangling"
        case symlinkLoop = "symlink-loop"
    }

    public var kind: Kind
    /// The entry's path in the archive; empty for the archive as a whole.
    public var path: [UInt8]
    public var size: Int64

    public init(_ kind: Kind, path: [UInt8], size: Int64 = 0) {
        self.kind = kind
        self.path = path
        self.size = size
    }

    /// Whether a fix exists for it (`--fix`).
    public var isFixable: Bool { Portability.fixable.contains(kind) }

    /// The problem and what to do about it, in one or two sentences.
    public var message: Text {
        let name = path.displayName
        switch kind {
        case .reservedName:
            // TRANSLATORS: %@ is a path in the archive; CON, NUL, COM1 … are device names Windows keeps for itself.
            return tr("“%@”: Windows cannot create a file of this name (CON, PRN, AUX, NUL, COM1–9 and LPT1–9 are kept for devices); --portable adds “_” after the name.", name)
        case .forbiddenCharacter:
            return tr("“%@”: Windows cannot create names with < > : \" / \\ | ? * or control characters; --portable puts “_” in their place.", name)
        case .trailingDotOrSpace:
            return tr("“%@”: Windows drops a dot or space at the end of a name; --portable puts “_” in its place.", name)
        case .pathTooLong:
            // TRANSLATORS: %1$@ is a path in the archive, %2$ld the number of characters Windows allows.
            return tr("“%1$@”: extracted into a Downloads folder on Windows, this path is longer than %2$ld characters, which Explorer cannot open; no automatic fix: shorten the names of its folders.", name, Portability.maxPath)
        case .caseClash:
            return tr("“%@” differs from another name only in capitals: Windows and macOS keep one of the two; --portable adds “ (2)”.", name)
        case .symlink:
            return tr("“%@” is a symbolic link, which Windows does not make when extracting; --portable leaves it out, --follow-symlinks stores what it points to.", name)
        case .encryptedZip:
            return tr("Windows’ File Explorer and macOS’s Archive Utility cannot open zip archives encrypted with AES: the recipient needs 7-Zip, Keka or The Unarchiver; --fix zip-aes uses ZipCrypto, which they open but which is weak.")
        case .tooLargeForFAT:
            // TRANSLATORS: %1$@ is a path in the archive, %2$@ its size.
            return tr("“%1$@” is %2$@: the FAT drive the archive goes to holds no file of 4 GiB or more, so it cannot be extracted there; no automatic fix.", name, .bytes(size))
        case .notUTF8:
            return tr("“%@” is not a UTF-8 name, so zip cannot mark it as Unicode and other systems show it garbled; --portable puts “_” in place of the bytes that are not UTF-8.", name)
        case .specialFile:
            return tr("Skipped “%@”: sockets, pipes and device files are not archived.", name)
        case .danglingSymlink:
            return tr("Left out “%@”: it is a symbolic link to something that does not exist, so there is nothing to follow.", name)
        case .symlinkLoop:
            return tr("Left out “%@”: it is a symbolic link to a folder that holds it, so following it would never end.", name)
        }
    }
}
