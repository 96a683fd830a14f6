import ArchiverCore
import ArchiverTestSupport
import Foundation
import SystemPackage
import Testing

@testable import ArchiveEngine

/// The zip container writer as compress uses it: through the output sink, which may cut the archive into
/// parts, setting each streamed member's sizes and CRC in its header afterwards.
@Suite struct ZipContainerWriterTests {
    private static func crc(_ bytes: [UInt8]) -> UInt32 {
        let deflate = ParallelDeflate(level: 1, workers: 1)
        _ = bytes.withUnsafeBytes { deflate.write($0, emit: { _ in true }) }
        _ = deflate.finish(emit: { _ in true })
        return deflate.crc
    }

    /// A member announced larger than 4 GiB has zip64 sizes in its local header, set after its data; in
    /// parts of 7 bytes every header it goes back to crosses a part's end. Joined, the parts are a zip
    /// that Python, unzip and 7-Zip read, zip64 only in that member.
    @Test func headersSetAfterTheDataAcrossPartsAndZip64OnlyWhereAnnounced() throws {
        let scratch = try ScratchDirectory()
        let folder = FilePath(scratch.sub("parts"))
        try FileManager.default.createDirectory(atPath: folder.string, withIntermediateDirectories: false)
        let sink = try OutputSink(partsIn: folder, name: Array("z.zip".utf8), partSize: 7, control: JobControl())
        var writer = ZipContainerWriter(sink: sink, folder: folder)
        let big = Array(String(repeating: "announced as huge ", count: 40).utf8), small = Array("small".utf8)
        let open = try writer.begin(.init(name: Array("big.txt".utf8), mode: 0o100644, modified: 1_700_000_000, method: 0, expectedSize: 5 << 30))
        try big.withUnsafeBytes { try writer.append($0) }
        try writer.end(open, sums: .init(crc: Self.crc(big), compressedSize: Int64(big.count), size: Int64(big.count), method: 0))
        let sums = ZipContainerWriter.Sums(crc: Self.crc(small), compressedSize: 5, size: 5, method: 0)
        try writer.add(.init(name: Array("small.txt".utf8), mode: 0o100600, modified: 1_700_000_000, method: 0, expectedSize: 5), sums: sums, data: small)
        try writer.finish(comment: Array("note".utf8))
        try sink.finish(folder: folder)
        #expect(sink.partPaths.count > 20)

        var joined = Data()
        for part in sink.partPaths { joined += try Data(contentsOf: URL(fileURLWithPath: part.string)) }
        let zip = scratch.sub("z.zip")
        try joined.write(to: URL(fileURLWithPath: zip))
        let said = try Tool.run([
            "/usr/bin/python3", "-c",
            """
            import sys, zipfile
            z = zipfile.ZipFile(sys.argv[1])
            raw = open(sys.argv[1], 'rb').read()
            local = {i.filename: raw[i.header_offset + 30 + len(i.filename):][:2] for i in z.infolist()}
            print(z.testzip(), z.comment, z.read('big.txt').count(b'huge'), z.read('small.txt'), local['big.txt'], local['small.txt'])
            """, zip,
        ]).output
        #expect(said.contains("None b'note' 40 b'small' b'\\x01\\x00' b'UT'"), "\(said)")
        #expect(try Tool.run(["/usr/bin/unzip", "-tq", zip]).status == 0)
        #expect(try Tool.run(["/usr/bin/7zz", "t", zip]).status == 0)
    }

    /// The zip64 margin: deflate may grow a member a little, so sizes near 4 GiB are announced as zip64.
    @Test func zip64IsAnnouncedOnlyNearFourGiB() {
        #expect(!ZipContainerWriter.needsZip64(expectedSize: 4_000_000_000))
        #expect(ZipContainerWriter.needsZip64(expectedSize: 0xFFFF_0000))
        #expect(ZipContainerWriter.needsZip64(expectedSize: 5 << 30))
    }
}
