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

    @Test func aBatchStoppedByAFullDiskIsResumedOnceThereIsSpace() throws {
        let scratch = try ScratchDirectory()
        let input = scratch.sub("in")
        try Photos.makeMany(input, count: 8)
        let reference = try Photos.run(["--no-notify", "-o", scratch.sub("reference"), input], in: scratch)
        #expect(reference.status == 0)
        let copy = Photos.size(scratch.sub("reference/in/p01.jpg"))
        let disk = try #require(TinyDisk(in: scratch, options: "size=8m", name: "disk"))
        // Room for about three copies and the journal.
        try disk.leave(free: Int(copy) * 3 + 12_000)
        let full = try Photos.run(["--no-notify", "--workers", "1", "-o", disk.path, input], in: scratch)
        #expect(full.status == 1, "some made, then the disk was full: \(full.stderr)")
        let made = Photos.files(under: disk.path + "/in")
        #expect(!made.isEmpty && made.count < 8, "\(made)")
        #expect(Photos.journals(in: disk.path).count == 1, "kept for --resume")
        try FileManager.default.removeItem(atPath: disk.path + "/filler")
        let resumed = try Photos.run(["--no-notify", "--json", "--resume", "-o", disk.path, input], in: scratch)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(resumed.stdout.utf8)) as? [String: Any]
        #expect(json?["resumed"] as? Int == made.count && json?["photos"] as? Int == 8 - made.count, "\(resumed.stdout)")
        #expect(Photos.files(under: disk.path + "/in") == Photos.files(under: scratch.sub("reference/in")), "nothing twice, nothing numbered")
        for name in Photos.files(under: scratch.sub("reference/in")) {
            #expect(FileManager.default.contentsEqual(atPath: disk.path + "/in/" + name, andPath: scratch.sub("reference/in") + "/" + name), "\(name)")
        }
        #expect(Photos.journals(in: disk.path).isEmpty)
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
