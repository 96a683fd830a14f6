import ArchiverCore
import Glibc
import SystemPackage

/// A program run with `posix_spawn`: arguments and environment as raw bytes, standard input from
/// /dev/null or a secret, and both outputs read as they come so that neither fills up and stalls it.
package struct ChildProcess {
    /// What the child reads on its standard input.
    package enum Input {
        case nothing
        /// The secret and a newline, `times` times. It is all written before the child starts, so the
        /// child may exit without reading it: writing later to a reader that is gone would raise SIGPIPE.
        case secret(Secret, times: Int)
    }

    /// How the child ended and what it said on standard error.
    package struct Outcome {
        /// The exit status, or 128 + the signal that ended it.
        package var status: Int32
        package var errorOutput: [UInt8]
    }

    /// Standard error beyond this is dropped: only its start says what went wrong.
    private static let errorLimit = 256 * 1024

    /// Runs `executable` to the end.
    /// - Parameters:
    ///   - arguments: argv after argv[0], byte for byte.
    ///   - environment: extra `NAME=value` entries replacing ours of the same name.
    ///   - control: checked while the child runs; when it throws, the child is stopped (SIGTERM, then
    ///     SIGKILL after a second), reaped, and the error rethrown.
    ///   - forJob: it does the job's work (7-Zip, unrar): a stop kills it, and its progress is not ours.
    ///     A dialog or helper is not.
    ///   - output: called with each chunk of standard output.
    /// - Throws: `ArchiverError` from `control`, or `.notAnArchive` when the program cannot be started.
    package static func run(
        _ executable: FilePath, _ arguments: [[UInt8]], environment: [[UInt8]], input: Input, control: JobControl?,
        forJob: Bool = true, output: (UnsafeRawBufferPointer) -> Void
    ) throws(ArchiverError) -> Outcome {
        let name = executable.lastComponent?.string ?? executable.string
        var outChannel = try makeChannel(name)
        var errChannel = try makeChannel(name)
        defer { for fd in [outChannel.read, outChannel.write, errChannel.read, errChannel.write] where fd >= 0 { close(fd) } }
        let stdin = try standardInput(input, name)
        defer { close(stdin) }

        let pid = try spawn(
            executable, arguments: [executable.bytes] + arguments, environment: mergedEnvironment(environment),
            stdin: stdin, stdout: outChannel.write, stderr: errChannel.write)
        if forJob { PendingOutputs.register(child: pid) }
        defer { if forJob { PendingOutputs.forget(child: pid) } }
        close(outChannel.write)
        close(errChannel.write)
        outChannel.write = -1
        errChannel.write = -1

        var errors: [UInt8] = []
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)
        defer { buffer.deallocate() }
        var open = [outChannel.read, errChannel.read]
        do throws(ArchiverError) {
            while !open.isEmpty {
                try control?.check()
                var polled = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
                if poll(&polled, nfds_t(polled.count), 100) <= 0 { continue }
                for entry in polled where entry.revents != 0 {
                    let count = read(entry.fd, buffer.baseAddress, buffer.count)
                    if count < 0, errno == EINTR { continue }
                    if count <= 0 {
                        open.removeAll { $0 == entry.fd }
                        continue
                    }
                    let chunk = UnsafeRawBufferPointer(rebasing: buffer[..<count])
                    if entry.fd == outChannel.read {
                        output(chunk)
                    } else if errors.count < errorLimit {
                        errors += chunk.prefix(errorLimit - errors.count)
                    }
                }
            }
        } catch {
            stop(pid)
            throw error
        }
        return Outcome(status: reap(pid), errorOutput: errors)
    }

    /// A one-way channel whose ends are close-on-exec from the start, so that a child another thread
    /// spawns meanwhile cannot inherit them and hold them open. A socket pair, because Swift's Glibc does
    /// not show `pipe2`.
    private static func makeChannel(_ name: String) throws(ArchiverError) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, type, 0, &fds) == 0 else { throw startFailure(name, errno) }
        shutdown(fds[0], Int32(SHUT_WR))
        shutdown(fds[1], Int32(SHUT_RD))
        return (fds[0], fds[1])
    }

    /// The descriptor the child gets as standard input.
    private static func standardInput(_ input: Input, _ name: String) throws(ArchiverError) -> Int32 {
        guard case .secret(let secret, let times) = input else {
            let null = open("/dev/null", O_RDONLY | O_CLOEXEC)
            guard null >= 0 else { throw startFailure(name, errno) }
            return null
        }
        let (readEnd, writeEnd) = try makeChannel(name)
        defer { close(writeEnd) }
        // A full buffer must fail rather than wait for a reader that has not started yet.
        _ = fcntl(writeEnd, F_SETFL, fcntl(writeEnd, F_GETFL) | O_NONBLOCK)
        let fits = (0..<times).allSatisfy { _ in
            secret.withBytes { writeFully(writeEnd, $0) }
                && withUnsafeBytes(of: UInt8(ascii: "\n")) { writeFully(writeEnd, $0) }
        }
        guard fits else {
            close(readEnd)
            // TRANSLATORS: %@ is a program's name: 7-Zip or unrar.
            throw ArchiverError(.password, tr("The password is too long to hand to %@.", name), hint: tr("Use a shorter one."))
        }
        return readEnd
    }

    private static func writeFully(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var done = 0
        while done < bytes.count {
            let count = write(fd, bytes.baseAddress.map { $0 + done }, bytes.count - done)
            if count < 0, errno == EINTR { continue }
            if count <= 0 { return false }
            done += count
        }
        return true
    }

    /// Our environment with `extra` replacing entries of the same name.
    private static func mergedEnvironment(_ extra: [[UInt8]]) -> [[UInt8]] {
        let names = Set(
            extra.compactMap { entry in entry.firstIndex(of: UInt8(ascii: "=")).map { Array(entry[...$0]) } })
        var result: [[UInt8]] = []
        var cursor: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = environ
        while let entry = cursor?.pointee {
            let bytes = CString.bytes(entry)
            if !names.contains(where: bytes.starts(with:)) { result.append(bytes) }
            cursor = cursor?.advanced(by: 1)
        }
        return result + extra
    }

    /// Starts `executable` with its standard output read as it is wanted (`Reading`), standard error
    /// dropped.
    package static func startReading(
        _ executable: FilePath, _ arguments: [[UInt8]], environment: [[UInt8]], input: Input
    ) throws(ArchiverError) -> Reading {
        let name = executable.lastComponent?.string ?? executable.string
        let channel = try makeChannel(name)
        let stdin = try standardInput(input, name)
        defer {
            close(stdin)
            close(channel.write)
        }
        let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
        defer { if null >= 0 { close(null) } }
        do throws(ArchiverError) {
            let pid = try spawn(
                executable, arguments: [executable.bytes] + arguments, environment: mergedEnvironment(environment),
                stdin: stdin, stdout: channel.write, stderr: null >= 0 ? null : STDERR_FILENO)
            PendingOutputs.register(child: pid)
            return Reading(pid: pid, output: channel.read)
        } catch {
            close(channel.read)
            throw error
        }
    }

    /// A running child whose standard output is read on demand; stopped when dropped before its end.
    package final class Reading {
        private let pid: pid_t
        private let output: Int32
        /// The exit status (or 128 + signal), once its output has ended.
        package private(set) var status: Int32?

        fileprivate init(pid: pid_t, output: Int32) {
            self.pid = pid
            self.output = output
        }

        /// Up to `buffer.count` bytes of its output; 0 at the end, when `status` is set.
        package func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
            guard status == nil else { return 0 }
            while true {
                let count = Glibc.read(output, buffer.baseAddress, buffer.count)
                if count < 0, errno == EINTR { continue }
                if count > 0 { return count }
                status = ChildProcess.reap(pid)
                PendingOutputs.forget(child: pid)
                return 0
            }
        }

        deinit {
            close(output)
            if status == nil {
                ChildProcess.stop(pid)
                PendingOutputs.forget(child: pid)
            }
        }
    }

    /// A started child whose three standard streams are ours: a window feeds it and reads it as it goes.
    package struct Piped {
        package let pid: pid_t
        /// Its standard input; close it once written.
        package let input: Int32
        package let output: Int32
        package let errors: Int32

        /// Waits for its end: the exit status, or 128 + the signal that ended it.
        package func wait() -> Int32 { ChildProcess.reap(pid) }
    }

    /// Starts `executable` with pipes for its standard input and outputs.
    /// - Parameter lowPriority: niced by 10 (a photo batch takes every core for minutes).
    package static func startPiped(_ executable: FilePath, _ arguments: [[UInt8]], lowPriority: Bool) throws(ArchiverError) -> Piped {
        let name = executable.lastComponent?.string ?? executable.string
        var channels: [(read: Int32, write: Int32)] = []
        do throws(ArchiverError) {
            for _ in 0..<3 { channels.append(try makeChannel(name)) }
        } catch {
            for channel in channels { close(channel.read); close(channel.write) }
            throw error
        }
        let (input, output, errors) = (channels[0], channels[1], channels[2])
        defer { for fd in [input.read, output.write, errors.write] { close(fd) } }
        do throws(ArchiverError) {
            let pid = try spawn(
                executable, arguments: [executable.bytes] + arguments, environment: mergedEnvironment([]), stdin: input.read,
                stdout: output.write, stderr: errors.write)
            if lowPriority {
                // Relative, as nice(10) in the child was: a window already niced gives its child 10 more.
                errno = 0
                let own = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
                if errno == 0 { setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(pid), min(19, own + 10)) }
            }
            return Piped(pid: pid, input: input.write, output: output.read, errors: errors.read)
        } catch {
            for fd in [input.write, output.read, errors.read] { close(fd) }
            throw error
        }
    }

    /// Starts `executable` in a session of its own (it outlives us and our terminal) with the given
    /// standard input and output and our standard error, and does not wait for it.
    package static func startDaemon(
        _ executable: FilePath, _ arguments: [[UInt8]], stdin: Int32, stdout: Int32
    ) throws(ArchiverError) -> pid_t {
        // It must hold nothing else of ours: a pipe or socket it kept (one our parent watches for our end)
        // would make whoever waits for that wait as long as the daemon lives.
        for descriptor in (try? FileSystem.entries(of: "/proc/self/fd")) ?? [] {
            if let number = Int32(String(decoding: descriptor, as: UTF8.self)), number > 2 { _ = fcntl(number, F_SETFD, FD_CLOEXEC) }
        }
        return try spawn(
            executable, arguments: [executable.bytes] + arguments, environment: mergedEnvironment([]), stdin: stdin,
            stdout: stdout, stderr: STDERR_FILENO, newSession: true)
    }

    /// Starts `executable` with standard input and both outputs on /dev/null, and does not wait for it: a
    /// thread of its own reaps it whenever it ends (a file manager outlives the job that opened it).
    /// - Returns: whether it started.
    package static func startDetached(_ executable: FilePath, _ arguments: [[UInt8]]) -> Bool {
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        guard null >= 0 else { return false }
        defer { close(null) }
        let started = try? spawn(
            executable, arguments: [executable.bytes] + arguments, environment: mergedEnvironment([]), stdin: null,
            stdout: null, stderr: null)
        guard let pid = started else { return false }
        var reaper = pthread_t()
        let reaping = pthread_create(&reaper, nil, { raw in
            _ = ChildProcess.reap(pid_t(truncatingIfNeeded: Int(bitPattern: raw)))
            return nil
        }, UnsafeMutableRawPointer(bitPattern: Int(pid)))
        if reaping == 0 { pthread_detach(reaper) }
        return true
    }

    /// Runs `executable` with exactly `environment` and reads the first line of its standard output
    /// straight into a `Secret` (an askpass helper's answer); the rest is read and dropped, so that a
    /// chatty child is not killed by SIGPIPE. Standard error goes to /dev/null.
    /// - Returns: the line (nil when it printed nothing) and whether it exited with 0; nil when it could
    ///   not be started.
    package static func firstLine(
        of executable: FilePath, _ arguments: [[UInt8]], environment: [[UInt8]]
    ) -> (line: Secret?, succeeded: Bool)? {
        let name = executable.lastComponent?.string ?? executable.string
        guard let channel = try? makeChannel(name), let stdin = try? standardInput(.nothing, name) else { return nil }
        defer { close(stdin) }
        let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
        defer { if null >= 0 { close(null) } }
        let started = try? spawn(
            executable, arguments: [executable.bytes] + arguments, environment: environment, stdin: stdin,
            stdout: channel.write, stderr: null >= 0 ? null : STDERR_FILENO)
        close(channel.write)
        defer { close(channel.read) }
        guard let pid = started else { return nil }
        let line = Secret.readLine(from: channel.read)
        discardRest(of: channel.read)
        return (line, reap(pid) == 0)
    }

    /// Reads `descriptor` to its end, wiping what passed through (it may hold the rest of a secret).
    private static func discardRest(of descriptor: Int32) {
        let size = 512
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: size)
        defer {
            explicit_bzero(buffer, size)
            buffer.deallocate()
        }
        while true {
            let got = read(descriptor, buffer, size)
            if got < 0, errno == EINTR { continue }
            if got <= 0 { return }
        }
    }

    private static func spawn(
        _ executable: FilePath, arguments: [[UInt8]], environment: [[UInt8]], stdin: Int32, stdout: Int32, stderr: Int32,
        newSession: Bool = false
    ) throws(ArchiverError) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        // As g_spawn does: a descriptor some library opened without O_CLOEXEC must not live on in the child.
        closeOthers(&actions)

        // The executables ignore SIGINT, SIGTERM, SIGHUP and SIGPIPE to handle them themselves, and an
        // ignored signal stays ignored across exec: the child would then shrug off our SIGTERM.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        // POSIX_SPAWN_SETSID (glibc 2.26), a GNU macro Swift does not import.
        let setsid: Int32 = newSession ? 0x80 : 0
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | setsid))

        let argv = CStringArray(arguments)
        let envp = CStringArray(environment)
        defer {
            argv.free()
            envp.free()
        }
        var pid: pid_t = 0
        let result = executable.withPlatformString { path in
            posix_spawn(&pid, path, &actions, &attributes, argv.pointers, envp.pointers)
        }
        guard result == 0 else { throw startFailure(executable.lastComponent?.string ?? executable.string, result) }
        return pid
    }

    /// Stops a child the job no longer wants: SIGTERM lets it remove what it was writing; SIGKILL follows
    /// if it has not gone within a second.
    private static func stop(_ pid: pid_t) {
        kill(pid, SIGTERM)
        for _ in 0..<50 {
            if waitOnce(pid, options: WNOHANG) != nil { return }
            usleep(20_000)
        }
        kill(pid, SIGKILL)
        _ = reap(pid)
    }

    /// Waits for the child and decodes its status.
    private static func reap(_ pid: pid_t) -> Int32 {
        while true {
            if let status = waitOnce(pid, options: 0) { return status }
            if errno != EINTR { return 128 + SIGKILL }
        }
    }

    /// The exit status (or 128 + signal) when the child has ended, nil while it runs or on error.
    private static func waitOnce(_ pid: pid_t, options: Int32) -> Int32? {
        var status: Int32 = 0
        guard waitpid(pid, &status, options) == pid else { return nil }
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    private static func startFailure(_ name: String, _ code: Int32) -> ArchiverError {
        // TRANSLATORS: %1$@ is a program's name (7-Zip, unrar), %2$@ the system's reason (from the C library).
        ArchiverError(.notAnArchive, tr("Cannot start %1$@: %2$@.", name, TextValue.systemError(code)))
    }
}

/// A NULL-terminated array of C strings (argv, envp) made from raw bytes; freed explicitly.
private struct CStringArray {
    let pointers: [UnsafeMutablePointer<CChar>?]

    init(_ strings: [[UInt8]]) {
        pointers = strings.map(Self.copy) + [nil]
    }

    private static func copy(_ bytes: [UInt8]) -> UnsafeMutablePointer<CChar>? {
        let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
        for (index, byte) in bytes.enumerated() { copy[index] = CChar(bitPattern: byte) }
        copy[bytes.count] = 0
        return copy
    }

    func free() { for pointer in pointers { pointer?.deallocate() } }
}
