import Foundation

/// Programs run by the tests, ours and other people's (the tests' oracles): the one way a test starts a
/// process and reads what it wrote and how it ended.
public enum Tool {
    /// Starts `argv` (an absolute program path first) in the background. Its output goes to files, never
    /// pipes, so that a child filling one while nobody reads cannot hang a test.
    /// - Parameters:
    ///   - folder: its working folder; the test's own when nil.
    ///   - environment: its whole environment; the test's own when nil.
    ///   - input: its standard input; /dev/null when nil.
    ///   - output: the file its standard output goes to, kept afterwards; a file of its own when nil.
    ///   - errors: the file its standard error is appended to, kept afterwards (a daemon it starts may hold
    ///     it open long after); a file of its own when nil.
    ///   - mergingErrors: standard error goes where standard output goes.
    public static func start(
        _ argv: [String], in folder: String? = nil, environment: [String: String]? = nil, input: String? = nil,
        output: String? = nil, errors: String? = nil, mergingErrors: Bool = false
    ) throws -> Running {
        let own = outputFolder + "/\(getpid())-\(UUID().uuidString)"
        let outPath = output ?? own + ".out", errPath = mergingErrors ? outPath : errors ?? own + ".err"
        FileManager.default.createFile(atPath: outPath, contents: nil)
        if !mergingErrors, errors == nil || !FileManager.default.fileExists(atPath: errPath) {
            FileManager.default.createFile(atPath: errPath, contents: nil)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: argv[0])
        process.arguments = Array(argv.dropFirst())
        if let folder { process.currentDirectoryURL = URL(fileURLWithPath: folder) }
        if let environment { process.environment = environment }
        let outHandle = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        let errHandle = mergingErrors ? outHandle : try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        errHandle.seekToEndOfFile()
        defer {
            try? outHandle.close()
            if !mergingErrors { try? errHandle.close() }
        }
        process.standardOutput = outHandle
        process.standardError = errHandle
        let stdin = Pipe()
        process.standardInput = input == nil ? FileHandle.nullDevice : stdin
        try process.run()
        if let input {
            try stdin.fileHandleForWriting.write(contentsOf: Data(input.utf8))
            try stdin.fileHandleForWriting.close()
        }
        let removable = [output == nil ? outPath : nil, errors == nil && !mergingErrors ? errPath : nil].compactMap { $0 }
        return Running(process: process, command: argv, outPath: outPath, errPath: errPath, removing: removable)
    }

    /// Runs `argv` (an absolute program path first) with stdin from /dev/null and a UTF-8 locale.
    /// - Parameter mergingErrors: stderr goes into the output too; otherwise it is dropped.
    @discardableResult
    public static func run(_ argv: [String], in folder: String? = nil, mergingErrors: Bool = true) throws -> (
        status: Int32, output: String
    ) {
        let environment = ProcessInfo.processInfo.environment.merging(["LC_ALL": "C.UTF-8"]) { $1 }
        let outcome = try start(argv, in: folder, environment: environment, mergingErrors: mergingErrors).wait(timeout: 3600)
        return (outcome.status, outcome.stdout)
    }

    /// Writes an executable script at `path`. The file is written by another process (`install`): a child
    /// forked by a test running alongside would inherit a descriptor of ours open for writing, and exec of
    /// the script would then fail with ETXTBSY.
    public static func installScript(_ text: String, at path: String) throws {
        let draft = path + ".draft"
        try text.write(toFile: draft, atomically: false, encoding: .utf8)
        defer { unlink(draft) }
        let installed = try run(["/usr/bin/install", "-m", "755", draft, path])
        guard installed.status == 0 else { throw CocoaError(.fileWriteUnknown) }
    }

    /// Where the output of runs that name no file goes (inside the checkout, as all test scratch does).
    static let outputFolder: String = {
        let folder = packageRoot.appendingPathComponent(".build/test-scratch/output").path
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }()
}

/// The result of one program run to its end.
public struct Outcome: CustomStringConvertible {
    public var command: [String]
    public var status: Int32
    public var uncaughtSignal: Bool
    public var stdout: String
    public var stderr: String

    /// Standard output read as one JSON object (`--json`), or nil.
    public var json: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(stdout.utf8), options: [.fragmentsAllowed])) as? [String: Any]
    }

    public var description: String {
        let shown = command.map { $0.contains(" ") ? "'\($0)'" : $0 }.joined(separator: " ")
        return "`\(shown)` → exit \(status)\(uncaughtSignal ? " (signal)" : "")\nstderr: \(stderr.prefix(2000))\nstdout: \(stdout.prefix(1500))"
    }
}

/// A program started in the background (`Tool.start`): what it wrote so far, signals, its end.
public final class Running {
    public let process: Process
    public let command: [String]
    private let outPath: String
    private let errPath: String
    private let removing: [String]

    init(process: Process, command: [String], outPath: String, errPath: String, removing: [String]) {
        self.process = process
        self.command = command
        self.outPath = outPath
        self.errPath = errPath
        self.removing = removing
    }

    deinit { removing.forEach { unlink($0) } }

    public var isRunning: Bool { process.isRunning }

    /// What it has written on standard output so far.
    public var stdoutSoFar: String { Self.text(outPath) }

    /// What it has written on standard error so far.
    public var stderrSoFar: String { Self.text(errPath) }

    /// Waits at most `timeout` seconds; kills it (SIGKILL) and records an issue when it hangs.
    public func wait(timeout: TimeInterval = 120) -> Outcome {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning {
            // Said here, not with Issue.record: this target is built with the product (release builds have no
            // Testing module), and the killed child's status fails the test's own expectation anyway.
            FileHandle.standardError.write(Data("\(command.first ?? "?") did not finish within \(timeout) s; killing it\n".utf8))
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        return Outcome(
            command: command, status: process.terminationStatus,
            uncaughtSignal: process.terminationReason == .uncaughtSignal, stdout: stdoutSoFar, stderr: stderrSoFar)
    }

    private static func text(_ path: String) -> String {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }
}
