/// What a destination's file system can hold, judged from its type (as the kernel names it): FAT (USB sticks, SD cards) and exFAT
/// do not tell capitals apart and hold no symlinks, and FAT holds no file of 4 GiB or more.
public struct FileSystemTraits: Sendable, Equatable {
    /// The family's name for messages: `FAT`, `exFAT`; empty for the others.
    public var name: String
    /// Whether `read.txt` and `READ.TXT` are one file.
    public var foldsCase: Bool
    public var holdsSymlinks: Bool
    /// The largest file it can hold, in bytes; nil: no limit worth checking.
    public var maxFileSize: Int64?

    /// An ordinary Linux file system (ext4, btrfs, xfs, tmpfs …).
    public static let posix = FileSystemTraits(name: "", foldsCase: false, holdsSymlinks: true, maxFileSize: nil)

    static let fat = FileSystemTraits(name: "FAT", foldsCase: true, holdsSymlinks: false, maxFileSize: (1 << 32) - 1)
    static let exfat = FileSystemTraits(name: "exFAT", foldsCase: true, holdsSymlinks: false, maxFileSize: nil)

    /// The traits of a file system from its type's name in `/proc/self/mountinfo`: `vfat`, `exfat`, or
    /// for FUSE `fuse.` or `fuseblk.` and the program's name (`fuse.fusefat`).
    public static func of(typeName: String) -> FileSystemTraits {
        let parts = typeName.split(separator: ".", maxSplits: 1)
        let fuse = parts.count == 2 && (parts[0] == "fuse" || parts[0] == "fuseblk")
        return switch fuse ? parts[1] : Substring(typeName) {
        case "vfat", "msdos", "fat", "fusefat": fat
        case "exfat", "exfat-fuse": exfat
        default: posix
        }
    }

    /// The type name of the mount holding device `major:minor`, from the text of `/proc/self/mountinfo`.
    public static func mountType(device: String, mountinfo: String) -> String? {
        for line in mountinfo.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count > 2, fields[2] == device, let dash = fields.firstIndex(of: "-"),
                dash + 1 < fields.count
            else { continue }
            return String(fields[dash + 1])
        }
        return nil
    }
}

/// Keeps apart, on a file system that does not tell capitals apart, entries whose names differ only in
/// case (`Read.txt` and `READ.txt` would otherwise be one file, the later replacing the earlier): the later
/// one gets the next free `name (2).ext`, and so does everything inside a folder renamed that way.
public struct CaseFoldedNames: Sendable {
    /// Where each path of the archive went: exact path → the path on disk, component by component.
    private var placed: [[UInt8]: [[UInt8]]] = [:]
    /// Every path on disk so far, folded.
    private var taken: Set<[UInt8]> = []

    public init() {}

    /// A renamed path: the archive's and the one on disk.
    public struct Renaming: Sendable, Equatable {
        public var from: [UInt8]
        public var to: [UInt8]
    }

    /// Where to write the entry at `components` (already checked and split), and the renaming this
    /// entry caused, if any: a folder renamed once is reported once, not for every file inside it.
    public mutating func place(_ components: [[UInt8]], isDirectory: Bool) -> (path: [[UInt8]], renamed: Renaming?) {
        var disk: [[UInt8]] = []
        var renamed: Renaming?
        for index in components.indices {
            let exact = Self.join(components[...index])
            if let known = placed[exact] {
                disk = known
                continue
            }
            let last = index == components.count - 1
            var attempt = 1
            var candidate: [[UInt8]]
            repeat {
                let name = ArchiveNaming.numbered(components[index], isDirectory: !last || isDirectory, attempt: attempt)
                candidate = disk + [name]
                attempt += 1
            } while taken.contains(Self.fold(Self.join(candidate[...])))
            if attempt > 2 { renamed = Renaming(from: exact, to: Self.join(candidate[...])) }
            taken.insert(Self.fold(Self.join(candidate[...])))
            placed[exact] = candidate
            disk = candidate
        }
        return (disk, renamed)
    }

    /// A name as a case-folding file system compares it: Unicode lowercase for UTF-8, ASCII lowercase for
    /// other bytes. Folding more than the disk does only costs a needless `(2)`; folding less would lose a
    /// file.
    public static func fold(_ name: [UInt8]) -> [UInt8] {
        if let text = String(validating: name, as: UTF8.self) { return Array(text.lowercased().utf8) }
        return name.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }
    }

    private static func join(_ components: ArraySlice<[UInt8]>) -> [UInt8] {
        Array(components.joined(separator: [UInt8(ascii: "/")]))
    }
}
