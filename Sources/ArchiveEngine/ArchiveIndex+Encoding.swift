import ArchiverCore
import Glibc
import SystemPackage

/// The index as bytes for `IndexCache`, and back. Unreadable bytes (another version, cut short) give nil.
extension ArchiveIndex {
    static let codecVersion: UInt32 = 5

    /// Nil for an index with a password: its tree is not kept where the password is not.
    func encoded() -> [UInt8]? {
        var data: [UInt8] = []
        return encode { piece in
            data += piece
            return true
        } ? data : nil
    }

    /// Writes the index in pieces of about a MiB to `sink`, so that a million entries are never held
    /// twice. False for an index with a password, or when `sink` fails.
    func encode(to sink: (ArraySlice<UInt8>) -> Bool) -> Bool {
        guard password == nil else { return false }
        return withoutActuallyEscaping(sink) { sink in
            var out = IndexBytes.Writer(sink: sink)
            write(into: &out)
            return out.finish()
        }
    }

    private func write(into out: inout IndexBytes.Writer) {
        out.u32(Self.codecVersion)
        out.u8(isStream ? 1 : 0)
        out.u8(zipDirect ? 1 : 0)
        out.optionalBytes(nameEncoding.map { Array($0.utf8) })
        out.u32(UInt32(refused.count))
        for text in refused { out.bytes(Array(text.english.utf8)) }
        out.u32(UInt32(nodes.count))
        for node in nodes {
            out.u32(node.nameStart)
            out.u32(node.nameLength)
            out.u8(node.kind.rawValue)
            out.u32(UInt32(node.mode))
            out.u32(node.entryNumber)
            out.i64(node.size)
            out.i64(node.modified)
            out.u32(node.rangeStart)
            out.u32(node.rangeCount)
            out.spill()
        }
        out.bytes(names)
        out.u32(UInt32(children.count))
        for child in children {
            out.u32(child)
            out.spill()
        }
        SeekPlan.encode(seekPlan, into: &out)
        out.u32(UInt32(entryOffsets.count))
        for offset in entryOffsets {
            out.i64(offset)
            out.spill()
        }
    }

    static func decoded(_ data: [UInt8], archive: FilePath) -> ArchiveIndex? {
        decoded(from: IndexBytes.Reader(data), archive: archive)
    }

    /// Counts are checked against what they could be, so that damaged bytes cannot ask for a huge array.
    static func decoded(from reader: IndexBytes.Reader, archive: FilePath) -> ArchiveIndex? {
        var input = reader
        // What a kept index can hold at most once decompressed.
        let bound = Int(IndexCache.limit) * 4
        guard input.u32() == codecVersion, let stream = input.u8(), let zipDirect = input.u8(), let encoding = input.optionalBytes(),
            let refusedCount = input.u32(), Int(refusedCount) <= bound
        else { return nil }
        var refused: [Text] = []
        for _ in 0..<refusedCount {
            guard let text = input.bytes() else { return nil }
            refused.append(.verbatim(String(decoding: text, as: UTF8.self)))
        }
        guard let count = input.u32(), count > 0, Int(count) <= bound / 37 else { return nil }
        var tree = ArchiveTree.Parts()
        tree.nodes.reserveCapacity(min(Int(count), 1 << 20))
        for _ in 0..<count {
            guard let nameStart = input.u32(), let nameLength = input.u32(), let kindCode = input.u8(),
                let kind = Node.Kind(rawValue: kindCode), let mode = input.u32(), mode <= 0o7777, let entry = input.u32(),
                let size = input.i64(), let modified = input.i64(), let rangeStart = input.u32(), let rangeCount = input.u32()
            else { return nil }
            tree.nodes.append(Node(
                nameStart: nameStart, nameLength: nameLength, kind: kind, mode: UInt16(mode), entryNumber: entry, size: size,
                modified: modified, rangeStart: rangeStart, rangeCount: rangeCount))
        }
        guard let names = input.bytes(), let childCount = input.u32(), Int(childCount) <= bound / 4 else { return nil }
        tree.names = names
        tree.children.reserveCapacity(min(Int(childCount), 1 << 20))
        for _ in 0..<childCount {
            guard let child = input.u32(), child < count else { return nil }
            tree.children.append(child)
        }
        // Every range must lie inside what it points into: a damaged file must not make a lookup trap.
        for node in tree.nodes {
            guard UInt64(node.nameStart) + UInt64(node.nameLength) <= UInt64(names.count) else { return nil }
            let limit = node.kind == .directory ? tree.children.count : node.kind == .symlink ? names.count : Int.max
            guard UInt64(node.rangeStart) + UInt64(node.rangeCount) <= UInt64(limit) else { return nil }
        }
        guard let seekPlan = SeekPlan.decode(from: &input, bound: bound), let offsetCount = input.u32(), Int(offsetCount) <= bound / 8 else { return nil }
        var offsets: [Int64] = []
        offsets.reserveCapacity(min(Int(offsetCount), 1 << 20))
        for _ in 0..<offsetCount {
            guard let offset = input.i64() else { return nil }
            offsets.append(offset)
        }
        guard input.isAtEnd else { return nil }
        return ArchiveIndex(
            tree: tree, refused: refused, nameEncoding: encoding.map { String(decoding: $0, as: UTF8.self) },
            archive: archive, password: nil, isStream: stream == 1, seekPlan: seekPlan, entryOffsets: offsets,
            zipDirect: zipDirect == 1)
    }
}
