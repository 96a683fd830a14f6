internal import CZstd
import Glibc

/// Our own zstd compression between libarchive's tar stream and the output, in place of libarchive's
/// zstd filter, which cannot size zstd's jobs: its default for two workers holds about 55 MiB of buffers
/// at level 3. Jobs of 4 MiB hold about 30 MiB, make the archive about 0.2 % larger and keep both workers
/// busy (bench/RESULTS.md, "tar.zst creation").
///
/// The archive is written as frames of `frameSize` input each, which every zstd reader reads as one
/// stream: opened as a folder, an entry deep in it is decoded from its frame on, not from the start.
final class ZstdStage: CompressionStage {
    /// Input per frame: each frame starts without history, so a new one costs a little ratio and makes
    /// both workers wait for the last job; 32 MiB keeps both under 1 % (bench/RESULTS.md).
    static let frameSize = 32 << 20

    /// Job size for the usual levels; the high ones keep zstd's own (their window is larger than this).
    static let jobSize: Int32 = 4 << 20
    private static let jobSizeUpToLevel: Int32 = 9

    private let context: OpaquePointer
    private let output: UnsafeMutableRawBufferPointer
    private let sink: OutputSink
    /// Input taken since the current frame began, and whether a frame has been ended.
    private var inFrame = 0
    private var endedOne = false
    /// The errno of a failure: the sink's, or ENOMEM when zstd itself failed.
    private(set) var lastErrno: Int32 = 0

    init?(level: Int32, workers: Int, sink: OutputSink) {
        guard let context = ZSTD_createCCtx() else { return nil }
        self.context = context
        self.sink = sink
        output = .allocate(byteCount: ZSTD_CStreamOutSize(), alignment: 16)
        _ = ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, level)
        // Without worker threads (a zstd built single-threaded) this fails and zstd compresses in this thread.
        if workers > 1, ZSTD_isError(ZSTD_CCtx_setParameter(context, ZSTD_c_nbWorkers, Int32(workers))) == 0,
            level <= Self.jobSizeUpToLevel
        {
            _ = ZSTD_CCtx_setParameter(context, ZSTD_c_jobSize, Self.jobSize)
        }
    }

    deinit {
        ZSTD_freeCCtx(context)
        output.deallocate()
    }

    /// Compresses `input`; returns its length, or -1 on failure (`lastErrno` says why).
    func write(_ input: UnsafeRawBufferPointer) -> Int {
        var source = ZSTD_inBuffer(src: input.baseAddress, size: input.count, pos: 0)
        while source.pos < source.size {
            guard step(&source, ZSTD_e_continue) != nil else { return -1 }
        }
        inFrame += input.count
        if inFrame >= Self.frameSize {
            guard endFrame() else { return -1 }
        }
        return input.count
    }

    /// Ends the archive's last frame, unless the last write ended one with nothing after it.
    func end() -> Bool {
        inFrame == 0 && endedOne ? true : endFrame()
    }

    /// Ends the frame: the workers' last jobs and the frame's end go out.
    private func endFrame() -> Bool {
        (inFrame, endedOne) = (0, true)
        var source = ZSTD_inBuffer(src: nil, size: 0, pos: 0)
        while true {
            guard let remaining = step(&source, ZSTD_e_end) else { return false }
            if remaining == 0 { return true }
        }
    }

    /// One call of zstd, its output handed on whole. Returns what zstd says is left to flush.
    private func step(_ source: inout ZSTD_inBuffer, _ directive: ZSTD_EndDirective) -> Int? {
        var target = ZSTD_outBuffer(dst: output.baseAddress, size: output.count, pos: 0)
        let remaining = ZSTD_compressStream2(context, &target, &source, directive)
        if ZSTD_isError(remaining) != 0 {
            lastErrno = ENOMEM
            return nil
        }
        // The sink writes all of it or fails.
        guard sink.write(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(output)[..<target.pos])) >= 0 else {
            lastErrno = sink.lastErrno
            return nil
        }
        return remaining
    }
}
