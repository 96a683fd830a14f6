import ArchiveEngine
import ArchiverCore
import FuzzSupport
import Glibc
import Platform
import SystemPackage

/// Extraction of whatever archive the input is (the format is found from the bytes, as for any file)
/// into a scratch folder, then the promises checked on disk: nothing outside the destination, nothing
/// left under a final name when the job fails, no staging left when it succeeds, and only plain files,
/// folders and links that stay inside, without setuid bits. Crashes and hangs (libFuzzer's -timeout) are
/// findings of their own.
runFuzzer { data, size in
    let bytes = fuzzInput(data, size)
    let archive = Scratch.root.appending("in/input")
    Scratch.write(bytes, to: archive)
    let options = ExtractOptions(
        folder: Scratch.destination, fallbackFolder: Scratch.root.appending("fallback"),
        places: ExtractDestination(home: Scratch.root, environment: [:]), keepJunk: bytes.count % 2 == 0)
    let outcome = Result { () throws(ArchiverError) in try Extractor.run(archive: archive, options: options, control: JobControl()) }

    let made = listing(Scratch.destination)
    switch outcome {
    case .success(let result):
        if let output = result.output {
            require(output.removingLastComponent() == Scratch.destination, "output \(output) is not in the destination")
            require(made.map { child(Scratch.destination, $0) } == [output], "the destination holds \(made.map(shown))")
            checkTree(output)
        } else {
            require(made.isEmpty, "nothing extracted, yet the destination holds \(made.map(shown))")
        }
    case .failure(let error):
        require(made.isEmpty, "failed (\(error.message.english)), yet the destination holds \(made.map(shown))")
    }
    require(Scratch.unexpected().isEmpty, "written outside the destination: \(Scratch.unexpected())")
    require(access(Scratch.escape, F_OK) != 0, "an absolute path reached \(Scratch.escape)")
    FileSystem.removeTree(Scratch.destination)
    return 0
}

/// Every file under `path` is a plain file, folder or link, without setuid, setgid or sticky bits, and
/// every link resolves inside the destination.
private func checkTree(_ path: FilePath) {
    guard let info = FileSystem.status(path) else { return require(false, "\(path) vanished") }
    require(info.st_mode & 0o7000 == 0, "\(path) has mode \(String(info.st_mode, radix: 8))")
    if FileSystem.isSymlink(info) {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = path.withPlatformString { readlink($0, &buffer, buffer.count - 1) }
        let target = count > 0 ? String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        require(!target.hasPrefix("/"), "\(path) points at the absolute \(target)")
        if let resolved = FileSystem.resolve(path) {
            require(resolved.starts(with: Scratch.destination), "\(path) resolves to \(resolved)")
        }
        return
    }
    require(FileSystem.isRegular(info) || FileSystem.isDirectory(info), "\(path) is a special file")
    if FileSystem.isDirectory(info) {
        for name in listing(path) { checkTree(child(path, name)) }
    }
}

private func listing(_ folder: FilePath) -> [[UInt8]] { (try? FileSystem.entries(of: folder)) ?? [] }

/// `folder/name` for a name in any bytes (tar and cpio names need not be UTF-8).
private func child(_ folder: FilePath, _ name: [UInt8]) -> FilePath {
    var raw = folder.withPlatformString { Array(UnsafeBufferPointer(start: $0, count: strlen($0))) }
    raw += [CChar(bitPattern: UInt8(ascii: "/"))] + name.map { CChar(bitPattern: $0) } + [0]
    return raw.withUnsafeBufferPointer { buffer in buffer.baseAddress.map { FilePath(platformString: $0) } ?? folder }
}

/// The scratch folder: `in/input` is the archive, `a/b/out` the destination, so that an entry climbing out
/// of it lands somewhere this target looks.
enum Scratch {
    static let root = FilePath(makeScratchFolder(holding: ["in", "a", "a/b"]))
    static let destination = root.appending("a/b/out")
    /// Where an absolute entry path of the seed corpus points.
    static let escape = "/tmp/archiver-fuzz-escape"

    static func write(_ bytes: [UInt8], to path: FilePath) {
        guard let file = fopen(path.string, "wb") else { fatalError("cannot write \(path): errno \(errno)") }
        fwrite(bytes, 1, bytes.count, file)
        fclose(file)
    }

    /// What sits in the scratch folder besides the archive and the destination.
    static func unexpected() -> [String] {
        let expected: [(String, [[UInt8]])] = [("", [Array("a".utf8), Array("in".utf8)]), ("in", [Array("input".utf8)]), ("a", [Array("b".utf8)])]
        var found: [String] = []
        for (folder, names) in expected {
            let there = listing(folder.isEmpty ? root : root.appending(folder)).sorted { $0.lexicographicallyPrecedes($1) }
            if there != names { found.append("\(folder): \(there.map(shown))") }
        }
        let inB = listing(root.appending("a/b")).filter { $0 != Array("out".utf8) }
        if !inB.isEmpty { found.append("a/b: \(inB.map(shown))") }
        return found
    }
}
