import ArchiverCore
import Dispatch
import Glibc
import JobProtocol
import Synchronization

/// `--progress-json`: what a job does as it happens, one JSON object per line on standard output, for a
/// window or a script that runs the executable as a child process. The last line is the result, the
/// object `--json` prints with `"event":"result"` in front; nothing is written after it.
///
/// Lines are written with write(2) (a pipe's stdio buffer would hold them back), from whichever thread
/// reports (the job, or the signal handler's queue that abandons it), never interleaved. Entries are
/// gathered for at most 50 ms (or 32 KiB): one write per entry made a 100,000-entry listing a third slower.
package final class EventStream: @unchecked Sendable {
    private struct State {
        var meter: ProgressMeter?
        /// `done` of the last progress line, so that a completion is never repeated.
        var lastDone: Int64 = -1
        /// Entry lines not written yet.
        var pending: [UInt8] = []
        /// Set by the result: the stream is over.
        var closed = false
    }

    private let state = Mutex(State())
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant
    /// Writes gathered entries while the job is busy elsewhere (inflating a large entry's data, say).
    private let flusher = DispatchSource.makeTimerSource(queue: .global())

    package init() {
        start = clock.now
        flusher.schedule(deadline: .now() + .milliseconds(50), repeating: .milliseconds(50))
        flusher.setEventHandler { [weak self] in self?.state.withLock { Self.write(line: nil, &$0) } }
        flusher.resume()
    }

    deinit { flusher.cancel() }

    /// Bytes done of `total`: a line at most ten times a second, and always the one that reaches the total.
    /// A new total, or less done than before (the next archive of a batch), starts a new measurement.
    package func progress(done: Int64, total: Int64?) {
        let now = (clock.now - start).inSeconds
        state.withLock { state in
            if state.meter == nil || state.meter?.total != total || done < state.lastDone {
                state.meter = ProgressMeter(total: total, start: now)
                state.lastDone = -1
            }
            guard var meter = state.meter else { return }
            var snapshot = meter.update(done: done, now: now)
            if snapshot == nil, let total, done >= total, done != state.lastDone {
                snapshot = meter.snapshot(done: done, now: now)
            }
            state.meter = meter
            guard let snapshot, snapshot.done != state.lastDone else { return }
            state.lastDone = snapshot.done
            let event = ProgressEvent(
                done: snapshot.done, total: snapshot.total, fraction: snapshot.fraction, rate: Int64(snapshot.rate.rounded()),
                remaining: snapshot.remaining)
            Self.write(event, &state)
        }
    }

    /// One listed entry, gathered with the next ones.
    package func entry(_ entry: ListedEntry) {
        state.withLock { state in
            guard !state.closed else { return }
            state.pending += EntryEvent(entry).json.bytes
            state.pending.append(UInt8(ascii: "\n"))
            if state.pending.count >= 32 * 1024 { Self.write(line: nil, &state) }
        }
    }

    /// An event of the command's own (`photo`, `paused`, `estimate`, …), written at once.
    package func event(_ event: some JobEventKind) {
        state.withLock { Self.write(event, &$0) }
    }

    /// A warning as it happens: its code and its English text.
    package func warning(_ warning: JobWarning) { event(WarningEvent(warning)) }

    /// The result, `--json`'s object; the last line.
    package func result(_ result: JobResult) {
        state.withLock { state in
            guard case .object(let fields) = result.json else { return }
            Self.write(line: .object([("event", .string("result"))] + fields), &state)
            state.closed = true
        }
    }

    private static func write(_ event: some JobEventKind, _ state: inout State) { write(line: event.json, &state) }

    /// Writes the gathered entries, then `line` (nothing more when nil).
    private static func write(line json: JSON?, _ state: inout State) {
        guard !state.closed else { return }
        var line = state.pending
        state.pending = []
        if let json {
            line += json.bytes
            line.append(UInt8(ascii: "\n"))
        }
        guard !line.isEmpty else { return }
        var offset = 0
        line.withUnsafeBytes { bytes in
            while offset < bytes.count {
                let written = Glibc.write(STDOUT_FILENO, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
                if written < 0, errno == EINTR { continue }
                // A reader that went away (EPIPE; SIGPIPE is ignored) gets nothing more.
                if written <= 0 {
                    state.closed = true
                    return
                }
                offset += written
            }
        }
    }
}
