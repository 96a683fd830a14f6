import ArchiverTestSupport
import Foundation
import Testing

/// A run of the executable in the background, its `--progress-json` lines read as they come, and signals sent.
final class BackgroundRun {
    let running: Running
    var process: Process { running.process }
    private let outPath: String
    private let errPath: String

    init(_ arguments: [String], in scratch: ScratchDirectory, log: String = "events", environment: [String: String] = [:]) throws {
        outPath = scratch.sub("\(log).jsonl")
        errPath = scratch.sub("\(log).err")
        running = try Photos.start(arguments, in: scratch, environment: environment, output: outPath, errors: errPath)
    }

    /// The complete lines so far, parsed.
    var events: [[String: Any]] {
        let text = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n", omittingEmptySubsequences: true).dropLast(text.hasSuffix("\n") ? 0 : 1).compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    func events(_ name: String) -> [[String: Any]] { events.filter { $0["event"] as? String == name } }

    var stderr: String { (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "" }

    /// Waits up to `timeout` seconds for `condition`; false when it never held.
    @discardableResult
    func wait(timeout: Double = 60, until condition: () -> Bool) -> Bool {
        let end = Date().addingTimeInterval(timeout)
        while Date() < end {
            if condition() { return true }
            usleep(20_000)
        }
        return condition()
    }

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Waits for the end (reaping it, so that its pid is free); its exit status.
    func finish() -> Int32 {
        process.waitUntilExit()
        return process.terminationStatus
    }
}

extension BackgroundRun {
    /// `count` different photos of 2400×1800 in `scratch/folder`, being compressed into `scratch/out` with
    /// `--progress-json` by `workers` workers: a batch slow enough to be paused or stopped part way.
    static func slowBatch(_ scratch: ScratchDirectory, folder: String, count: Int, workers: Int = 1) throws
        -> (input: String, out: String, run: BackgroundRun)
    {
        let input = scratch.sub(folder)
        try Photos.makeMany(input, count: count, width: 2400, height: 1800)
        let out = scratch.sub("out")
        let run = try BackgroundRun(["--progress-json", "--workers", String(workers), "-o", out, input], in: scratch)
        return (input, out, run)
    }
}

extension Photos {
    /// `count` different photos `width`×`height` in `folder` (p01.jpg …), made by one Python process.
    static func makeMany(_ folder: String, count: Int, width: Int = 1600, height: Int = 1200) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try python(
            """
            import sys
            from PIL import Image, ImageDraw
            folder, count, w, h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
            base = Image.effect_noise((w, h), 40).convert('L')
            for i in range(count):
                im = Image.merge('RGB', (base, Image.linear_gradient('L').resize((w, h)), base.rotate(i * 7)))
                ImageDraw.Draw(im).rectangle((i * 10, i * 5, i * 10 + w // 5, i * 5 + h // 5), fill=(255, 16 * (i % 16), 0))
                im.save('%s/p%02d.jpg' % (folder, i + 1), 'JPEG', quality=90)
            """, [folder, String(count), String(width), String(height)])
    }

    /// The sources of the `done` lines of the journals in `folder` whose copy is in place with the recorded
    /// size (a line whose copy is missing was written just before a kill, and its photo is done again).
    static func journalSources(in folder: String) -> [String] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".journal") }
        return names.flatMap { name -> [String] in
            let text = (try? String(contentsOfFile: folder + "/" + name, encoding: .utf8)) ?? ""
            let complete = text.hasSuffix("\n") ? text : String(text[..<(text.lastIndex(of: "\n") ?? text.startIndex)])
            return complete.split(separator: "\n").compactMap { line in
                let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
                guard fields.first == "done", fields.count > 3, size(String(fields[2])) == Int64(fields[3]) else { return nil }
                return String(fields[1])
            }
        }
    }

    static func journals(in folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".journal") }
    }
}
