import ArchiverCore
import Glibc
import Platform
import SystemPackage

/// An encrypted 7z or rar, which libarchive cannot decrypt: its password is checked and its files
/// extracted by 7-Zip or unrar, then laid out and published like any other archive's.
struct EncryptedArchive: Sendable {
    /// The program that decrypts it.
    enum Tool {
        case sevenZip, unrar
    }

    let archive: FilePath
    let name: String
    let encryption: ArchiveEncryption
    let tool: Tool
    /// The entries as listed without a password; empty when the names are encrypted.
    private let entries: [ArchiveEntryInfo]

    /// Nil unless `archive` is a 7z or rar with encryption and its program is installed (without it,
    /// libarchive meets the encryption and says which program is needed).
    init?(_ archive: FilePath, control: JobControl?) throws(ArchiverError) {
        let head = Self.head(of: archive)
        if head.starts(with: Self.sevenZipSignature), SevenZip.executable != nil {
            tool = .sevenZip
            (encryption, entries) = try SevenZip.survey(archive, control: control)
        } else if Self.isRar(head), UnRAR.executable != nil {
            tool = .unrar
            // A rar unrar cannot list (damaged, a name it reads as a pattern) is left to libarchive, which
            // may still read it; `unrarFailure` explains it if libarchive then meets encryption.
            (encryption, entries) = (try? UnRAR.survey(archive, control: control)) ?? (.none, [])
        } else {
            return nil
        }
        guard encryption != .none else { return nil }
        self.archive = archive
        name = archive.lastComponent?.string ?? archive.string
    }

    private static func isRar(_ head: [UInt8]) -> Bool { head.starts(with: Array("Rar!\u{1A}\u{07}".utf8)) }

    /// Whether `archive` starts with a 7z signature.
    static func isSevenZip(_ archive: FilePath) -> Bool { head(of: archive).starts(with: sevenZipSignature) }

    private static let sevenZipSignature: [UInt8] = [0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C]

    /// Why unrar could not take over `archive`, a rar that libarchive found encrypted (`failure`): unrar's
    /// own error, which says more than libarchive's "install unrar" when unrar is installed.
    static func unrarFailure(_ archive: FilePath, replacing failure: ArchiverError, control: JobControl?) -> ArchiverError {
        guard failure.code == .password, isRar(head(of: archive)), UnRAR.executable != nil else { return failure }
        do throws(ArchiverError) {
            _ = try UnRAR.encryption(of: archive, control: control)
            return failure
        } catch {
            return error
        }
    }

    /// The first bytes, where 7z ("7z\xBC\xAF\x27\x1C") and rar ("Rar!\x1A\x07") put their signatures.
    private static func head(of archive: FilePath) -> [UInt8] {
        let descriptor = archive.withPlatformString { open($0, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { return [] }
        defer { close(descriptor) }
        var head = [UInt8](repeating: 0, count: 8)
        let count = read(descriptor, &head, head.count)
        return Array(head.prefix(max(0, count)))
    }

    /// Whether `--list` needs the program: libarchive cannot read encrypted names, nor does it flag
    /// rar5's encrypted entries.
    var listsItself: Bool { encryption == .names || tool == .unrar }

    /// The format's name in reports.
    var formatName: String {
        switch (tool, encryption) {
        case (.sevenZip, .names): "7-Zip, encrypted names"
        case (.sevenZip, _): "7-Zip, encrypted"
        case (.unrar, .names): "RAR, encrypted names"
        case (.unrar, _): "RAR, encrypted"
        }
    }

    /// The entries, once the password is known (asked for only when the names are encrypted).
    func list(passwords: PasswordAsker?, control: JobControl?) throws(ArchiverError) -> [ArchiveEntryInfo] {
        guard encryption == .names else { return entries }
        let password = try verifiedPassword(passwords, control: control)
        switch tool {
        case .sevenZip: return try SevenZip.list(archive, password: password)
        case .unrar: return try UnRAR.list(archive, password: password, control: control)
        }
    }

    /// The entries and the password that reads them, asked for once and checked, for browsing.
    func browse(passwords: PasswordAsker?, control: JobControl?) throws(ArchiverError) -> (entries: [ArchiveEntryInfo], password: Secret) {
        let password = try verifiedPassword(passwords, control: control)
        guard encryption == .names else { return (entries, password) }
        switch tool {
        case .sevenZip: return (try SevenZip.list(archive, password: password), password)
        case .unrar: return (try UnRAR.list(archive, password: password, control: control), password)
        }
    }

    /// The program writing the data of the entry at `path` to its standard output.
    func entryData(_ path: [UInt8], password: Secret?) throws(ArchiverError) -> ChildProcess.Reading {
        switch tool {
        case .sevenZip: try SevenZip.entryData(archive, path: path, password: password)
        case .unrar: try UnRAR.entryData(archive, path: path, password: password)
        }
    }

    private func verifiedPassword(
        _ passwords: PasswordAsker?, selection: EntrySelection = EntrySelection([]), control: JobControl?
    ) throws(ArchiverError) -> Secret {
        guard let passwords else { throw EncryptionSupport.cannotDecrypt(name, family: .other) }
        return try Extractor.verifiedPassword(asker: passwords, name: name) { password throws(ArchiverError) in
            switch tool {
            case .sevenZip: try SevenZip.accepts(archive, password: password, selection: selection, control: control)
            case .unrar: try UnRAR.accepts(archive, password: password, selection: selection, control: control)
            }
        }
    }

    /// The password for extracting `selection`, verified; nil when nothing selected is encrypted, so that
    /// nobody is asked for it.
    private func password(
        for selection: EntrySelection, passwords: PasswordAsker?, control: JobControl
    ) throws(ArchiverError) -> Secret? {
        if encryption == .contents, !selection.names.isEmpty,
            !entries.contains(where: { $0.encrypted && selection.includes($0.path) })
        {
            return nil
        }
        return try verifiedPassword(passwords, selection: selection, control: control)
    }

    /// Extracts through 7-Zip or unrar into a staging folder, published as libarchive's extraction would be.
    func extractThroughTool(
        options: ExtractOptions, control: JobControl, progress: (Int64, Int64?) -> Void
    ) throws(ArchiverError) -> ExtractResult {
        let selection = EntrySelection(options.selection)
        let password = try password(for: selection, passwords: options.passwords, control: control)
        let folder = try Extractor.destinationFolder(for: archive, options: options)
        let staging = try FileSystem.makeStaging(in: folder)
        var withdrawn = false
        defer { if !withdrawn { PendingOutputs.discard(staging) } }

        let size = FileSystem.status(archive).map { Int64($0.st_size) } ?? 0
        progress(0, size)
        let fraction = { (done: Double) in progress(Int64(done * Double(size)), size) }
        let made =
            switch tool {
            case .sevenZip:
                try SevenZip.extractTree(
                    archive, into: staging, password: password, selection: selection, control: control,
                    progress: fraction)
            case .unrar:
                try UnRAR.extractTree(
                    archive, into: staging, password: password, selection: selection, control: control,
                    progress: fraction)
            }
        var result = ExtractResult(format: formatName)
        (result.files, result.folders, result.symlinks, result.bytes) = (made.files, made.folders, made.symlinks, made.bytes)
        result.refused = made.refused
        result.warnings = made.warnings
        if !options.keepJunk { try StagingSweep.removeMacJunk(in: staging, below: [], result: &result) }
        progress(size, size)

        withdrawn = true
        guard PendingOutputs.claim(staging) else { throw ArchiverError(.cancelled, tr("Cancelled.")) }
        defer {
            FileSystem.removeTree(staging)
            PendingOutputs.release(staging)
        }
        result.output = try Extractor.publishLayout(
            staging, in: folder, archiveName: archive.lastComponent?.bytes ?? Array(name.utf8),
            linksReachTop: made.linksReachTop)
        return result
    }
}
