import ArchiverTestSupport
import Foundation
import Testing

/// Copies onto a full or read-only disk: exit 7, a sentence, no partial copy, the originals untouched.
@Suite(.serialized, .enabled(if: TinyDisk.available, "skipped: needs root to mount a small tmpfs"))
struct PhotoDiskTests {
    private func photos(_ scratch: ScratchDirectory) throws -> [String] {
        try (0..<3).map { index in
            let path = scratch.sub("p\(index).jpg")
            try Photos.makeJPEG(path, width: 1600, height: 1200)
            return path
        }
    }

    @Test func aFullDiskStopsTheBatchCleanly() throws {
        let scratch = try ScratchDirectory()
        let inputs = try photos(scratch)
        let sizes = inputs.map(Photos.size)
        var outcomes: [Int32] = []
        for free in [4_000, 60_000, 3_900_000] {
            let disk = try #require(TinyDisk(in: scratch, options: "size=4m", name: "disk\(free)"))
            try disk.leave(free: free)
            let run = try Photos.run(["--no-notify", "--output", disk.path] + inputs, in: scratch)
            outcomes.append(run.status)
            // The resume journal stays when the disk was full (the batch can be finished later), and only then.
            let made = Photos.files(under: disk.path).filter { $0 != "filler" && !$0.hasSuffix(".journal") }
            #expect(!made.contains { $0.hasPrefix(".") }, "\(made)")
            #expect(Photos.journals(in: disk.path).isEmpty == (run.status == 0), "\(Photos.journals(in: disk.path))")
            if run.status != 0 {
                #expect([1, 7].contains(run.status), "\(run.stderr)")
                #expect(run.stderr.contains("is full") || run.stderr.contains("space"), "\(run.stderr)")
            }
            // Every copy that is there is a whole JPEG.
            for name in made { #expect(try Photos.header(disk.path + "/" + name, "width") == "1500", "\(name)") }
        }
        #expect(outcomes.first == 7 && outcomes.last == 0, "\(outcomes)")
        #expect(inputs.map(Photos.size) == sizes)
    }

    @Test func aReadOnlyDestinationIsSaidSo() throws {
        let scratch = try ScratchDirectory()
        let inputs = try photos(scratch)
        let disk = try #require(TinyDisk(in: scratch))
        #expect(disk.makeReadOnly())
        let run = try Photos.run(["--no-notify", "--output", disk.path] + inputs, in: scratch)
        #expect(run.status == 7, "\(run.stderr)")
        #expect(run.stderr.contains("read-only"), "\(run.stderr)")
        #expect(Photos.files(under: disk.path).isEmpty)
    }
}
