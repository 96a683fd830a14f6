import ArchiverTestSupport
import Foundation
import SystemPackage
import Testing

@testable import ArchiveEngine

/// The read-ahead thread hands on exactly what its source gave, in order, then the source's end or
/// failure; dropping it while its thread waits for room ends the thread.
@Suite struct ReadAheadTests {
    /// Blocks of the given sizes, each byte numbered by its place in the stream, then the end or a failure.
    private final class Numbered: ArchiveSource {
        let sizes: [Int]
        let failsAtEnd: Bool
        private var next = 0
        private var position = 0
        /// Byte i is i % 251, long enough for any block starting at any place in the cycle.
        static let pattern = (0..<(6 << 20)).map { UInt8($0 % 251) }
        private(set) var lastErrno: Int32 = 0
        private(set) var lastMessage = ""
        var total: Int64 { Int64(sizes.reduce(0, +)) }
        var consumed: Int64? { Int64(position) }

        init(_ sizes: [Int], failsAtEnd: Bool = false) {
            (self.sizes, self.failsAtEnd) = (sizes, failsAtEnd)
        }

        func read() -> (UnsafeRawPointer?, Int) {
            guard next < sizes.count else {
                if failsAtEnd { (lastErrno, lastMessage) = (EIO, "broken on purpose") }
                return (nil, failsAtEnd ? -1 : 0)
            }
            let start = Self.pattern.withUnsafeBytes { $0.baseAddress! + position % 251 }
            defer { (position, next) = (position + sizes[next], next + 1) }
            return (start, sizes[next])
        }
    }

    /// Everything `source` hands out through the read-ahead, and how the stream ended.
    private func drain(_ source: any ArchiveSource) -> (bytes: [UInt8], status: Int, consumed: [Int64]) {
        let ahead = ReadAhead(source)
        var bytes: [UInt8] = []
        var consumed: [Int64] = []
        while true {
            let (start, count) = ahead.read()
            guard count > 0, let start else { return (bytes, count, consumed) }
            bytes += UnsafeRawBufferPointer(start: start, count: count)
            consumed.append(ahead.consumed ?? -1)
        }
    }

    @Test func everyByteArrivesInOrder() {
        // Blocks smaller and larger than a slot (1 MiB), more of them than there are slots.
        let sizes = [1, 300_000, 3_000_000, 1 << 20, 17, (1 << 20) + 1, 5_000_000, 65_536]
        let (bytes, status, consumed) = drain(Numbered(sizes))
        #expect(status == 0)
        #expect(bytes.count == sizes.reduce(0, +))
        #expect(bytes.enumerated().allSatisfy { $0.element == UInt8($0.offset % 251) })
        #expect(consumed == consumed.sorted(), "progress never goes back")
        #expect(consumed.last == Int64(bytes.count))
    }

    @Test func aFailureArrivesAfterTheDataBeforeIt() {
        let source = Numbered([2_000_000, 10], failsAtEnd: true)
        let ahead = ReadAhead(source)
        var total = 0
        var status = 0
        repeat {
            let (_, count) = ahead.read()
            status = count
            total += max(0, count)
        } while status > 0
        #expect(total == 2_000_010)
        #expect(status == -1)
        #expect(ahead.lastErrno == EIO)
        #expect(ahead.lastMessage == "broken on purpose")
    }

    /// gzip, xz and zstd decoders fill the slots themselves instead of being copied from: what comes out is
    /// what gzip, xz and zstd themselves compressed, and a file cut short fails after the data before the cut.
    @Test func decodersFillTheSlotsThemselves() throws {
        let s = try ScratchDirectory()
        let content = Array((0..<400_000).map { "line \($0)\n" }.joined().utf8)
        try Data(content).write(to: URL(fileURLWithPath: s.sub("c")))
        for tool in ["gzip", "xz", "zstd"] {
            #expect(try Tool.run(["/bin/sh", "-c", "\(tool) -c < '\(s.sub("c"))' > '\(s.sub("c.\(tool)"))'"]).status == 0)
        }
        let sources: [(String, () throws -> any ArchiveSource)] = [
            ("gzip", { try GzipStream(FilePath(s.sub("c.gzip")), recordingPoints: false) }),
            ("xz", { try #require(XzStream(FilePath(s.sub("c.xz")))) }),
            ("zstd", { try ZstdStream(FilePath(s.sub("c.zstd")), recordingFrames: false) }),
        ]
        for (name, source) in sources {
            let whole = try Data(contentsOf: URL(fileURLWithPath: s.sub("c.\(name)")))
            let (bytes, status, consumed) = drain(try source())
            #expect(status == 0, "\(name)")
            #expect(bytes == content, "\(name): \(bytes.count) of \(content.count) bytes")
            #expect(consumed.last == Int64(whole.count), "\(name): the whole file consumed")
            try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: s.sub("c.\(name)")))
            let (cut, failed, _) = drain(try source())
            #expect(failed == -1, "\(name): a file cut short fails")
            #expect(!cut.isEmpty && cut == Array(content.prefix(cut.count)), "\(name): the data before the cut, unchanged")
        }
    }

    @Test func droppedWhileItsThreadWaitsForRoom() {
        let started = Date()
        for _ in 0..<20 {
            // Far more than the slots hold: the thread is blocked when the read-ahead goes away.
            let ahead = ReadAhead(Numbered(Array(repeating: 1 << 20, count: 64)))
            _ = ahead.read()
        }
        #expect(Date().timeIntervalSince(started) < 10)
    }
}
