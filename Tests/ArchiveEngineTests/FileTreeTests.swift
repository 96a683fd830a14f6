import Glibc
import SystemPackage
import Testing

@testable import ArchiveEngine
@testable import ArchiverCore

/// The list of items a compression holds in memory until the archive is written.
@Suite struct FileTreeTests {
    private func status(_ mode: mode_t, size: Int = 0) -> FileTree.Status {
        var info = stat()
        info.st_mode = mode
        info.st_size = size
        return FileTree.Status(info)
    }

    /// 100,000 files must fit in 64 MiB with the writer's buffers; a `FilePath`, a name array and a whole
    /// `stat` an item (about 390 bytes) did not.
    @Test func aHundredThousandItemsCostTheirRecordsAndNamesOnly() {
        #expect(MemoryLayout<FileTree.Record>.stride <= 104)
        let count = 100_000
        var tree = FileTree(inputs: [.init(source: "/home/me/many", nameInArchive: Array("many".utf8))])
        tree.append(.directory, name: Array("many".utf8), status: status(S_IFDIR | 0o755), input: 0)
        var nameBytes = 4
        for number in 1..<count {
            let name = Array("many/d\(number / 1000)/f\(number % 1000).txt".utf8)
            nameBytes += name.count
            tree.append(.file, name: name, status: status(S_IFREG | 0o644, size: 275), input: 0)
        }
        #expect(tree.count == count)
        #expect(tree.totalBytes == 275 * Int64(count - 1))
        // Spare capacity of at most twice what is used, as arrays grow by doubling.
        #expect(tree.footprint <= 2 * (count * MemoryLayout<FileTree.Record>.stride + nameBytes))
        #expect(tree.footprint / count <= 250)
    }

    @Test func itemsReadBackAsTheyWentIn() {
        var tree = FileTree(inputs: [
            .init(source: "/data/photos", nameInArchive: Array("photos".utf8)),
            .init(source: "/", nameInArchive: Array("root".utf8)),
        ])
        tree.append(.directory, name: Array("photos".utf8), status: status(S_IFDIR | 0o755), input: 0)
        tree.append(.file, name: Array("photos/a.jpg".utf8), status: status(S_IFREG | 0o600, size: 9), input: 0)
        tree.append(
            .symlink, name: Array("photos/latest".utf8), status: status(S_IFLNK | 0o777),
            symlinkTarget: Array("a.jpg".utf8), input: 0)
        tree.append(.file, name: Array("root/etc".utf8), status: status(S_IFREG | 0o644), input: 1)

        #expect(tree.map(\.source) == ["/data/photos", "/data/photos/a.jpg", "/data/photos/latest", "/etc"])
        #expect(tree.map(\.kind) == [.directory, .file, .symlink, .file])
        #expect(tree[2].nameInArchive == Array("photos/latest".utf8))
        #expect(tree[2].symlinkTarget == Array("a.jpg".utf8))
        #expect(tree[1].symlinkTarget == nil)
        #expect(tree[1].status.stat.st_size == 9)
        #expect(tree.count(.file) == 2)
    }

    /// What `archive_entry_copy_stat` reads survives the compact form.
    @Test func statusKeepsWhatAnArchiveEntryTakes() {
        var info = stat()
        #expect(lstat("/", &info) == 0)
        let copy = FileTree.Status(info).stat
        #expect(copy.st_mode == info.st_mode)
        #expect(copy.st_size == info.st_size)
        #expect([copy.st_uid, copy.st_gid] == [info.st_uid, info.st_gid])
        let identity = { (info: stat) in [info.st_dev, info.st_ino, info.st_nlink].map(UInt64.init) }
        #expect(identity(copy) == identity(info))
        for (a, b) in [(copy.st_atim, info.st_atim), (copy.st_mtim, info.st_mtim), (copy.st_ctim, info.st_ctim)] {
            #expect(a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec)
        }
    }
}
