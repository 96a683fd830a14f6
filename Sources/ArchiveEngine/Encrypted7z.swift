import ArchiverCore
import Glibc
import SystemPackage

/// An encrypted 7z, which libarchive cannot decrypt: its password is checked and its files extracted by
/// 7-Zip, then laid out and published like any other archive's.
struct Encrypted7z {
    let archive: FilePath
    let name: String
    let encryption: SevenZip.Encryption

    /// Nil unless `archive` is a 7z with encryption and 7-Zip is installed (without it, libarchive meets
    /// the encryption and says that 7-Zip is needed).
    init?(_ archive: FilePath) throws(ArchiverError) {
        guard SevenZip.executable != nil, Self.hasSignature(archive) else { return nil }
        encryption = try SevenZip.encryption(of: archive)
        guard encryption != .none else { return nil }
        self.archive = archive
        name = archive.lastComponent?.string ?? archive.string
    }

    /// 7z files start with "7z\xBC\xAF\x27\x1C".
    private static func hasSignature(_ archive: FilePath) -> Bool {
        let descriptor = archive.withPlatformString { open($0, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var head = [UInt8](repeating: 0, count: 6)
        return read(descriptor, &head, 6) == 6 && head == [0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C]
    }

    /// The entries, once the password is known (asked for only when the names are encrypted).
    func list(passwords: PasswordAsker?) throws(ArchiverError) -> [ArchiveEntryInfo] {
        try SevenZip.list(archive, password: encryption == .names ? verifiedPassword(passwords) : nil)
    }

    private func verifiedPassword(_ passwords: PasswordAsker?) throws(ArchiverError) -> Secret {
        guard let passwords else { throw EncryptionSupport.cannotDecrypt(name, family: .other) }
        return try Extractor.verifiedPassword(asker: passwords, name: name) { password throws(ArchiverError) in
            try SevenZip.accepts(archive, password: password)
        }
    }

    func extract(
        options: ExtractOptions, control: JobControl, progress: (Int64, Int64?) -> Void
    ) throws(ArchiverError) -> ExtractResult {
        let password = try verifiedPassword(options.passwords)
        let folder = try Extractor.destinationFolder(for: archive, options: options)
        let staging = try FileSystem.makeStaging(in: folder)
        var withdrawn = false
        defer { if !withdrawn, PendingOutputs.withdraw(staging) { FileSystem.removeTree(staging) } }

        let size = FileSystem.status(archive).map { Int64($0.st_size) } ?? 0
        progress(0, size)
        let made = try SevenZip.extractTree(
            archive, into: staging, password: password, selection: EntrySelection(options.selection), control: control
        ) {
            progress(Int64($0 * Double(size)), size)
        }
        var result = ExtractResult(format: "7-Zip, encrypted")
        (result.files, result.folders, result.symlinks, result.bytes) = (made.files, made.folders, made.symlinks, made.bytes)
        result.refused = made.refused
        result.warnings = made.warnings
        if !options.keepJunk { try Self.removeMacJunk(in: staging, below: [], result: &result) }
        progress(size, size)

        withdrawn = true
        guard PendingOutputs.withdraw(staging) else { throw ArchiverError(.cancelled, "Cancelled.") }
        defer { FileSystem.removeTree(staging) }
        result.output = try Extractor.publishLayout(
            staging, in: folder, archiveName: archive.lastComponent?.bytes ?? Array(name.utf8),
            linksReachTop: made.linksReachTop)
        return result
    }

    /// 7-Zip extracts everything, so macOS junk is taken out of the staging folder afterwards, as the
    /// libarchive path skips it, and the counts corrected.
    private static func removeMacJunk(
        in folder: FilePath, below components: [[UInt8]], result: inout ExtractResult
    ) throws(ArchiverError) {
        for name in try FileSystem.entries(of: folder) {
            let path = folder.appending(bytes: name)
            let parts = components + [name]
            guard let info = FileSystem.status(path) else { continue }
            if EntryPath.isMacJunk(parts) {
                result.skippedJunk.append(EntryPath.join(parts).displayName)
                forget(path, info, from: &result)
                FileSystem.removeTree(path)
            } else if FileSystem.isDirectory(info) {
                try removeMacJunk(in: path, below: parts, result: &result)
            }
        }
    }

    /// Takes what `path` holds out of the counts.
    private static func forget(_ path: FilePath, _ info: stat, from result: inout ExtractResult) {
        if FileSystem.isRegular(info) {
            result.files -= 1
            result.bytes -= Int64(info.st_size)
        } else if FileSystem.isSymlink(info) {
            result.symlinks -= 1
        } else if FileSystem.isDirectory(info) {
            result.folders -= 1
            for name in (try? FileSystem.entries(of: path)) ?? [] {
                let child = path.appending(bytes: name)
                if let childInfo = FileSystem.status(child) { forget(child, childInfo, from: &result) }
            }
        }
    }
}
