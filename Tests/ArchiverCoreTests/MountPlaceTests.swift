import ArchiverCore
import Testing

@Suite struct MountPlaceTests {
    let run = Array("/run/user/1000/archiver".utf8)

    @Test func mountTableLinesAreReadWithTheirEscapes() {
        let table = """
            22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw
            43 27 0:39 / /run/user/1000/archiver/my\\040photos.zip ro,nosuid,nodev - fuse.archiver /home/a/my\\040photos.zip ro,user_id=1000
            44 27 0:40 / /mnt/x rw - fuse.sshfs host:/ rw

            """
        let entries = MountEntry.parse(mountinfo: Array(table.utf8))
        #expect(entries.count == 3)
        #expect(entries[1] == MountEntry(
            mountPoint: Array("/run/user/1000/archiver/my photos.zip".utf8), type: "fuse.archiver",
            source: Array("/home/a/my photos.zip".utf8)))
        #expect(entries[2].type == "fuse.sshfs")
    }

    @Test func sameArchiveReusesItsMount() {
        let mounted = MountEntry(mountPoint: run + Array("/x.zip (2)".utf8), type: MountPlace.type, source: Array("/a/x.zip".utf8))
        let decision = MountPlace.decide(archive: Array("/a/x.zip".utf8), in: run, mounts: [mounted]) { _ in false }
        #expect(decision == .reuse(mounted.mountPoint))
    }

    @Test func anotherArchiveOfTheSameNameGetsTheNextFreeName() {
        let mounted = MountEntry(mountPoint: run + Array("/x.zip".utf8), type: MountPlace.type, source: Array("/a/x.zip".utf8))
        let taken = run + Array("/x.zip (2)".utf8)
        let decision = MountPlace.decide(archive: Array("/b/x.zip".utf8), in: run, mounts: [mounted]) { $0 == taken }
        #expect(decision == .mount(run + Array("/x.zip (3)".utf8)))
        // Someone else's mount of the same file elsewhere is not ours to reuse.
        let foreign = MountEntry(mountPoint: Array("/mnt/x".utf8), type: "fuse.archivemount", source: Array("/b/x.zip".utf8))
        #expect(MountPlace.decide(archive: Array("/b/x.zip".utf8), in: run, mounts: [foreign]) { _ in false } == .mount(run + Array("/x.zip".utf8)))
    }

    @Test func fsnameEscapesCommasAndBackslashes() {
        #expect(MountPlace.optionValue(#"/a,b\c.zip"#) == #"/a\,b\\c.zip"#)
    }
}
