internal import CIsal
internal import CZlib
import ArchiverCore
import Glibc
import Platform
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
    private let ownsDescriptor: Bool
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
    convenience init?(_ archive: FilePath, headerAt offset: Int64, size: Int64, entryName: String) {
        let descriptor = archive.withPlatformString { open($0, O_RDONLY | O_CLOEXEC) }
        self.init(archive, descriptor: descriptor, owned: true, headerAt: offset, size: size, entryName: entryName)
    }

    /// The same from `descriptor`, `archive` opened, which stays open and the caller's.
    convenience init?(_ archive: FilePath, descriptor: Int32, headerAt offset: Int64, size: Int64, entryName: String) {
        self.init(archive, descriptor: descriptor, owned: false, headerAt: offset, size: size, entryName: entryName)
    }

    private init?(_ archive: FilePath, descriptor: Int32, owned: Bool, headerAt offset: Int64, size: Int64, entryName: String) {
        self.descriptor = descriptor
        ownsDescriptor = owned
        let header = descriptor >= 0 ? FileSystem.bytes(descriptor, at: offset, count: 30) : nil
        func u16(_ at: Int) -> Int { ZipDirectory.u16(header!, at) }
        func u32(_ at: Int) -> UInt32 { ZipDirectory.u32(header!, at) }
        guard header != nil, u32(0) == 0x0403_4B50 else {
            input.deallocate()
            if owned, descriptor >= 0 { close(descriptor) }
            return nil
        }
        let flags = u16(6), method = u16(8)
        guard flags & 1 == 0, method == 0 || method == 8 else {
            input.deallocate()
            if owned { close(descriptor) }
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
        if ownsDescriptor, descriptor >= 0 { close(descriptor) }
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

