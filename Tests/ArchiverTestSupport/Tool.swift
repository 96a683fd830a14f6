import Foundation

/// Other people's programs, the tests' oracles.
public enum Tool {
    /// Runs `argv` (an absolute program path first) with stdin from /dev/null and a UTF-8 locale.
    /// - Parameter mergingErrors: stderr goes into the output too; otherwise it is dropped.
    @discardableResult
    public static func run(_ argv: [String], in folder: String? = nil, mergingErrors: Bool = true) throws -> (
        status: Int32, output: String
    ) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: argv[0])
        process.arguments = Array(argv.dropFirst())
        if let folder { process.currentDirectoryURL = URL(fileURLWithPath: folder) }
        process.environment = ProcessInfo.processInfo.environment.merging(["LC_ALL": "C.UTF-8"]) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = mergingErrors ? pipe : FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
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
}
