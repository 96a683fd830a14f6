import ArchiverCore
import Dispatch
import Glibc
import Platform
import Synchronization
import SystemPackage

/// Where a batch is, for progress displays: `12 of 48`, the current file, MB saved so far.
public struct PhotoProgress: Sendable {
    public var finished: Int
    public var total: Int
    /// Input bytes of the finished files, and of all files (for the ETA).
    public var bytesDone: Int64
    public var bytesTotal: Int64
    /// Input bytes minus output bytes of the finished files.
    public var saved: Int64
    /// The file a worker has just started.
    public var current: [UInt8]
    /// Its whole path.
    public var currentPath: FilePath? = nil
    /// Photos (not Live-Photo videos) finished, failed ones and those of a resumed run included, of all.
    public var photosFinished = 0
    public var photosTotal = 0
    /// Seconds left, from this run's pace (pauses not counted); nil before the first photo is finished.
    public var remaining: Double? = nil
}

/// What happened to one file.
public struct PhotoItem: Sendable {
    public enum Outcome: String, Sendable {
        /// A smaller copy was made.
        case compressed
        /// The copy would not have been smaller: the original's bytes were copied (or, with `--replace`, left).
        case kept
        /// A Live Photo's video, copied unchanged.
        case companion
    }
    public var source: FilePath
    public var output: FilePath
    public var inputBytes: Int64
    public var outputBytes: Int64
    public var outcome: Outcome
    /// The original's upright dimensions and the copy's (0 for a Live Photo's video, or when unknown).
    public var width = 0
    public var height = 0
    public var outWidth = 0
    public var outHeight = 0
}

/// What a batch tells as it goes, besides its progress.
public struct PhotoBatchEvents: Sendable {
    /// A file is finished: its copy, or why it failed. Called one at a time, with the progress calls.
    public var finished: (@Sendable (PhotoJob, Result<PhotoItem, ArchiverError>) -> Void)?
    /// A pause has taken effect: every photo in hand is finished and the workers wait.
    public var paused: (@Sendable () -> Void)?

    public init(finished: (@Sendable (PhotoJob, Result<PhotoItem, ArchiverError>) -> Void)? = nil, paused: (@Sendable () -> Void)? = nil) {
        self.finished = finished
        self.paused = paused
    }
}

/// The outcome of a batch: the files done, those that failed (the rest went on), and why it stopped early.
public struct PhotoBatchResult: Sendable {
    public var items: [PhotoItem] = []
    public var failures: [ArchiverError] = []
    /// Cancelled or out of time: the files already finished are kept.
    public var stopped: ArchiverError?
    /// Photos a resumed run found finished already (in the journal, their copies intact), not redone.
    public var resumed = 0

    public var photos: [PhotoItem] { items.filter { $0.outcome != .companion } }
    public var inputBytes: Int64 { photos.reduce(0) { $0 + $1.inputBytes } }
    public var outputBytes: Int64 { photos.reduce(0) { $0 + $1.outputBytes } }
}

/// Runs a plan: each worker takes the next file, writes its copy under a hidden temporary name in the
/// destination folder and renames it into place. A failed photo is recorded and the batch goes on; a
/// cancellation stops every worker after its current photo, whose copy is removed.
public enum PhotoBatch {
    /// - Parameters:
    ///   - workers: photos decoded at once (each with one libvips thread); nil is `defaultWorkers`.
    ///   - trash: moves an original to the desktop trash (`--replace`); called once its copy is ready.
    ///   - progress: called from the workers, one call at a time.
    ///   - journal: records each finished file before its copy takes its final name (`--resume`).
    ///   - done: files a previous run of this batch finished (from its journal): skipped.
    /// While `control` is paused, the workers finish the photo in hand and wait; a cancellation ends the wait.
    public static func run(
        _ plan: PhotoPlan, options: PhotoOptions, control: JobControl, workers: Int? = nil,
        journal: PhotoJournal? = nil, done: [FilePath: PhotoJournal.Entry] = [:], events: PhotoBatchEvents = PhotoBatchEvents(),
        trash: @escaping @Sendable (FilePath) throws(ArchiverError) -> Void,
        progress: @escaping @Sendable (PhotoProgress) -> Void
    ) throws(ArchiverError) -> PhotoBatchResult {
        PendingOutputs.beginJob()
        defer { PendingOutputs.endJob() }
        try PhotoCodec.start()
        let jobs = plan.jobs.filter { done[$0.source] == nil }
        let resumed = plan.jobs.filter { $0.kind == .photo && done[$0.source] != nil }
        var initial = State(total: jobs.count, bytesTotal: jobs.reduce(0) { $0 + $1.bytes })
        initial.photosTotal = plan.photoCount
        initial.photosFinished = resumed.count
        initial.saved = resumed.reduce(0) { $0 + (done[$1.source].map { $0.inputSize - $0.size } ?? 0) }
        initial.result.resumed = resumed.count
        let state = Mutex(initial)
        let count = max(1, min(workers ?? defaultWorkers, jobs.count))
        let folders = FolderPreparer()
        let claims = NameClaims()
        // Progress displays are not thread-safe: one call at a time, outside the state lock so that a slow
        // notification never holds up the other worker's next photo. Two workers finishing together take their
        // snapshots in order but may report them the other way round: a snapshot older than one already
        // reported (fewer finished) would take the count back, and the batch could end saying 3 of 4.
        let reporting = Mutex(0)
        let report: @Sendable (PhotoProgress) -> Void = { snapshot in
            reporting.withLock { reported in
                guard snapshot.finished >= reported else { return }
                reported = snapshot.finished
                progress(snapshot)
            }
        }
        DispatchQueue.concurrentPerform(iterations: count) { _ in
            while true {
                let next: Next = state.withLock { state in
                    guard state.stopped == nil, state.next < jobs.count else { return .none }
                    // Paused: nothing new is started; the last worker to finish its photo says so.
                    if control.isPaused, !control.isCancelled {
                        guard state.inHand == 0, state.announcedPause != control.pauseNumber else { return .wait(announce: false) }
                        state.announcedPause = control.pauseNumber
                        return .wait(announce: true)
                    }
                    do throws(ArchiverError) {
                        try control.check()
                    } catch {
                        state.stopped = error
                        return .none
                    }
                    defer { state.next += 1 }
                    state.inHand += 1
                    return .job(state.next, state.progress(current: jobs[state.next].source, control: control))
                }
                let index: Int
                switch next {
                case .none: return
                case .wait(let announce):
                    if announce, let paused = events.paused { reporting.withLock { _ in paused() } }
                    usleep(20_000)
                    continue
                case .job(let taken, let started):
                    index = taken
                    report(started)
                }
                let job = jobs[index]
                let outcome: Result<PhotoItem?, ArchiverError>
                do throws(ArchiverError) {
                    outcome = .success(try handle(
                        job, options: options, control: control, folders: folders, claims: claims, journal: journal,
                        trash: trash))
                } catch {
                    outcome = .failure(error)
                }
                let finished: PhotoProgress? = state.withLock { state in
                    state.inHand -= 1
                    switch outcome {
                    case .success(let item?):
                        state.result.items.append(item)
                        state.finish(job)
                        state.saved += item.inputBytes - item.outputBytes
                    case .success(nil): break  // stopped: the copy in progress was removed
                    case .failure(let error) where error.code == .cancelled || error.code == .budget:
                        state.stopped = state.stopped ?? error
                    case .failure(let error):
                        state.result.failures.append(error)
                        state.finish(job)
                    }
                    return state.progress(current: job.source, control: control)
                }
                // The photo's own event first, then the progress that counts it.
                if let told = events.finished {
                    switch outcome {
                    case .success(let item?): reporting.withLock { _ in told(job, .success(item)) }
                    case .failure(let error) where error.code != .cancelled && error.code != .budget:
                        reporting.withLock { _ in told(job, .failure(error)) }
                    default: break
                    }
                }
                if let finished { report(finished) }
            }
        }
        // A mirror folder that got nothing (all failed, or cancelled first) is not left behind.
        plan.removeEmptyFolders()
        return state.withLock { state in
            var result = state.result
            result.stopped = state.stopped
            // Workers finish out of order; a person reads the list in the order of the files.
            let order = Dictionary(jobs.enumerated().map { ($1.source, $0) }, uniquingKeysWith: { a, _ in a })
            result.items.sort { (order[$0.source] ?? 0) < (order[$1.source] ?? 0) }
            return result
        }
    }

    /// One photo per core, at most 4: each holds one decoded photo, so memory stays bounded.
    /// One more worker than cores (at most 4): while one waits on the disk, the cores stay busy. Measured
    /// on the phone set with 2 cores: 1.91 s with 2 workers, 1.67 s with 3; peak RSS 155 MB either way.
    public static var defaultWorkers: Int { max(1, min(Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) + 1, 4)) }

    private enum Next {
        case job(Int, PhotoProgress)
        /// Paused; `announce`: this worker tells that the pause has taken effect.
        case wait(announce: Bool)
        case none
    }

    private struct State {
        var total: Int
        var bytesTotal: Int64
        var next = 0
        var finished = 0
        var bytesDone: Int64 = 0
        var saved: Int64 = 0
        var photosTotal = 0
        var photosFinished = 0
        /// Photos being worked on now.
        var inHand = 0
        /// The pause (`JobControl.pauseNumber`) already announced.
        var announcedPause = 0
        var stopped: ArchiverError?
        var result = PhotoBatchResult()

        mutating func finish(_ job: PhotoJob) {
            finished += 1
            bytesDone += job.bytes
            if job.kind == .photo { photosFinished += 1 }
        }

        func progress(current: FilePath, control: JobControl) -> PhotoProgress {
            PhotoProgress(finished: finished, total: total, bytesDone: bytesDone, bytesTotal: bytesTotal, saved: saved,
                          current: current.lastComponent?.bytes ?? [], currentPath: current, photosFinished: photosFinished,
                          photosTotal: photosTotal,
                          remaining: PhotoBatch.remaining(done: bytesDone, total: bytesTotal, seconds: control.workingSeconds))
        }
    }

    /// Seconds left at the pace so far (bytes of input per working second); nil before anything is done.
    static func remaining(done: Int64, total: Int64, seconds: Double) -> Double? {
        guard done > 0, seconds > 0 else { return nil }
        return max(0, Double(total - done) * seconds / Double(done))
    }

    /// One file. Returns nil when the job was stopped while it ran (its copy removed).
    private static func handle(
        _ job: PhotoJob, options: PhotoOptions, control: JobControl, folders: FolderPreparer, claims: NameClaims,
        journal: PhotoJournal?, trash: (FilePath) throws(ArchiverError) -> Void
    ) throws(ArchiverError) -> PhotoItem? {
        try folders.prepare(job.folder)
        // stat, not lstat: a link the person chose stands for its target (size, times, permissions).
        var original = stat()
        guard job.source.withPlatformString({ stat($0, &original) }) == 0 else {
            throw ArchiverError(.inputUnreadable, tr("“%@” has disappeared.", job.source), file: job.source)
        }
        let pending = try PendingFile(in: job.folder)
        defer { withExtendedLifetime(pending) {} }  // its clean-up lives until this photo is done
        let temporary = pending.path

        var outcome = PhotoItem.Outcome.companion
        var name = job.name
        var dimensions = (width: 0, height: 0, outWidth: 0, outHeight: 0)
        if job.kind == .companion {
            try copyFile(job.source, to: temporary)
        } else {
            outcome = .compressed
            // The header only, for the before/after figures; a photo it cannot read fails just below.
            if let header = try? PhotoCodec.header(job.source) { (dimensions.width, dimensions.height) = (header.width, header.height) }
            do throws(ArchiverError) {
                (dimensions.outWidth, dimensions.outHeight) = try PhotoCodec.compress(job.source, to: temporary, options: options)
            } catch {
                // A disk that is full fails every photo alike: say so rather than call them corrupt.
                if let space = FileSystem.freeSpace(job.folder), space < 1 << 20 {
                    throw FileSystem.destinationError(ENOSPC, job.folder)
                }
                throw error
            }
            let size = FileSystem.status(temporary).map { Int64($0.st_size) } ?? .max
            // Never worse: a copy that is not smaller is the original itself. Not when the location must go:
            // the original still holds it.
            if size >= Int64(original.st_size), !options.stripLocation {
                outcome = .kept
                (dimensions.outWidth, dimensions.outHeight) = (dimensions.width, dimensions.height)
                guard let keptName = job.keptName else {
                    let item = PhotoItem(source: job.source, output: job.source, inputBytes: Int64(original.st_size),
                                         outputBytes: Int64(original.st_size), outcome: .kept, width: dimensions.width,
                                         height: dimensions.height, outWidth: dimensions.width, outHeight: dimensions.height)
                    journal?.record(PhotoJournal.Entry(item))
                    return item
                }
                try copyFile(job.source, to: temporary)
                name = keptName
            }
        }
        setAttributes(of: temporary, from: original)
        // Cancelled while this one ran: it is the one in progress, and goes.
        if control.isCancelled { return nil }
        let size = pending.size
        // Taken back from the cancellation's clean-up first: an original in the trash always has its copy.
        guard pending.withdraw() else { return nil }
        var item = PhotoItem(source: job.source, output: job.source, inputBytes: Int64(original.st_size), outputBytes: size,
                             outcome: outcome, width: dimensions.width, height: dimensions.height, outWidth: dimensions.outWidth,
                             outHeight: dimensions.outHeight)
        if let journal {
            // In the journal before it takes its name: a copy in place is always in the journal (a kill in
            // between leaves a line whose copy is missing, or is still the original with its own size, which
            // a resumed run does again). With --replace, the original's name counts as free: it goes first.
            // Claimed among the workers first: IMG_1.HEIC and IMG_1.JPG both make IMG_1.jpg, and two workers
            // finding the same free name would both take it.
            let free = claims.claim(in: job.folder) { taken in
                freeName(name, in: job.folder, except: job.replacesSource ? job.source : nil, taken: taken)
            }
            item.output = job.folder.appending(bytes: free)
            guard journal.record(PhotoJournal.Entry(item)) else { throw FileSystem.destinationError(errno, job.folder) }
            if job.replacesSource { try trash(job.source) }
            do {
                item.output = try pending.publish(as: free, exact: true)
            } catch where error.code == .destination {
                // Taken by someone else meanwhile: the photo is what failed, and it is named.
                throw ArchiverError(
                    .destination,
                    // TRANSLATORS: a photo's name, then why its copy could not be saved.
                    tr("The copy of “%1$@” could not be saved: %2$@", job.source.lastComponent?.string ?? job.source.string,
                       error.message),
                    hint: error.hint, file: job.source)
            }
        } else {
            if job.replacesSource { try trash(job.source) }
            item.output = try pending.publish(as: name)
        }
        return item
    }

    /// `name` in `folder`, or the first of `name (2)`, … not taken, as `publish` numbers them; `leaving` (an
    /// original about to go to the trash) counts as free.
    private static func freeName(
        _ name: [UInt8], in folder: FilePath, except leaving: FilePath?, taken: Set<FilePath>
    ) -> [UInt8] {
        for attempt in 1...10_000 {
            let candidate = ArchiveNaming.numbered(name, isDirectory: false, attempt: attempt)
            let path = folder.appending(bytes: candidate)
            guard !taken.contains(path) else { continue }
            var info = stat()
            if path == leaving || (path.withPlatformString { lstat($0, &info) } != 0 && errno == ENOENT) { return candidate }
        }
        return name
    }

    /// The copy keeps the original's modification time (photo apps sort by it), access time and
    /// permissions (a private photo stays private).
    private static func setAttributes(of path: FilePath, from original: stat) {
        var times = [original.st_atim, original.st_mtim]
        _ = path.withPlatformString { utimensat(AT_FDCWD, $0, &times, 0) }
        _ = path.withPlatformString { chmod($0, original.st_mode & 0o777) }
    }

    /// Copies bytes (kept photos, Live-Photo videos). The corresponding C function is `copy_file_range`.
    static func copyFile(_ source: FilePath, to target: FilePath) throws(ArchiverError) {
        let input = source.withPlatformString { open($0, O_RDONLY | O_CLOEXEC) }
        guard input >= 0 else {
            throw readError(source, errno)
        }
        defer { close(input) }
        let output = target.withPlatformString { open($0, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666) }
        guard output >= 0 else { throw FileSystem.destinationError(errno, target.removingLastComponent()) }
        defer { close(output) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count == 0 { return }
            if count < 0 {
                if errno == EINTR { continue }
                throw readError(source, errno)
            }
            var offset = 0
            while offset < count {
                let written = buffer.withUnsafeBytes { write(output, $0.baseAddress! + offset, count - offset) }
                if written < 0 {
                    if errno == EINTR { continue }
                    throw FileSystem.destinationError(errno, target.removingLastComponent())
                }
                offset += written
            }
        }
    }

    private static func readError(_ source: FilePath, _ code: Int32) -> ArchiverError {
        // TRANSLATORS: a file, then the system's reason ("Permission denied").
        ArchiverError(.inputUnreadable, tr("Cannot read “%1$@”: %2$@.", source, TextValue.systemError(code)), file: source)
    }
}

extension PhotoPlan {
    /// Removes the folders this plan created, and their subfolders, where they hold nothing (rmdir
    /// refuses anything else): a batch that made nothing leaves nothing.
    public func removeEmptyFolders() {
        for folder in createdFolders { Self.removeEmptyFolders(folder) }
    }

    private static func removeEmptyFolders(_ folder: FilePath) {
        for name in (try? FileSystem.entries(of: folder)) ?? [] {
            let path = folder.appending(bytes: name)
            if let info = FileSystem.status(path), FileSystem.isDirectory(info) { removeEmptyFolders(path) }
        }
        _ = folder.withPlatformString { rmdir($0) }
    }
}

/// Creates destination folders once each, and clears what killed runs left in them.
private final class FolderPreparer: Sendable {
    private let ready = Mutex<Set<FilePath>>([])

    /// Under the lock, so that no worker writes into a folder another one is still creating.
    func prepare(_ folder: FilePath) throws(ArchiverError) {
        try ready.withLock { (ready: inout Set<FilePath>) throws(ArchiverError) in
            guard !ready.contains(folder) else { return }
            try FileSystem.makeDirectories(folder)
            // Said as it is, not as the encoder's "unable to open" for each photo.
            if var error = FileSystem.writeError(folder) {
                error.hint = tr("Choose where the copies go with --output DIR.")
                throw error
            }
            FileSystem.removeStaleTemporaries(in: folder)
            ready.insert(folder)
        }
    }
}

/// The names the batch's workers have chosen for their copies, published or about to be: one worker's choice
/// and its claim are one step, so no two copies are given the same name.
final class NameClaims: Sendable {
    private let taken = Mutex<Set<FilePath>>([])

    /// The name `choose` picks (given the names already claimed), claimed for good.
    func claim(in folder: FilePath, _ choose: (Set<FilePath>) -> [UInt8]) -> [UInt8] {
        taken.withLock { taken in
            let name = choose(taken)
            taken.insert(folder.appending(bytes: name))
            return name
        }
    }
}
