import ArchiveEngine
import ArchiverCore
import FuzzSupport
import Glibc
import Platform
import SystemPackage

/// Single-stream detection: the input is the content of a gzip file (`input.gz`, written with stored
/// deflate blocks, so the content is exactly the input), extracted into a scratch folder. A stream is one
/// file unless its content is an archive with a real signature: whenever the extractor calls it a stream,
/// it makes exactly one file, `input`, holding the content; content under 32 KiB whose first 512 bytes are
/// zeros (a disk image's start; no tar header) is always such a stream; and `StreamContent`'s decisions
/// hold.
runFuzzer { data, size in
    let content = fuzzInput(data, size)
    checkDecisions(content)
    let archive = Scratch.root.appending("in/input.gz")
    write(gzipStored(content), to: archive)
    let options = ExtractOptions(
        folder: Scratch.destination, fallbackFolder: Scratch.root.appending("fallback"),
        places: ExtractDestination(home: Scratch.root, environment: [:]))
    let outcome = Result { () throws(ArchiverError) in try Extractor.run(archive: archive, options: options, control: JobControl()) }
    let made = (try? FileSystem.entries(of: Scratch.destination)) ?? []
    // Below 32 KiB: an iso's signature lies past a zero system area.
    let zeroStart = !content.isEmpty && content.count < 32768 && content.prefix(512).allSatisfy { $0 == 0 }
    switch outcome {
    case .success(let result):
        let stream = result.format.hasSuffix(" stream")
        require(!zeroStart || stream, "content starting with zeros read as \(result.format)")
        if stream {
            require(made == [Array("input".utf8)], "a stream made \(made.map(shown))")
            require(read(Scratch.destination.appending("input")) == content, "the stream's file differs from its content")
        }
    case .failure(let error):
        require(!zeroStart, "content starting with zeros failed: \(error.message.english)")
        require(made.isEmpty, "failed, yet the destination holds \(made.map(shown))")
    }
    FileSystem.removeTree(Scratch.destination)
    return 0
}

/// The pure decisions on any bytes: a found skippable-frame end lies inside them, on an lz4 magic.
private func checkDecisions(_ bytes: [UInt8]) {
    if let offset = StreamContent.lz4AfterSkippableFrames(bytes) {
        require(offset >= 8 && offset + 4 <= bytes.count, "lz4 frame at \(offset) of \(bytes.count) bytes")
        require(Array(bytes[offset..<offset + 4]) == [0x04, 0x22, 0x4D, 0x18], "no lz4 magic at \(offset)")
    }
    require(StreamContent.isMtree(bytes) == bytes.starts(with: Array("#mtree".utf8)), "mtree signature misread")
}

/// A gzip file holding `content` in stored deflate blocks.
private func gzipStored(_ content: [UInt8]) -> [UInt8] {
    var out: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3]
    var start = 0
    repeat {
        let count = min(65535, content.count - start)
        let last: UInt8 = start + count == content.count ? 1 : 0
        out += [last, UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
        out += content[start..<start + count]
        start += count
    } while start < content.count
    for value in [crc32(content), UInt32(truncatingIfNeeded: content.count)] {
        out += (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
    return out
}

/// gzip's CRC-32 (in an enum, like `Scratch`, so that the table is there before the first input).
private enum CRC {
    static let table: [UInt32] = (0..<256).map { (byte: UInt32) in
        (0..<8).reduce(byte) { value, _ in value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
    }
}

private func crc32(_ bytes: [UInt8]) -> UInt32 {
    ~bytes.reduce(~UInt32(0)) { CRC.table[Int(($0 ^ UInt32($1)) & 0xFF)] ^ ($0 >> 8) }
}

private func write(_ bytes: [UInt8], to path: FilePath) {
    let descriptor = path.withPlatformString { open($0, O_WRONLY | O_CREAT | O_TRUNC, 0o644) }
    precondition(descriptor >= 0, "cannot write \(path)")
    _ = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
    close(descriptor)
}

private func read(_ path: FilePath) -> [UInt8]? {
    let descriptor = path.withPlatformString { open($0, O_RDONLY) }
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var result: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = read(descriptor, &buffer, buffer.count)
        if count <= 0 { return count == 0 ? result : nil }
        result += buffer[..<count]
    }
}

/// The scratch folder: `in/input.gz` is the stream, `out` the destination. In an enum, as top-level
/// variables of main.swift are set only when the code reaches them, after `runFuzzer` never returns.
private enum Scratch {
    static let root = FilePath(makeScratchFolder(holding: ["in"]))

    static let destination = root.appending("out")
}
