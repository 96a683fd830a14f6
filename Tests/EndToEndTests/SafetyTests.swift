import ArchiverTestSupport
import Foundation
import Testing

@Suite struct EscapeTests {
    /// Python writes what no well-behaved tool would; our extractor must keep everything inside.
    static let maker = """
        import tarfile, zipfile, io, sys, stat
        d, outside = sys.argv[1], sys.argv[2]
        t = tarfile.open(d + '/evil.tar', 'w')
        def add(name, data=b'', **kw):
            i = tarfile.TarInfo(name); i.mtime = 1600000000
            for k, v in kw.items(): setattr(i, k, v)
            if i.type == tarfile.REGTYPE: i.size = len(data); t.addfile(i, io.BytesIO(data))
            else: t.addfile(i)
        add('good.txt', b'fine')
        add('../up.txt', b'bad')
        add(outside + '/absolute.txt', b'bad')
        add('a/../../up2.txt', b'bad')
        add('link', type=tarfile.SYMTYPE, linkname=outside)
        add('link/through.txt', b'bad')
        add('rel', type=tarfile.SYMTYPE, linkname='../..')
        add('rel/through2.txt', b'bad')
        add('hard', type=tarfile.LNKTYPE, linkname='../../outside/victim.txt')
        add('hard-abs', type=tarfile.LNKTYPE, linkname=outside + '/victim.txt')
        add('dev', type=tarfile.CHRTYPE, devmajor=1, devminor=3)
        add('fifo', type=tarfile.FIFOTYPE)
        add('setuid', b'#!/bin/sh\\n', mode=0o4755)
        add('dir/ok-link', type=tarfile.SYMTYPE, linkname='../good.txt')
        t.close()
        with zipfile.ZipFile(d + '/evil.zip', 'w') as z:
            z.writestr('good.txt', 'fine')
            z.writestr('../zip-up.txt', 'bad')
            z.writestr(outside + '/zip-abs.txt', 'bad')
            i = zipfile.ZipInfo('zlink'); i.external_attr = (stat.S_IFLNK | 0o777) << 16
            z.writestr(i, outside)
            z.writestr('zlink/zip-through.txt', 'bad')
        """

    @Test func nothingAppearsOutsideTheDestination() throws {
        let s = try ScratchDirectory()
        let outside = s.sub("outside")
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try "victim".write(toFile: outside + "/victim.txt", atomically: false, encoding: .utf8)
        try E2E.python(Self.maker, [s.path, outside])
        try FileManager.default.createDirectory(atPath: s.sub("dest/deeper"), withIntermediateDirectories: true)

        let tar = try E2E.run("extract-with-archiver", ["--json", "--to", s.sub("dest/deeper"), s.sub("evil.tar")])
        #expect(tar.status == 1, "partial: \(tar.stderr)")
        for name in ["../up.txt", "a/../../up2.txt", "link", "rel", "hard", "hard-abs", "dev", "fifo", outside + "/absolute.txt"] {
            #expect(tar.stderr.contains("“\(name)”"), "\(name) is named on stderr")
        }
        let zip = try E2E.run("extract-with-archiver", ["--to", s.sub("dest/deeper"), s.sub("evil.zip")])
        #expect(zip.status == 1)
        #expect(zip.stderr.contains("../zip-up.txt") && zip.stderr.contains("zlink"))

        // Outside the destination nothing changed.
        #expect(s.list() == ["dest", "evil.tar", "evil.zip", "outside"])
        #expect(s.list("outside") == ["victim.txt"])
        #expect(try String(contentsOfFile: outside + "/victim.txt", encoding: .utf8) == "victim")
        #expect(s.list("dest") == ["deeper"])
        // Inside, the legitimate entries are there.
        let extracted = s.sub("dest/deeper/evil")
        #expect(try String(contentsOfFile: extracted + "/good.txt", encoding: .utf8) == "fine")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: extracted + "/dir/ok-link") == "../good.txt")
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: extracted + "/setuid")[.posixPermissions] as? Int)
        #expect(mode & 0o4000 == 0 && mode & 0o100 != 0)
        let refused = (tar.json?["results"] as? [[String: Any]])?.first?["refused"] as? [[String: Any]] ?? []
        #expect(refused.count == 9)
        #expect(try String(contentsOfFile: s.sub("dest/deeper/evil (2)/good.txt"), encoding: .utf8) == "fine")
    }
}

@Suite struct BadInputTests {
    @Test func badInputsGetTheirExitCodesAndLeaveNothing() throws {
        let s = try ScratchDirectory()
        try E2E.makeTree(s.sub("Tree"))
        #expect(try E2E.run("compress-with-archiver", ["--format", "zip", s.sub("Tree")]).status == 0)
        #expect(try E2E.run("compress-with-archiver", ["--format", "tar.gz", s.sub("Tree")]).status == 0)
        try E2E.python(
            """
            import sys, os
            d = sys.argv[1]
            for name in ['Tree.zip', 'Tree.tar.gz']:
                data = open(d + '/' + name, 'rb').read(); open(d + '/cut-' + name, 'wb').write(data[:len(data) // 2])
            open(d + '/noise.bin', 'wb').write(os.urandom(20000)); open(d + '/empty.zip', 'wb').close()
            os.makedirs(d + '/folder.zip')
            """, [s.path])
        let cases: [(String, Int32)] = [
            ("cut-Tree.zip", 5), ("cut-Tree.tar.gz", 5), ("noise.bin", 4), ("empty.zip", 4), ("folder.zip", 3), ("missing.zip", 3),
        ]
        for (name, code) in cases {
            let result = try E2E.run("extract-with-archiver", ["--to", s.sub("dest"), s.sub(name)])
            #expect(result.status == code, "\(name): \(result.stderr)")
            #expect(!result.stderr.isEmpty && !result.stderr.contains("Fatal error"), "\(name)")
            #expect(s.list("dest").isEmpty, "\(name) left \(s.list("dest"))")
        }
        #expect(try E2E.run("compress-with-archiver", [s.sub("missing")]).status == 3)
        #expect(try E2E.run("compress-with-archiver", ["--bogus", s.sub("Tree")]).status == 2)
        #expect(try E2E.run("extract-with-archiver", ["--bogus", s.sub("Tree.zip")]).status == 2)
        #expect(try E2E.run("compress-with-archiver", ["--format", "gz", s.sub("Tree")]).stderr.contains("tar.gz"))
        #expect(try E2E.run("compress-with-archiver", ["--format", "gz", s.sub("Tree")]).status == 2)

        try "keep me".write(toFile: s.sub("taken.zip"), atomically: false, encoding: .utf8)
        let taken = try E2E.run("compress-with-archiver", ["--output", s.sub("taken.zip"), s.sub("Tree")])
        #expect(taken.status == 7)
        #expect(try String(contentsOfFile: s.sub("taken.zip"), encoding: .utf8) == "keep me")
        // A destination under a regular file cannot be created.
        #expect(try E2E.run("extract-with-archiver", ["--to", s.sub("taken.zip/sub"), s.sub("Tree.zip")]).status == 7)
        #expect(s.list().filter { $0.hasPrefix(".archiver-") }.isEmpty)
    }

    @Test func emptyArchiveSaysSoAndSucceeds() throws {
        let s = try ScratchDirectory()
        try E2E.python("import tarfile,sys; tarfile.open(sys.argv[1], 'w').close()", [s.sub("empty.tar")])
        let result = try E2E.run("extract-with-archiver", ["--to", s.sub("dest"), s.sub("empty.tar")])
        #expect(result.status == 0)
        #expect(result.stdout.contains("nothing to extract"))
        #expect(s.list("dest").isEmpty)
    }
}

@Suite struct InterruptionTests {
    /// Writes `megabytes` of incompressible data so that jobs take a few seconds.
    static func bigTree(_ s: ScratchDirectory, megabytes: Int) throws {
        try E2E.python(
            "import os,sys\nos.makedirs(sys.argv[1])\nfor i in range(int(sys.argv[2]) // 50): open(sys.argv[1] + '/part%d' % i, 'wb').write(os.urandom(50 << 20))",
            [s.sub("Big"), String(megabytes)])
    }

    /// Starts one of ours, waits until its hidden temporary appears in `folder` (the job is under way),
    /// then sends `signal`.
    static func interrupt(_ arguments: [String], tool: String, signal: Int32, watching folder: String) throws -> Int32 {
        let process = try Tool.start(
            [E2E.binDir + "/" + tool] + arguments,
            environment: ProcessInfo.processInfo.environment.merging(DesktopIsolation.variables) { $1 }
        ).process
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning, Date() < deadline {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            if names.contains(where: { $0.hasPrefix(".archiver-") }) { break }
            Thread.sleep(forTimeInterval: 0.005)
        }
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        return process.terminationStatus
    }

    @Test func interruptedJobsLeaveNothing() throws {
        let s = try ScratchDirectory()
        try Self.bigTree(s, megabytes: 300)
        let compress = try Self.interrupt(
            ["--format", "tar.xz", s.sub("Big")], tool: "compress-with-archiver", signal: SIGINT, watching: s.path)
        #expect(compress == 8)
        #expect(s.list() == ["Big"])

        #expect(try E2E.run("compress-with-archiver", ["--format", "zip", "--level", "store", s.sub("Big")]).status == 0)
        try FileManager.default.createDirectory(atPath: s.sub("dest"), withIntermediateDirectories: true)
        let extract = try Self.interrupt(
            ["--to", s.sub("dest"), s.sub("Big.zip")], tool: "extract-with-archiver", signal: SIGTERM, watching: s.sub("dest"))
        #expect(extract == 8)
        #expect(s.list("dest").isEmpty)

        let budget = try E2E.run("extract-with-archiver", ["--time-budget", "0.01", "--to", s.sub("dest"), s.sub("Big.zip")])
        #expect(budget.status == 9, "\(budget.stderr)")
        #expect(budget.stderr.contains("time budget"))
        #expect(s.list("dest").isEmpty)
    }

    /// A 7z is written by a 7-Zip child; a second Ctrl-C (exit at once) must not leave it running. It is
    /// killed on the way out; failing that, it dies writing progress into our closed pipe.
    @Test func aSecondSignalTakes7ZipDownToo() throws {
        let s = try ScratchDirectory()
        try Self.bigTree(s, megabytes: 100)
        let running = try Tool.start(
            [E2E.binDir + "/compress-with-archiver", "--format", "7z", "--level", "maximum", "--time-budget", "0", s.sub("Big")],
            environment: ProcessInfo.processInfo.environment.merging(DesktopIsolation.variables) { $1 })
        let process = running.process
        var child: String?
        let deadline = Date().addingTimeInterval(30)
        while child == nil, process.isRunning, Date() < deadline {
            child = try E2E.run("/usr/bin/pgrep", ["-P", String(process.processIdentifier), "7zz"]).stdout
                .split(separator: "\n").first.map(String.init)
            Thread.sleep(forTimeInterval: 0.02)
        }
        let pid = try #require(child, "7-Zip never started")
        kill(process.processIdentifier, SIGINT)
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        #expect(process.terminationStatus == 8)
        #expect(eventually(within: 3) { !FileManager.default.fileExists(atPath: "/proc/\(pid)") }, "7zz \(pid) outlived us")
        #expect(s.list() == ["Big"])
    }
}
