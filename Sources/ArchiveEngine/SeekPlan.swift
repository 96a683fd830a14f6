import ArchiverCore
import SystemPackage

/// How an entry deep in a compressed tar is reached without decoding everything before it: the decoder
/// starts at the place the plan gives before the entry's header and hands out the tar from the header on.
public enum SeekPlan: Sendable {
    /// A tar.gz: ISA-L's state kept every few MiB of output.
    case gzip(GzipSeekPoints)
    /// A tar.xz of several Blocks: its own index, read again from the file.
    case xz(XzBlocks)
    /// A tar.zst of several frames: where they start.
    case zstd(ZstdFrames)
    /// A tar.bz2 of several blocks: where they lie, found while it was first read.
    case bzip2(BzipBlocks)
    /// A tar without compression (in one file or parts): any header is a place to start.
    case plain

    /// The uncompressed offset decoding for `offset` starts at.
    func start(for offset: Int64) -> Int64 {
        switch self {
        case .gzip(let points): points.start(for: offset)
        case .xz(let blocks): blocks.start(for: offset)
        case .zstd(let frames): frames.start(for: offset)
        case .bzip2(let blocks): blocks.start(for: offset)
        case .plain: offset
        }
    }

    /// The tar stream of `archive` from `offset` on.
    func stream(_ archive: FilePath, from offset: Int64) throws(ArchiverError) -> any ArchiveSource {
        switch self {
        case .gzip(let points): try GzipStream(archive, points: points, from: offset)
        case .xz(let blocks): try XzStream(archive, blocks: blocks, from: offset)
        case .zstd(let frames): try ZstdStream(archive, frames: frames, from: offset)
        case .bzip2(let blocks): try BzipStream(archive, blocks: blocks, from: offset)
        case .plain: try VolumeSource(VolumeSet.find(archive).parts, from: offset)
        }
    }
}

/// The plan in a kept index. An xz file's Blocks are read again from its own index, so they are not kept.
extension SeekPlan {
    private enum Kind: UInt8 {
        case none, gzip, zstd, plain, bzip2
    }

    static func encode(_ plan: SeekPlan?, into out: inout IndexBytes.Writer) {
        switch plan {
        case .gzip(let points):
            out.u8(Kind.gzip.rawValue)
            out.u32(GzipSeekPoints.decoderTag)
            out.u32(UInt32(points.points.count))
            for point in points.points {
                out.i64(point.input)
                out.i64(point.output)
                out.bytes(point.state)
                out.spill()
            }
        case .zstd(let frames):
            out.u8(Kind.zstd.rawValue)
            out.u32(UInt32(frames.frames.count))
            for frame in frames.frames {
                out.i64(frame.input)
                out.i64(frame.output)
            }
        case .bzip2(let blocks):
            out.u8(Kind.bzip2.rawValue)
            out.u32(UInt32(blocks.blocks.count))
            for block in blocks.blocks {
                out.i64(block.start)
                out.i64(block.end)
                out.i64(block.output)
                out.u8(block.level)
            }
        case .plain:
            out.u8(Kind.plain.rawValue)
        case .xz, nil:
            out.u8(Kind.none.rawValue)
        }
    }

    /// The plan read back: `.some(nil)` for none, nil for bytes that are not a plan (or another decoder's).
    static func decode(from input: inout IndexBytes.Reader, bound: Int) -> SeekPlan?? {
        guard let code = input.u8(), let kind = Kind(rawValue: code) else { return nil }
        switch kind {
        case .none:
            return .some(nil)
        case .plain:
            return .plain
        case .bzip2:
            guard let count = input.u32(), Int(count) <= bound / 25 else { return nil }
            var blocks: [BzipBlocks.Block] = []
            blocks.reserveCapacity(min(Int(count), 1 << 20))
            for _ in 0..<count {
                guard let start = input.i64(), let end = input.i64(), let output = input.i64(), let level = input.u8() else {
                    return nil
                }
                blocks.append(.init(start: start, end: end, output: output, level: level))
            }
            return BzipBlocks(blocks).map(SeekPlan.bzip2)
        case .gzip:
            guard input.u32() == GzipSeekPoints.decoderTag, let count = input.u32(), Int(count) <= bound else { return nil }
            var points: [GzipSeekPoints.Point] = []
            for _ in 0..<count {
                guard let start = input.i64(), let output = input.i64(), let state = input.bytes() else { return nil }
                points.append(.init(input: start, output: output, state: state))
            }
            return .gzip(GzipSeekPoints(points))
        case .zstd:
            guard let count = input.u32(), Int(count) <= bound / 16 else { return nil }
            var frames: [ZstdFrames.Frame] = []
            for _ in 0..<count {
                guard let start = input.i64(), let output = input.i64() else { return nil }
                frames.append(.init(input: start, output: output))
            }
            return .zstd(ZstdFrames(frames: frames))
        }
    }
}
