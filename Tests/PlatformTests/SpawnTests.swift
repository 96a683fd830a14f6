import ArchiverTestSupport
import Foundation
import Glibc
import Testing

@testable import Platform

/// The programs the desktop side starts (dialogs, a file manager, notify-send) go through `ChildProcess`
/// as they went through g_spawn: argv as bytes, found on the `PATH`, holding none of our descriptors.
@Suite struct SpawnTests {
    private func bytes(_ words: String...) -> [[UInt8]] { words.map { Array($0.utf8) } }

    @Test func runGivesTheOutputOfASuccessOnlyWithEveryByteOfItsArguments() throws {
        let scratch = try ScratchDirectory()
        // A Latin-1 name, which no String can carry.
        let name = Array(scratch.sub("caf").utf8) + [0xE9] + Array(".txt".utf8)
        let made = (name.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer { open($0.baseAddress!, O_WRONLY | O_CREAT, 0o600) }
        try #require(made >= 0)
        close(made)

        let script = bytes("sh", "-c", #"test -e "$1" && printf %s "$1""#, "sh") + [name]
        #expect(Spawn.run(script) == name)
        #expect(Spawn.run(bytes("sh", "-c", "echo said; exit 3")) == nil)
        #expect(Spawn.run(bytes("archiver-no-such-program")) == nil)
    }

    @Test func aDetachedProgramHoldsOnlyTheStandardDescriptorsAndIsReaped() throws {
        let scratch = try ScratchDirectory()
        // Opened without O_CLOEXEC, as a library might: g_spawn closed it in the child, and so must we.
        let stray = open("/dev/null", O_RDONLY)
        defer { close(stray) }
        let record = scratch.sub("record")
        // `exec >`, not `{ …; } >`: the shell would keep a copy of its standard output open meanwhile.
        let script = #"exec > "$1.tmp"; echo $$; ls /proc/$$/fd; mv "$1.tmp" "$1""#
        #expect(Spawn.detached(bytes("sh", "-c", script, "sh", record)))

        #expect(eventually(within: 5) { FileManager.default.fileExists(atPath: record) })
        let lines = try String(contentsOfFile: record, encoding: .utf8).split(separator: "\n").map(String.init)
        let pid = try #require(lines.first.flatMap { Int32($0) })
        #expect(Array(lines.dropFirst()) == ["0", "1", "2"])
        // Reaped once it ends, with nobody waiting for it: no zombie is left behind.
        #expect(eventually(within: 5) { !FileManager.default.fileExists(atPath: "/proc/\(pid)") }, "process \(pid) was not reaped")
    }
}
