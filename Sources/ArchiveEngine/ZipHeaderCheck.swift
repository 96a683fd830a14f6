import ArchiverCore
import Glibc
import Platform
import SystemPackage

/// `--test` of a zip: each central directory record compared with its member's local header (name,
/// method, CRC-32, sizes; the data descriptor's when the sizes follow the data), as 7-Zip's test does.
/// libarchive and unzip read a member by its local header, so a record that disagrees with it is damage
/// that reading the data alone never sees, and that Python's zipfile and 7-Zip refuse.
enum ZipHeaderCheck {
    /// The fields both headers carry.
    struct Fields: Equatable {
        var name: ArraySlice<UInt8>
        var method: Int
        var crc: UInt32
        var compressedSize: Int64
        var size: Int64
    }

    /// The entries of the single-file zip `archive` whose record and local header disagree, in the
    /// directory's order, each once; empty when there is no central directory to compare (libarchive's
    /// reading then finds what is wrong) or the file cannot be read.
    static func mismatches(_ archive: FilePath) -> [DamagedEntry] {
        let (descriptor, size, failure) = FileSystem.openForReading(archive)
        guard failure == nil else { return [] }
        defer { close(descriptor) }
        guard let end = ZipEndRecord(descriptor, size: size), let directory = end.directory(descriptor),
            let records = ZipDirectory.records(directory)
        else { return [] }
        var damaged: [DamagedEntry] = []
        for record in records {
            let at = record.at
            let central = Fields(
                name: directory[record.name], method: ZipDirectory.u16(directory, at + 10), crc: ZipDirectory.u32(directory, at + 16),
                compressedSize: Int64(ZipDirectory.u32(directory, at + 20)), size: Int64(ZipDirectory.u32(directory, at + 24)))
            let wide = ZipDirectory.zip64Field(directory, record: at)
            var checked = central
            if central.size == 0xFFFF_FFFF { checked.size = wide?.size ?? -1 }
            if central.compressedSize == 0xFFFF_FFFF { checked.compressedSize = wide?.compressedSize ?? -1 }
            var offset = Int64(ZipDirectory.u32(directory, at + 42))
            if offset == 0xFFFF_FFFF { offset = wide?.offset ?? -1 }
            let found: Found?
            if offset < 0 || checked.size < 0 || checked.compressedSize < 0 {
                found = (.headers, "its central directory record's Zip64 field is missing or short")
            } else {
                found = mismatch(checked, flags: ZipDirectory.u16(directory, at + 8), in: descriptor, headerAt: offset + end.shift)
            }
            if let found { damaged.append(DamagedEntry(path: Array(central.name).displayName, problem: found.problem, detail: found.detail)) }
        }
        return damaged
    }

    /// What is wrong, and the check's own words for it (English, the `detail` of the damaged entry).
    typealias Found = (problem: DamagedEntry.Problem, detail: String)

    /// What disagrees between `central` and the member whose local header is at `offset`; nil when nothing.
    private static func mismatch(_ central: Fields, flags: Int, in descriptor: Int32, headerAt offset: Int64) -> Found? {
        guard let fixed = FileSystem.bytes(descriptor, at: offset, count: 30), ZipDirectory.u32(fixed, 0) == 0x0403_4B50 else {
            return (.headers, "no local header where its central directory record says (\(offset))")
        }
        let nameLength = ZipDirectory.u16(fixed, 26), extraLength = ZipDirectory.u16(fixed, 28)
        guard let header = FileSystem.bytes(descriptor, at: offset, count: 30 + nameLength + extraLength) else {
            return (.headers, "its local header is cut off")
        }
        let local = localFields(header)
        let dataStart = offset + Int64(header.count)
        let sizesFollow = ZipDirectory.u16(header, 6) & 8 != 0
        if local.name != central.name { return (.headerMismatch, "its local header has another name") }
        if local.method != central.method {
            return (.headerMismatch, "its central directory says method \(central.method), its local header \(local.method)")
        }
        if sizesFollow {
            // The local header's CRC and sizes are (mostly) zeros: the data descriptor after the data has them.
            return descriptorMismatch(central, in: descriptor, at: dataStart + central.compressedSize)
        }
        return differences(central, local, where: "local header").map { (DamagedEntry.Problem.headerMismatch, $0) }
    }

    /// The name, method, CRC and sizes of a local header, Zip64's sizes read when the 32-bit ones overflow.
    static func localFields(_ header: [UInt8]) -> Fields {
        let nameLength = ZipDirectory.u16(header, 26), extraLength = ZipDirectory.u16(header, 28)
        var fields = Fields(
            name: header[30..<(30 + nameLength)], method: ZipDirectory.u16(header, 8), crc: ZipDirectory.u32(header, 14),
            compressedSize: Int64(ZipDirectory.u32(header, 18)), size: Int64(ZipDirectory.u32(header, 22)))
        guard fields.size == 0xFFFF_FFFF || fields.compressedSize == 0xFFFF_FFFF else { return fields }
        let extra = Array(header[(30 + nameLength)..<(30 + nameLength + extraLength)])
        guard let wide = ZipExtra.fields(extra).first(where: { $0.id == 1 })?.data else { return fields }
        // The specification puts both sizes in a local header's field; some writers only the overflowed ones.
        var values: [Int64] = stride(from: 0, to: wide.count - 7, by: 8).map { Int64(bitPattern: ZipDirectory.u64(wide, $0)) }
        if values.count >= 2 {
            (fields.size, fields.compressedSize) = (values[0], values[1])
        } else {
            if fields.size == 0xFFFF_FFFF, !values.isEmpty { fields.size = values.removeFirst() }
            if fields.compressedSize == 0xFFFF_FFFF, !values.isEmpty { fields.compressedSize = values.removeFirst() }
        }
        return fields
    }

    /// A data descriptor (its signature optional; sizes of 4 or 8 bytes, as the writer chose) at `at`,
    /// compared with `central`.
    private static func descriptorMismatch(_ central: Fields, in descriptor: Int32, at: Int64) -> Found? {
        var all = [UInt8](repeating: 0, count: 24)
        let got = all.withUnsafeMutableBytes { FileSystem.readFully(descriptor, into: $0.baseAddress!, count: 24, at: at) } ?? 0
        all.removeLast(24 - got)
        guard all.count >= 12 else { return (.headers, "its data descriptor is cut off") }
        let start = ZipDirectory.u32(all, 0) == 0x0807_4B50 ? 4 : 0
        func narrow() -> Fields? {
            guard start + 12 <= all.count else { return nil }
            return Fields(
                name: central.name, method: central.method, crc: ZipDirectory.u32(all, start),
                compressedSize: Int64(ZipDirectory.u32(all, start + 4)), size: Int64(ZipDirectory.u32(all, start + 8)))
        }
        func wide() -> Fields? {
            guard start + 20 <= all.count else { return nil }
            return Fields(
                name: central.name, method: central.method, crc: ZipDirectory.u32(all, start),
                compressedSize: Int64(bitPattern: ZipDirectory.u64(all, start + 4)), size: Int64(bitPattern: ZipDirectory.u64(all, start + 12)))
        }
        if narrow() == central || wide() == central { return nil }
        guard let found = narrow() else { return (.headers, "its data descriptor is cut off") }
        return (.headerMismatch, differences(central, found, where: "data descriptor") ?? "its data descriptor disagrees with its central directory record")
    }

    /// The first field in which `central` and `other` differ, said for the test's report.
    private static func differences(_ central: Fields, _ other: Fields, where place: String) -> String? {
        if central.crc != other.crc {
            return "its central directory says CRC-32 \(hex(central.crc)), its \(place) \(hex(other.crc))"
        }
        if central.compressedSize != other.compressedSize {
            return "its central directory says \(central.compressedSize) bytes packed, its \(place) \(other.compressedSize)"
        }
        if central.size != other.size {
            return "its central directory says \(central.size) bytes, its \(place) \(other.size)"
        }
        return nil
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}
