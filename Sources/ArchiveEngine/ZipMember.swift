internal import CIsal
internal import CZlib
import ArchiverCore
import Glibc
import SystemPackage

/// An entry's data produced piece by piece by something other than a libarchive reader.
protocol EntryChunks: AnyObject {
    /// Up to `buffer.count` bytes; 0 at the end, once the data was checked.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(ArchiverError) -> Int
}

/// One zip member read straight from its local header, without a libarchive reader: opening a file of a
/// 100,000-entry zip then costs one header read instead of walking the entries before it, and holds no
/// copy of the central directory. Stored and deflated (ISA-L) members only; the CRC is checked at the end.
final class ZipMember: EntryChunks {
    private let descriptor: Int32
    private let size: Int64
    private let deflated: Bool
    /// The CRC from the local header; nil when it follows the data (flag bit 3).
    private let recordedCRC: UInt32?
    private let archiveName: String
    private let entryName: String
    private var filePosition: Int64
    private var produced: Int64 = 0
    private var crc: UInt32 = 0
    private var finished = false
    private var state: UnsafeMutablePointer<inflate_state>?
    private let input = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)

    /// Nil unless a plain (not encrypted) stored or deflated member's local header is at `offset`.
    init?(_ archive: FilePath, headerAt offset: Int64, size: Int64, entryName: String) {
        descriptor = archive.withPlatformString { open($0, O_RDONLY | O_CLOEXEC) }
        let header = descriptor >= 0 ? FileSystem.bytes(descriptor, at: offset, count: 30) : nil
        func u16(_ at: Int) -> Int { ZipDirectory.u16(header!, at) }
        func u32(_ at: Int) -> UInt32 { ZipDirectory.u32(header!, at) }
        guard header != nil, u32(0) == 0x0403_4B50 else {
            input.deallocate()
            if descriptor >= 0 { close(descriptor) }
            return nil
        }
        let flags = u16(6), method = u16(8)
        guard flags & 1 == 0, method == 0 || method == 8 else {
            input.deallocate()
            close(descriptor)
            return nil
        }
        self.size = size
        deflated = method == 8
        recordedCRC = flags & 8 == 0 ? u32(14) : nil
        archiveName = archive.lastComponent?.string ?? archive.string
        self.entryName = entryName
        filePosition = offset + 30 + Int64(u16(26)) + Int64(u16(28))
        if deflated {
            let state = UnsafeMutablePointer<inflate_state>.allocate(capacity: 1)
            isal_inflate_init(state)
            state.pointee.crc_flag = UInt32(ISAL_DEFLATE)
            self.state = state
        }
    }

    deinit {
        state?.deallocate()
        input.deallocate()
        if descriptor >= 0 { close(descriptor) }
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(ArchiverError) -> Int {
        guard !finished else { return 0 }
        let count = try deflated ? inflate(into: buffer) : copy(into: buffer)
        crc = UInt32(crc32(uLong(crc), buffer.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt(count)))
        produced += Int64(count)
        if count == 0 || produced > size {
            try check()
            finished = true
        }
        return count
    }

    private func copy(into buffer: UnsafeMutableRawBufferPointer) throws(ArchiverError) -> Int {
        let wanted = Int(min(Int64(buffer.count), size - produced))
        guard wanted > 0 else { return 0 }
        let count = pread(descriptor, buffer.baseAddress, wanted, off_t(filePosition))
        guard count > 0 else { throw damaged("Truncated ZIP file data") }
        filePosition += Int64(count)
        return count
    }

    private func inflate(into buffer: UnsafeMutableRawBufferPointer) throws(ArchiverError) -> Int {
        guard let state else { return 0 }
        state.pointee.next_out = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
        state.pointee.avail_out = UInt32(buffer.count)
        while state.pointee.avail_out > 0, state.pointee.block_state != ISAL_BLOCK_FINISH {
            if state.pointee.avail_in == 0 {
                let count = pread(descriptor, input.baseAddress, input.count, off_t(filePosition))
                guard count > 0 else { throw damaged("Truncated ZIP file data") }
                filePosition += Int64(count)
                state.pointee.next_in = input.baseAddress!.assumingMemoryBound(to: UInt8.self)
                state.pointee.avail_in = UInt32(count)
            }
            guard isal_inflate(state) >= 0 else { throw damaged("Invalid deflate data") }
        }
        return buffer.count - Int(state.pointee.avail_out)
    }

    /// The data must be as long as the central directory says and match its CRC.
    private func check() throws(ArchiverError) {
        guard produced == size else { throw damaged("ZIP size mismatch") }
        var expected = recordedCRC
        if expected == nil {
            // The data descriptor right after the data: an optional signature, then the CRC.
            // ISA-L may have pulled up to 8 bytes past the deflate end into its bit buffer.
            let held = state.map { Int64($0.pointee.avail_in) + Int64($0.pointee.read_in_length / 8) } ?? 0
            let after = filePosition - held
            var words = [UInt32](repeating: 0, count: 2)
            guard pread(descriptor, &words, 8, off_t(after)) == 8 else { throw damaged("Truncated ZIP file data") }
            expected = UInt32(littleEndian: words[0]) == 0x0807_4B50 ? UInt32(littleEndian: words[1]) : UInt32(littleEndian: words[0])
        }
        guard crc == expected else { throw damaged("ZIP bad CRC") }
    }

    private func damaged(_ message: String) -> ArchiverError {
        FailureClassifier.describeReadFailure(message: message, archive: archiveName, place: .at(entryName))
    }
}

/// 7-Zip's output as an entry's data; its exit status says at the end whether the data was whole.
final class ToolChunks: EntryChunks {
    private let tool: ChildProcess.Reading
    private let failure: ArchiverError

    init(_ tool: ChildProcess.Reading, failure: ArchiverError) {
        self.tool = tool
        self.failure = failure
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(ArchiverError) -> Int {
        let count = tool.read(into: buffer)
        if count == 0, tool.status != 0 { throw failure }
        return count
    }
}

/// Where each member's local header is, from a zip's central directory, in the order libarchive's
/// seekable zip reader returns the entries (by local header offset). A zip with bytes in front of it
/// (a self-extractor) has its offsets moved as libarchive moves them.
enum ZipDirectory {
    /// Names one after another, as one order-sensitive hash and a count: two lists match one for one
    /// when these do.
    struct NameSequence: Equatable {
        private var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        private var count = 0

        mutating func add(_ name: some Collection<UInt8>) { add(hash: ZipDirectory.hash(name)) }

        fileprivate mutating func add(hash name: UInt64) {
            hash = (hash ^ name) &* 0x100_0000_01B3 &+ UInt64(count)
            count += 1
        }
    }

    /// The local header offsets in the order libarchive reads the members (by offset), and their names.
    /// Nil when there is no readable central directory in `path` (then libarchive reads every member).
    static func offsets(_ path: FilePath) -> (offsets: [Int64], names: NameSequence)? {
        guard var records = records(path) else { return nil }
        records.sort { $0.offset < $1.offset }
        var names = NameSequence()
        for record in records { names.add(hash: record.nameHash) }
        return (records.map(\.offset), names)
    }

    private struct Record {
        let offset: Int64
        let nameHash: UInt64
    }

    private static func records(_ path: FilePath) -> [Record]? {
        let descriptor = path.withPlatformString { open($0, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        let size = Int64(lseek(descriptor, 0, SEEK_END))
        let tailSize = Int(min(size, 65_557 + 20))
        guard tailSize >= 22, let tail = FileSystem.bytes(descriptor, at: size - Int64(tailSize), count: tailSize) else { return nil }
        guard let end = (0...(tailSize - 22)).reversed().first(where: { u32(tail, $0) == 0x0605_4B50 }) else { return nil }
        let endPosition = size - Int64(tailSize) + Int64(end)
        var count = Int64(u16(tail, end + 10)), directorySize = Int64(u32(tail, end + 12))
        var directoryOffset = Int64(u32(tail, end + 16))
        var directoryEnd = endPosition
        if count == 0xFFFF || directorySize == 0xFFFF_FFFF || directoryOffset == 0xFFFF_FFFF {
            // Zip64: the locator just before the end record points at the Zip64 end record.
            guard end >= 20, u32(tail, end - 20) == 0x0706_4B50 else { return nil }
            let recordAt = Int64(u64(tail, end - 12))
            guard let record = FileSystem.bytes(descriptor, at: recordAt, count: 56), u32(record, 0) == 0x0606_4B50 else { return nil }
            (count, directorySize, directoryOffset) = (Int64(u64(record, 32)), Int64(u64(record, 40)), Int64(u64(record, 48)))
            directoryEnd = recordAt
        }
        let shift = directoryEnd - directorySize - directoryOffset
        guard shift >= 0, directorySize >= 0, directorySize <= size, count <= directorySize / 46 + 1,
            let directory = FileSystem.bytes(descriptor, at: directoryOffset + shift, count: Int(directorySize))
        else { return nil }
        var records: [Record] = []
        records.reserveCapacity(Int(count))
        var at = 0
        while at + 46 <= directory.count, u32(directory, at) == 0x0201_4B50 {
            let nameLength = u16(directory, at + 28), extraLength = u16(directory, at + 30), commentLength = u16(directory, at + 32)
            guard at + 46 + nameLength + extraLength <= directory.count else { return nil }
            var offset = Int64(u32(directory, at + 42))
            if offset == 0xFFFF_FFFF {
                // The Zip64 extra field holds, in order, those of the sizes and the offset that overflowed.
                var field = at + 46 + nameLength
                let fieldsEnd = field + extraLength
                var found = false
                while field + 4 <= fieldsEnd {
                    let id = u16(directory, field), length = u16(directory, field + 2)
                    if id == 1 {
                        var value = field + 4
                        if u32(directory, at + 24) == 0xFFFF_FFFF { value += 8 }
                        if u32(directory, at + 20) == 0xFFFF_FFFF { value += 8 }
                        guard value + 8 <= field + 4 + length else { return nil }
                        offset = Int64(u64(directory, value))
                        found = true
                        break
                    }
                    field += 4 + length
                }
                guard found else { return nil }
            }
            records.append(Record(offset: offset + shift, nameHash: hash(directory[(at + 46)..<(at + 46 + nameLength)])))
            at += 46 + nameLength + extraLength + commentLength
        }
        guard Int64(records.count) == count else { return nil }
        return records
    }

    /// FNV-1a: enough to tell whether two lists of names match one for one.
    static func hash(_ name: some Collection<UInt8>) -> UInt64 {
        name.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }
    }

    static func u16(_ data: [UInt8], _ at: Int) -> Int { Int(data[at]) | Int(data[at + 1]) << 8 }
    static func u32(_ data: [UInt8], _ at: Int) -> UInt32 { UInt32(u16(data, at)) | UInt32(u16(data, at + 2)) << 16 }
    private static func u64(_ data: [UInt8], _ at: Int) -> UInt64 { UInt64(u32(data, at)) | UInt64(u32(data, at + 4)) << 32 }
}
