import ArchiverCore
import Glibc
import Platform
import SystemPackage

/// What to extract and where.
public struct ExtractOptions: Sendable {
    /// `--to DIR`: extract into this folder (created if missing). Nil: beside the archive, or the fallback.
    public var folder: FilePath?
    /// Where archives from temporary or unwritable places go (the Downloads folder).
    public var fallbackFolder: FilePath
    /// Decides which places are temporary.
    public var places: ExtractDestination
    /// `--here`: beside the archive even in a temporary place ("Extract Here" from a menu).
    public var here: Bool
    /// Entry names after `--`; empty means everything.
    public var selection: [[UInt8]]
    /// `--keep-junk`.
    public var keepJunk: Bool
    /// Where a password comes from when the archive needs one; nil: refuse encrypted archives.
    public var passwords: PasswordAsker?
    /// `--encoding`: the code page of names stored without the UTF-8 flag; nil: guessed for zip.
    public var names: NameDecoder?
    /// The most bytes of file data this extraction may write (`--nested`'s ratio cap); nil: no limit.
    public var byteLimit: Int64?
    /// Threads creating small files beside the one reading the archive; nil: one per CPU the process may use.
    /// 1 writes everything on the reading thread.
    public var workers: Int?

    public init(
        folder: FilePath?, fallbackFolder: FilePath, places: ExtractDestination, here: Bool = false,
        selection: [[UInt8]] = [], keepJunk: Bool = false, passwords: PasswordAsker? = nil, names: NameDecoder? = nil
    ) {
        self.here = here
        self.names = names
        self.folder = folder
        self.fallbackFolder = fallbackFolder
        self.places = places
        self.selection = selection
        self.keepJunk = keepJunk
        self.passwords = passwords
    }
}

/// What a finished extraction made.
public struct ExtractResult: Sendable {
    /// An entry that was not extracted, and why.
    public struct Refused: Sendable {
        public var path: String
        public var refusal: EntryPath.Refusal

        public init(path: String, refusal: EntryPath.Refusal) {
            self.path = path
            self.refusal = refusal
        }

        /// Why, in words (English for `--json`'s `reason`, the user's language for people).
        public var reason: Text { refusal.text }

        /// The whole sentence: "Refused “x”: its path is absolute."
        public var text: Text {
            // TRANSLATORS: %1$@ is an entry of the archive, %2$@ the reason (“its path is absolute”).
            tr("Refused “%1$@”: %2$@.", path, reason)
        }
    }

    /// The file or folder created; nil when there was nothing to extract.
    public var output: FilePath?
    public var files = 0
    public var folders = 0
    public var symlinks = 0
    /// Bytes of file data written.
    public var bytes: Int64 = 0
    public var refused: [Refused] = []
    public var skippedJunk: [String] = []
    /// Entries that failed alone (a name too long for the disk, a missing link target…), and libarchive's
    /// own warnings.
    public var warnings: [JobWarning] = []
    /// libarchive's name of the format.
    public var format = ""
    /// The code page the names were read in, when they were not UTF-8.
    public var nameEncoding: String?
    /// The files read: the archive, or every part of its set.
    public var parts: [FilePath] = []

    /// True when something was refused or failed, so the exit status is "done with warnings".
    public var hasWarnings: Bool { !refused.isEmpty || !warnings.isEmpty }
}

extension JobWarning {
    /// One entry could not be written; `reason` is the library's or the program's own words.
    static func entryFailed(_ entry: String, _ reason: String) -> JobWarning {
        // TRANSLATORS: %1$@ is an entry of the archive, %2$@ the reason in libarchive's own words (English).
        JobWarning("entry-failed", tr("Could not extract “%1$@”: %2$@.", entry, reason))
    }

    /// A warning libarchive, 7-Zip or unrar gave about `archive`, in its own words.
    static func archiveWarning(_ archive: String, _ message: some StringProtocol) -> JobWarning {
        // TRANSLATORS: %1$@ is the archive, %2$@ a warning in the words of libarchive, 7-Zip or unrar (English).
        JobWarning("archive-warning", tr("“%1$@”: %2$@.", archive, String(message)))
    }
}

/// An archive → files on disk, inside a hidden staging folder renamed into place at the end.
public enum Extractor {
    /// Extracts `archive`.
    /// - Parameters:
    ///   - archive: the archive file.
    ///   - options: destination, selection, junk.
    ///   - control: cancellation and time budget, checked between blocks.
    ///   - progress: called often with archive bytes read and the archive's size.
    ///   - preflight: called with the size of the archive (all its parts) before anything is read; what it
    ///     throws stops the job (the time budget's early estimate).
    /// - Returns: what was made, refused and skipped.
    /// - Throws: `ArchiverError`; nothing is left in the destination when it throws.
    public static func run(
        archive: FilePath, options: ExtractOptions, control: JobControl,
        progress: (Int64, Int64?) -> Void = { _, _ in },
        preflight: (Int64) throws(ArchiverError) -> Void = { _ in }
    ) throws(ArchiverError) -> ExtractResult {
        PendingOutputs.beginJob()
        defer { PendingOutputs.endJob() }
        let volumes = try VolumeSet.find(archive)
        try preflight(volumes.totalSize)
        var result: ExtractResult
        do throws(ArchiverError) {
            result = try extractAnyKind(volumes, archive: archive, options: options, control: control, progress: progress)
        } catch {
            throw EncryptedArchive.unrarFailure(volumes.parts[0], replacing: error, control: control)
        }
        result.parts = volumes.parts
        return result
    }

    /// An encrypted 7z or rar through 7-Zip or unrar; any other archive through libarchive, listed and
    /// checked first (names, password, free space) when its headers are cheap to read or entries are chosen.
    private static func extractAnyKind(
        _ volumes: VolumeSet, archive: FilePath, options: ExtractOptions, control: JobControl,
        progress: (Int64, Int64?) -> Void
    ) throws(ArchiverError) -> ExtractResult {
        if let encrypted = try encryptedArchive(volumes, control: control) {
            return try encrypted.extractThroughTool(options: options, control: control, progress: progress)
        }
        var reader = try ArchiveReader(path: archive)
        let selection = EntrySelection(options.selection)
        // A set extracts into a folder named after the set, whichever part was named: `x.7z.002` → `x`.
        let archiveName = volumes.name.isEmpty ? Array("Archive".utf8) : volumes.name

        if reader.hasCheapHeaders || !options.selection.isEmpty {
            var entries = try scan(&reader, archiveName: archiveName, control: control)
            let (name, family, canDecrypt) = (reader.displayName, reader.family, reader.canDecrypt)
            // Its reader holds the whole central directory (hundreds of MB for a million entries); let it go
            // before the next one reads it again.
            _ = consume reader
            let (names, clash) = keepingNamesApart(options.names ?? guessNames(entries, family: family), entries)
            // Paths as the extraction will see them (`./docs/x` is `docs/x`), for the selection checks; in
            // place, as the list may be long.
            for index in entries.indices {
                if let names { entries[index] = names(entries[index]) }
                if let parts = try? EntryPath.components(of: entries[index].path).get() { entries[index].path = EntryPath.join(parts) }
            }
            try checkBeforeWriting(entries, selection: selection, archive: name)
            var password: Secret?
            if let probe = Self.passwordProbe(entries, selection: selection) {
                guard canDecrypt, let asker = options.passwords else { throw EncryptionSupport.cannotDecrypt(name, family: family) }
                password = try verifiedPassword(asker: asker, name: name) { password throws(ArchiverError) in
                    try opens(archive, entry: probe, with: password)
                }
            }
            let folder = try destinationFolder(for: archive, options: options)
            try checkFreeSpace(for: entries, selection: selection, in: folder, archive: name)
            entries = []
            reader = try ArchiveReader(path: archive, password: password)
            reader.nameDecoder = names
            var result = try extractEntries(
                from: &reader, archiveName: archiveName, into: folder, options: options, decrypting: password != nil,
                control: control, progress: progress)
            if let clash { result.warnings.append(clash) }
            return result
        }
        let folder = try destinationFolder(for: archive, options: options)
        reader.nameDecoder = options.names
        return try extractEntries(
            from: &reader, archiveName: archiveName, into: folder, options: options, decrypting: false, control: control,
            progress: progress)
    }

    /// `decoder`, unless it would make two different names one (a Latin-1 `caf\xe9.txt` beside a UTF-8
    /// `café.txt`, which a migrated disk can hold): then every name stays as stored, so that no file
    /// replaces another, and the reason is a warning.
    static func keepingNamesApart(_ decoder: NameDecoder?, _ entries: [ArchiveEntryInfo]) -> (
        decoder: NameDecoder?, warning: JobWarning?
    ) {
        guard let decoder else { return (nil, nil) }
        var seen: [[UInt8]: [UInt8]] = [:]
        for entry in entries {
            let decoded = decoder(entry.path)
            if let earlier = seen.updateValue(entry.path, forKey: decoded), earlier != entry.path {
                // TRANSLATORS: %1$@ is a code page such as CP437 or windows-1252, %2$@ a file name.
                let text = tr("Names were kept as stored: read as %1$@, two entries would both be “%2$@”.", decoder.encoding, decoded.displayName)
                return (nil, JobWarning("names-clash", text))
            }
        }
        return (decoder, nil)
    }

    /// The code page of a zip's names stored without the UTF-8 flag, guessed over all of them. Other
    /// formats record no flag to go by; their names are kept as bytes unless `--encoding` says otherwise.
    static func guessNames(_ entries: [ArchiveEntryInfo], family: EncryptionSupport.Family) -> NameDecoder? {
        family == .zip ? NameDecoder.guess(entries.map(\.path)) : nil
    }

    /// Lists every entry of `archive`.
    /// - Returns: the format's name and the entries.
    /// - Parameters:
    ///   - passwords: asked for a 7z whose names are encrypted, the only kind that needs one to list.
    ///   - each: called with every entry, in order, as soon as its name is final: as libarchive reads it,
    ///     or (7-Zip, unrar) when the program's listing is complete. A name that a code page may change
    ///     waits for the whole listing (the code page is guessed over all names), and the entries after it
    ///     wait with it, to keep the order. Entries already given stay given when reading fails later.
    public static func list(
        archive: FilePath, control: JobControl, passwords: PasswordAsker? = nil, names: NameDecoder? = nil,
        each: (ArchiveEntryInfo) -> Void = { _ in }
    ) throws(ArchiverError) -> (format: String, entries: [ArchiveEntryInfo], nameEncoding: String?, properties: ArchiveFacts) {
        PendingOutputs.beginJob()
        defer { PendingOutputs.endJob() }
        let volumes = try VolumeSet.find(archive)
        if let encrypted = try encryptedArchive(volumes, control: control), encrypted.listsItself {
            let entries = try encrypted.list(passwords: passwords, control: control)
            entries.forEach(each)
            var properties = ArchiveFacts(entries: entries, packedSize: volumes.totalSize)
            properties.format = encrypted.formatName
            properties.encryptedNames = encrypted.encryption == .names
            if encrypted.tool == .unrar { properties.comment = RarComment.read(volumes.parts[0], control: control) }
            return (encrypted.formatName, entries, nil, properties)
        }
        do throws(ArchiverError) {
            var reader = try ArchiveReader(path: archive)
            // No code page applies to other formats unless --encoding names one.
            let decodable = names != nil || reader.family == .zip
            var given = 0
            var holding = false
            // Known before the first entry is given, so that streamed entries carry them too.
            let crcs = StoredCRCs(archive, family: reader.family)
            var entries = try scan(&reader, archiveName: volumes.name, control: control) { entry in
                if holding || (decodable && entry.mayBeDecoded) {
                    holding = true
                } else {
                    each(crcs.adding(to: entry, at: given))
                    given += 1
                }
            }
            for index in entries.indices { entries[index] = crcs.adding(to: entries[index], at: index) }
            let decoder = keepingNamesApart(names ?? guessNames(entries, family: reader.family), entries).decoder
            let final = decoder.map { decoder in entries.map { decoder($0) } } ?? entries
            final[given...].forEach(each)
            var properties = ArchiveFacts(entries: final, packedSize: volumes.totalSize)
            properties.format = reader.formatName
            properties.filters = reader.filterNames
            switch reader.family {
            case .zip: properties.comment = ZipComment.read(archive)
            case .rar: properties.comment = RarComment.read(volumes.parts[0], control: control)
            default: break
            }
            return (reader.formatName, final, decoder?.encoding, properties)
        } catch {
            throw EncryptedArchive.unrarFailure(volumes.parts[0], replacing: error, control: control)
        }
    }

    /// The set as an encrypted 7z or rar, which 7-Zip or unrar reads from its first part; nil when it is
    /// not one.
    private static func encryptedArchive(_ volumes: VolumeSet, control: JobControl) throws(ArchiverError)
        -> EncryptedArchive?
    {
        do throws(ArchiverError) {
            return try EncryptedArchive(volumes.parts[0], control: control)
        } catch {
            throw volumes.incomplete(error)
        }
    }

    /// Every entry of `reader`, each also given to `each` as it is read.
    /// - Parameter keeping: false returns nothing, so that a million entries need not be held.
    @discardableResult
    static func scan(
        _ reader: inout ArchiveReader, archiveName: [UInt8], control: JobControl, keeping: Bool = true,
        each: (ArchiveEntryInfo) -> Void = { _ in }, progress: (_ read: Int64, _ total: Int64) -> Void = { _, _ in }
    ) throws(ArchiverError) -> [ArchiveEntryInfo] {
        var entries: [ArchiveEntryInfo] = []
        while var entry = try reader.next() {
            try control.check()
            if reader.isRawStream {
                entry.path = ArchiveNaming.decompressedName(archiveName: archiveName, recordedName: entry.path)
            }
            each(entry)
            if keeping { entries.append(entry) }
            progress(reader.bytesRead, reader.fileSize)
        }
        return entries
    }

    /// Refuses, before anything is written, what cannot work: unknown selected names.
    /// Refuses an extraction whose selected files are larger than the free space, before writing.
    static func checkFreeSpace(
        for entries: [ArchiveEntryInfo], selection: EntrySelection, in folder: FilePath, archive: String
    ) throws(ArchiverError) {
        // Sizes come from the archive and may be absurd; saturate instead of trapping.
        let needed = entries.lazy.filter { $0.kind == .file && selection.includes($0.path) }.reduce(Int64(0)) {
            let (sum, overflow) = $0.addingReportingOverflow(max(0, $1.size ?? 0))
            return overflow ? Int64.max : sum
        }
        if var watch = FileSystem.spaceWatch(folder), let free = FileSystem.freeSpace(folder),
            !watch.fits(needed, measure: { free })
        {
            throw notEnoughSpace(archive, needs: needed, free: free, in: folder)
        }
        let traits = FileSystem.traits(of: folder)
        for entry in entries where selection.includes(entry.path) {
            try checkFits(entry, traits: traits, folder: folder)
        }
    }

    /// The error for `name` (the archive, or one entry) needing more space than `folder` has.
    static func notEnoughSpace(_ name: String, needs needed: Int64, free: Int64, in folder: FilePath) -> ArchiverError {
        ArchiverError(
            // TRANSLATORS: %1$@ is the archive or an entry of it, %2$@ and %3$@ are sizes (“1.5 GB”), %4$@ the destination folder.
            .destination, tr("“%1$@” needs %2$@ but only %3$@ is free in “%4$@”.", name, .bytes(needed), .bytes(free), folder),
            hint: tr("Free some space or extract somewhere else with --to."), path: folder.string)
    }

    /// Refuses, before its data is written, a file larger than the destination's file system can hold.
    static func checkFits(_ entry: ArchiveEntryInfo, traits: FileSystemTraits, folder: FilePath) throws(ArchiverError) {
        guard entry.kind == .file, let limit = traits.maxFileSize, let size = entry.size, size > limit else { return }
        throw ArchiverError(
            // TRANSLATORS: %1$@ is an entry of the archive, %2$@ its size (“5.2 GB”), %3$@ a file system (FAT), %4$@ the destination folder.
            .destination, tr("“%1$@” is %2$@, larger than a file on the %3$@ disk holding “%4$@” can be (4 GiB); nothing was extracted.", entry.path.displayName, .bytes(size), traits.name, folder),
            hint: tr("Extract it onto a disk formatted as exFAT, NTFS or ext4, or choose another destination with --to."),
            path: folder.string)
    }

    static func checkBeforeWriting(
        _ entries: [ArchiveEntryInfo], selection: EntrySelection, archive: String
    ) throws(ArchiverError) {
        let paths = entries.map(\.path)
        let unknown = selection.unmatched(in: paths)
        if let first = unknown.first { throw Suggestions.missingEntry(archive: archive, name: first, in: paths) }
    }

    /// The index of the encrypted entry to try a password on: the smallest selected file, so that reading
    /// it whole (which checks the data, not only the weak 1- or 2-byte verifier) costs little.
    /// Nil when nothing selected is encrypted.
    static func passwordProbe(_ entries: [ArchiveEntryInfo], selection: EntrySelection) -> Int? {
        entries.indices.filter { entries[$0].encrypted && selection.includes(entries[$0].path) }
            .min { rank(entries[$0]) < rank(entries[$1]) }
    }

    /// Files with data first, smallest first; then empty files: an encrypted empty file has no data whose
    /// check could catch a wrong password (libarchive takes any password for one from 7-Zip).
    private static func rank(_ entry: ArchiveEntryInfo) -> (Int, Int64) {
        (entry.kind != .file ? 2 : entry.size == 0 ? 1 : 0, entry.size ?? 0)
    }

    /// Asks until a password opens the probe entry; nothing is written meanwhile.
    static func verifiedPassword(
        asker: PasswordAsker, name: String, wrong: Text? = nil, opens: (Secret) throws(ArchiverError) -> Bool
    ) throws(ArchiverError) -> Secret {
        for attempt in 1...max(1, asker.attempts) {
            let password = try asker.ask(name, attempt)
            if try opens(password) { return password }
        }
        throw ArchiverError(
            .password, wrong ?? tr("Wrong password for “%@”; nothing was extracted.", name),
            hint: tr("Check the password (capitals count) and try again. If it is right, the archive is damaged."),
            path: name)
    }

    /// Whether `password` decrypts entry number `index` of `archive` completely.
    static func opens(_ archive: FilePath, entry index: Int, with password: Secret) throws(ArchiverError) -> Bool {
        var reader = try ArchiveReader(path: archive, password: password)
        for _ in 0..<index { _ = try reader.next() }
        guard let info = try reader.next() else { return false }
        do {
            while try reader.readBlock(entryName: info.path.displayName) != nil {}
            return true
        } catch {
            // A wrong password that passes the short verifier (1 in 256 for ZipCrypto) decrypts to garbage:
            // the MAC (AES), the inflater or the CRC then fails, which reads as damage but is the password.
            if error.code == .password || error.code == .corrupt { return false }
            throw error
        }
    }

    /// The folder the archive's contents go in: `--to`, else beside the archive (`ExtractDestination.extractsBeside`
    /// decides), else the fallback.
    static func destinationFolder(for archive: FilePath, options: ExtractOptions) throws(ArchiverError) -> FilePath {
        if let folder = options.folder {
            try FileSystem.makeDirectories(folder)
            guard let resolved = FileSystem.resolve(folder) else { throw FileSystem.destinationError(errno, folder) }
            if let error = FileSystem.writeError(resolved) { throw error }
            return resolved
        }
        let parent = archive.removingLastComponent()
        if let beside = FileSystem.resolve(parent.isEmpty ? FilePath(".") : parent),
            options.places.extractsBeside(in: beside, here: options.here, writable: FileSystem.canWrite(beside))
        {
            return beside
        }
        try FileSystem.makeDirectories(options.fallbackFolder)
        guard let resolved = FileSystem.resolve(options.fallbackFolder), FileSystem.canWrite(resolved) else {
            throw FileSystem.destinationError(EACCES, options.fallbackFolder)
        }
        return resolved
    }

    /// Writes `reader`'s entries into a staging folder in `folder`, then publishes it under the layout's
    /// name.
    private static func extractEntries(
        from reader: inout ArchiveReader, archiveName: [UInt8], into folder: FilePath, options: ExtractOptions,
        decrypting: Bool, control: JobControl, progress: (Int64, Int64?) -> Void
    ) throws(ArchiverError) -> ExtractResult {
        let staging = try FileSystem.makeStaging(in: folder)
        var withdrawn = false
        defer { if !withdrawn { PendingOutputs.discard(staging) } }

        var result = ExtractResult(format: reader.formatName)
        result.nameEncoding = reader.nameDecoder?.encoding
        let mask = currentUmask()
        let traits = FileSystem.probedTraits(staging: staging)
        var session = StagingSession(
            staging: staging, selection: EntrySelection(options.selection), keepJunk: options.keepJunk, traits: traits)
        let disk = try DiskWriter(workingFolder: staging)
        let folderName = folder.string
        var space = FileSystem.spaceWatch(staging)
        func measure() -> Int64? { FileSystem.freeSpace(staging) }
        func spend(_ bytes: Int64) throws(ArchiverError) {
            if space?.spend(bytes, measure: measure) == false { throw FileSystem.notEnoughSpace(folder, free: measure()) }
        }
        progress(0, reader.fileSize)
        // Small files are created by workers while the next entries are read (`FileWorkers`), started at the
        // first one; only where this thread has a folder and umask of its own, which each worker needs too.
        // At most 8: beyond, the kernel's file creation in one folder gains little, and memory is held per worker.
        var workerCount = disk.ownsWorkingFolder ? (options.workers ?? min(Compressor.processorCount(), 8)) : 1
        var pool: FileWorkers?
        defer { pool?.stop() }
        var handed = 0
        // The entry whose data is being read (its path once anything of it is on disk), and where a tar broke
        // off: it keeps the entries before.
        var writing: (path: [UInt8]?, bytesBefore: Int64)?
        var damage: ArchiverError?
        do throws(ArchiverError) {
            entries: while var info = try reader.next() {
                try control.check()
                guard let entry = reader.current else { break }
                if reader.isRawStream {
                    info.path = ArchiveNaming.decompressedName(archiveName: archiveName, recordedName: info.path)
                    info.kind = .file
                }
                // Formats without a first pass (rar, 7z, tar.*) meet encryption here; libarchive would only
                // return garbage for the data, so stop before writing it. The staging folder goes with it.
                if info.encrypted, !decrypting, EntrySelection(options.selection).includes(info.path) {
                    throw EncryptionSupport.cannotDecrypt(reader.displayName, family: reader.family)
                }
                guard case .write(let target, let hardlinkTarget) = session.admit(info, result: &result) else { continue }
                EntryRewrite.setPath(entry, disk.local(target))
                if let hardlinkTarget { EntryRewrite.setHardlink(entry, disk.local(hardlinkTarget)) }
                // The target that was checked is the one written (decoded when the names were).
                if info.kind == .symlink, let target = info.linkTarget { EntryRewrite.setSymlink(entry, target) }
                EntryRewrite.limitPermissions(entry, umask: mask)
                let name = info.path.displayName
                try checkFits(info, traits: traits, folder: folder)
                // A size known up front is checked before its data; the data is counted as it is written.
                if let size = info.size, space?.fits(size, measure: measure) == false {
                    throw notEnoughSpace(name, needs: size, free: measure() ?? 0, in: folder)
                }
                // Each entry also takes an inode and at least a block of its own.
                try spend(4096)
                // A zip's 32-bit size may have wrapped (a file of 4 GiB or more written without Zip64): the
                // data libarchive checked decides the length, and the recorded size is only compared below.
                let sizeMayWrap = reader.family == .zip && info.kind == .file && info.size.map(ZipSizeField.mayHaveWrapped) == true
                if sizeMayWrap { EntryRewrite.unsetSize(entry) }
                // A small file is read whole and checked before anything of it is written, then handed to a
                // worker; anything else is written here as it is read, once no worker may still be writing
                // where it goes (links wait for every worker: their targets must be there).
                var held: HeldFile?
                if workerCount > 1, info.kind == .file, let size = info.size, size <= FileWorkers.largestHeld {
                    held = HeldFile(path: target, name: name, order: handed, capacity: Int(size))
                }
                // False when the entry failed alone (a name too long for the disk…): its data is skipped.
                func writeHeaderHere() throws(ArchiverError) -> Bool {
                    try pool?.settle(before: target, always: info.kind == .symlink || info.kind == .hardlink, helping: disk)
                    if case .skipped(let message) = try disk.writeHeader(entry, folder: folderName) {
                        result.warnings.append(.entryFailed(name, message))
                        writing = nil
                        return false
                    }
                    writing?.path = target
                    return true
                }
                writing = (nil, result.bytes)
                if held == nil {
                    guard try writeHeaderHere() else { continue }
                }
                var failed: String?
                var end: Int64 = 0
                var gzipCheck = GzipTrailerCheck(reader)
                while let (buffer, offset) = try reader.readBlock(entryName: name) {
                    gzipCheck?.add(buffer)
                    try spend(Int64(buffer.count))
                    // More data than recorded (a zip's wrapped size): written here after all.
                    if let file = held, !file.add(buffer, at: offset) {
                        held = nil
                        guard try writeHeaderHere() else { continue entries }
                        failed = try file.writeData(through: disk, folder: folderName)
                    }
                    if held == nil, failed == nil, case .skipped(let message) = try disk.writeBlock(buffer, offset: offset, folder: folderName) {
                        failed = message
                    }
                    end = max(end, offset + Int64(buffer.count))
                    result.bytes += Int64(buffer.count)
                    if let limit = options.byteLimit, result.bytes > limit { throw NestedExtraction.tooLarge(reader.displayName) }
                    progress(reader.bytesRead, reader.fileSize)
                    try control.check()
                }
                try gzipCheck?.verify(entry: name, displayName: reader.displayName, control: control)
                writing = nil
                // libarchive ends some entries early without an error (the first part of a multi-volume rar);
                // the disk writer would then pad the file to its recorded size. Tar may end in a sparse hole.
                if info.kind == .file, let size = info.size, end < size, !reader.mayEndInHole {
                    throw ArchiverError(
                        // TRANSLATORS: %1$@ is the archive, %2$@ an entry in it; %3$ld and %4$ld are byte counts.
                        .corrupt, tr("“%1$@” is incomplete: “%2$@” stops after %3$ld of its %4$ld bytes.", reader.displayName, name, end, size),
                        hint: tr("If it is one part of a multi-part set, all parts are needed; nothing was extracted."),
                        path: reader.displayName)
                }
                if sizeMayWrap, let size = info.size, end != size {
                    guard ZipSizeField.wrapped(recorded: size, read: end) else {
                        throw FailureClassifier.describeReadFailure(
                            message: "ZIP uncompressed data is wrong size (read \(end), expected \(size))", archive: reader.displayName,
                            place: .at(name))
                    }
                    result.warnings.append(JobWarning(
                        // TRANSLATORS: %1$@ is an entry of a zip; %2$@ and %3$@ are sizes such as “16.8 MB”.
                        "zip-size-wrapped", tr("“%1$@” is recorded as %2$@ but holds %3$@: its zip was written without Zip64, which keeps only part of a size of 4 GiB or more. Its data ends where the next entry begins and matches its checksum, so it was extracted whole.", name, .bytes(size), .bytes(end))))
                }
                if let file = held {
                    if pool == nil {
                        pool = FileWorkers.start(count: workerCount, staging: staging, folder: folderName)
                        if pool == nil { workerCount = 1 }
                    }
                    if let pool, file.keep(entry) {
                        try pool.hand(file, helping: disk)
                        handed += 1
                        continue entries
                    }
                    // No workers after all: written here.
                    guard try writeHeaderHere() else { continue }
                    failed = try file.writeData(through: disk, folder: folderName)
                }
                if failed == nil, case .skipped(let message) = try disk.finishEntry(folder: folderName) { failed = message }
                if let failed {
                    // Never leave a half-written file to be published under its name.
                    FileSystem.removeTree(FilePath(bytes: target))
                    result.warnings.append(.entryFailed(name, failed))
                    continue
                }
                session.record(info, result: &result)
            }
        } catch {
            // A tar read in order that breaks off (a download cut short, a damaged header) keeps the whole
            // entries before the break, as bsdtar and the listing do: they are published, and the break is
            // a warning (exit 1) that says where. Its entries have no checksums to lose, and nothing of
            // the entry it broke in is kept. Other formats stay all or nothing.
            guard error.code == .corrupt, reader.mayEndInHole, reader.readsOneFile,
                result.files + result.folders + result.symlinks > 0 || handed > 0
            else { throw error }
            damage = error
        }
        // Every file handed out is on disk before the folders get their times.
        if let done = try pool?.finish(helping: disk) {
            result.files += done.written
            result.warnings += done.failures.map { .entryFailed($0.name, $0.message) }
        }
        try disk.close(folder: folderName)
        if let damage {
            if let writing {
                if let path = writing.path { FileSystem.removeTree(FilePath(bytes: path)) }
                result.bytes = writing.bytesBefore
            }
            result.warnings.append(JobWarning(
                // TRANSLATORS: %@ is the whole sentence saying where the archive is damaged.
                "damaged-after-entries", tr("%@ The entries before the damage were extracted.", damage.message)))
        }
        result.warnings += reader.warnings.map { .archiveWarning(reader.displayName, $0) }
        progress(reader.fileSize, reader.fileSize)
        withdrawn = true
        guard PendingOutputs.claim(staging) else { throw ArchiverError(.cancelled, tr("Cancelled.")) }
        defer {
            FileSystem.removeTree(staging)
            PendingOutputs.release(staging)
        }

        result.output = try publishLayout(staging, in: folder, archiveName: archiveName, linksReachTop: session.linksReachTop)
        return result
    }

    /// Moves what `staging` holds into `folder` by the layout rule: one top-level item as is, else the
    /// staging folder itself named after the archive. Returns what was made; nil when it was empty.
    static func publishLayout(
        _ staging: FilePath, in folder: FilePath, archiveName: [UInt8], linksReachTop: Bool
    ) throws(ArchiverError) -> FilePath? {
        let top = try FileSystem.entries(of: staging)
        switch top.count {
        case 0:
            return nil
        case 1 where !linksReachTop:
            let item = staging.appending(bytes: top[0])
            let isDirectory = FileSystem.status(item).map(FileSystem.isDirectory) ?? false
            return try FileSystem.publish(item, in: folder, as: top[0], isDirectory: isDirectory)
        default:
            _ = staging.withPlatformString { chmod($0, 0o777 & ~currentUmask()) }
            return try FileSystem.publish(staging, in: folder, as: ArchiveNaming.stem(archiveName), isDirectory: true)
        }
    }

    private static func currentUmask() -> mode_t {
        let mask = umask(0o022)
        umask(mask)
        return mask
    }
}

/// The per-entry safety decisions of one extraction, and what it has created so far.
struct StagingSession {
    enum Decision {
        case skip
        /// Write the entry at `path` (absolute, under the staging folder), with its hard link rewritten.
        case write(path: [UInt8], hardlink: [UInt8]?)
    }

    let staging: [UInt8]
    let selection: EntrySelection
    let keepJunk: Bool
    /// What the destination can hold: links, names differing only in case.
    let traits: FileSystemTraits
    /// Where each name went, on a disk that does not tell capitals apart.
    private var folded = CaseFoldedNames()
    /// Paths (relative to the staging folder) of the symlinks created so far: nothing may go through them.
    private var symlinks: Set<[UInt8]> = []
    /// Whether a symlink resolves through the top level, so a single item must not be moved out alone.
    private(set) var linksReachTop = false

    init(staging: FilePath, selection: EntrySelection, keepJunk: Bool, traits: FileSystemTraits = .posix) {
        self.staging = staging.bytes
        self.selection = selection
        self.keepJunk = keepJunk
        self.traits = traits
    }

    /// Decides what to do with one entry, recording refusals and junk in `result`.
    mutating func admit(_ info: ArchiveEntryInfo, result: inout ExtractResult) -> Decision {
        let name = info.path.displayName
        let components: [[UInt8]]
        switch EntryPath.components(of: info.path) {
        case .failure(let refusal):
            result.refused.append(.init(path: name, refusal: refusal))
            return .skip
        case .success(let parts):
            components = parts
        }
        if components.isEmpty { return .skip }
        let relative = EntryPath.join(components)
        guard selection.includes(relative) else { return .skip }
        if !keepJunk, EntryPath.isMacJunk(components) {
            result.skippedJunk.append(name)
            return .skip
        }
        func refuse(_ refusal: EntryPath.Refusal) -> Decision {
            result.refused.append(.init(path: name, refusal: refusal))
            return .skip
        }
        if passesThroughSymlink(components, includingLast: false) { return refuse(.throughSymlink) }
        var hardlink: [UInt8]?
        switch info.kind {
        case .characterDevice: return refuse(.specialFile(.characterDevice))
        case .blockDevice: return refuse(.specialFile(.blockDevice))
        case .fifo: return refuse(.specialFile(.namedPipe))
        case .socket: return refuse(.specialFile(.socket))
        case .symlink:
            if !traits.holdsSymlinks {
                result.warnings.append(JobWarning(
                    "symlink-not-made", tr("Skipped “%@”: it is a symbolic link, and the disk it goes to cannot hold one.", name)))
                return .skip
            }
            guard let target = info.linkTarget, EntryPath.symlinkStaysInside(target: target, linkPath: components) else {
                return refuse(.linkLeavesDestination)
            }
            if EntryPath.symlinkReachesTop(target: target, linkPath: components) { linksReachTop = true }
        case .hardlink:
            guard let target = info.linkTarget, case .success(let parts) = EntryPath.components(of: target),
                !parts.isEmpty, !passesThroughSymlink(parts, includingLast: true)
            else {
                return refuse(.hardlinkLeavesDestination)
            }
            // A link to itself (tar writes one when a file is named twice) changes nothing: libarchive would
            // skip it, and a file of that name stays what it was.
            if parts == components { return .skip }
            hardlink = staging + [UInt8(ascii: "/")] + onDisk(parts, isDirectory: false, result: &result)
        case .file, .directory:
            break
        }
        // A later entry replaces an earlier symlink of the same name rather than writing through it.
        symlinks.remove(relative)
        let path = onDisk(components, isDirectory: info.kind == .directory, result: &result)
        return .write(path: staging + [UInt8(ascii: "/")] + path, hardlink: hardlink)
    }

    /// The path an entry is written at under the staging folder: its own, or on a disk that does not
    /// tell capitals apart, kept apart from names that differ from it only in case (a warning).
    private mutating func onDisk(_ components: [[UInt8]], isDirectory: Bool, result: inout ExtractResult) -> [UInt8] {
        guard traits.foldsCase else { return EntryPath.join(components) }
        let (path, renamed) = folded.place(components, isDirectory: isDirectory)
        if let renamed {
            result.warnings.append(JobWarning(
                // TRANSLATORS: %1$@ is an entry of the archive, %2$@ the name it got instead.
                "case-clash", tr("“%1$@” was saved as “%2$@”: the disk does not tell capitals apart, and another name differing only in case came first.", renamed.from.displayName, renamed.to.displayName)))
        }
        return EntryPath.join(path)
    }

    /// Counts a written entry.
    mutating func record(_ info: ArchiveEntryInfo, result: inout ExtractResult) {
        switch info.kind {
        case .directory: result.folders += 1
        case .symlink:
            result.symlinks += 1
            if case .success(let parts) = EntryPath.components(of: info.path) { symlinks.insert(EntryPath.join(parts)) }
        default: result.files += 1
        }
    }

    private func passesThroughSymlink(_ components: [[UInt8]], includingLast: Bool) -> Bool {
        guard !symlinks.isEmpty else { return false }
        let count = includingLast ? components.count : components.count - 1
        guard count > 0 else { return false }
        var prefix: [UInt8] = []
        for index in 0..<count {
            prefix += index == 0 ? components[0] : [UInt8(ascii: "/")] + components[index]
            if symlinks.contains(prefix) { return true }
        }
        return false
    }
}
