import ArchiverCore
import SystemPackage

/// A child tool's command line as bytes: paths keep the bytes of their names (a Latin-1 name stays
/// Latin-1), words are UTF-8. What the windows and the mount starter give the tools.
public struct Arguments: Sendable, Equatable {
    public private(set) var argv: [[UInt8]] = []

    public init() {}

    public init(_ words: [String]) { argv = words.map { Array($0.utf8) } }

    /// A flag or any other word.
    public mutating func add(_ word: String) { argv.append(Array(word.utf8)) }

    // An option and its value are one word, `--option=value`: a value that starts with "-" (an entry called
    // "-notes.txt", a comment "- draft") is never taken for a flag, and never leaves the option without one.
    public mutating func add(_ option: String, _ value: String) {
        add(option, bytes: Array(value.utf8))
    }

    /// An option whose value is a path, byte for byte.
    public mutating func add(_ option: String, path: FilePath) {
        add(option, bytes: path.bytes)
    }

    /// An option whose value is raw bytes (an entry name of an archive).
    public mutating func add(_ option: String, bytes: [UInt8]) {
        argv.append(Array("\(option)=".utf8) + bytes)
    }

    /// `--` then the operands: nothing after it is read as a flag, whatever its name.
    public mutating func operands(_ paths: [FilePath]) {
        add("--")
        argv += paths.map(\.bytes)
    }

    public static func + (lhs: Arguments, rhs: Arguments) -> Arguments {
        var sum = lhs
        sum.argv += rhs.argv
        return sum
    }
}

extension Arguments {
    /// `compress-with-archiver`, as the Compress… window runs it.
    /// - Parameter split: the part size as the tool reads it (`100M`), or nil for one file.
    /// - Parameter options: more words before the operands (`--exclude-vcs`, `--comment TEXT`, …).
    public static func compress(
        _ inputs: [FilePath], format: ArchiveFormat, level: CompressionLevel, output: FilePath, split: String?, encrypt: Bool,
        options: [String] = []
    ) -> Arguments {
        var arguments = Arguments(["--format", format.rawValue, "--level", level.rawValue])
        arguments.add("--output", path: output)
        arguments.add("--split", split ?? "0")
        arguments.argv += [Array("--no-notify".utf8), Array("--progress-json".utf8)]
        if encrypt { arguments.argv += [Array("--encrypt".utf8), Array("--password-stdin".utf8)] }
        for word in options { arguments.add(word) }
        arguments.operands(inputs)
        return arguments
    }

    /// `compress-with-archiver --convert`: `archive` written again in `format`, beside it.
    public static func convert(_ archive: FilePath, format: ArchiveFormat, level: CompressionLevel, encrypt: Bool) -> Arguments {
        var arguments = Arguments(["--convert", "--format", format.rawValue, "--level", level.rawValue, "--no-notify", "--progress-json"])
        if encrypt { arguments.argv += [Array("--encrypt".utf8), Array("--password-stdin".utf8)] }
        arguments.operands([archive])
        return arguments
    }

    /// `extract-with-archiver --list`, for the Extract… window's tree.
    public static func list(_ archive: FilePath) -> Arguments {
        var arguments = Arguments(["--list", "--progress-json", "--password-stdin"])
        arguments.operands([archive])
        return arguments
    }

    /// `extract-with-archiver`, as the Extract… window runs it.
    /// - Parameter entries: the entries chosen, as the listing named them; nil for all.
    /// - Parameter nested: also extract the archives inside (`--nested`).
    public static func extract(
        _ archive: FilePath, to folder: FilePath, entries: [String]?, trash: Bool, skipJunk: Bool, nested: Bool = false
    ) -> Arguments {
        var arguments = Arguments(["--progress-json", "--no-notify"])
        arguments.add("--to", path: folder)
        for entry in entries ?? [] { arguments.add("--entry", entry) }
        arguments.add(trash ? "--trash-archive" : "--no-trash-archive")
        arguments.add(skipJunk ? "--skip-junk" : "--keep-junk")
        arguments.add(nested ? "--nested" : "--no-nested")
        arguments.add("--password-stdin")
        arguments.operands([archive])
        return arguments
    }

    /// `extract-with-archiver --test`, as the Extract… window's Test runs it: nothing written, the verdict in
    /// the result line's `checked` and `damaged`.
    public static func test(_ archive: FilePath) -> Arguments {
        var arguments = Arguments(["--test", "--progress-json", "--no-notify", "--password-stdin"])
        arguments.operands([archive])
        return arguments
    }

    /// `edit-with-archiver`, as the Extract… window runs it: one change (add `files` into the folder `into`,
    /// delete `entries`, or rename `from` to `to`); `keepPrevious`: the window's first change sends the
    /// archive as it was to the trash (one previous version per window).
    public static func edit(_ archive: FilePath, _ change: WindowEdit, keepPrevious: Bool) -> Arguments {
        var arguments = Arguments(["--progress-json", "--no-notify", "--password-stdin"])
        if keepPrevious { arguments.add("--keep-previous") }
        switch change {
        case .add(let files, let into):
            if !into.isEmpty { arguments.add("--into", into) }
            for file in files { arguments.add("--add", path: file) }
        case .delete(let entries):
            for entry in entries { arguments.add("--delete", entry) }
        case .rename(let from, let to):
            arguments.add("--rename", from)
            arguments.add("--rename", to)
        }
        arguments.operands([archive])
        return arguments
    }

    /// `open-with-archiver --mount`, as the Extract… window mounts the archive to open an entry: no file
    /// manager, no notification; a mount that is already there is reused.
    public static func mount(_ archive: FilePath) -> Arguments {
        var arguments = Arguments(["--mount", "--no-notify", "--password-stdin"])
        arguments.operands([archive])
        return arguments
    }

    /// `open-with-archiver --unmount`: waits until the changes made in the folder are in the archive.
    public static func unmount(_ folder: FilePath) -> Arguments {
        var arguments = Arguments(["--unmount"])
        arguments.operands([folder])
        return arguments
    }

    /// `compress-pdf-with-archiver --estimate`.
    public static func estimatePDF(_ pdf: FilePath) -> Arguments {
        var arguments = Arguments(["--estimate", "--json", "--password-stdin"])
        arguments.operands([pdf])
        return arguments
    }

    /// `compress-pdf-with-archiver`, as the Compress PDF… window runs it.
    public static func compressPDF(_ pdf: FilePath, quality: PDFQuality) -> Arguments {
        var arguments = Arguments(["--quality", quality.rawValue, "--progress-json", "--no-notify", "--password-stdin"])
        arguments.operands([pdf])
        return arguments
    }
}

/// One change the Extract… window asks `edit-with-archiver` for.
public enum WindowEdit: Sendable, Equatable {
    /// Files and folders from the disk, into a folder of the archive ("" = the top).
    case add([FilePath], into: String)
    /// Entries (a folder with what it holds), as the listing named them.
    case delete([String])
    /// An entry to a new path.
    case rename(String, to: String)
}
