import ArchiverCore
import Glibc
import Platform
import Synchronization
import SystemPackage

/// The record of a batch, so that one interrupted by a kill, a logout or a full disk can be resumed
/// (`--resume`, same inputs and options): each finished photo is a line, appended and flushed to the disk
/// before its copy takes its final name, so that a copy in place is always in the journal. A torn last
/// line (the kill came mid-write) is ignored. The file lives in the output folder (with `--replace`, in
/// `$XDG_STATE_HOME/io.github.archiver/`), named by rule from a hash of the inputs and options, and is
/// removed only when the batch completes or is cancelled. Its name is not a temporary's, so the clean-up
/// of dead runs' leftovers never touches it.
public final class PhotoJournal: Sendable {
    /// One finished file.
    public struct Entry: Equatable, Sendable {
        public var source: FilePath
        public var output: FilePath
        public var size: Int64
        public var inputSize: Int64
        public var outcome: PhotoItem.Outcome
        public var width: Int
        public var height: Int
        public var outWidth: Int
        public var outHeight: Int

        public init(_ item: PhotoItem) {
            (source, output, size, inputSize, outcome) = (item.source, item.output, item.outputBytes, item.inputBytes, item.outcome)
            (width, height, outWidth, outHeight) = (item.width, item.height, item.outWidth, item.outHeight)
        }

        public var item: PhotoItem {
            PhotoItem(source: source, output: output, inputBytes: inputSize, outputBytes: size, outcome: outcome, width: width,
                      height: height, outWidth: outWidth, outHeight: outHeight)
        }
    }

    /// What a journal holds: the folders the batch claimed (so that a resumed run writes into the same
    /// ones) and its finished files, the last line for a file winning.
    public struct Contents: Equatable, Sendable {
        public var roots: [FilePath: FilePath] = [:]
        public var entries: [FilePath: Entry] = [:]
    }

    public let path: FilePath
    private let descriptor: Int32
    private let lock = Mutex(())

    /// Opens (creating) the journal at `path`; with `fresh`, whatever it held is dropped. A torn last line
    /// is cut off first, so that the next line starts on a line of its own.
    /// - Parameter createFolder: create its folder (the state folder, an `--output` folder) when missing.
    public init(path: FilePath, fresh: Bool, createFolder: Bool = true) throws(ArchiverError) {
        self.path = path
        if createFolder { try FileSystem.makeDirectories(path.removingLastComponent()) }
        descriptor = path.withPlatformString { open($0, O_RDWR | O_CREAT | O_CLOEXEC | (fresh ? O_TRUNC : 0), 0o644) }
        guard descriptor >= 0 else { throw FileSystem.destinationError(errno, path.removingLastComponent()) }
        let bytes = Self.read(descriptor)
        let complete = bytes.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
        if complete < bytes.count { _ = ftruncate(descriptor, off_t(complete)) }
        _ = lseek(descriptor, 0, SEEK_END)
        if complete == 0 { append(Array("archiver-photos-journal 1\n".utf8)) }
    }

    deinit { close(descriptor) }

    /// The journal's contents at `path`; nil when there is none.
    public static func load(_ path: FilePath) -> Contents? {
        let descriptor = path.withPlatformString { open($0, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        return parse(read(descriptor))
    }

    public func recordRoot(input: FilePath, root: FilePath) {
        append(Self.line(["root", input.string, root.string]))
    }

    /// Records a file as finished; flushed to the disk before returning.
    /// - Returns: false when it could not be written (a full disk): the copy must then not take its name,
    ///   or a resumed run would make it again.
    @discardableResult
    public func record(_ entry: Entry) -> Bool {
        append(Self.line(entry))
    }

    /// The batch completed or was cancelled.
    public func remove() {
        _ = path.withPlatformString { unlink($0) }
    }

    @discardableResult
    private func append(_ line: [UInt8]) -> Bool {
        lock.withLock { _ in
            let start = lseek(descriptor, 0, SEEK_END)
            var offset = 0
            while offset < line.count {
                let written = line.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, line.count - offset) }
                if written < 0, errno == EINTR { continue }
                if written <= 0 {
                    // Half a line would glue itself to the next one: cut it off (shrinking needs no space).
                    let code = errno
                    if start >= 0 { _ = ftruncate(descriptor, start) }
                    errno = code
                    return false
                }
                offset += written
            }
            return fdatasync(descriptor) == 0
        }
    }

    private static func read(_ descriptor: Int32) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var offset: off_t = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, offset) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { return bytes }
            bytes += buffer[..<count]
            offset += off_t(count)
        }
    }

    // MARK: The format (pure)

    /// The journal for a batch: its folder (where the copies go) and its name, made by `PhotoJournalPlace`'s
    /// rule, which the Compress Photos… window follows too.
    public static func location(inputs: [FilePath], destination: PhotoDestination, options: PhotoOptions, stateHome: FilePath)
        -> FilePath
    {
        var absolute = destination
        if case .folder(let folder) = destination { absolute = .folder(folder.madeAbsolute) }
        let folder = PhotoJournalPlace.folder(
            firstInput: (inputs.first ?? FilePath(".")).madeAbsolute, destination: absolute, stateHome: stateHome)
        return folder.appending(PhotoJournalPlace.fileName(key: key(inputs: inputs, destination: destination, options: options)))
    }

    /// 16 hex digits of FNV-1a over the inputs, the destination and the options: the same batch, the
    /// same journal.
    public static func key(inputs: [FilePath], destination: PhotoDestination, options: PhotoOptions) -> String {
        var text = inputs.map { $0.madeAbsolute.string }.joined(separator: "\0")
        switch destination {
        case .beside: text += "\0beside"
        case .replace: text += "\0replace"
        case .folder(let folder): text += "\0folder\0" + folder.madeAbsolute.string
        }
        text += "\0\(options.maxSize ?? 0)\0\(options.quality)\0\(options.format.rawValue)\0\(options.stripLocation)"
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    static func line(_ entry: Entry) -> [UInt8] {
        line(["done", entry.source.string, entry.output.string, String(entry.size), String(entry.inputSize),
              entry.outcome.rawValue, String(entry.width), String(entry.height), String(entry.outWidth), String(entry.outHeight)])
    }

    /// Fields joined by tabs, ending in a newline; `%`, tabs, newlines and other control bytes are
    /// written `%XX`, so that any path fits on one line.
    static func line(_ fields: [String]) -> [UInt8] {
        var out: [UInt8] = []
        for (index, field) in fields.enumerated() {
            if index > 0 { out.append(UInt8(ascii: "\t")) }
            for byte in field.utf8 {
                if byte < 0x20 || byte == UInt8(ascii: "%") || byte == 0x7F {
                    out += Array(String(format2: byte).utf8)
                } else {
                    out.append(byte)
                }
            }
        }
        out.append(UInt8(ascii: "\n"))
        return out
    }

    /// The lines of a journal; a torn last line (no newline) and lines that do not parse are ignored.
    static func parse(_ bytes: [UInt8]) -> Contents {
        var contents = Contents()
        let complete = bytes.lastIndex(of: UInt8(ascii: "\n")).map { bytes[..<$0] } ?? []
        for line in complete.split(separator: UInt8(ascii: "\n")) {
            let fields = line.split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false).map(unescape)
            switch fields.first {
            case "root" where fields.count == 3:
                contents.roots[FilePath(fields[1])] = FilePath(fields[2])
            case "done" where fields.count == 10:
                guard let size = Int64(fields[3]), let inputSize = Int64(fields[4]),
                    let outcome = PhotoItem.Outcome(rawValue: fields[5]),
                    let width = Int(fields[6]), let height = Int(fields[7]), let outWidth = Int(fields[8]),
                    let outHeight = Int(fields[9])
                else { continue }
                contents.entries[FilePath(fields[1])] = Entry(PhotoItem(
                    source: FilePath(fields[1]), output: FilePath(fields[2]), inputBytes: inputSize, outputBytes: size,
                    outcome: outcome, width: width, height: height, outWidth: outWidth, outHeight: outHeight))
            default: continue
            }
        }
        return contents
    }

    private static func unescape(_ field: ArraySlice<UInt8>) -> String {
        var out: [UInt8] = []
        var index = field.startIndex
        while index < field.endIndex {
            if field[index] == UInt8(ascii: "%"), index + 2 < field.endIndex,
                let value = UInt8(String(decoding: field[(index + 1)...(index + 2)], as: UTF8.self), radix: 16)
            {
                out.append(value)
                index += 3
            } else {
                out.append(field[index])
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether the copy an entry names is still there as recorded: it exists with the recorded size.
    public static func isIntact(_ entry: Entry) -> Bool {
        FileSystem.status(entry.output).map { Int64($0.st_size) == entry.size && FileSystem.isRegular($0) } ?? false
    }
}

extension String {
    /// `%0A` for a byte.
    fileprivate init(format2 byte: UInt8) {
        let hex = String(byte, radix: 16, uppercase: true)
        self = "%" + (hex.count == 1 ? "0" + hex : hex)
    }
}
