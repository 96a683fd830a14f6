import ArchiverTestSupport
import Foundation
import Testing

/// Open as Folder on an archive named in Latin-1 (`caf\xE9.tar`): the starter hands the daemon the name's
/// bytes, so the daemon opens that file, and the folder is named after it byte for byte.
@Suite(.serialized, .enabled(if: Mounts.unprivilegedUnavailable == nil, Comment(rawValue: Mounts.unprivilegedUnavailable ?? "")))
struct ByteNameMountTests {
    @Test func aLatin1NamedArchiveOpensAsAFolderOfItsName() throws {
        let mounts = try Mounts()
        defer { mounts.cleanUp() }
        let scratch = mounts.scratch.path
        let tool = try #require(BuiltProducts.executable("open-with-archiver"))
        let name = "caf$(printf '\\351').tar"
        let made = try Tool.run([
            "/bin/sh", "-c", "cd '\(scratch)' && mkdir in && printf 'inside\\n' > in/note.txt && bsdtar -cf \(name) -C in note.txt",
        ])
        try #require(made.status == 0, "\(made.output)")
        let environment = ProcessInfo.processInfo.environment.merging(BuiltProducts.isolation) { $1 }
            .merging(["XDG_RUNTIME_DIR": mounts.runtime, "XDG_CACHE_HOME": scratch + "/cache", "LC_ALL": "C.UTF-8"]) { $1 }
        // The shell passes the name's bytes as they are; Swift's String could not.
        let folder = "'\(mounts.runtime)/archiver/'\(name)"
        let script = "\"$0\" --mount \"$PWD\"/\(name) >/dev/null && cat \(folder)/note.txt && \"$0\" --unmount \(folder)"
        let run = try Tool.start(["/bin/sh", "-c", "cd '\(scratch)' && " + script, tool], environment: environment).wait(timeout: 120)
        #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
        #expect(run.stdout == "inside\n")
        // The writers' lock files stay (`locks`, taken by the writable folder), the folder goes.
        let left = ((try? FileManager.default.contentsOfDirectory(atPath: mounts.runtime + "/archiver")) ?? []).filter { $0 != "locks" }
        #expect(left.isEmpty, "unmounted and removed")
    }
}
