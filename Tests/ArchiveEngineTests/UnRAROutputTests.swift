import ArchiverCore
import Testing

@testable import ArchiveEngine

/// `unrar lt -v` output, as unrar 7.21 prints it for the kinds of entry and archive that matter, read
/// without unrar installed.
@Suite struct UnRAROutputTests {
    /// RARLAB's unrar is used; unrar-free (Debian's /usr/bin/unrar alternative, a libarchive front end with
    /// other options) is not: each as it answers a call without arguments.
    @Test func onlyRARLABsUnrarIsTaken() {
        let rarlab = "\nUNRAR 7.01 freeware      Copyright (c) 1993-2024 Alexander Roshal\n\nUsage:     unrar <command> -<switch 1> -<switch N> <archive> <files...>\n"
        #expect(UnRAR.isRARLABBanner(rarlab))
        let free = "unrar-free: Archive not specified\n\nTry `unrar-free --help' or `unrar-free --usage' for more information.\n"
        #expect(!UnRAR.isRARLABBanner(free))
        #expect(!UnRAR.isRARLABBanner(""))
    }

    @Test func readsEntriesTheirKindsAndEncryption() {
        let listing = """

            Archive: /tmp/set.part1.rar
            Details: RAR 5, volume 1

                    Name: docs/a b.txt
                    Type: File
                    Size: 18
             Packed size: 48
                   Ratio: 266%
                   mtime: 2020-09-13 12:26:40,000000000
              Attributes: -rwsr-x---
                   CRC32 MAC: 02A34518
                 Host OS: Unix
             Compression: RAR 5.0(v50) -m3 -md=128k
                   Flags: encrypted 

                    Name: docs
                    Type: Directory
                   mtime: 2019-04-17 21:10:30,000000000
              Attributes: drwxr-xr-x

                    Name: link
                    Type: Unix symbolic link
                  Target: docs/a b.txt
                    Size: 12
             Packed size: 0
                   Ratio: 0%
              Attributes: lrwxrwxrwx

                    Name: copy: of.txt
                    Type: Hard link
                  Target: docs/a b.txt
                    Size: 18
             Packed size: 0
                   Ratio: 0%
              Attributes: ..A....

                    Name: big.bin
                    Type: File
                    Size: 144608
             Packed size: 15000
                   Ratio: -->
              Attributes: ..A....

            Archive: /tmp/set.part2.rar
            Details: RAR 5, volume 2

                    Name: big.bin
                    Type: File
                    Size: 144608
             Packed size: 15000
                   Ratio: <->

            """
        let listed = UnRAR.parseListing(Array(listing.utf8))
        #expect(!listed.encryptedNames && !listed.solid)
        let entries = listed.entries
        #expect(entries.map(\.path.displayName) == ["docs/a b.txt", "docs", "link", "copy: of.txt", "big.bin"])
        #expect(entries.map(\.kind) == [.file, .directory, .symlink, .hardlink, .file])
        #expect(entries.map(\.encrypted) == [true, false, false, false, false])
        #expect(entries[0].size == 18 && entries[0].packedSize == 48 && entries[0].permissions == 0o4750)
        #expect(entries[0].modified == 1_600_000_000)
        #expect(entries[1].size == nil && entries[1].permissions == 0o755)
        #expect(entries[2].linkTarget == Array("docs/a b.txt".utf8) && entries[3].linkTarget == Array("docs/a b.txt".utf8))
        #expect(entries[3].permissions == 0o644, "Windows attributes give the default mode")
        // A file split across volumes counts once, with its whole size and no per-volume packed size.
        #expect(entries[4].size == 144_608 && entries[4].packedSize == nil)
    }

    /// A line break in a name shows as a line of its own: one that is not `Key: value`, a `Name` not
    /// followed by its `Type`, or a key twice in one entry.
    @Test func aLineBreakInANameMarksTheListingGarbled() {
        let forged = [
            "        Name: c\n        Name: ../x.txt\n        Type: File\n",
            "        Name: c\nrest\n        Type: File\n",
            "        Name: c\n        Type: File\n        Size: 1\n        Size: 2\n",
        ]
        for text in forged {
            #expect(UnRAR.parseListing(Array(("Archive: x.rar\nDetails: RAR 4\n\n" + text).utf8)).garbled, "\(text)")
        }
        let plain = "Archive: x.rar\nDetails: RAR 4\n\n        Name: c: d\n        Type: File\n        Size: 1\n\n"
        #expect(!UnRAR.parseListing(Array(plain.utf8)).garbled)
    }

    @Test func seesEncryptedNamesSolidArchivesAndHiddenLinkTargets() {
        let headers = UnRAR.parseListing(Array("\nArchive: x.rar\nDetails: RAR 5, encrypted headers\n\n".utf8))
        #expect(headers.encryptedNames && headers.entries.isEmpty)

        let listing = """
            Archive: y.rar
            Details: RAR 1.5, solid

                    Name: l
                    Type: Unix symbolic link
                  Target: *<-?->
                    Size: 3
                   Ratio: 0%
                   Flags: encrypted 

            """
        let solid = UnRAR.parseListing(Array(listing.utf8))
        #expect(solid.solid && !solid.encryptedNames)
        #expect(solid.entries.count == 1 && solid.entries[0].linkTarget == nil && solid.entries[0].encrypted)
    }

    /// The archive comment that `unrar l` prints before the listing: unrar 7 under a label of its own, earlier
    /// versions alone after a blank line; nothing when there is none. Lines that only look like the end of it
    /// stay in it.
    @Test func readsTheCommentBeforeTheListing() {
        let archive = Array("/tmp/a b.rar".utf8)
        let seven = "\nArchive comment:\nQ1 figures\nArchive: elsewhere.rar\n\n\nArchive: /tmp/a b.rar\nDetails: RAR 4\n\n Attributes      Size     Date    Time   Name\n"
        #expect(UnRAR.parseComment(Array(seven.utf8), archive: archive) == "Q1 figures\nArchive: elsewhere.rar\n")
        let six = "\nOld comment\n\nArchive: /tmp/a b.rar\nDetails: RAR 4\n"
        #expect(UnRAR.parseComment(Array(six.utf8), archive: archive) == "Old comment")
        let none = "\nArchive: /tmp/a b.rar\nDetails: RAR 5\n\n Attributes      Size     Date    Time   Name\n"
        #expect(UnRAR.parseComment(Array(none.utf8), archive: archive) == nil)
    }
}
