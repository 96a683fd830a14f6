import SystemPackage

/// What `compress-with-archiver` will make from its inputs: where the archive goes, its name, and the
/// name each input gets inside it. Decided without touching the disk.
public struct CompressPlan: Equatable, Sendable {
    /// One input and the name it has at the archive's top level.
    public struct Item: Equatable, Sendable {
        public var source: FilePath
        public var nameInArchive: [UInt8]

        public init(source: FilePath, nameInArchive: [UInt8]) {
            self.source = source
            self.nameInArchive = nameInArchive
        }
    }

    public var items: [Item]
    /// The folder the archive is written in.
    public var folder: FilePath
    /// The name the archive should get; `(2)`, `(3)`… are added when it is taken, unless `exact`.
    public var archiveName: [UInt8]
    /// Whether `--output` fixed the name, so that a taken name is an error rather than a new number.
    public var exact: Bool

    /// One input as the caller knows it: an absolute, normalised path and whether it is a folder.
    public struct Input: Sendable {
        public var path: FilePath
        public var isDirectory: Bool
        public init(path: FilePath, isDirectory: Bool) {
            self.path = path
            self.isDirectory = isDirectory
        }
    }

    /// Where the output goes when the user says so.
    public enum Destination: Sendable {
        /// The default: beside the inputs, named after them.
        case automatic
        /// `--name NAME`: this name, in the default folder.
        case name([UInt8])
        /// `--output PATH`: exactly here.
        case path(FilePath)
    }

    /// Plans a compression.
    /// - Parameters:
    ///   - inputs: absolute, lexically normalised paths, in the order given.
    ///   - format: the output format.
    ///   - destination: what `--name`/`--output` said.
    /// - Throws: `ArchiverError` with `.usage` for a single-stream format given a folder or several
    ///   inputs, or for two inputs with the same name.
    public static func make(inputs: [Input], format: ArchiveFormat, destination: Destination = .automatic)
        throws(ArchiverError) -> CompressPlan
    {
        guard let first = inputs.first else {
            throw ArchiverError(.usage, tr("Nothing to compress."), hint: tr("Name at least one file or folder."))
        }
        if format.isSingleStream, inputs.count > 1 || first.isDirectory {
            throw ArchiverError(
                .usage,
                inputs.count > 1
                    ? tr("The %@ format compresses one file, not several items.", format.rawValue)
                    : tr("The %@ format compresses one file, not a folder.", format.rawValue),
                hint: tr("Use --format %@ instead.", format.tarEquivalent.rawValue))
        }
        var items: [Item] = []
        var seen: Set<[UInt8]> = []
        for input in inputs {
            guard let component = input.path.lastComponent else {
                throw ArchiverError(.usage, tr("Cannot compress the root folder “/”."), hint: tr("Name the items inside it."))
            }
            let bytes = component.bytes
            guard seen.insert(bytes).inserted else {
                throw ArchiverError(
                    .usage, tr("Two of the items are called “%@”; they cannot both sit at the archive’s top level.", bytes.displayName),
                    hint: tr("Move one into a folder, or compress them separately."))
            }
            items.append(Item(source: input.path, nameInArchive: bytes))
        }

        switch destination {
        case .path(let path):
            guard let component = path.lastComponent else {
                throw ArchiverError(.usage, tr("The output path “%@” names no file.", path), hint: tr("Give a file name."))
            }
            return CompressPlan(items: items, folder: path.removingLastComponent(), archiveName: component.bytes, exact: true)
        case .name(let name):
            let named = withExtension(name, format: format)
            return CompressPlan(items: items, folder: commonFolder(inputs.map(\.path)), archiveName: named, exact: false)
        case .automatic:
            let name: [UInt8]
            if inputs.count > 1 {
                name = Array("Archive".utf8) + Array(format.fileExtension.utf8)
            } else if format.isSingleStream || first.isDirectory {
                name = items[0].nameInArchive + Array(format.fileExtension.utf8)
            } else {
                name = ArchiveNaming.splitForNumbering(items[0].nameInArchive, isDirectory: false).stem
                    + Array(format.fileExtension.utf8)
            }
            return CompressPlan(items: items, folder: commonFolder(inputs.map(\.path)), archiveName: name, exact: false)
        }
    }

    /// `name` with the format's extension, unless it already ends with it.
    static func withExtension(_ name: [UInt8], format: ArchiveFormat) -> [UInt8] {
        let suffix = Array(format.fileExtension.utf8)
        if name.count > suffix.count, name.suffix(suffix.count).map(lowercased) == suffix { return name }
        return name + suffix
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }

    /// The deepest folder that contains every path.
    public static func commonFolder(_ paths: [FilePath]) -> FilePath {
        let parents = paths.map { $0.removingLastComponent() }
        guard var common = parents.first else { return FilePath("/") }
        for parent in parents.dropFirst() {
            while !parent.starts(with: common) {
                common = common.removingLastComponent()
            }
        }
        return common
    }
}
