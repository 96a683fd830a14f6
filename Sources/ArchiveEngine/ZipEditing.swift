import ArchiverCore
import Glibc
import Platform
import SystemPackage

/// The edit engine's zip: every member the plan keeps is copied raw (local header, data, descriptor as
/// they were), new ones are compressed into our container writer. In an encrypted zip the new files are
/// encrypted the same way: with AES-256 by us (`ZipAES`), as compress writes them; with ZipCrypto (and a
/// warning) by libarchive's writer into a scratch zip, from which they too are copied raw.
enum ZipEditing {
    static func write(_ context: EditContext, into pending: PendingFile, warnings: [JobWarning]) throws(ArchiverError)
        -> (EditPlan, [JobWarning])
    {
        var warnings = warnings
        let zip = try ZipMembers(context.descriptor, size: context.size, name: context.name)
        let plan = try context.plan(zip.members.map { EditPlan.Existing(path: $0.name, isFolder: $0.isFolder) })
        if plan.changesNothing { return (plan, warnings) }

        let newData = plan.steps.contains { if case .new(_, false, _?, _, _) = $0 { true } else { false } }
        let encrypted = zip.members.filter(\.isEncrypted)
        var scratch: (file: PendingFile, members: [[UInt8]: ZipMembers.Member], descriptor: Int32)?
        defer { if let scratch { close(scratch.descriptor) } }
        var aesPassword: Secret?
        var salts = ZipAES.Salts()
        if newData, !encrypted.isEmpty {
            let aes = encrypted.contains(where: \.isAES)
            if !aes {
                warnings.append(JobWarning(
                    "weak-encryption",
                    tr("The entries added to “%@” are encrypted with ZipCrypto, as the archive's others are; ZipCrypto is weak. Make a new archive to get AES-256.", context.name)))
            }
            let password = try checkedPassword(context)
            if aes { aesPassword = password } else { scratch = try encryptedMembers(context, plan: plan, password: password) }
        }

        // AES members are encrypted where they were compressed: read back through a descriptor of its own.
        let readBack = aesPassword == nil ? -1 : pending.path.withPlatformString { open($0, O_RDONLY | O_CLOEXEC) }
        defer { if readBack >= 0 { close(readBack) } }
        if aesPassword != nil, readBack < 0 { throw FileSystem.destinationError(errno, context.folder) }
        var writer = ZipContainerWriter(descriptor: pending.descriptor, folder: context.folder)
        try writer.copyBytes(from: context.descriptor, at: 0, count: zip.prefixEnd)
        let total = context.size + context.newBytes
        var done = zip.prefixEnd
        let runs = runLengths(plan, zip)
        context.progress(0, total)
        for (number, step) in plan.steps.enumerated() {
            try context.control.check()
            switch step {
            case .old(let index, let name, let mode, let modified):
                let member = zip.members[index]
                try writer.copy(member, from: context.descriptor, name: name, mode: mode, modified: modified, aligning: runs[number] >= alignedRun)
                done += member.end - member.offset
            case .new(let path, let isFolder, let source, let mode, let modified):
                let item = source.map { context.items[$0] }
                if let scratch, let item, item.kind != .directory, let member = scratch.members[path] {
                    try writer.copy(member, from: scratch.descriptor, mode: mode, modified: modified)
                    done += item.size
                    break
                }
                let kind = item?.kind ?? .directory
                let fileMode: UInt32 = (kind == .directory ? 0o040000 : kind == .symlink ? 0o120000 : 0o100000)
                    | (mode ?? item.map { $0.mode & 0o7777 } ?? 0o755)
                let settings = ArchiveFormat.zip.settings(for: context.level)
                let member = ZipContainerWriter.NewMember(
                    name: isFolder && path.last != UInt8(ascii: "/") ? path + [UInt8(ascii: "/")] : path, mode: fileMode,
                    modified: modified ?? item?.modified ?? Int64(time(nil)), owner: item?.owner ?? getuid(), group: item?.group ?? getgid(),
                    method: kind == .file && settings.method != .store ? 8 : 0, expectedSize: item?.size ?? 0,
                    encrypted: kind == .file && (item?.size ?? 0) > 0 && aesPassword != nil)
                let aes = member.encrypted ? ZipAES(password: aesPassword!, salt: salts.next()) : nil
                try writer.add(member) { output, offset throws(ArchiverError) in
                    switch kind {
                    case .directory: return .init(crc: 0, compressedSize: 0, size: 0, method: 0)
                    case .symlink: return try ZipDeflate.store(item?.linkTarget ?? [], into: output, at: offset)
                    case .file:
                        guard let item else { return .init(crc: 0, compressedSize: 0, size: 0, method: 0) }
                        let file = item.path.withPlatformString { open($0, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) }
                        guard file >= 0 else {
                            throw ArchiverError(
                                .inputUnreadable, tr("Cannot read “%1$@”: %2$@.", item.path, TextValue.systemError(errno)),
                                hint: tr("Check its permissions; nothing was changed."), path: item.path.string)
                        }
                        defer { close(file) }
                        // Encrypted: compressed after room for the salt and verifier, then encrypted where it lies.
                        let start = offset + (aes == nil ? 0 : Int64(aes!.header.count))
                        var sums = try ZipDeflate.compress(
                            from: file, size: item.size, level: settings.method == .store ? nil : Int32(settings.level ?? 6), into: output,
                            at: start, control: context.control, name: item.path.string)
                        guard let aes else { return sums }
                        errno = 0  // a short write sets none: the error below must not be an earlier call's
                        let code = aes.encrypt(file: output, readingFrom: readBack, at: start, count: sums.compressedSize) ? aes.authenticationCode() : nil
                        guard let code, pwrite(output, aes.header, aes.header.count, off_t(offset)) == aes.header.count,
                            pwrite(output, code, code.count, off_t(start + sums.compressedSize)) == code.count
                        else { throw FileSystem.destinationError(errno == 0 ? EIO : errno, context.folder) }
                        sums.compressedSize += ZipAES.overhead
                        return sums
                    }
                }
                done += item?.size ?? 0
            }
            context.progress(done, total)
        }
        try writer.finish(comment: zip.comment)
        return (plan, warnings)
    }

    /// A run of untouched members this long is worth up to 4 KiB of padding before it, so that it is shared
    /// with the old archive on btrfs and xfs; a shorter one is copied, and a small edit does not grow the zip.
    static let alignedRun: Int64 = 1 << 20

    /// For each step, the bytes of the run of untouched members it starts: members copied as they are
    /// that lie one after another in the old archive, as one copy takes them.
    static func runLengths(_ plan: EditPlan, _ zip: ZipMembers) -> [Int64] {
        var lengths = [Int64](repeating: 0, count: plan.steps.count)
        var following: ZipMembers.Member?
        for (number, step) in plan.steps.enumerated().reversed() {
            guard case .old(let index, nil, _, nil) = step else {
                following = nil
                continue
            }
            let member = zip.members[index]
            lengths[number] = member.end - member.offset
            if let following, following.offset == member.end { lengths[number] += lengths[number + 1] }
            following = member
        }
        return lengths
    }

    /// The archive's password, checked against every encrypted member: one that opens only some of them
    /// means the members have different passwords, which one edit cannot keep.
    private static func checkedPassword(_ context: EditContext) throws(ArchiverError) -> Secret {
        let attempts = max(1, context.passwords?.attempts ?? 1)
        for attempt in 1...attempts {
            let password = try attempt == 1 ? context.askPassword() : context.passwords!.ask(context.name, attempt)
            var opened = 0, refused = 0
            var reader = try ArchiveReader(path: context.archive, password: password)
            while let entry = try reader.next() {
                try context.control.check()
                guard entry.encrypted, entry.kind == .file else { continue }
                do throws(ArchiverError) {
                    _ = try reader.readBlock(entryName: entry.path.displayName)
                    opened += 1
                } catch where error.code == .password {
                    refused += 1
                }
            }
            if refused == 0 { return password }
            if opened > 0 {
                throw ArchiverError(
                    .notAnArchive, tr("The entries of “%@” have different passwords, so Archiver cannot change it; nothing was changed.", context.name),
                    hint: tr("Extract it with each password, then make a new archive."), path: context.archive.string)
            }
        }
        throw ArchiverError(.password, tr("Wrong password for “%@”.", context.name), hint: tr("Check it and try again."), path: context.archive.string)
    }

    /// The plan's new files and symlinks, encrypted with ZipCrypto by libarchive's zip writer into a scratch
    /// zip beside the archive (hidden, removed with the job), and that zip's members by name.
    private static func encryptedMembers(_ context: EditContext, plan: EditPlan, password: Secret) throws(ArchiverError)
        -> (file: PendingFile, members: [[UInt8]: ZipMembers.Member], descriptor: Int32)
    {
        let file = try PendingFile(in: context.folder)
        let writer = try ArchiveWriter(
            format: .zip, settings: ArchiveFormat.zip.settings(for: context.level), threads: 1, password: password,
            zipEncryption: "zipcrypt")
        let sink = OutputSink(descriptor: file.descriptor, in: context.folder, control: context.control)
        let folder = context.folder.string
        try writer.open(sink: sink, folder: folder)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        for step in plan.steps {
            guard case .new(let path, false, let source?, _, _) = step else { continue }
            let item = context.items[source]
            var status = stat()
            status.st_mode = item.kind == .symlink ? S_IFLNK | 0o777 : S_IFREG | (item.mode & 0o7777)
            status.st_size = Int(item.size)
            status.st_mtim.tv_sec = Int(item.modified)
            status.st_uid = item.owner
            status.st_gid = item.group
            let entry = ArchiveWriter.Entry()
            entry.fill(path: path, status: status, symlinkTarget: item.linkTarget)
            try writer.writeHeader(entry, folder: folder)
            guard item.kind == .file else { continue }
            let input = item.path.withPlatformString { open($0, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) }
            guard input >= 0 else {
                throw ArchiverError(
                    .inputUnreadable, tr("Cannot read “%1$@”: %2$@.", item.path, TextValue.systemError(errno)),
                    hint: tr("Check its permissions; nothing was changed."), path: item.path.string)
            }
            defer { close(input) }
            var remaining = item.size
            while remaining > 0 {
                try context.control.check()
                let count = read(input, buffer.baseAddress, min(buffer.count, Int(clamping: remaining)))
                if count < 0, errno == EINTR { continue }
                guard count > 0 else {
                    throw ArchiverError(.inputUnreadable, tr("“%@” got shorter while it was being compressed.", item.path), path: item.path.string)
                }
                try writer.writeData(UnsafeRawBufferPointer(rebasing: buffer[..<count]), folder: folder)
                remaining -= Int64(count)
            }
        }
        try writer.close(folder: folder)
        let descriptor = file.path.withPlatformString { open($0, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { throw FileSystem.destinationError(errno, context.folder) }
        let size = Int64(lseek(descriptor, 0, SEEK_END))
        let members: ZipMembers
        do throws(ArchiverError) {
            members = try ZipMembers(descriptor, size: size, name: context.name)
        } catch {
            close(descriptor)
            throw error
        }
        return (file, Dictionary(members.members.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a }), descriptor)
    }
}
