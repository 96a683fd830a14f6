import ArchiverTestSupport
import Foundation
import Glibc
import Testing

// Helpers for the desktop-integration tests: a throwaway home per test, the install script, subprocesses
// with byte-exact arguments (file names need not be UTF-8, which Foundation's Process cannot pass).

/// A path or argument as raw bytes; built from a String or from bytes that are not UTF-8.
typealias Bytes = [UInt8]

extension Array where Element == UInt8 {
    init(_ string: String) { self = Array(string.utf8) }
    var text: String { String(decoding: self, as: UTF8.self) }
    static func / (dir: Bytes, name: Bytes) -> Bytes { dir + Bytes("/") + name }
}

enum Paths {
    static let packageRoot = ArchiverTestSupport.packageRoot.path
    static let script = packageRoot + "/scripts/desktop-integration.sh"
    /// Where the executables are, as every other suite finds them (BuiltProducts); the check before install
    /// names what is missing.
    static let builtBin = BuiltProducts.folder(holding: executables)
        ?? ProcessInfo.processInfo.environment["ARCHIVER_BIN_DIR"] ?? packageRoot + "/.build/debug"
    /// What install names in Exec and TryExec keys (the "Open with" handlers of PDFs and photos run the windows).
    static let executables = [
        "compress-with-archiver", "extract-with-archiver", "compress-pdf-with-archiver", "compress-photos-with-archiver",
        "archiver-compress-pdf", "archiver-compress-photos",
    ]
}

struct Failure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The result of a finished subprocess.
struct Run {
    let status: Int32
    let stdout: String
    let stderr: String
    var ok: Bool { status == 0 }
}

/// Runs `argv` (raw bytes) with `environment`, optionally in `directory`, and waits for it.
/// `/usr/bin/env -C` changes directory: posix_spawn has no portable chdir action.
@discardableResult
func run(_ argv: [Bytes], environment: [String: String], in directory: Bytes? = nil) throws -> Run {
    let outputs = FileManager.default.temporaryDirectory.appendingPathComponent("di-\(getpid())-\(UUID())").path
    defer { unlink(outputs + ".out"); unlink(outputs + ".err") }
    var full = argv
    if let directory { full = [Bytes("/usr/bin/env"), Bytes("-C") + directory] + argv }
    let cArgs = full.map { bytes in strdup(bytes.map { CChar(bitPattern: $0) } + [0]) }
    let cEnv = environment.map { strdup("\($0.key)=\($0.value)") }
    defer { (cArgs + cEnv).forEach { free($0) } }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outputs + ".out", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, outputs + ".err", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard let program = cArgs.first ?? nil else { throw Failure("empty command") }
    var pid = pid_t()
    let spawned = posix_spawnp(&pid, program, &actions, nil, cArgs + [nil], cEnv + [nil])
    guard spawned == 0 else { throw Failure("cannot start \(full[0].text): \(String(cString: strerror(spawned)))") }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    func read(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
    return Run(status: code, stdout: read(outputs + ".out"), stderr: read(outputs + ".err"))
}

/// A throwaway home under .build/test-scratch (not /tmp: the extractor treats /tmp as a temporary place),
/// with the built executables copied into a bin folder whose name needs quoting in every format.
struct Home {
    let scratch: ScratchDirectory
    var root: String { scratch.path }
    var home: String { root + "/home" }
    var data: String { home + "/.local/share" }
    var config: String { home + "/.config" }
    /// Space, double and single quotes and a dollar sign: each format's Exec quoting is exercised. A plain
    /// name where a test needs xdg-open's generic mode, which cannot run a quoted Exec key.
    let bin: String

    init(_ label: String = #function, plainBin: Bool = false) throws {
        scratch = try ScratchDirectory(label)
        bin = scratch.path + (plainBin ? "/bin" : "/bin dir \"q\" 'x' $y")
        let fm = FileManager.default
        try fm.createDirectory(atPath: home, withIntermediateDirectories: true)
        try fm.createDirectory(atPath: bin, withIntermediateDirectories: true)
        for exe in Paths.executables {
            guard fm.isExecutableFile(atPath: Paths.builtBin + "/" + exe) else {
                throw Failure("\(Paths.builtBin)/\(exe) is not built: run swift build (or set ARCHIVER_BIN_DIR)")
            }
            // Copied by another process: a child forked meanwhile by a parallel test would inherit our
            // descriptor open for writing, and starting the copy would fail with ETXTBSY.
            let copied = try run(
                [Bytes("/usr/bin/install"), Bytes("-m"), Bytes("755"), Bytes(Paths.builtBin + "/" + exe), Bytes(bin + "/" + exe)],
                environment: [:])
            guard copied.ok else { throw Failure("cannot copy \(exe): \(copied.stderr)") }
        }
    }

    func remove() { try? FileManager.default.removeItem(atPath: root) }

    /// A clean environment: nothing of the real user's session leaks in. GNOME makes xdg-mime use gio.
    /// Nautilus gets the scripts (no nautilus-python loader); `nautilusExtension()` gives the extension.
    var environment: [String: String] {
        let inherited = ProcessInfo.processInfo.environment
        return [
            "HOME": home, "XDG_DATA_HOME": data, "XDG_CONFIG_HOME": config, "XDG_CACHE_HOME": home + "/.cache",
            "XDG_CURRENT_DESKTOP": "GNOME", "PATH": inherited["PATH"] ?? "/usr/bin:/bin",
            "LANG": "C.UTF-8", "GSETTINGS_BACKEND": "memory", "BINDIR": bin, "NAUTILUS_PYTHON": "/nonexistent",
        ]
    }

    /// The nautilus-python extension as install writes it where python3-nautilus is present: this home has
    /// the scripts instead, so it is installed once into a data folder of its own (with `extra`, as the
    /// home's own install was: the first call decides).
    func nautilusExtension(extra: [String: String] = [:]) throws -> String {
        let data = root + "/extension-data"
        let path = data + "/nautilus-python/extensions/io_github_archiver.py"
        if !FileManager.default.fileExists(atPath: path) {
            try integration("install", extra: extra.merging(["XDG_DATA_HOME": data, "NAUTILUS_PYTHON": "/bin/sh"]) { $1 })
        }
        return path
    }

    /// Runs the install script's subcommand and fails the test with its stderr when it fails.
    @discardableResult
    func integration(_ subcommand: String, extra: [String: String] = [:]) throws -> Run {
        let result = try run([Bytes("bash"), Bytes(Paths.script), Bytes(subcommand)],
                             environment: environment.merging(extra) { $1 })
        guard result.ok else { throw Failure("\(subcommand) failed (\(result.status)): \(result.stderr)") }
        return result
    }

    func tool(_ argv: String...) throws -> Run { try run(argv.map { Bytes($0) }, environment: environment) }
}

/// Every path under `root`, for `differences(to:, .layout)`: an install is checked by kinds, modes and sizes.
func snapshot(_ root: String) -> TreeSnapshot { TreeSnapshot.of(root) }

// MARK: - Files whose names are raw bytes

func makeDirectory(_ path: Bytes) { _ = path.withCString { mkdir($0, 0o755) } }

func write(_ contents: Bytes, to path: Bytes) throws {
    let fd = path.withCString { open($0, O_WRONLY | O_CREAT | O_TRUNC, 0o644) }
    guard fd >= 0 else { throw Failure("cannot create \(path.text)") }
    defer { close(fd) }
    _ = contents.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
}

func contents(_ path: Bytes) -> Bytes? {
    let fd = path.withCString { open($0, O_RDONLY | O_CLOEXEC) }
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var out = Bytes(), buffer = Bytes(repeating: 0, count: 65536)
    while true {
        let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        if n <= 0 { return out }
        out += buffer[0..<n]
    }
}

/// Names in a folder as raw bytes, sorted, without "." and "..".
func names(in directory: Bytes) -> [Bytes] {
    guard let dir = directory.withCString({ opendir($0) }) else { return [] }
    defer { closedir(dir) }
    var out: [Bytes] = []
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in Bytes(raw.prefix { $0 != 0 }) }
        if name != Bytes(".") && name != Bytes("..") { out.append(name) }
    }
    return out.sorted { $0.lexicographicallyPrecedes($1) }
}

extension Array where Element == UInt8 {
    func withCString<R>(_ body: (UnsafePointer<CChar>) -> R) -> R {
        let chars = map { CChar(bitPattern: $0) } + [0]
        return chars.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { preconditionFailure("a NUL-terminated buffer is never empty") }
            return body(base)
        }
    }
}

/// File names that break naive quoting: space, quotes, `$`, a newline, a leading `-`, and Latin-1 "é"
/// (byte 0xE9, not UTF-8). Each file holds its own name, so a mix-up shows.
let oddNames: [Bytes] = [
    Bytes("two words.txt"), Bytes("quote\"d 'single'.txt"), Bytes("$HOME and `cmd`.txt"),
    Bytes("new\nline.txt"), Bytes("-leading dash.txt"), Bytes("caf") + [0xE9] + Bytes(".txt"),
]

/// A folder `dir` holding one file per odd name.
func makeOddFiles(in dir: Bytes) throws {
    makeDirectory(dir)
    for name in oddNames { try write(name, to: dir / name) }
}
