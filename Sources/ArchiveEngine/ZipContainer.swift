import ArchiverCore
import Glibc
import Platform
import SystemPackage

/// A zip's members as they lie in the file, read from its central directory: where each one's bytes are
/// (local header, data, data descriptor) and its directory record's fields, so that a new zip can copy a
/// member without touching its compressed, maybe encrypted, data. libarchive's reader gives no such bytes.
struct ZipMembers {
    struct Member {
        var versionMadeBy: UInt16
        var versionNeeded: UInt16
        var flags: UInt16
        var method: UInt16
        var time: UInt16
        var date: UInt16
        var crc: UInt32
        var compressedSize: Int64
        var size: Int64
        var name: [UInt8]
        /// The directory record's extra fields, whole.
        var extra: [UInt8]
        var comment: [UInt8]
        var internalAttributes: UInt16
        var externalAttributes: UInt32
        /// Where its local header starts in the file.
        var offset: Int64
        /// Where its bytes end: the next member's start, or the central directory's.
        var end: Int64

        var isFolder: Bool { name.last == UInt8(ascii: "/") || (versionMadeBy >> 8 == 3 && externalAttributes >> 16 & 0o170000 == 0o040000) }
        var isEncrypted: Bool { flags & 1 != 0 }
        /// Encrypted with WinZip's AES (method 99), rather than the traditional ZipCrypto.
        var isAES: Bool { method == 99 }
        /// The Unix mode, when a Unix program wrote it.
        var mode: UInt32? { versionMadeBy >> 8 == 3 && externalAttributes >> 16 != 0 ? externalAttributes >> 16 : nil }
    }

    var members: [Member]
    /// Bytes before the first member (a self-extractor's stub), copied as they are.
    var prefixEnd: Int64
    var comment: [UInt8]

    /// Reads the central directory of the zip open as `descriptor`.
    /// - Throws: `.corrupt` when there is none, or its records overlap or overrun.
    init(_ descriptor: Int32, size: Int64, name: String) throws(ArchiverError) {
        let broken = ArchiverError(
            .corrupt, tr("“%@” is not a complete zip archive, so it cannot be changed.", name),
            hint: tr("Test it with “7zz t”; extract what can be read and make a new archive."))
        guard let end = ZipEndRecord(descriptor, size: size), let directory = end.directory(descriptor) else { throw broken }
        let (count, shift) = (end.count, end.shift)
        comment = end.comment
        var members: [Member] = []
        guard let records = ZipDirectory.records(directory) else { throw broken }
        for record in records {
            let at = record.at
            guard record.comment.upperBound <= directory.count else { throw broken }
            var member = Member(
                versionMadeBy: UInt16(ZipDirectory.u16(directory, at + 4)), versionNeeded: UInt16(ZipDirectory.u16(directory, at + 6)),
                flags: UInt16(ZipDirectory.u16(directory, at + 8)), method: UInt16(ZipDirectory.u16(directory, at + 10)),
                time: UInt16(ZipDirectory.u16(directory, at + 12)), date: UInt16(ZipDirectory.u16(directory, at + 14)),
                crc: ZipDirectory.u32(directory, at + 16), compressedSize: Int64(ZipDirectory.u32(directory, at + 20)),
                size: Int64(ZipDirectory.u32(directory, at + 24)), name: Array(directory[record.name]),
                extra: Array(directory[record.extra]), comment: Array(directory[record.comment]),
                internalAttributes: UInt16(ZipDirectory.u16(directory, at + 36)), externalAttributes: ZipDirectory.u32(directory, at + 38),
                offset: Int64(ZipDirectory.u32(directory, at + 42)), end: 0)
            // Zip64: the values that overflowed, read as the listing reads them.
            if member.size == 0xFFFF_FFFF || member.compressedSize == 0xFFFF_FFFF || member.offset == 0xFFFF_FFFF {
                let wide = ZipDirectory.zip64Field(directory, record: at)
                if member.size == 0xFFFF_FFFF { member.size = wide?.size ?? -1 }
                if member.compressedSize == 0xFFFF_FFFF { member.compressedSize = wide?.compressedSize ?? -1 }
                if member.offset == 0xFFFF_FFFF { member.offset = wide?.offset ?? -1 }
            }
            guard member.size >= 0, member.compressedSize >= 0, member.offset >= 0 else { throw broken }
            member.offset += shift
            members.append(member)
        }
        guard Int64(members.count) == count else { throw broken }
        // Each member ends where the next one starts (its data descriptor, of whichever form, included).
        let directoryStart = end.directoryStart
        let order = members.indices.sorted { members[$0].offset < members[$1].offset }
        for (position, index) in order.enumerated() {
            let next = position + 1 < order.count ? members[order[position + 1]].offset : directoryStart
            members[index].end = next
            guard next - members[index].offset >= 30 + Int64(members[index].name.count) + members[index].compressedSize else { throw broken }
        }
        self.members = members
        prefixEnd = order.first.map { members[$0].offset } ?? directoryStart
    }
}

/// Extra fields: `id`, size, data, one after another (little-endian 16-bit id and size).
enum ZipExtra {
    static func fields(_ extra: [UInt8]) -> [(id: Int, data: [UInt8])] {
        var result: [(id: Int, data: [UInt8])] = []
        var at = 0
        while at + 4 <= extra.count {
            let id = ZipDirectory.u16(extra, at), size = ZipDirectory.u16(extra, at + 2)
            guard at + 4 + size <= extra.count else { break }
            result.append((id, Array(extra[(at + 4)..<(at + 4 + size)])))
            at += 4 + size
        }
        return result
    }

    static func join(_ fields: [(id: Int, data: [UInt8])]) -> [UInt8] {
        fields.flatMap { ZipBytes.u16($0.id) + ZipBytes.u16($0.data.count) + $0.data }
    }

    /// Whether `extra` is a list of fields to its last byte with none of `id`, so that `join` of its
    /// `fields` without that id gives it back as it is.
    static func isWhole(_ extra: [UInt8], without id: Int) -> Bool {
        var at = 0
        while at + 4 <= extra.count {
            if ZipDirectory.u16(extra, at) == id { return false }
            at += 4 + ZipDirectory.u16(extra, at + 2)
        }
        return at == extra.count
    }

    /// `fields` without those of `ids`.
    static func removing(_ ids: Set<Int>, from extra: [UInt8]) -> [UInt8] {
        join(fields(extra).filter { !ids.contains($0.id) })
    }

    /// `header` (a local header with its name and extra fields) with its padding field (0xD935, as Android's
    /// zipalign writes it: the alignment, then zeros) made as long as moves its data on by `shift` bytes
    /// modulo 4096; nil when the extra fields would grow past what their 16-bit length can say.
    static func aligned(_ header: [UInt8], nameLength: Int, shift: Int64) -> [UInt8]? {
        let block = Int(FileSystem.cloneBlock)
        let extra = Array(header[(30 + nameLength)...])
        // Extra fields that are no list of fields (old zipaligns padded with bare zeros) are left as they are.
        guard join(fields(extra)) == extra else { return nil }
        let kept = removing([0xD935], from: extra)
        // The old padding goes: the new one moves the data by `shift` from where it was.
        var length = ((Int(shift) + extra.count - kept.count) % block + block) % block
        if length == 0 { return kept.count == extra.count ? nil : Array(header[..<28]) + ZipBytes.u16(kept.count) + header[30..<(30 + nameLength)] + kept }
        // The field is at least its 4-byte head and the 2-byte alignment.
        if length < 6 { length += block }
        guard kept.count + length <= 0xFFFF else { return nil }
        let padding = join([(0xD935, ZipBytes.u16(block) + [UInt8](repeating: 0, count: length - 6))])
        return Array(header[..<28]) + ZipBytes.u16(kept.count + length) + header[30..<(30 + nameLength)] + kept + padding
    }

    /// The extended timestamp (0x5455) with the modification time only.
    static func timestamp(_ modified: Int64) -> (id: Int, data: [UInt8]) {
        (0x5455, [1] + ZipBytes.u32(UInt32(truncatingIfNeeded: modified)))
    }
}

enum ZipBytes {
    static func u16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
    static func u16(_ value: UInt16) -> [UInt8] { u16(Int(value)) }
    static func u32(_ value: UInt32) -> [UInt8] { [UInt8](littleEndian: value) }
    static func u64(_ value: Int64) -> [UInt8] { [UInt8](littleEndian: value) }

    /// MS-DOS time and date of `seconds`, in local time as Info-ZIP writes them (1980 at the earliest).
    static func dosTime(_ seconds: Int64) -> (time: UInt16, date: UInt16) {
        var time = time_t(max(seconds, 315_532_800))
        var parts = tm()
        localtime_r(&time, &parts)
        let year = max(0, Int(parts.tm_year) - 80)
        return (
            UInt16(Int(parts.tm_hour) << 11 | Int(parts.tm_min) << 5 | Int(parts.tm_sec) / 2),
            UInt16(min(year, 127) << 9 | Int(parts.tm_mon + 1) << 5 | Int(parts.tm_mday))
        )
    }
}

extension [UInt8] {
    /// `value`'s bytes, least significant first, as zip fields hold it.
    init(littleEndian value: some FixedWidthInteger) {
        self = []
        append(littleEndian: value)
    }

    /// Appends `value` as a zip field, with no array of its own: a commit writes 20 fields for each of
    /// 20,000 members, and an array each once took a quarter of its time.
    mutating func append(littleEndian value: some FixedWidthInteger) {
        Swift.withUnsafeBytes(of: value.littleEndian) { self += $0 }
    }
}

/// Our zip container writer: members one after another, then the central directory, zip64 records only
/// where a size or offset needs them, and the archive comment. A member is either copied raw from another
/// zip (its local header, data and descriptor as they were, re-pointed in the new directory) or new, its
/// bytes compressed by whoever the caller chooses (`ZipDeflate`) straight into the output.
struct ZipContainerWriter {
    /// A new member's header fields.
    struct NewMember {
        var name: [UInt8]
        var mode: UInt32
        var modified: Int64
        var owner: UInt32 = 0
        var group: UInt32 = 0
        /// Deflate (8) or stored (0).
        var method: UInt16
        /// The size it will have uncompressed, if known: over about 4 GiB its local header has zip64 sizes.
        var expectedSize: Int64
        /// Encrypted with WinZip AES (`ZipAES`): the caller writes the salt, verifier, encrypted bytes and
        /// authentication code as its data, and their count as its compressed size. The headers say
        /// method 99 with the real method in their AES field, and no CRC (AE-2).
        var encrypted = false
    }

    /// What compressing a member's bytes gave.
    struct Sums {
        var crc: UInt32
        var compressedSize: Int64
        var size: Int64
        /// The method that was used: a deflate that grew the data is stored instead.
        var method: UInt16
    }

    /// Where the bytes go: a file written at will (editing), or the compressor's sink, which checks for
    /// cancellation and free space and may cut the archive into parts.
    private enum Output {
        case file(Int32)
        case sink(OutputSink)
    }

    private let output: Output
    /// Where the next byte goes: after the held-back run too.
    private var position: Int64
    /// Bytes of a file to be copied as they lie, held back while the next copy continues them: a run of
    /// untouched members is one copy (and on btrfs and xfs one shared range), not one per member.
    private var run: (source: Int32, offset: Int64, count: Int64)?
    private var directory: [UInt8] = []
    private var count = 0
    /// The folder written into, for messages.
    private let folder: FilePath

    /// Writes at the start of `descriptor`, a new empty file in `folder`.
    init(descriptor: Int32, folder: FilePath) {
        output = .file(descriptor)
        self.folder = folder
        position = 0
    }

    /// Writes through `sink`, from its start, into `folder`. Members are then added with `add(_:sums:data:)`
    /// or `begin`/`append`/`end`; copying from another zip needs a file.
    init(sink: OutputSink, folder: FilePath) {
        output = .sink(sink)
        self.folder = folder
        position = 0
    }

    private var descriptor: Int32 {
        guard case .file(let descriptor) = output else { preconditionFailure("copying needs a file to write into") }
        return descriptor
    }

    private func failure() -> ArchiverError {
        if case .sink(let sink) = output { return FileSystem.destinationError(sink.lastErrno, folder) }
        return FileSystem.destinationError(errno, folder)
    }

    private mutating func write(_ bytes: [UInt8]) throws(ArchiverError) {
        try flush()
        switch output {
        case .file(let descriptor): guard FileSystem.writeAll(descriptor, bytes[...]) else { throw failure() }
        case .sink(let sink): guard bytes.withUnsafeBytes({ $0.isEmpty || sink.write($0) >= 0 }) else { throw failure() }
        }
        position += Int64(bytes.count)
    }

    /// Writes `bytes` at the end: a member's data between `begin` and `end`.
    mutating func append(_ bytes: UnsafeRawBufferPointer) throws(ArchiverError) {
        try flush()
        switch output {
        case .file(let descriptor): guard FileSystem.writeAll(descriptor, Array(bytes)[...]) else { throw failure() }
        case .sink(let sink): guard bytes.isEmpty || sink.write(bytes) >= 0 else { throw failure() }
        }
        position += Int64(bytes.count)
    }

    /// Copies `count` bytes at `offset` of `source` as they are (held back while later copies continue them;
    /// `source` stays open until the next write or `finish`).
    mutating func copyBytes(from source: Int32, at offset: Int64, count: Int64) throws(ArchiverError) {
        guard count > 0 else { return }
        _ = descriptor
        if let held = run, held.source == source, held.offset + held.count == offset {
            run = (source, held.offset, held.count + count)
        } else {
            try flush()
            run = (source, offset, count)
        }
        position += count
    }

    /// Copies the run held back.
    private mutating func flush() throws(ArchiverError) {
        guard let held = run else { return }
        run = nil
        guard FileSystem.copyRange(from: held.source, at: held.offset, count: held.count, to: descriptor) else { throw failure() }
    }

    /// Copies `member` of the zip open as `source` without recompressing it.
    /// - Parameters:
    ///   - name: a new name, else its own.
    ///   - mode: new permission bits, else its own.
    ///   - modified: a new modification time, else its own.
    ///   - aligning: it starts a long run of untouched members (`alignsRun`): where its data would not lie
    ///     as in `source` within a 4 KiB block, its local header gets padding (`ZipExtra.alignment`) so
    ///     that the run is shared with `source` on btrfs and xfs rather than copied.
    /// Only its local header is rewritten, and only for a new name or time, or for that padding.
    mutating func copy(
        _ member: ZipMembers.Member, from source: Int32, name: [UInt8]? = nil, mode: UInt32? = nil, modified: Int64? = nil,
        aligning: Bool = false
    ) throws(ArchiverError) {
        var record = member
        record.offset = position
        let continues = run.map { $0.source == source && $0.offset + $0.count == member.offset } ?? false
        // A member that continues the run being copied is copied with it, its local header unread: on btrfs
        // and xfs the copy shares the old archive's blocks without reading them, and reading 20,000 headers
        // from the disk took most of a commit. The member starting each run is checked.
        if name == nil, modified == nil, continues {
            try copyBytes(from: source, at: member.offset, count: member.end - member.offset)
            appendRecord(Self.withMode(record, mode))
            return
        }
        guard let (nameLength, extraLength) = Self.localLengths(member, in: source) else {
            throw ArchiverError(.corrupt, tr("A member of the archive has no local header (“%@”).", member.name.displayName))
        }
        let headerLength = Int64(30 + nameLength + extraLength)
        let shift = ((member.offset - position) % FileSystem.cloneBlock + FileSystem.cloneBlock) % FileSystem.cloneBlock
        if name == nil, modified == nil, aligning, !continues, shift != 0,
            let header = FileSystem.bytes(source, at: member.offset, count: Int(headerLength)),
            let padded = ZipExtra.aligned(header, nameLength: nameLength, shift: shift)
        {
            try write(padded)
            try copyBytes(from: source, at: member.offset + headerLength, count: member.end - member.offset - headerLength)
        } else if name == nil, modified == nil {
            try copyBytes(from: source, at: member.offset, count: member.end - member.offset)
        } else {
            guard var header = FileSystem.bytes(source, at: member.offset, count: Int(headerLength)) else {
                throw ArchiverError(.corrupt, tr("A member of the archive has no local header (“%@”).", member.name.displayName))
            }
            var localName = Array(header[30..<(30 + nameLength)])
            var localExtra = Array(header[(30 + nameLength)...])
            if let name {
                localName = name
                record.name = name
                // A Unicode path field would still give the old name.
                localExtra = ZipExtra.removing([0x7075], from: localExtra)
                record.extra = ZipExtra.removing([0x7075], from: record.extra)
                if !name.allSatisfy({ $0 < 0x80 }), String(validating: name, as: UTF8.self) != nil { record.flags |= 0x800 }
            }
            if let modified {
                (record.time, record.date) = ZipBytes.dosTime(modified)
                func stamped(_ extra: [UInt8]) -> [UInt8] {
                    ZipExtra.join(ZipExtra.fields(extra).filter { $0.id != 0x5455 } + [ZipExtra.timestamp(modified)])
                }
                localExtra = stamped(localExtra)
                record.extra = stamped(record.extra)
            }
            header.replaceSubrange(6..<8, with: ZipBytes.u16(record.flags))
            header.replaceSubrange(10..<14, with: ZipBytes.u16(record.time) + ZipBytes.u16(record.date))
            header.replaceSubrange(26..<30, with: ZipBytes.u16(localName.count) + ZipBytes.u16(localExtra.count))
            try write(Array(header[..<30]) + localName + localExtra)
            try copyBytes(from: source, at: member.offset + headerLength, count: member.end - member.offset - headerLength)
        }
        appendRecord(Self.withMode(record, mode))
    }

    /// `record` with new permission bits, if any, written as a Unix program writes them.
    private static func withMode(_ record: ZipMembers.Member, _ mode: UInt32?) -> ZipMembers.Member {
        guard let mode else { return record }
        var record = record
        let type = (record.mode ?? (record.isFolder ? 0o040000 : 0o100000)) & 0o170000
        record.externalAttributes = (type | mode & 0o7777) << 16 | record.externalAttributes & 0xFFFF
        record.versionMadeBy = 3 << 8 | record.versionMadeBy & 0xFF
        return record
    }

    /// The name and extra field lengths in `member`'s local header, nil when it has none there; read into
    /// the stack, as every member copied is read so.
    private static func localLengths(_ member: ZipMembers.Member, in source: Int32) -> (name: Int, extra: Int)? {
        withUnsafeTemporaryAllocation(byteCount: 30, alignment: 8) { local -> (name: Int, extra: Int)? in
            guard FileSystem.readFully(source, into: local.baseAddress!, count: 30, at: member.offset) == 30,
                UInt32(littleEndian: local.loadUnaligned(as: UInt32.self)) == 0x0403_4B50
            else { return nil }
            return (
                Int(UInt16(littleEndian: local.loadUnaligned(fromByteOffset: 26, as: UInt16.self))),
                Int(UInt16(littleEndian: local.loadUnaligned(fromByteOffset: 28, as: UInt16.self)))
            )
        }
    }

    /// A member whose local header is written and whose data is being appended.
    struct OpenMember {
        fileprivate let member: NewMember
        fileprivate let start: Int64
        fileprivate let wide: Bool
        fileprivate let flags: UInt16
        fileprivate let time: UInt16
        fileprivate let date: UInt16
        /// Where its local header ends (its AES field, when encrypted, is last).
        fileprivate let headerEnd: Int64
        /// Its sums were in the header already: nothing to set afterwards.
        fileprivate let known: Bool
    }

    /// Whether a member of `size` bytes needs zip64 sizes in its local header, written before its data:
    /// deflate can grow incompressible data by a little (about 0.01 %), so room is left for that.
    static func needsZip64(expectedSize size: Int64) -> Bool {
        size + size >> 9 + 0x1_0000 >= 0xFFFF_FFFF
    }

    /// Writes a new member: its local header, then the bytes `body` writes through the writer (compressed
    /// or stored, see `ZipDeflate`), then the header's sizes and CRC set. No data descriptor follows.
    mutating func add(_ member: NewMember, body: (Int32, Int64) throws(ArchiverError) -> Sums) throws(ArchiverError) {
        let open = try begin(member)
        let dataStart = position
        let sums = try body(descriptor, dataStart)
        position = dataStart + sums.compressedSize
        guard lseek(descriptor, off_t(position), SEEK_SET) >= 0 else { throw failure() }
        try end(open, sums: sums)
    }

    /// Writes a member whose bytes are all there already: header, `data`, no going back.
    mutating func add(_ member: NewMember, sums: Sums, data: [UInt8]) throws(ArchiverError) {
        let open = try begin(member, sums: sums)
        try write(data)
        try end(open, sums: sums)
    }

    /// Writes `member`'s local header, with `sums` when they are known already, else with room for them
    /// (set by `end`). Its data follows through `append`.
    mutating func begin(_ member: NewMember, sums: Sums? = nil) throws(ArchiverError) -> OpenMember {
        let start = position
        var flags: UInt16 = member.encrypted ? 1 : 0
        if !member.name.allSatisfy({ $0 < 0x80 }), String(validating: member.name, as: UTF8.self) != nil { flags |= 0x800 }
        let (time, date) = ZipBytes.dosTime(member.modified)
        let wide = sums.map { $0.size >= 0xFFFF_FFFF || $0.compressedSize >= 0xFFFF_FFFF } ?? Self.needsZip64(expectedSize: member.expectedSize)
        let owner = ZipBytes.u32(member.owner), group = ZipBytes.u32(member.group)
        var extra = ZipExtra.join([ZipExtra.timestamp(member.modified), (0x7875, [1, 4] + owner + [4] + group)])
        if wide {
            let values = sums.map { ZipBytes.u64($0.size) + ZipBytes.u64($0.compressedSize) } ?? [UInt8](repeating: 0, count: 16)
            extra = ZipExtra.join([(1, values)]) + extra
        }
        let method = sums?.method ?? member.method
        if member.encrypted { extra += ZipExtra.join([ZipAES.extraField(method: method)]) }
        let needed: UInt16 = member.encrypted ? ZipAES.versionNeeded : wide ? 45 : 20
        var fields = [UInt8](repeating: 0, count: 12)
        if let sums {
            fields = ZipBytes.u32(member.encrypted ? 0 : sums.crc)
                + (wide ? [UInt8](repeating: 0xFF, count: 8) : ZipBytes.u32(UInt32(sums.compressedSize)) + ZipBytes.u32(UInt32(sums.size)))
        } else if wide {
            fields.replaceSubrange(4..<12, with: [UInt8](repeating: 0xFF, count: 8))
        }
        let header =
            ZipBytes.u32(0x0403_4B50) + ZipBytes.u16(needed) + ZipBytes.u16(flags) + ZipBytes.u16(member.encrypted ? ZipAES.method : method)
            + ZipBytes.u16(time) + ZipBytes.u16(date) + fields
            + ZipBytes.u16(member.name.count) + ZipBytes.u16(extra.count) + member.name + extra
        try write(header)
        return OpenMember(
            member: member, start: start, wide: wide, flags: flags, time: time, date: date, headerEnd: position, known: sums != nil)
    }

    /// Ends the member `begin` opened, whose data has been appended: sets its header's sums (unless they
    /// were known) and records it for the central directory.
    mutating func end(_ open: OpenMember, sums: Sums) throws(ArchiverError) {
        let (member, start, wide, time, date) = (open.member, open.start, open.wide, open.time, open.date)
        guard wide || (sums.compressedSize < 0xFFFF_FFFF && sums.size < 0xFFFF_FFFF) else {
            throw ArchiverError(.destination, tr("“%@” grew past 4 GiB while it was being added; nothing was changed.", member.name.displayName))
        }
        let encrypted = member.encrypted
        let crc = encrypted ? 0 : sums.crc
        if !open.known {
            var fixed = ZipBytes.u16(encrypted ? ZipAES.method : sums.method) + ZipBytes.u16(time) + ZipBytes.u16(date) + ZipBytes.u32(crc)
            fixed += wide ? [UInt8](repeating: 0xFF, count: 8) : ZipBytes.u32(UInt32(sums.compressedSize)) + ZipBytes.u32(UInt32(sums.size))
            try pwriteAll(fixed, at: start + 8)
            if wide { try pwriteAll(ZipBytes.u64(sums.size) + ZipBytes.u64(sums.compressedSize), at: start + 30 + Int64(member.name.count) + 4) }
            // A deflate that grew the data was stored instead: the AES field, last, says so.
            if encrypted { try pwriteAll(ZipBytes.u16(sums.method), at: open.headerEnd - 2) }
        }
        let isFolder = member.mode & 0o170000 == 0o040000
        let owner = ZipBytes.u32(member.owner), group = ZipBytes.u32(member.group)
        var extra: [(id: Int, data: [UInt8])] = [ZipExtra.timestamp(member.modified), (0x7875, [1, 4] + owner + [4] + group)]
        if encrypted { extra.append(ZipAES.extraField(method: sums.method)) }
        let needed: UInt16 = encrypted ? ZipAES.versionNeeded : wide ? 45 : 20
        appendRecord(ZipMembers.Member(
            versionMadeBy: 3 << 8 | (encrypted ? ZipAES.versionNeeded : 30), versionNeeded: needed, flags: open.flags, method: encrypted ? ZipAES.method : sums.method,
            time: time, date: date, crc: crc, compressedSize: sums.compressedSize, size: sums.size, name: member.name,
            extra: ZipExtra.join(extra), comment: [],
            internalAttributes: 0, externalAttributes: member.mode << 16 | (isFolder ? 0x10 : 0), offset: start, end: position))
    }

    private func pwriteAll(_ bytes: [UInt8], at offset: Int64) throws(ArchiverError) {
        switch output {
        case .file(let descriptor):
            let written = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, off_t(offset)) }
            guard written == bytes.count else { throw failure() }
        case .sink(let sink):
            guard sink.patch(bytes, at: offset) else { throw failure() }
        }
    }

    /// The directory record of `member`, with zip64 values for what does not fit 32 bits, appended to
    /// `directory` field by field.
    private mutating func appendRecord(_ member: ZipMembers.Member) {
        let size = member.size >= 0xFFFF_FFFF, packed = member.compressedSize >= 0xFFFF_FFFF, offset = member.offset >= 0xFFFF_FFFF
        let wide = size || packed || offset
        var extra = member.extra
        // Most members keep their fields as they are; only a zip64 field (or a malformed list) is remade.
        if wide || !ZipExtra.isWhole(extra, without: 1) {
            var values: [UInt8] = []
            if size { values.append(littleEndian: member.size) }
            if packed { values.append(littleEndian: member.compressedSize) }
            if offset { values.append(littleEndian: member.offset) }
            var fields = ZipExtra.fields(member.extra).filter { $0.id != 1 }
            if wide { fields.insert((1, values), at: 0) }
            extra = ZipExtra.join(fields)
        }
        let needed = wide ? max(member.versionNeeded, 45) : member.versionNeeded
        directory.append(littleEndian: UInt32(0x0201_4B50))
        directory.append(littleEndian: member.versionMadeBy)
        directory.append(littleEndian: needed)
        directory.append(littleEndian: member.flags)
        directory.append(littleEndian: member.method)
        directory.append(littleEndian: member.time)
        directory.append(littleEndian: member.date)
        directory.append(littleEndian: member.crc)
        directory.append(littleEndian: packed ? 0xFFFF_FFFF : UInt32(member.compressedSize))
        directory.append(littleEndian: size ? 0xFFFF_FFFF : UInt32(member.size))
        directory.append(littleEndian: UInt16(truncatingIfNeeded: member.name.count))
        directory.append(littleEndian: UInt16(truncatingIfNeeded: extra.count))
        directory.append(littleEndian: UInt16(truncatingIfNeeded: member.comment.count))
        directory.append(littleEndian: UInt16(0))  // the disk it starts on
        directory.append(littleEndian: member.internalAttributes)
        directory.append(littleEndian: member.externalAttributes)
        directory.append(littleEndian: offset ? 0xFFFF_FFFF : UInt32(member.offset))
        directory += member.name
        directory += extra
        directory += member.comment
        count += 1
    }

    /// Writes the central directory, the zip64 end records when needed, and the end record with `comment`.
    mutating func finish(comment: [UInt8]) throws(ArchiverError) {
        let start = position
        let records = directory
        try write(records)
        let size = Int64(records.count)
        if count >= 0xFFFF || start >= 0xFFFF_FFFF || size >= 0xFFFF_FFFF {
            let record = position
            try write(
                ZipBytes.u32(0x0606_4B50) + ZipBytes.u64(44) + ZipBytes.u16(3 << 8 | 45) + ZipBytes.u16(45) + ZipBytes.u32(0)
                    + ZipBytes.u32(0) + ZipBytes.u64(Int64(count)) + ZipBytes.u64(Int64(count)) + ZipBytes.u64(size) + ZipBytes.u64(start))
            try write(ZipBytes.u32(0x0706_4B50) + ZipBytes.u32(0) + ZipBytes.u64(record) + ZipBytes.u32(1))
        }
        let shortCount = count >= 0xFFFF ? 0xFFFF : count
        try write(
            ZipBytes.u32(0x0605_4B50) + ZipBytes.u16(0) + ZipBytes.u16(0) + ZipBytes.u16(shortCount) + ZipBytes.u16(shortCount)
                + ZipBytes.u32(size >= 0xFFFF_FFFF ? 0xFFFF_FFFF : UInt32(size))
                + ZipBytes.u32(start >= 0xFFFF_FFFF ? 0xFFFF_FFFF : UInt32(start)) + ZipBytes.u16(min(comment.count, 0xFFFF))
                + comment.prefix(0xFFFF))
    }
}
