import Glibc
import Platform

/// Runs a decoding source on a thread of its own, a few blocks ahead of libarchive: while the extractor
/// writes files, the next megabytes are already being inflated on the other core, instead of one after the
/// other as libarchive's own filters do. Used for whole passes over an archive (extracting, listing);
/// reads from a seek point decode only what they need and stay on the caller's thread.
final class ReadAhead: ArchiveSource {
    private static let slotSize = 1 << 20
    private static let slotCount = 4

    private let inner: any ArchiveSource
    private let buffers = UnsafeMutableRawBufferPointer.allocate(byteCount: slotSize * slotCount, alignment: 64)
    private var lengths = [Int](repeating: 0, count: slotCount)
    private var consumedAfter = [Int64?](repeating: nil, count: slotCount)
    /// The oldest filled slot and how many are filled; all shared state is guarded by `lock`.
    private var head = 0
    private var filled = 0
    /// Whether the caller still reads the slot at `head`, handed out by the last `read()`.
    private var holding = false
    private var innerEnded = false
    private var innerFailed = false
    private var stopping = false
    private var lastConsumed: Int64?
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var thread = pthread_t()
    private var started = false
    private var joined = false

    let total: Int64
    var lastErrno: Int32 { withLock { innerEnded ? inner.lastErrno : 0 } }
    var lastMessage: String { withLock { innerEnded ? inner.lastMessage : "" } }
    var consumed: Int64? { started ? withLock { lastConsumed } : inner.consumed }
    var filterName: String? { inner.filterName }
    /// The inner source's plan. Asked for once the reading is over (the tar's end may come before the
    /// file's): it ends the thread, which may still be writing the plan.
    var seekPlan: SeekPlan? {
        stop()
        return inner.seekPlan
    }

    /// Starts decoding `inner` at once; without a thread (none could be made) it is read in the caller's.
    init(_ inner: any ArchiveSource) {
        self.inner = inner
        total = inner.total
        pthread_mutex_init(lock, nil)
        pthread_cond_init(changed, nil)
        started = pthread_create(&thread, nil, { context in
            Unmanaged<ReadAhead>.fromOpaque(context!).takeUnretainedValue().produce()
            return nil
        }, Unmanaged.passUnretained(self).toOpaque()) == 0
        // Read in the caller's thread, `inner` answers for itself.
        if !started { innerEnded = true }
    }

    deinit {
        stop()
        pthread_cond_destroy(changed)
        pthread_mutex_destroy(lock)
        lock.deallocate()
        changed.deallocate()
        buffers.deallocate()
    }

    func read() -> (UnsafeRawPointer?, Int) {
        guard started else { return inner.read() }
        return withLock {
            if holding {
                head = (head + 1) % Self.slotCount
                filled -= 1
                holding = false
                pthread_cond_broadcast(changed)
            }
            while filled == 0, !innerEnded { pthread_cond_wait(changed, lock) }
            guard filled > 0 else { return (UnsafeRawPointer(buffers.baseAddress), innerFailed ? -1 : 0) }
            holding = true
            lastConsumed = consumedAfter[head]
            return (UnsafeRawPointer(buffers.baseAddress! + head * Self.slotSize), lengths[head])
        }
    }

    /// Ends the thread; from then on `inner` answers for itself, and nothing more is read.
    private func stop() {
        guard started, !joined else { return }
        withLock {
            stopping = true
            pthread_cond_broadcast(changed)
        }
        pthread_join(thread, nil)
        joined = true
        withLock { (innerEnded, filled, holding) = (true, 0, false) }
    }

    /// The thread's work: each block of `inner` copied into free slots, until its end, a failure, or `deinit`.
    /// A decoder decodes straight into them instead: the copy was 5–9 % of the CPU of a tar.zst's test (perf).
    private func produce() {
        if let decoder = inner as? any TarDecoder, decoder.position >= decoder.handOutFrom {
            return produce(decoding: decoder)
        }
        while true {
            let (start, count) = inner.read()
            guard count > 0, let start else {
                withLock {
                    (innerEnded, innerFailed) = (true, count < 0)
                    pthread_cond_broadcast(changed)
                }
                return
            }
            // The stall watch does not see this thread's reads: counted for it.
            PendingOutputs.noteProgress(count)
            var copied = 0
            while copied < count {
                let slot: Int? = withLock {
                    while filled == Self.slotCount, !stopping { pthread_cond_wait(changed, lock) }
                    return stopping ? nil : (head + filled) % Self.slotCount
                }
                guard let slot else { return }
                let length = min(Self.slotSize, count - copied)
                (buffers.baseAddress! + slot * Self.slotSize).copyMemory(from: start + copied, byteCount: length)
                copied += length
                let after = inner.consumed
                withLock {
                    (lengths[slot], consumedAfter[slot]) = (length, after)
                    filled += 1
                    pthread_cond_broadcast(changed)
                }
            }
        }
    }

    /// Fills each free slot with `decoder`'s next bytes, until its end, a failure, or `deinit`.
    private func produce(decoding decoder: any TarDecoder) {
        while true {
            let slot: Int? = withLock {
                while filled == Self.slotCount, !stopping { pthread_cond_wait(changed, lock) }
                return stopping ? nil : (head + filled) % Self.slotCount
            }
            guard let slot else { return }
            let produced = decoder.read(into: UnsafeMutableRawBufferPointer(start: buffers.baseAddress! + slot * Self.slotSize, count: Self.slotSize))
            let after = inner.consumed
            withLock {
                if let produced, produced > 0 {
                    (lengths[slot], consumedAfter[slot]) = (produced, after)
                    filled += 1
                } else {
                    (innerEnded, innerFailed) = (true, produced == nil)
                }
                pthread_cond_broadcast(changed)
            }
            guard let produced, produced > 0 else { return }
        }
    }

    private func withLock<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return body()
    }
}
