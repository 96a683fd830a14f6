import ArchiverCore
import ArchiverTestSupport
import Foundation
import SystemPackage
import Testing

@testable import ArchiveEngine

/// A zip opened as a folder is listed from its central directory alone; the entries must be the ones
/// libarchive's reader gives (which also reads every member's local header), so that a folder shows what
/// extraction writes.
@Suite struct ZipDirectoryTests {
    /// Zips with what the central directory can say: folders with and without their slash, Unix modes,
    /// symlinks stored and deflated, MS-DOS attributes (read-only, folder), backslashes, UTF-8 and code
    /// page names, Zip64 fields, time fields (UT, UX), a FIFO, an unknown system.
    private static let maker = """
        import sys, struct, zipfile
        out = sys.argv[1]
        def info(name, system=3, mode=None, attr=0, extra=b'', flags=0, date=(2021, 3, 4, 5, 6, 8)):
            i = zipfile.ZipInfo(name, date_time=date)
            i.create_system = system
            i.external_attr = ((mode or 0) << 16) | attr
            i.extra = extra
            i.flag_bits |= flags
            return i
        with zipfile.ZipFile(out, 'w') as z:
            z.writestr(info('dir/', mode=0o40755), b'')
            z.writestr(info('nodir', mode=0o40700), b'')
            z.writestr(info('dir/run.sh', mode=0o100755), b'#!/bin/sh\\n', compress_type=zipfile.ZIP_DEFLATED)
            z.writestr(info('dir/secret', mode=0o100600), b'x' * 5000, compress_type=zipfile.ZIP_DEFLATED)
            z.writestr(info('dir/link', mode=0o120777), b'run.sh')
            z.writestr(info('dir/deflated-link', mode=0o120777), b'../dir/secret', compress_type=zipfile.ZIP_DEFLATED)
            z.writestr(info('dos/readonly.txt', system=0, attr=0x01), b'read only')
            z.writestr(info('dos/folder', system=0, attr=0x10), b'')
            z.writestr(info('dos/rofolder', system=0, attr=0x11), b'')
            z.writestr(info('dos/plain.txt', system=0, attr=0x20), b'plain')
            z.writestr(info('win\\\\sub\\\\f.txt', system=0), b'backslashes')
            z.writestr(info('unix\\\\name', system=3, mode=0o100644), b'a backslash in a Unix name')
            z.writestr(info('caf\\u00e9/\\u00fc.txt', mode=0o100644), b'utf-8 flagged')
            z.writestr(info('trailing/', mode=0o100644), b'')
            z.writestr(info('fifo', mode=0o10644), b'')
            z.writestr(info('other-system', system=11, mode=0o100777), b'?')
            z.writestr(info('ut.txt', mode=0o100644, extra=struct.pack('<HHBI', 0x5455, 5, 1, 1600000000)), b'ut')
            z.writestr(info('ux.txt', mode=0o100644, extra=struct.pack('<HHIIHH', 0x5855, 12, 1500000000, 1500000001, 7, 8)), b'ux')
            z.writestr(info('zero-padded.txt', mode=0o100644, extra=b'\\0\\0'), b'padding')
            with z.open(info('big64.bin', mode=0o100644), 'w', force_zip64=True) as member:
                member.write(b'zip64 ' * 1000)
        # A name in code page 437, not flagged UTF-8, written by hand into a copy of the last record's form.
        with zipfile.ZipFile(out, 'a') as z:
            i = info('placeholder-cp437.txt', system=0)
            z.writestr(i, b'cp437')
        data = open(out, 'rb').read().replace(b'placeholder-cp437.txt', b'\\x82l\\x8ave-cp437.txt'[:21].ljust(21, b'_'))
        open(out, 'wb').write(data)
        """

    private func libarchiveEntries(_ archive: String) throws -> [ArchiveEntryInfo] {
        var reader = try ArchiveReader(path: FilePath(archive))
        var entries: [ArchiveEntryInfo] = []
        while let entry = try reader.next() { entries.append(entry) }
        return entries
    }

    private func directoryEntries(_ archive: String) throws -> [ArchiveEntryInfo]? {
        let directory = try #require(ZipDirectory(FilePath(archive)))
        var entries: [ArchiveEntryInfo] = []
        return try directory.eachEntry(of: FilePath(archive), control: JobControl()) { entries.append($0) } ? entries : nil
    }

    private func expectSameEntries(_ archive: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let expected = try libarchiveEntries(archive)
        let listed = try #require(try directoryEntries(archive), sourceLocation: sourceLocation)
        #expect(listed.count == expected.count, sourceLocation: sourceLocation)
        for (ours, theirs) in zip(listed, expected) {
            #expect(ours == theirs, "\(theirs.path.displayName)", sourceLocation: sourceLocation)
        }
        #expect(ZipDirectory(FilePath(archive))?.offsets.count == expected.count, sourceLocation: sourceLocation)
    }

    @Test func everyFieldAsLibarchiveReadsIt() throws {
        let scratch = try ScratchDirectory()
        let archive = scratch.sub("fields.zip")
        try #require(try Tool.run(["/usr/bin/python3", "-c", Self.maker, archive]).status == 0)
        try expectSameEntries(archive)
        // The cases are there: a symlink's target read from a deflated member, a Zip64 size, a backslash turned.
        let listed = try #require(try directoryEntries(archive))
        #expect(listed.contains { $0.path == Array("dir/deflated-link".utf8) && $0.linkTarget == Array("../dir/secret".utf8) })
        #expect(listed.contains { $0.path == Array("big64.bin".utf8) && $0.size == 6000 })
        #expect(listed.contains { $0.path == Array("win/sub/f.txt".utf8) })
        #expect(listed.contains { $0.path == Array("ut.txt".utf8) && $0.modified == 1_600_000_000 })
    }

    /// Other people's zip writers, each with its own fields: Info-ZIP (UT and ux fields, symlinks with -y),
    /// bsdtar (its own mode field in the local headers, data descriptors), 7-Zip (NTFS times).
    @Test(arguments: ["zip", "bsdtar", "7zz"]) func otherToolsZipsAsLibarchiveReadsThem(tool: String) throws {
        let scratch = try ScratchDirectory()
        let tree = scratch.sub("t")
        try FileManager.default.createDirectory(atPath: tree + "/sub/deeper", withIntermediateDirectories: true)
        try Data("hello\n".utf8).write(to: URL(fileURLWithPath: tree + "/hello.txt"))
        try Data(repeating: 7, count: 100_000).write(to: URL(fileURLWithPath: tree + "/sub/sevens.bin"))
        try Data("ü\n".utf8).write(to: URL(fileURLWithPath: tree + "/sub/deeper/grüße.txt"))
        try FileManager.default.createSymbolicLink(atPath: tree + "/sub/link", withDestinationPath: "sevens.bin")
        _ = chmod(tree + "/hello.txt", 0o751)
        let archive = scratch.sub("tool.zip")
        let command: [String] = switch tool {
        case "zip": ["/usr/bin/zip", "-q", "-r", "-y", archive, "t"]
        case "bsdtar": ["/usr/bin/bsdtar", "--format", "zip", "-cf", archive, "t"]
        default: ["/usr/bin/7zz", "a", "-tzip", "-snl", "-bd", archive, "t"]
        }
        try #require(try Tool.run(command, in: scratch.path).status == 0)
        try expectSameEntries(archive)
    }

    /// What the directory alone cannot say the same way goes to libarchive, and the folder still lists.
    @Test(arguments: ["encrypted", "prefixed", "unicode-path-field", "one-member-twice"]) func libarchiveListsWhatTheDirectoryCannot(case kind: String) throws {
        let scratch = try ScratchDirectory()
        let archive = scratch.sub("odd.zip")
        let maker = """
            import sys, struct, zipfile, zlib
            out, kind = sys.argv[1], sys.argv[2]
            with zipfile.ZipFile(out, 'w') as z:
                extra = b''
                if kind == 'unicode-path-field':
                    name = b'plain.txt'
                    extra = struct.pack('<HHBI', 0x7075, 5 + 9, 1, zlib.crc32(name)) + name
                i = zipfile.ZipInfo('plain.txt')
                i.extra = extra
                z.writestr(i, b'plain')
                z.writestr('second.txt', b'second')
            data = open(out, 'rb').read()
            if kind == 'prefixed':
                data = b'#!/bin/sh\\nexit 0\\n' + data
            if kind == 'one-member-twice':
                # The second record points at the first member too, as an overlapping-entry bomb does.
                at = data.rfind(b'PK\\x01\\x02')
                data = data[:at + 42] + struct.pack('<I', 0) + data[at + 46:]
            open(out, 'wb').write(data)
            """
        if kind == "encrypted" {
            try Data("plain".utf8).write(to: URL(fileURLWithPath: scratch.sub("plain.txt")))
            try #require(try Tool.run(["/usr/bin/zip", "-q", "-P", "pw", archive, "plain.txt"], in: scratch.path).status == 0)
        } else {
            try #require(try Tool.run(["/usr/bin/python3", "-c", maker, archive, kind]).status == 0)
        }
        #expect(try directoryEntries(archive) == nil)
        if kind == "encrypted" {
            // libarchive's reader finds the encryption, and the password chain is asked (here: nobody).
            #expect(throws: ArchiverError.self) { try ArchiveIndex.scan(FilePath(archive), passwords: nil, control: JobControl()) }
        } else {
            let index = try ArchiveIndex.scan(FilePath(archive), passwords: nil, control: JobControl())
            #expect(index.lookup(Array("plain.txt".utf8)) != nil)
            // Members are read straight from their headers only when libarchive's entries are the
            // directory's one for one; libarchive drops the second record on one member.
            #expect(index.zipDirect == (kind != "one-member-twice"))
        }
    }

    /// The check that libarchive's entries are the directory's, one for one, before members are read
    /// straight from their headers: order, names and where one name ends all count.
    /// `--test`'s comparison reads a local header's Zip64 sizes as writers put them: both (as the
    /// specification says), or only the one that overflowed.
    @Test func localHeaderZip64SizesAreReadBothWays() {
        func header(size: UInt32, packed: UInt32, wide: [Int64]) -> [UInt8] {
            let extra = wide.isEmpty ? [] : ZipBytes.u16(1) + ZipBytes.u16(wide.count * 8) + wide.flatMap(ZipBytes.u64)
            return ZipBytes.u32(0x0403_4B50) + ZipBytes.u16(45) + ZipBytes.u16(0) + ZipBytes.u16(8) + ZipBytes.u32(0)
                + ZipBytes.u32(0xCAFE) + ZipBytes.u32(packed) + ZipBytes.u32(size) + ZipBytes.u16(1) + ZipBytes.u16(extra.count)
                + [UInt8(ascii: "a")] + extra
        }
        let both = ZipHeaderCheck.localFields(header(size: 0xFFFF_FFFF, packed: 0xFFFF_FFFF, wide: [5_000_000_000, 4_900_000_000]))
        #expect(both.size == 5_000_000_000 && both.compressedSize == 4_900_000_000)
        let sizeOnly = ZipHeaderCheck.localFields(header(size: 0xFFFF_FFFF, packed: 1000, wide: [5_000_000_000]))
        #expect(sizeOnly.size == 5_000_000_000 && sizeOnly.compressedSize == 1000)
        // Python puts both sizes in the field with the real ones beside it: the 32-bit ones are read.
        let small = ZipHeaderCheck.localFields(header(size: 300, packed: 200, wide: [300, 200]))
        #expect(small.size == 300 && small.compressedSize == 200 && small.crc == 0xCAFE && small.method == 8 && Array(small.name) == [0x61])
    }

    @Test func nameSequencesMatchOnlyTheSameList() {
        func sequence(_ names: [String]) -> ZipDirectory.NameSequence {
            var sequence = ZipDirectory.NameSequence()
            for name in names { sequence.add(Array(name.utf8)) }
            return sequence
        }
        var sliced = ZipDirectory.NameSequence()
        for name in ["a/b", "c"] { sliced.add(Array(("xx" + name).utf8).dropFirst(2)) }
        #expect(sequence(["a/b", "c"]) == sequence(["a/b", "c"]))
        #expect(sequence(["a/b", "c"]) == sliced)
        #expect(sequence(["a/b", "c"]) != sequence(["c", "a/b"]))
        #expect(sequence(["ab", "c"]) != sequence(["a", "bc"]))
        #expect(sequence(["a/b", "c"]) != sequence(["a/b", "c", ""]))
        #expect(sequence(["a/b"]) != sequence(["a/c"]))
    }

    /// Nothing but the directory is read: a member whose local header is destroyed still lists, and only
    /// that member fails to read.
    @Test func aDestroyedLocalHeaderFailsOnlyItsMember() throws {
        let scratch = try ScratchDirectory()
        let archive = scratch.sub("h.zip")
        let maker = """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], 'w') as z:
                for n in range(3): z.writestr('f%d.txt' % n, ('file %d ' % n) * 100, compress_type=zipfile.ZIP_DEFLATED)
            data = bytearray(open(sys.argv[1], 'rb').read())
            second = data.find(b'PK\\x03\\x04', 1)
            data[second:second + 4] = b'XXXX'
            open(sys.argv[1], 'wb').write(bytes(data))
            """
        try #require(try Tool.run(["/usr/bin/python3", "-c", maker, archive]).status == 0)
        let index = try ArchiveIndex.scan(FilePath(archive), passwords: nil, control: JobControl())
        for name in ["f0.txt", "f1.txt", "f2.txt"] { #expect(index.lookup(Array(name.utf8)) != nil, "\(name)") }
        func read(_ name: String) throws -> Int {
            let stream = try EntryStream(index, node: try #require(index.lookup(Array(name.utf8))))
            var buffer = [UInt8](repeating: 0, count: 4096)
            return try buffer.withUnsafeMutableBytes { try stream.read(into: $0, at: 0) }
        }
        #expect(try read("f0.txt") == 700)
        #expect(try read("f2.txt") == 700)
        #expect(throws: ArchiverError.self) { _ = try read("f1.txt") }
    }
}
