internal import CZlib
import ArchiverCore
import Glibc
import Platform

/// Compresses one zip member's bytes (raw deflate through zlib, or stored) with their CRC-32, apart from
/// the container, so that a faster compressor (deflate on every core) can take its place.
enum ZipDeflate {
    /// Compresses `size` bytes of `source` (read from its current position) into `output` at `offset`.
    /// - Parameters:
    ///   - level: the zlib level, or nil to store.
    ///   - control: checked between blocks.
    /// - Returns: the sums; a deflate that made the data larger is redone stored, as Info-ZIP does.
    static func compress(
        from source: Int32, size: Int64, level: Int32?, into output: Int32, at offset: Int64, control: JobControl, name: String
    ) throws(ArchiverError) -> ZipContainerWriter.Sums {
        let input = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 18, alignment: 16)
        let packed = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 18, alignment: 16)
        defer {
            input.deallocate()
            packed.deallocate()
        }
        let unreadable = { (code: Int32) in
            ArchiverError(
                // TRANSLATORS: %1$@ is a file, %2$@ the system's reason (from the C library).
                .inputUnreadable, tr("Reading “%1$@” failed: %2$@.", name, TextValue.systemError(code)),
                hint: tr("Nothing was changed."), path: name)
        }
        func writeOut(_ bytes: UnsafeRawBufferPointer, at position: inout Int64) throws(ArchiverError) {
            var done = 0
            while done < bytes.count {
                let count = pwrite(output, bytes.baseAddress! + done, bytes.count - done, off_t(position))
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { throw FileSystem.destinationError(errno, .init(name).removingLastComponent()) }
                done += count
                position += Int64(count)
            }
        }
        /// The next bytes of `source`, at `read`, into `input`.
        func chunk(at read: Int64) throws(ArchiverError) -> Int {
            let got = FileSystem.readFully(source, into: input.baseAddress!, count: Int(min(Int64(input.count), size - read)), at: read)
            guard let got else { throw unreadable(errno) }
            guard got > 0 else { throw shrank(name) }
            return got
        }
        func stored(at start: Int64) throws(ArchiverError) -> ZipContainerWriter.Sums {
            var crc: uLong = 0
            var read: Int64 = 0
            var position = start
            while read < size {
                try control.check()
                let got = try chunk(at: read)
                crc = crc32(crc, input.baseAddress!.assumingMemoryBound(to: Bytef.self), uInt(got))
                try writeOut(UnsafeRawBufferPointer(rebasing: input[..<got]), at: &position)
                read += Int64(got)
            }
            return .init(crc: UInt32(crc), compressedSize: position - start, size: size, method: 0)
        }
        guard let level, size > 0 else { return try stored(at: offset) }

        var stream = z_stream()
        guard cz_deflate_init(&stream, level, -15) == Z_OK else {
            throw ArchiverError(.destination, tr("Out of memory while starting the archive."))
        }
        defer { deflateEnd(&stream) }
        var crc: uLong = 0
        var read: Int64 = 0
        var position = offset
        var finished = false
        while !finished {
            try control.check()
            var flush = Z_NO_FLUSH
            if read < size {
                let got = try chunk(at: read)
                crc = crc32(crc, input.baseAddress!.assumingMemoryBound(to: Bytef.self), uInt(got))
                read += Int64(got)
                stream.next_in = input.baseAddress!.assumingMemoryBound(to: Bytef.self)
                stream.avail_in = uInt(got)
            }
            if read == size { flush = Z_FINISH }
            repeat {
                stream.next_out = packed.baseAddress!.assumingMemoryBound(to: Bytef.self)
                stream.avail_out = uInt(packed.count)
                let status = deflate(&stream, flush)
                guard status != Z_STREAM_ERROR else { throw ArchiverError(.destination, tr("Compressing “%@” failed.", name)) }
                let produced = packed.count - Int(stream.avail_out)
                try writeOut(UnsafeRawBufferPointer(rebasing: packed[..<produced]), at: &position)
                if status == Z_STREAM_END { finished = true }
            } while stream.avail_out == 0 && !finished
        }
        if position - offset >= size {
            guard ftruncate(output, off_t(offset)) == 0 else { throw FileSystem.destinationError(errno, .init(name).removingLastComponent()) }
            return try stored(at: offset)
        }
        return .init(crc: UInt32(crc), compressedSize: position - offset, size: size, method: 8)
    }

    /// `bytes` stored (a symlink's target).
    static func store(_ bytes: [UInt8], into output: Int32, at offset: Int64) throws(ArchiverError) -> ZipContainerWriter.Sums {
        let crc = bytes.withUnsafeBytes { crc32(0, $0.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt($0.count)) }
        let written = bytes.withUnsafeBytes { pwrite(output, $0.baseAddress, $0.count, off_t(offset)) }
        guard written == bytes.count else { throw FileSystem.destinationError(errno, "/") }
        return .init(crc: UInt32(crc), compressedSize: Int64(bytes.count), size: Int64(bytes.count), method: 0)
    }

    private static func shrank(_ name: String) -> ArchiverError {
        ArchiverError(
            .inputUnreadable, tr("“%@” got shorter while it was being compressed.", name),
            hint: tr("Try again when nothing is writing to it; nothing was changed."), path: name)
    }
}
