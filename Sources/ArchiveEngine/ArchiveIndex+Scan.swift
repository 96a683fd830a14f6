import ArchiverCore
import Glibc
import Platform
import SystemPackage

/// One scan of the archive builds the index.
extension ArchiveIndex {
    /// Reads `archive`'s entries once and builds the tree. Entries go into the tree as they are read:
    /// only zip names that a guessed code page may change wait for the whole listing.
    /// - Parameters:
    ///   - passwords: asked when entries are encrypted (zip); the password is checked on one of them.
    ///   - progress: bytes of the archive read so far and its size.
    /// - Throws: `ArchiverError` as extraction would: unreadable, not an archive, corrupt, password.
    public static func scan(
        _ archive: FilePath, passwords: PasswordAsker?, control: JobControl, progress: (Int64, Int64) -> Void = { _, _ in }
    ) throws(ArchiverError) -> ArchiveIndex {
        let volumes = try VolumeSet.find(archive)
        let name = archive.lastComponent?.string ?? archive.string
        if let encrypted = try EncryptedArchive(volumes.parts[0], control: control) {
            // 7-Zip or unrar reads each file out.
            let (entries, password) = try encrypted.browse(passwords: passwords, control: control)
            var tree = ArchiveTree(archive: archive)
            for (number, entry) in entries.enumerated() { tree.add(entry, number: number) }
            return ArchiveIndex(
                tree: tree.finished(), refused: tree.refused, nameEncoding: nil, archive: archive, password: password,
                isStream: true, encrypted: encrypted, entryPaths: entries.map(\.path))
        }
        // A zip in one file is listed from its central directory alone, as unzip -l and fuse-zip do:
        // libarchive would read every member's local header too, a read per entry across the whole file.
        if !volumes.isMultiPart, let directory = ZipDirectory(archive) {
            var tree = ArchiveTree(archive: archive)
            var waiting: [(number: Int, entry: ArchiveEntryInfo)] = []
            var number = 0
            let listed = try directory.eachEntry(of: archive, control: control) { entry in
                defer { number += 1 }
                if NameEncoding.needsDecoding(entry.path) { waiting.append((number, entry)) } else { tree.add(entry, number: number) }
            }
            if listed {
                let encoding = addDecoded(waiting, family: .zip, to: &tree)
                let size = FileSystem.size(of: archive) ?? 0
                progress(size, size)
                return ArchiveIndex(
                    tree: tree.finished(), refused: tree.refused, nameEncoding: encoding, archive: archive, password: nil,
                    isStream: false, entryOffsets: directory.offsets, zipDirect: true)
            }
        }
        // A compressed tar notes where decoding can start again, and where each header starts, on the way.
        var reader = try ArchiveReader(path: archive, recordingSeekPoints: true)
        reader.headerPositions = []
        let family = reader.family
        var tree = ArchiveTree(archive: archive)
        var waiting: [(number: Int, entry: ArchiveEntryInfo)] = []
        var probe: (number: Int, entry: ArchiveEntryInfo)?
        // A zip's names as libarchive returns them, in order, to match its central directory.
        var zipNames = ZipDirectory.NameSequence()
        var number = 0
        try Extractor.scan(&reader, archiveName: volumes.name, control: control, keeping: false, each: { entry in
            defer { number += 1 }
            if family == .zip { zipNames.add(entry.path) }
            // The entry extraction would check the password on: the smallest encrypted file.
            if entry.encrypted, Extractor.passwordProbe([probe?.entry ?? entry, entry], selection: EntrySelection([])) == 1 || probe == nil {
                probe = (number, entry)
            }
            // Sizes a stream does not record (a single .gz) are counted below.
            if (family == .zip && NameEncoding.needsDecoding(entry.path)) || (entry.kind == .file && entry.size == nil) {
                waiting.append((number, entry))
            } else {
                tree.add(entry, number: number)
            }
        }, progress: progress)
        if waiting.contains(where: { $0.entry.kind == .file && $0.entry.size == nil }) {
            var counter = try ArchiveReader(path: archive)
            var at = 0
            for index in waiting.indices where waiting[index].entry.kind == .file && waiting[index].entry.size == nil {
                var entry: ArchiveEntryInfo?
                while at <= waiting[index].number { entry = try counter.next(); at += 1 }
                guard let entry else { break }
                var total: Int64 = 0
                while let block = try counter.readBlock(entryName: entry.path.displayName) {
                    try control.check()
                    total = max(total, block.offset + Int64(block.buffer.count))
                }
                waiting[index].entry.size = total
            }
        }
        let encoding = addDecoded(waiting, family: family, to: &tree)

        let (canDecrypt, isStream, oneFile) = (reader.canDecrypt, !reader.hasCheapHeaders, reader.readsOneFile)
        let (seekPlan, headerPositions) = (reader.seekPlan, reader.headerPositions ?? [])
        // Freed before the central directory is read below: libarchive holds its own copy of it. Its
        // many small blocks lie between the tree's, so their pages go back to the system only when asked.
        _ = consume reader
        ProcessState.releaseFreeMemory()
        var password: Secret?
        if let probe {
            guard canDecrypt, let passwords else { throw EncryptionSupport.cannotDecrypt(name, family: family) }
            password = try Extractor.verifiedPassword(
                asker: passwords, name: name, wrong: tr("Wrong password for “%@”; it was not opened.", name)
            ) { password throws(ArchiverError) in
                try Extractor.opens(archive, entry: probe.number, with: password)
            }
        }
        // Each zip member straight from its local header, when the central directory lists exactly the
        // entries libarchive returned, in its order.
        let parts = tree.finished()
        let zipDirectory = family == .zip && oneFile ? ZipDirectory(archive) : nil
        let zipDirect = zipDirectory?.names == zipNames
        return ArchiveIndex(
            tree: parts, refused: tree.refused, nameEncoding: encoding, archive: archive,
            password: password, isStream: isStream, seekPlan: seekPlan,
            entryOffsets: zipDirect ? zipDirectory?.offsets ?? [] : headerPositions, zipDirect: zipDirect)
    }

    /// Adds the entries whose names wait for a code page, guessed from all of them as extraction guesses
    /// it; the code page, if one was.
    private static func addDecoded(
        _ waiting: [(number: Int, entry: ArchiveEntryInfo)], family: EncryptionSupport.Family, to tree: inout ArchiveTree
    ) -> String? {
        let named = waiting.map(\.entry)
        let decoder = Extractor.keepingNamesApart(Extractor.guessNames(named, family: family), named).decoder
        for (number, entry) in waiting { tree.add(decoder.map { $0(entry) } ?? entry, number: number) }
        return decoder?.encoding
    }
}
