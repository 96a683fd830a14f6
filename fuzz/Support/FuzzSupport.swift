/// What every fuzz target shares: its input as bytes, and the check that turns a broken invariant into
/// a crash libFuzzer saves (a `fatalError`, so the input lands in `crash-…` with the message).

import CFuzzer
import Glibc

/// Hands the process to libFuzzer, which calls `test` with each input and exits.
public func runFuzzer(_ test: @escaping @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, test))
}

/// libFuzzer's own main, linked in whole but never run (SwiftPM's main is the target's), names this
/// function; `runFuzzer` passes the real test to the driver instead.
@_cdecl("LLVMFuzzerTestOneInput")
public func unusedTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { 0 }

/// The bytes libFuzzer hands over.
public func fuzzInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data, size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
}

/// Stops the run when an invariant does not hold.
public func require(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID,
    line: UInt = #line
) {
    if !condition() { fatalError("invariant broken: \(message())", file: file, line: line) }
}

/// The input cut into fields at each 0 byte, at most `limit` of them (the last one keeps the rest).
public func fields(_ bytes: [UInt8], limit: Int) -> [[UInt8]] {
    bytes.split(separator: 0, maxSplits: limit - 1, omittingEmptySubsequences: false).map(Array.init)
}

/// Bytes as text for messages, escaping what is not printable ASCII.
public func shown(_ bytes: [UInt8]) -> String {
    bytes.map { (32..<127).contains($0) ? String(UnicodeScalar($0)) : "\\x" + String($0, radix: 16) }.joined()
}

/// A fresh scratch folder under `$TMPDIR` (else /tmp) holding `folders` (made in order, so `a` before
/// `a/b`), resolved as the extractor resolves its destination (TMPDIR may lie behind a symlink).
public func makeScratchFolder(holding folders: [String]) -> String {
    let temporary = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
    var template = Array("\(temporary)/archiver-fuzz-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { fatalError("no scratch folder: errno \(errno)") }
    guard let resolved = realpath(made, nil) else { fatalError("scratch folder unresolved") }
    defer { free(resolved) }
    let root = String(cString: resolved)
    for folder in folders { mkdir(root + "/" + folder, 0o755) }
    return root
}

/// Writes `bytes` to `path` (created or truncated): a target's input as the file the code under test reads.
public func writeFile(_ bytes: [UInt8], to path: String) {
    guard let file = fopen(path, "wb") else { fatalError("cannot write \(path): errno \(errno)") }
    if !bytes.isEmpty { fwrite(bytes, 1, bytes.count, file) }
    fclose(file)
}
