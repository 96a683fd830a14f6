import ArchiverCore
import Testing

private func b(_ s: String) -> [UInt8] { Array(s.utf8) }
private func parts(_ s: String) -> [[UInt8]] { s.split(separator: "/").map { Array($0.utf8) } }
private func joined(_ p: [[UInt8]]) -> String { p.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "/") }

@Suite struct FileSystemTraitsTests {
    @Test func typesThatFoldCaseAndHoldNoLinks() {
        for name in ["vfat", "msdos", "fuse.fusefat", "fuseblk.vfat"] {
            let traits = FileSystemTraits.of(typeName: name)
            #expect(traits.foldsCase && !traits.holdsSymlinks, "\(name)")
            #expect(traits.maxFileSize == 4_294_967_295, "\(name)")
            #expect(traits.name == "FAT")
        }
        for name in ["exfat", "fuseblk.exfat"] {
            let traits = FileSystemTraits.of(typeName: name)
            #expect(traits.foldsCase && !traits.holdsSymlinks && traits.maxFileSize == nil, "\(name)")
        }
        for name in ["ext4", "btrfs", "tmpfs", "fuseblk", "fuse.sshfs", "nfs4", "fat32-but-not-really"] {
            #expect(FileSystemTraits.of(typeName: name) == .posix, "\(name)")
        }
    }

    @Test func mountTypeIsFoundByDevice() {
        let mountinfo = """
            22 1 253:0 / / rw,relatime shared:1 - ext4 /dev/vda rw
            42 27 0:39 / /media/My\\040Stick rw,nosuid,nodev - vfat /dev/sdb1 rw,fmask=0022
            43 27 7:0 / /mnt/x rw - fuseblk /dev/loop0 rw,user_id=0
            """
        #expect(FileSystemTraits.mountType(device: "0:39", mountinfo: mountinfo) == "vfat")
        #expect(FileSystemTraits.mountType(device: "253:0", mountinfo: mountinfo) == "ext4")
        #expect(FileSystemTraits.mountType(device: "7:0", mountinfo: mountinfo) == "fuseblk")
        #expect(FileSystemTraits.mountType(device: "0:3", mountinfo: mountinfo) == nil)
    }

    @Test func namesDifferingOnlyInCaseAreKeptApart() {
        var names = CaseFoldedNames()
        #expect(joined(names.place(parts("top/Read.txt"), isDirectory: false).path) == "top/Read.txt")
        let second = names.place(parts("top/READ.txt"), isDirectory: false)
        #expect(joined(second.path) == "top/READ (2).txt")
        #expect(second.renamed?.from == b("top/READ.txt") && second.renamed?.to == b("top/READ (2).txt"))
        #expect(joined(names.place(parts("top/read.TXT"), isDirectory: false).path) == "top/read (3).TXT")
        // The same name again is the same file (a tar may hold a newer copy), not a clash.
        let again = names.place(parts("top/READ.txt"), isDirectory: false)
        #expect(joined(again.path) == "top/READ (2).txt" && again.renamed == nil)
        // A taken `(2)` is skipped over.
        #expect(joined(names.place(parts("top/read (2).txt"), isDirectory: false).path) == "top/read (2) (2).txt")
    }

    @Test func aRenamedFolderTakesItsContentsAlongAndIsReportedOnce() {
        var names = CaseFoldedNames()
        _ = names.place(parts("Docs/a.txt"), isDirectory: false)
        let clash = names.place(parts("docs/b.txt"), isDirectory: false)
        #expect(joined(clash.path) == "docs (2)/b.txt")
        #expect(clash.renamed?.from == b("docs"))
        let inside = names.place(parts("docs/c.txt"), isDirectory: false)
        #expect(joined(inside.path) == "docs (2)/c.txt" && inside.renamed == nil)
        #expect(joined(names.place(parts("Docs"), isDirectory: true).path) == "Docs")
        // Folders are numbered after their whole name.
        _ = names.place(parts("v1.2"), isDirectory: true)
        #expect(joined(names.place(parts("V1.2"), isDirectory: true).path) == "V1.2 (2)")
    }

    @Test func foldingCoversUnicodeAndKeepsOtherBytes() {
        var names = CaseFoldedNames()
        _ = names.place(parts("Ärger.txt"), isDirectory: false)
        #expect(joined(names.place(parts("ärger.txt"), isDirectory: false).path) == "ärger (2).txt")
        let latin1: [UInt8] = [0x43, 0x61, 0x66, 0xE9]  // "Café" in Latin-1
        #expect(CaseFoldedNames.fold(latin1) == [0x63, 0x61, 0x66, 0xE9])
        #expect(names.place([latin1], isDirectory: false).path == [latin1])
        #expect(names.place([[0x63, 0x61, 0x66, 0xE9]], isDirectory: false).path == [[0x63, 0x61, 0x66, 0xE9] + b(" (2)")])
    }
}

@Suite struct SpaceWatchTests {
    @Test func keepsAReserveOfOnePercentUpTo64MiB() {
        #expect(SpaceWatch(diskSize: 2_000_000, free: 1_000_000).reserve == 20_000)
        #expect(SpaceWatch(diskSize: 1 << 40, free: 1 << 39).reserve == 64 << 20)
    }

    @Test func stopsBeforeTheReserveAndMeasuresRarelyWhileFarFromIt() {
        let disk: Int64 = 1 << 30  // reserve 10.7 MB
        var free: Int64 = 200 << 20
        var watch = SpaceWatch(diskSize: disk, free: free)
        var measured = 0
        var written: Int64 = 0
        while watch.spend(1 << 20, measure: { measured += 1; return free }) {
            free -= 1 << 20
            written += 1 << 20
        }
        #expect(free >= watch.reserve, "stopped with \(free) free")
        #expect(free - watch.reserve < 1 << 20, "stopped too early: \(free) free")
        #expect(written >= 189 << 20)
        #expect(measured < 40, "\(measured) measurements")
    }

    @Test func sizesKnownUpFrontAreCheckedWithoutBeingCounted() {
        var watch = SpaceWatch(diskSize: 100 << 20, free: 50 << 20)
        #expect(!watch.fits(60 << 20) { 50 << 20 })
        #expect(watch.fits(40 << 20) { 50 << 20 })
        #expect(watch.fits(40 << 20) { 50 << 20 })
        // When the system cannot tell, nothing is stopped.
        var blind = SpaceWatch(diskSize: 0, free: 0)
        #expect(blind.spend(1 << 30) { nil })
    }
}
