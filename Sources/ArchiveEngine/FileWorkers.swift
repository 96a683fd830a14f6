internal import CArchive
import ArchiverCore
import Glibc
import Platform
import Synchronization
import SystemPackage

/// A small file whose data has been read whole and checked (its CRC is only known after the last byte), waiting
/// to be created from a copy of its entry.
final class HeldFile {
    /// Where it goes (absolute, under the staging folder), and its name for messages.
    let path: [UInt8]
    let name: String
    /// Its place in the archive, which orders the warnings of files that failed.
    let order: Int
    private let storage: UnsafeMutableRawBufferPointer
    /// Its recorded size, reserved whole from the start: what it holds in memory, however much was read.
    let capacity: Int
    private(set) var byteCount = 0
    /// Where each block goes in the file (tar's sparse files leave holes) and where it sits in `storage`.
    private var blocks: [(offset: Int64, start: Int, count: Int)] = []
    /// The entry as it is to be written, copied when the file is handed to a worker.
    private var entry: OpaquePointer?

    /// - Parameter capacity: its recorded size; data beyond it is not held (a zip's size field may have wrapped).
    init(path: [UInt8], name: String, order: Int, capacity: Int) {
        (self.path, self.name, self.order, self.capacity) = (path, name, order, capacity)
        storage = .allocate(byteCount: max(1, capacity), alignment: 16)
    }

    deinit {
        storage.deallocate()
        if let entry { archive_entry_free(entry) }
    }

    /// Keeps a block of the data; false when it does not fit, and the file must be written as it is read.
    func add(_ buffer: UnsafeRawBufferPointer, at offset: Int64) -> Bool {
        guard buffer.count <= capacity - byteCount else { return false }
        if let base = buffer.baseAddress, buffer.count > 0 {
            (storage.baseAddress! + byteCount).copyMemory(from: base, byteCount: buffer.count)
        }
        blocks.append((offset, byteCount, buffer.count))
        byteCount += buffer.count
        return true
    }

    /// Takes a copy of `entry` (libarchive reuses its own for the next one). False when memory is out.
    /// The corresponding C function is `archive_entry_clone`.
    func keep(_ entry: OpaquePointer) -> Bool {
        self.entry = archive_entry_clone(entry)
        return self.entry != nil
    }

    /// Writes the data held through `disk`, whose current entry this file is; the message of the first block
    /// that fails.
    func writeData(through disk: borrowing DiskWriter, folder: String) throws(ArchiverError) -> String? {
        for block in blocks {
            let bytes = UnsafeRawBufferPointer(rebasing: storage[block.start..<(block.start + block.count)])
            if case .skipped(let message) = try disk.writeBlock(bytes, offset: block.offset, folder: folder) { return message }
        }
        return nil
    }

    /// Creates the file through `disk`: header, data, times and mode. The message when it failed alone; a file
    /// whose header was written is then removed, so that no half-written file is published under its name.
    fileprivate func create(through disk: borrowing DiskWriter, folder: String) throws(ArchiverError) -> String? {
        guard let entry else { return "out of memory" }
        if case .skipped(let message) = try disk.writeHeader(entry, folder: folder) { return message }
        var failed = try writeData(through: disk, folder: folder)
        if failed == nil, case .skipped(let message) = try disk.finishEntry(folder: folder) { failed = message }
        if failed != nil { FileSystem.removeTree(FilePath(bytes: path)) }
        return failed
    }
}

/// Threads that create small files while the extracting thread reads on (issue 32): extracting many small files
/// is bound by the kernel's file creation (open, write, chmod, utimens, close: ~0.37 ms a file here, bsdtar's
/// too), which several threads do side by side. Each worker writes through a libarchive disk writer of its own,
/// with the same safety flags, from inside the staging folder, with a current folder and umask of its own
/// (`unshare(CLONE_FS)`): libarchive sets the umask to 0 for a moment in every header it writes, which would
/// otherwise reach the files other threads create. Where a thread cannot have its own, there are no workers.
///
/// Order is kept by the reader: a path that a worker may still be writing (the file itself, a folder above it
/// or below) is touched by nothing else, on the reader or another worker, until every worker is through
/// (`settle`, `hand`). At most a few MiB of data wait. A stop that cannot wait for the reader halts the workers
/// before it removes the staging folder (`PendingOutputs.register(writers:)`).
///
/// Unchecked: the state the threads share is under `lock`; the pending paths are the reader's alone.
final class FileWorkers: @unchecked Sendable {
    /// Files up to this size are held and written by a worker; larger ones are written as they are read.
    static let largestHeld = 1 << 20
    private static let queuedBytesLimit = 4 << 20
    /// Few enough that waiting for all of them stays far below the stall watch's 10 s on a slow disk.
    private static let queuedFilesLimit = 64
    /// Paths handed out since the workers were last waited for; past this many they are waited for, so that
    /// the record stays small (a drain costs a moment's overlap, not a file's creation).
    private static let pathsLimit = 4096

    private let staging: [UInt8]
    private let folder: String
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var threads: [pthread_t] = []
    private var haltToken: Int?

    /// Files the worker threads (not the reader) are creating now: what `halt` waits for. Atomic, so that a halt
    /// whose reader was parked holding `lock` can still wait for them.
    private let workersBusy = Atomic<Int>(0)

    // Shared, under `lock`.
    private var queue: [HeldFile] = []
    /// The capacity reserved by the files queued (each holds its recorded size from the start).
    private var queuedBytes = 0
    /// Files being created now, by a worker or by the reader helping.
    private var busy = 0
    private var reported = 0
    private var unavailable = false
    private var stopping = false
    private var failure: ArchiverError?
    private var written = 0
    private var failures: [(order: Int, name: String, message: String)] = []

    // The reader's own: what was handed out since the workers were last through.
    private var pendingFiles: Set<[UInt8]> = []
    private var pendingFolders: Set<[UInt8]> = []

    private init(staging: FilePath, folder: String) {
        self.staging = staging.bytes
        self.folder = folder
        pthread_mutex_init(lock, nil)
        pthread_cond_init(changed, nil)
    }

    deinit {
        stop()
        pthread_cond_destroy(changed)
        pthread_mutex_destroy(lock)
        lock.deallocate()
        changed.deallocate()
    }

    /// Starts `count` workers writing into `staging`, and returns once each has its writer; nil when any could
    /// not (no thread, or none with a folder and umask of its own).
    /// - Parameter folder: the destination, as errors name it.
    static func start(count: Int, staging: FilePath, folder: String) -> FileWorkers? {
        let workers = FileWorkers(staging: staging, folder: folder)
        for _ in 0..<count {
            var thread = pthread_t()
            let made = pthread_create(&thread, nil, { context in
                Unmanaged<FileWorkers>.fromOpaque(context!).takeUnretainedValue().work()
                return nil
            }, Unmanaged.passUnretained(workers).toOpaque())
            guard made == 0 else { break }
            workers.threads.append(thread)
        }
        // Until each worker has its own umask it shares the caller's, which the caller's next header would
        // set to 0 for a moment: nothing is written before all have answered.
        let ready = workers.withLock {
            while workers.reported < workers.threads.count { pthread_cond_wait(workers.changed, workers.lock) }
            return !workers.unavailable && workers.threads.count == count
        }
        guard ready else {
            workers.stop()
            return nil
        }
        workers.haltToken = PendingOutputs.register(writers: { [weak workers] in workers?.halt() })
        return workers
    }

    /// Queues `file` for a worker, after waiting for the workers when it could meet a file still being written.
    /// While the queue is full the reader creates its oldest file itself, through `disk`, rather than wait. (The
    /// stall watch counts the reading thread's own reads and writes, and what the workers and `ReadAhead`'s
    /// thread report through `PendingOutputs.noteProgress`.)
    /// - Throws: what stopped a worker (a full disk…); the extraction then fails as it would on one thread.
    func hand(_ file: HeldFile, helping disk: borrowing DiskWriter) throws(ArchiverError) {
        if conflicts(file.path) || pendingFiles.count >= Self.pathsLimit { try drain(helping: disk) }
        pendingFiles.insert(file.path)
        forEachFolder(above: file.path) { pendingFolders.insert($0) }
        while true {
            let (stopped, oldest): (ArchiverError?, HeldFile?) = withLock {
                if let failure { return (failure, nil) }
                if queue.count >= Self.queuedFilesLimit || (!queue.isEmpty && queuedBytes + file.capacity > Self.queuedBytesLimit) {
                    return (nil, take())
                }
                queue.append(file)
                queuedBytes += file.capacity
                pthread_cond_broadcast(changed)
                return (nil, nil)
            }
            if let stopped { throw stopped }
            guard let oldest else { return }
            create(oldest, through: disk)
        }
    }

    /// Waits for the workers (helping them, through `disk`) before the reader writes `path` itself, if one may
    /// still be writing it, a folder above it, or something inside it; `always` waits anyway (links, whose
    /// targets must exist).
    func settle(before path: [UInt8], always: Bool, helping disk: borrowing DiskWriter) throws(ArchiverError) {
        if always || conflicts(path) { try drain(helping: disk) }
    }

    /// Waits for every file handed out (helping, through `disk`), stops the workers and closes their writers.
    /// - Returns: how many files were created, and those that failed alone, in archive order.
    /// - Throws: what stopped a worker.
    func finish(helping disk: borrowing DiskWriter) throws(ArchiverError) -> (written: Int, failures: [(name: String, message: String)]) {
        try drain(helping: disk)
        stop()
        return (written, failures.sorted { $0.order < $1.order }.map { (name: $0.name, message: $0.message) })
    }

    /// Drops what is queued and ends the threads (once they are through with the file each is creating).
    func stop() {
        guard !threads.isEmpty else { return }
        withLock {
            stopping = true
            queue.removeAll()
            queuedBytes = 0
            pthread_cond_broadcast(changed)
        }
        for thread in threads { pthread_join(thread, nil) }
        threads = []
        if let haltToken { PendingOutputs.forget(writers: haltToken) }
        haltToken = nil
    }

    /// Stops the workers from another thread, for a stop that cannot wait for the reader: nothing more is
    /// created once each worker is through with the file it is creating, which is waited for up to a second.
    /// The reader is parked then: a file it was creating itself is not waited for (it goes no further), and
    /// when it was parked holding the lock (held only for an instant otherwise), no worker can take another
    /// file either, so only those being created are waited for, without the lock.
    private func halt() {
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        var soon = deadline
        deadline.tv_sec += 1
        soon.tv_nsec += 100_000_000
        if soon.tv_nsec >= 1_000_000_000 { (soon.tv_sec, soon.tv_nsec) = (soon.tv_sec + 1, soon.tv_nsec - 1_000_000_000) }
        guard pthread_mutex_timedlock(lock, &soon) == 0 else {
            var now = timespec()
            var pause = timespec(tv_sec: 0, tv_nsec: 5_000_000)
            while workersBusy.load(ordering: .acquiring) > 0 {
                clock_gettime(CLOCK_REALTIME, &now)
                if now.tv_sec > deadline.tv_sec || (now.tv_sec == deadline.tv_sec && now.tv_nsec >= deadline.tv_nsec) { break }
                nanosleep(&pause, nil)
            }
            return
        }
        defer { pthread_mutex_unlock(lock) }
        stopping = true
        queue.removeAll()
        queuedBytes = 0
        pthread_cond_broadcast(changed)
        while workersBusy.load(ordering: .acquiring) > 0, pthread_cond_timedwait(changed, lock, &deadline) == 0 {}
    }

    /// Returns once every file handed out is created: the reader creates queued ones itself meanwhile.
    private func drain(helping disk: borrowing DiskWriter) throws(ArchiverError) {
        while true {
            let (stopped, oldest, done): (ArchiverError?, HeldFile?, Bool) = withLock {
                while failure == nil, queue.isEmpty, busy > 0 { pthread_cond_wait(changed, lock) }
                if let failure { return (failure, nil, true) }
                return queue.isEmpty ? (nil, nil, true) : (nil, take(), false)
            }
            if let stopped { throw stopped }
            if done { break }
            if let oldest { create(oldest, through: disk) }
        }
        pendingFiles.removeAll(keepingCapacity: true)
        pendingFolders.removeAll(keepingCapacity: true)
    }

    /// Whether a worker may still be writing `path`, a folder above it, or something inside it.
    private func conflicts(_ path: [UInt8]) -> Bool {
        guard !pendingFiles.isEmpty else { return false }
        if pendingFiles.contains(path) || pendingFolders.contains(path) { return true }
        var above = false
        forEachFolder(above: path) { if pendingFiles.contains($0) { above = true } }
        return above
    }

    /// Calls `body` with each folder above `path` inside the staging folder, nearest the top first.
    private func forEachFolder(above path: [UInt8], _ body: ([UInt8]) -> Void) {
        var index = staging.count + 1
        while index < path.count {
            if path[index] == UInt8(ascii: "/") { body(Array(path[..<index])) }
            index += 1
        }
    }

    /// A worker: its own writer in the staging folder, then files from the queue until `stop`.
    private func work() {
        let disk: DiskWriter
        do {
            disk = try DiskWriter(workingFolder: FilePath(bytes: staging))
        } catch {
            report(ready: false)
            return
        }
        guard disk.ownsWorkingFolder else {
            report(ready: false)
            return
        }
        report(ready: true)
        while let file = next() { create(file, through: disk, byWorker: true) }
    }

    /// Creates `file` (taken from the queue, counted in `busy`, and in `workersBusy` when `byWorker`) and records
    /// how it went.
    private func create(_ file: HeldFile, through disk: borrowing DiskWriter, byWorker: Bool = false) {
        var message: String?
        var fatal: ArchiverError?
        do throws(ArchiverError) {
            message = try file.create(through: disk, folder: folder)
        } catch {
            fatal = error
        }
        // Counted for the stall watch, which sees only the reading thread's own reads and writes.
        PendingOutputs.noteProgress(1 + file.byteCount)
        // Before the lock, which a parked reader may hold: `halt` waits for this.
        if byWorker { workersBusy.subtract(1, ordering: .releasing) }
        withLock {
            busy -= 1
            if let fatal {
                if failure == nil { failure = fatal }
            } else if let message {
                failures.append((file.order, file.name, message))
            } else {
                written += 1
            }
            pthread_cond_broadcast(changed)
        }
    }

    private func report(ready: Bool) {
        withLock {
            reported += 1
            if !ready { unavailable = true }
            pthread_cond_broadcast(changed)
        }
    }

    /// The next file to create; nil once stopped or once any worker failed.
    private func next() -> HeldFile? {
        withLock {
            while queue.isEmpty, !stopping, failure == nil { pthread_cond_wait(changed, lock) }
            guard !stopping, failure == nil else { return nil }
            workersBusy.add(1, ordering: .relaxed)
            return take()
        }
    }

    /// The oldest queued file, now counted as being created. Under `lock`, with the queue not empty.
    private func take() -> HeldFile {
        let file = queue.removeFirst()
        queuedBytes -= file.capacity
        busy += 1
        pthread_cond_broadcast(changed)
        return file
    }

    private func withLock<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return body()
    }
}
