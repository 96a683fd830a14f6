internal import CGLib
import ArchiverCore
import Glibc
import SystemPackage

/// The statistics the app's Home shows (archives made and extracted, PDFs and photos made smaller, the space
/// saved, over all time and the last 30 days), kept in `$XDG_DATA_HOME/io.github.archiver/statistics.ini`.
///
/// The file is a GLib key file (see `StatisticsLedger.groups` for its groups and keys), replaced as a whole
/// by `g_file_set_contents` (a temporary file renamed over it), so a reader, or a writer killed half-way,
/// only ever sees a complete file. Writers take an `flock` on `statistics.lock` beside it around their
/// read-modify-write, so concurrent jobs lose no update. A job never waits long for it nor fails because of
/// it: the lock is tried for at most `lockTimeout`, then the job is not counted, with a warning; a damaged
/// file is kept aside as `statistics.ini.corrupt` and the counting starts afresh, with a warning.
public struct StatisticsStore: Sendable {
    /// `statistics.ini`.
    public let file: FilePath
    /// `statistics.lock`, the file writers lock; never removed (that would let two writers in at once).
    public let lockFile: FilePath

    /// How long a writer tries for the lock before it gives up. A writer holds it for a few milliseconds,
    /// but 20 jobs ending at once on 2 busy cores were measured holding it up to 160 ms each (preempted):
    /// 200 ms lost updates there, a second does not, and still bounds the wait behind a stopped writer.
    public static let lockTimeout: Duration = .seconds(1)

    /// `$XDG_DATA_HOME/io.github.archiver` (`~/.local/share/io.github.archiver`). GLib reads `XDG_DATA_HOME`
    /// once per process.
    public static var defaultFolder: FilePath {
        FilePath(bytes: CString.bytes(g_get_user_data_dir())).appending("io.github.archiver")
    }

    /// - Parameter folder: where the files live; tests give a scratch folder.
    public init(folder: FilePath = defaultFolder) {
        file = folder.appending("statistics.ini")
        lockFile = folder.appending("statistics.lock")
    }

    /// The file a damaged store is moved to.
    public var corruptFile: FilePath { FilePath(file.string + ".corrupt") }

    // MARK: Writing

    /// Counts the outputs of one finished job. Never throws and never waits longer than `lockTimeout`: the
    /// job is done whatever happens here.
    /// - Parameters:
    ///   - events: one per output (an archive, an extracted archive, a PDF copy, a photo copy).
    ///   - today: the local day, for pruning the per-day figures.
    /// - Returns: warnings for a person (on stderr): the job was not counted, or the damaged store was
    ///   replaced. Empty when all went well.
    @discardableResult
    public func record(_ events: [StatisticsEvent], today: CalendarDay = .today) -> [Text] {
        guard !events.isEmpty else { return [] }
        var warnings: [Text] = []
        do throws(ArchiverError) {
            try withLock(timeout: Self.lockTimeout, failure: notCounted) { () throws(ArchiverError) in
                var ledger: StatisticsLedger
                switch read() {
                case .ledger(let stored): ledger = stored
                case .missing: ledger = StatisticsLedger()
                case .unreadable(let reason): throw notCounted(reason)
                case .damaged(let reason):
                    warnings.append(try keepAside(reason))
                    ledger = StatisticsLedger()
                }
                Self.pauseForTests()
                ledger.add(events, today: today)
                try write(ledger)
            }
        } catch {
            warnings.append(error.message)
        }
        return warnings
    }

    /// Forgets every figure (and a damaged file kept aside): what "Clear history" and `--forget-statistics` do.
    /// Waits up to a few seconds for a job that is writing.
    /// - Returns: the file as it was, read under the same lock, for `restore(_:)` (Undo).
    /// - Throws: `ArchiverError` (`.destination`) when the lock is not had in time or a file cannot be removed.
    @discardableResult
    public func clear() throws(ArchiverError) -> StatisticsSnapshot {
        let failure = { (reason: any TextArgument) in
            ArchiverError(.destination, tr("Could not clear Archiver's statistics: %@.", reason), path: file.string)
        }
        var snapshot = StatisticsSnapshot(contents: nil)
        try withLock(timeout: .seconds(5), failure: failure) { () throws(ArchiverError) in
            snapshot = StatisticsSnapshot(contents: Self.contents(of: file))
            for path in [file, corruptFile] where path.withPlatformString({ unlink($0) }) != 0 && errno != ENOENT {
                throw failure(TextValue.systemError(errno))
            }
        }
        return snapshot
    }

    /// Puts back the figures `clear()` removed, written as a job writes them, but only while no job has
    /// started a new store since: its figures would be lost.
    /// - Returns: false when a job has counted since, or the store could not be written (nothing is changed).
    public func restore(_ snapshot: StatisticsSnapshot) -> Bool {
        guard let contents = snapshot.contents else { return true }
        var restored = false
        try? withLock(timeout: .seconds(5), failure: notCounted) { () throws(ArchiverError) in
            guard file.withPlatformString({ access($0, F_OK) }) != 0 else { return }
            restored = contents.withUnsafeBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) { chars in
                    file.withPlatformString {
                        g_file_set_contents_full($0, chars.baseAddress, gssize(chars.count), G_FILE_SET_CONTENTS_CONSISTENT, 0o600, nil)
                    }
                }
            } != 0
        }
        return restored
    }

    // MARK: Reading

    /// The totals of the last `days` local days (today included), or of all time when `days` is nil.
    /// Reads without the lock: the file is only ever replaced whole. Empty when there is no store yet, or
    /// it cannot be read (the next job replaces a damaged one).
    public func totals(lastDays days: Int? = nil, today: CalendarDay = .today) -> StatisticsTotals {
        ledger().totals(lastDays: days, today: today)
    }

    /// Everything the store holds; empty when there is none or it cannot be read.
    public func ledger() -> StatisticsLedger {
        if case .ledger(let ledger) = read() { return ledger }
        return StatisticsLedger()
    }

    // MARK: The key file

    private enum Content {
        case ledger(StatisticsLedger)
        case missing
        /// Could not be opened (permissions, I/O), or written by a later version: left alone.
        case unreadable(Text)
        /// Not a key file, or not one of ours: replaced.
        case damaged(Text)
    }

    private func read() -> Content {
        guard let keyFile = g_key_file_new() else { return .unreadable(tr("out of memory")) }
        defer { g_key_file_free(keyFile) }
        var error: UnsafeMutablePointer<GError>?
        let loaded = file.withPlatformString { g_key_file_load_from_file(keyFile, $0, G_KEY_FILE_NONE, &error) } != 0
        guard loaded else {
            defer { g_clear_error(&error) }
            if g_error_matches(error, g_file_error_quark(), gint(G_FILE_ERROR_NOENT.rawValue)) != 0 { return .missing }
            let reason = Self.message(error)
            return error?.pointee.domain == g_key_file_error_quark() || g_error_matches(error, g_convert_error_quark(), gint(G_CONVERT_ERROR_ILLEGAL_SEQUENCE.rawValue)) != 0
                ? .damaged(reason) : .unreadable(reason)
        }
        var groups: [String: [String: Int64]] = [:]
        for group in Self.strings(g_key_file_get_groups(keyFile, nil)) {
            var values: [String: Int64] = [:]
            for key in Self.strings(g_key_file_get_keys(keyFile, group, nil, nil)) {
                let value = g_key_file_get_int64(keyFile, group, key, &error)
                if error != nil {
                    defer { g_clear_error(&error) }
                    return .damaged(.verbatim("[\(group)] \(key): " + Self.message(error).english))
                }
                values[key] = Int64(value)
            }
            groups[group] = values
        }
        do {
            return .ledger(try StatisticsLedger(groups: groups))
        } catch {
            return error.isNewerVersion ? .unreadable(.verbatim(error.reason)) : .damaged(.verbatim(error.reason))
        }
    }

    /// The file's bytes; nil when it cannot be read (or is not there).
    private static func contents(of file: FilePath) -> [UInt8]? {
        var data: UnsafeMutablePointer<gchar>?
        var length: gsize = 0
        guard file.withPlatformString({ g_file_get_contents($0, &data, &length, nil) }) != 0, let data else { return nil }
        defer { g_free(data) }
        return Array(UnsafeRawBufferPointer(start: data, count: Int(length)))
    }

    private func write(_ ledger: StatisticsLedger) throws(ArchiverError) {
        guard let keyFile = g_key_file_new() else { throw notCounted(tr("out of memory")) }
        defer { g_key_file_free(keyFile) }
        for (group, values) in ledger.groups {
            for (key, value) in values { g_key_file_set_int64(keyFile, group, key, gint64(value)) }
        }
        g_key_file_set_comment(
            keyFile, nil, nil, " Archiver's statistics: counts and byte sums per kind of output, all time and per day.",
            nil)
        var length: gsize = 0
        guard let data = g_key_file_to_data(keyFile, &length, nil) else { throw notCounted(tr("out of memory")) }
        defer { g_free(data) }
        var error: UnsafeMutablePointer<GError>?
        // CONSISTENT: a temporary file, fsynced, renamed over the old one.
        let saved = file.withPlatformString {
            g_file_set_contents_full($0, data, gssize(length), G_FILE_SET_CONTENTS_CONSISTENT, 0o600, &error)
        }
        guard saved != 0 else {
            defer { g_clear_error(&error) }
            throw notCounted(Self.message(error))
        }
    }

    /// Moves the damaged file aside (replacing an older one), so the next write starts afresh.
    private func keepAside(_ reason: Text) throws(ArchiverError) -> Text {
        let moved = file.withPlatformString { from in corruptFile.withPlatformString { rename(from, $0) } } == 0
        guard moved else { throw notCounted(tr("the damaged file could not be moved aside (%@)", TextValue.systemError(errno))) }
        // TRANSLATORS: %1$@ the statistics file, %2$@ what is wrong with it, %3$@ where it was moved.
        return tr("The statistics file %1$@ was damaged (%2$@); it is kept as %3$@ and the statistics start again from this job.", file, reason, corruptFile)
    }

    private func notCounted(_ reason: any TextArgument) -> ArchiverError {
        ArchiverError(.destination, tr("This job is not counted in Archiver's statistics: %@.", reason), path: file.string)
    }

    // MARK: The lock

    /// Runs `body` holding an exclusive `flock` on `lockFile`, tried without blocking until `timeout`.
    /// - Parameter failure: the error for a lock not had, with the reason.
    private func withLock(
        timeout: Duration, failure: (any TextArgument) -> ArchiverError, _ body: () throws(ArchiverError) -> Void
    ) throws(ArchiverError) {
        let folder = file.removingLastComponent()
        _ = folder.withPlatformString { g_mkdir_with_parents($0, 0o700) }
        let descriptor = lockFile.withPlatformString { open($0, O_RDWR | O_CREAT | O_CLOEXEC, 0o600) }
        guard descriptor >= 0 else { throw failure(TextValue.systemError(errno)) }
        defer { close(descriptor) }
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR, clock.now < deadline else {
                throw failure(tr("another Archiver job held the statistics file for too long"))
            }
            usleep(10_000)
        }
        // Closing the descriptor releases the lock; so does the kernel when the process dies.
        try body()
    }

    /// Debug builds only: `ARCHIVER_STATISTICS_PAUSE` seconds a writer sleeps while it holds the lock, after
    /// reading and before writing, so a test can kill it there.
    private static func pauseForTests() {
        #if ARCHIVER_TEST_HOOKS
        guard let value = getenv("ARCHIVER_STATISTICS_PAUSE"), let seconds = Double(String(cString: value)), seconds > 0 else { return }
        usleep(useconds_t(min(seconds, 600) * 1_000_000))
        #endif
    }

    /// GLib's own message (already in the user's language), or "out of memory".
    private static func message(_ error: UnsafeMutablePointer<GError>?) -> Text {
        error?.pointee.message.map { Text.verbatim(String(cString: $0)) } ?? tr("out of memory")
    }

    /// Takes a `g_strv`: its strings, freed.
    private static func strings(_ vector: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?) -> [String] {
        guard let vector else { return [] }
        defer { g_strfreev(vector) }
        var strings: [String] = []
        var index = 0
        while let string = vector[index] {
            strings.append(String(cString: string))
            index += 1
        }
        return strings
    }
}

extension CalendarDay {
    /// Today in the local time zone.
    public static var today: CalendarDay {
        var now = time(nil)
        var parts = tm()
        guard localtime_r(&now, &parts) != nil else { return CalendarDay(ordinal: Int(now / 86_400)) }
        return CalendarDay(year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday))
    }
}

/// The statistics file as it was before "Clear History and Statistics", for Undo (`StatisticsStore.restore`).
public struct StatisticsSnapshot: Sendable {
    /// Nil when there was no store.
    fileprivate let contents: [UInt8]?
}
