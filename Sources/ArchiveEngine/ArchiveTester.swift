import ArchiverCore
import SystemPackage

/// What testing an archive found.
public struct TestResult: Sendable {
    public typealias Damaged = DamagedEntry

    /// Files whose data was read to its end, damaged ones included.
    public var checked = 0
    public var damaged: [Damaged] = []
    /// The format's name, as the listing says it.
    public var format = ""
    /// The files read: the archive, or every part of its set.
    public var parts: [FilePath] = []
    /// Bytes of entry data read.
    public var bytes: Int64 = 0

    public var isIntact: Bool { damaged.isEmpty }
}

/// `--test`: every entry's data read through to its end and dropped, so that the format's own checks run
/// (zip's, 7z's and rar's CRC-32 inside libarchive; the gz, bz2, xz and zst stream checksums in the
/// decoders; tar's header checksums), and a zip's central directory compared with its local headers.
/// Nothing is written anywhere.
public enum ArchiveTester {
    /// Tests `archive` (any part of a set).
    /// - Parameters:
    ///   - passwords: asked when an entry is encrypted, checked on the smallest one first (zip), or given
    ///     to 7-Zip (an encrypted 7z).
    ///   - control: cancellation and time budget, checked between blocks.
    ///   - progress: archive bytes read and the archive's size.
    /// - Returns: the files checked and the damaged entries; damage is a result, not an error.
    /// - Throws: `ArchiverError` when the archive cannot be tested at all: missing, not an archive, a
    ///   damaged start (`.corrupt`), a password missing or wrong.
    public static func run(
        archive: FilePath, passwords: PasswordAsker?, names: NameDecoder? = nil, control: JobControl,
        progress: (Int64, Int64?) -> Void = { _, _ in }
    ) throws(ArchiverError) -> TestResult {
        let volumes = try VolumeSet.find(archive)
        var result: TestResult
        do throws(ArchiverError) {
            if EncryptedArchive.isSevenZip(volumes.parts[0]) {
                // Tested as bsdtar would, without asking 7-Zip for a listing of every entry first only to learn this:
                // libarchive meets a 7z's encryption in its headers, before any encrypted data is read.
                do throws(ArchiverError) {
                    result = try testThroughLibarchive(archive, volumes: volumes, passwords: passwords, names: names, control: control, progress: progress)
                } catch where error.code == .password {
                    guard let encrypted = try EncryptedArchive(volumes.parts[0], control: control) else { throw error }
                    result = try encrypted.test(passwords: passwords, control: control)
                }
            } else if let encrypted = try EncryptedArchive(volumes.parts[0], control: control) {
                result = try encrypted.test(passwords: passwords, control: control)
            } else {
                result = try testThroughLibarchive(archive, volumes: volumes, passwords: passwords, names: names, control: control, progress: progress)
            }
        } catch {
            throw EncryptedArchive.unrarFailure(volumes.parts[0], replacing: volumes.incomplete(error), control: control)
        }
        result.parts = volumes.parts
        return result
    }

    private static func testThroughLibarchive(
        _ archive: FilePath, volumes: VolumeSet, passwords: PasswordAsker?, names: NameDecoder?, control: JobControl,
        progress: (Int64, Int64?) -> Void
    ) throws(ArchiverError) -> TestResult {
        var decrypting = false
        var reader = try openVerified(
            archive, volumes: volumes, passwords: passwords, nothingDone: tr("nothing was tested"), decrypting: &decrypting,
            control: control)
        reader.nameDecoder = names
        if reader.isRawStream, !volumes.isMultiPart, reader.filterNames == ["gzip"] {
            // libarchive's gzip filter never compares a member's CRC-32 with its data; our ISA-L decoder does.
            let name = ArchiveNaming.decompressedName(archiveName: volumes.name, recordedName: try reader.next()?.path)
            return try testGzip(archive, entry: name.displayName, format: reader.formatName, control: control, progress: progress)
        }
        let isZip = reader.family == .zip && !volumes.isMultiPart
        let stored = reader.family == .rar && !volumes.isMultiPart ? RarStoredMembers(archive) : nil
        var result = try readAll(
            &reader, archiveName: volumes.name, decrypting: decrypting, stored: stored, control: control, progress: progress)
        if isZip {
            // Headers that disagree come first: what the data read found for the same entry is the same damage.
            let headers = ZipHeaderCheck.mismatches(archive)
            let named = Set(headers.map(\.path))
            result.damaged = headers + result.damaged.filter { !named.contains($0.path) }
        }
        return result
    }

    /// A single gzip file (`notes.txt.gz`) inflated to its end, every member's CRC-32 checked.
    static func testGzip(
        _ archive: FilePath, entry: String, format: String, control: JobControl, progress: (Int64, Int64?) -> Void
    ) throws(ArchiverError) -> TestResult {
        let stream = try GzipStream(archive, recordingPoints: false)
        var result = TestResult(checked: 1, format: format)
        while true {
            let (_, count) = stream.read()
            if count < 0 {
                result.damaged.append(.init(path: entry, detail: stream.lastMessage))
                break
            }
            if count == 0 { break }
            result.bytes += Int64(count)
            progress(stream.consumed ?? 0, stream.total)
            try control.check()
        }
        return result
    }

    /// A libarchive reader over `archive`, with the password its encrypted entries need. A zip says up
    /// front which entries are encrypted: the password is asked for and checked on the smallest before
    /// the long read, as extraction does.
    /// - Parameters:
    ///   - nothingDone: the end of the wrong-password sentence (“nothing was tested”).
    ///   - decrypting: set when a password was given to the reader.
    static func openVerified(
        _ archive: FilePath, volumes: VolumeSet, passwords: PasswordAsker?, nothingDone: Text, decrypting: inout Bool,
        control: JobControl
    ) throws(ArchiverError) -> ArchiveReader {
        var reader = try ArchiveReader(path: archive)
        guard reader.hasCheapHeaders else { return reader }
        let entries = try Extractor.scan(&reader, archiveName: volumes.name, control: control)
        let (name, family, canDecrypt) = (reader.displayName, reader.family, reader.canDecrypt)
        _ = consume reader
        guard let probe = Extractor.passwordProbe(entries, selection: EntrySelection([])) else {
            return try ArchiveReader(path: archive)
        }
        guard canDecrypt, let passwords else { throw EncryptionSupport.cannotDecrypt(name, family: family) }
        // TRANSLATORS: %1$@ is the archive, %2$@ what that means for the job (“nothing was tested”).
        let wrong = tr("Wrong password for “%1$@”; %2$@.", name, nothingDone)
        let password = try Extractor.verifiedPassword(asker: passwords, name: name, wrong: wrong) { password throws(ArchiverError) in
            try Extractor.opens(archive, entry: probe, with: password)
        }
        decrypting = true
        return try ArchiveReader(path: archive, password: password)
    }

    /// Reads every entry's data of `reader` and drops it, noting each entry that fails. A damaged header
    /// ends the test (nothing after it can be found); damaged data goes on to the next entry where the
    /// format allows it.
    /// - Parameter stored: a rar's stored members, whose CRC-32 is computed here (libarchive checks none).
    private static func readAll(
        _ reader: inout ArchiveReader, archiveName: [UInt8], decrypting: Bool, stored: RarStoredMembers?,
        control: JobControl, progress: (Int64, Int64?) -> Void
    ) throws(ArchiverError) -> TestResult {
        var result = TestResult(format: reader.formatName)
        progress(0, reader.fileSize)
        var last: String?
        var index = -1
        while true {
            let next: ArchiveEntryInfo?
            do throws(ArchiverError) {
                next = try reader.next()
            } catch {
                guard error.code == .corrupt else { throw error }
                // A stream broken inside an entry also breaks the header after it: one damage, not two.
                if result.damaged.last?.path != last || last == nil {
                    result.damaged.append(.init(path: last ?? reader.displayName, detail: reader.lastMessage))
                }
                break
            }
            guard var info = next else { break }
            index += 1
            try control.check()
            if reader.isRawStream {
                info.path = ArchiveNaming.decompressedName(archiveName: archiveName, recordedName: info.path)
                info.kind = .file
            }
            let name = info.path.displayName
            last = name
            if info.encrypted, !decrypting { throw EncryptionSupport.cannotDecrypt(reader.displayName, family: reader.family) }
            guard info.kind == .file else { continue }
            result.checked += 1
            var end: Int64 = 0
            let member = stored?.member(at: index, size: info.size)
            var crc: UInt32 = 0
            do throws(ArchiverError) {
                while let (buffer, offset) = try reader.readBlock(entryName: name) {
                    end = max(end, offset + Int64(buffer.count))
                    if member != nil { crc = RarStoredMembers.crc32(crc, buffer) }
                    result.bytes += Int64(buffer.count)
                    progress(reader.bytesRead, reader.fileSize)
                    try control.check()
                }
            } catch {
                guard error.code == .corrupt || (error.code == .password && decrypting) else { throw error }
                result.damaged.append(.init(path: name, detail: reader.lastMessage))
                continue
            }
            // libarchive ends some entries early without an error (the first part of a multi-volume rar).
            if let size = info.size, end < size, !reader.mayEndInHole {
                result.damaged.append(.init(path: name, problem: .endsEarly, detail: "stops after \(end) of its \(size) bytes"))
            } else if let member, crc != member.crc {
                let detail = "stored data CRC-32 \(String(crc, radix: 16)), the header says \(String(member.crc, radix: 16))"
                result.damaged.append(.init(path: name, problem: .checksum, detail: detail))
            }
        }
        progress(reader.fileSize, reader.fileSize)
        return result
    }
}

extension EncryptedArchive {
    /// An encrypted 7z or rar tested by 7-Zip or unrar, with the password asked for and checked first.
    func test(passwords: PasswordAsker?, control: JobControl) throws(ArchiverError) -> TestResult {
        let (entries, password) = try browse(passwords: passwords, control: control)
        let damaged: [TestResult.Damaged]
        switch tool {
        case .sevenZip: damaged = try SevenZip.test(archive, password: password, control: control)
        case .unrar: damaged = try UnRAR.test(archive, password: password, control: control)
        }
        var result = TestResult(format: formatName)
        result.checked = entries.count { $0.kind == .file }
        result.damaged = damaged
        result.bytes = entries.reduce(0) { $0 + ($1.kind == .file ? $1.size ?? 0 : 0) }
        return result
    }
}
