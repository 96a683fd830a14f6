import ArchiverCore
import CGtk
import Dispatch
import Glibc
import JobProtocol
import Platform
import Synchronization
import SystemPackage

/// Runs one job as a child process of the command-line executable (`compress-with-archiver`, …) beside
/// our own, and turns its `--progress-json` lines into events on the main actor.
///
/// The password goes to the child's stdin (`--password-stdin`), never its arguments. stdout carries one
/// JSON object per line; stderr carries the sentences for a person in the user's language, which is what
/// the window shows on failure (the JSON's messages are English). Cancel is SIGTERM: the CLI then removes
/// what it started and exits with 8.
@MainActor
public final class JobRunner {
    /// What the child reported.
    public enum Event {
        case progress(ProgressEvent)
        case warning(WarningEvent)
        /// An entry of `--list` (the Extract… window's tree).
        case entry(ListedEntry)
        /// The tool's own events (Compress Photos' `estimate`, `photo`, `paused`, `resumed`).
        case other(JobEvent)
    }

    /// How the job ended.
    public struct Outcome {
        public var exitCode: Int32
        /// The last line's result (what `--json` prints), when the child got that far.
        public var result: JobResult?
        /// Everything the child wrote on stderr: the localized error sentence and its hint.
        public var stderr: String
        public var succeeded: Bool { JobExit.succeeded(exitCode) }
        public var cancelled: Bool { JobExit.cancelled(exitCode) }

        public init(exitCode: Int32, result: JobResult?, stderr: String) {
            self.exitCode = exitCode
            self.result = result
            self.stderr = stderr
        }

        /// A tool that could not be started at all.
        public static func notStarted(_ message: String) -> Outcome {
            Outcome(exitCode: JobExit.notStarted, result: nil, stderr: message)
        }

        /// The result as its tool's outcome.
        public func outcome<Kind: JobOutcome>(_ kind: Kind.Type) -> Kind? { result?.outcome(kind) }
    }

    private var pid: pid_t = 0
    private var result: JobResult?
    /// Cancel sent SIGTERM; read by the waiting thread once the child has ended.
    private nonisolated let cancelSent = Atomic<Bool>(false)
    public private(set) var isRunning = false

    public init() {}

    /// The path of a command-line executable installed beside this one (`/proc/self/exe`'s folder).
    public static func sibling(_ name: String) -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return name }
        let path = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = path.lastIndex(of: "/") else { return name }
        return String(path[..<slash]) + "/" + name
    }

    /// Starts the child. Events and the end arrive on the main actor.
    /// - Returns: false when the program could not be started (then `onEnd` is not called).
    @discardableResult
    /// - Parameter lowPriority: the child runs niced (a photo batch takes every core for minutes; the desktop,
    ///   this window's Pause button included, stays quick).
    public func start(
        program: String, arguments: Arguments, password: [UInt8]? = nil, lowPriority: Bool = false,
        onEvent: @escaping @MainActor (Event) -> Void, onEnd: @escaping @MainActor (Outcome) -> Void
    ) -> Bool {
        // Bytes from end to end: a file named in Latin-1 reaches the tool under its own name.
        guard let child = try? ChildProcess.startPiped(FilePath(program), arguments.argv, lowPriority: lowPriority) else {
            return false
        }
        let input = child.input, output = child.output, errors = child.errors
        pid = child.pid
        cancelSent.store(false, ordering: .relaxed)
        isRunning = true
        // The password, then end of input: the child reads one line.
        if var secret = password {
            secret.append(0x0A)
            // send(MSG_NOSIGNAL): a child that exits before reading must not take the window down with SIGPIPE.
            _ = secret.withUnsafeBytes { send(input, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            secret.withUnsafeMutableBytes { explicit_bzero($0.baseAddress!, $0.count) }
        }
        close(input)

        let out = output, err = errors
        DispatchQueue.global().async {
            // stderr on its own thread, so a chatty child never blocks on a full pipe while we read stdout.
            let stderrDone = DispatchSemaphore(value: 0)
            nonisolated(unsafe) var stderrBytes: [UInt8] = []
            DispatchQueue.global().async {
                stderrBytes = Self.readAll(err)
                stderrDone.signal()
            }
            // One hop to the main thread per read, not per line (a 100,000-entry listing is 100,000 lines), and
            // at most two reads on their way: when the window is busier than the child, the child waits on a
            // full pipe instead of the window's memory filling with parsed lines.
            let inFlight = DispatchSemaphore(value: 2)
            Self.readLines(out) { lines in
                let values = lines.compactMap(JSON.parse)
                inFlight.wait()
                DispatchQueue.main.async {
                    MainActor.assumeIsolated { for value in values { self.deliver(value, onEvent) } }
                    inFlight.signal()
                }
            }
            stderrDone.wait()
            close(out)
            close(err)
            var code = child.wait()
            // Cancelled before it could listen for the signal (in its first split second, as the Cancel button
            // already shows): it died of our SIGTERM before starting any work, which is a cancel, not a failure.
            if code == 128 + SIGTERM, self.cancelSent.load(ordering: .relaxed) { code = ArchiverError.Code.cancelled.exitStatus }
            let text = String(decoding: stderrBytes, as: UTF8.self)
            DispatchQueue.main.async {
                MainActor.assumeIsolated {
                    self.isRunning = false
                    onEnd(Outcome(exitCode: code, result: self.result, stderr: text))
                }
            }
        }
        return true
    }

    /// Asks the child to stop; it removes what it started and exits with 8.
    public func cancel() {
        guard isRunning, pid > 0 else { return }
        cancelSent.store(true, ordering: .relaxed)
        kill(pid, SIGTERM)
    }

    /// Sends `signal` to the running child: SIGUSR1 pauses a photo batch, SIGUSR2 resumes it.
    public func signal(_ signal: Int32) {
        guard isRunning, pid > 0 else { return }
        kill(pid, signal)
    }

    private func deliver(_ value: JSON, _ onEvent: (Event) -> Void) {
        // `--json` alone (the PDF estimate): one object without "event" is the result.
        guard let name = value["event"]?.string else {
            result = JobResult(value)
            return
        }
        let event = JobEvent(name: name, json: value)
        if let progress = event.as(ProgressEvent.self) {
            onEvent(.progress(progress))
        } else if let warning = event.as(WarningEvent.self) {
            onEvent(.warning(warning))
        } else if let entry = event.as(EntryEvent.self) {
            onEvent(.entry(entry.entry))
        } else if name == "result" {
            result = JobResult(value)
        } else {
            onEvent(.other(event))
        }
    }

    /// Calls `body` with the complete lines of each read.
    private nonisolated static func readLines(_ fd: Int32, _ body: ([String]) -> Void) {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let got = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if got < 0, errno == EINTR { continue }
            if got <= 0 { break }
            pending += buffer[..<got]
            var lines: [String] = []
            var start = 0
            while let newline = pending[start...].firstIndex(of: 0x0A) {
                lines.append(String(decoding: pending[start..<newline], as: UTF8.self))
                start = newline + 1
            }
            pending.removeFirst(start)
            if !lines.isEmpty { body(lines) }
        }
        if !pending.isEmpty { body([String(decoding: pending, as: UTF8.self)]) }
    }

    private nonisolated static func readAll(_ fd: Int32) -> [UInt8] {
        var all: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let got = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if got < 0, errno == EINTR { continue }
            if got <= 0 { return all }
            all += buffer[..<got]
        }
    }
}
