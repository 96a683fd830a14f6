import ArchiverCore
import SystemPackage

/// The command line as bytes. Swift decodes argv as UTF-8 and turns other bytes into U+FFFD, so a file
/// named with Latin-1 bytes would look missing; this maps each parsed value back to the bytes it came from.
package struct RawArguments {
    private var arguments: [(text: String, bytes: [UInt8])]
    private var used: Set<Int> = []

    init(_ argv: [[UInt8]]) {
        arguments = argv.map { (String(decoding: $0, as: UTF8.self), $0) }
    }

    /// The process's own arguments, without the program name.
    package static func current() -> RawArguments {
        var argv: [[UInt8]] = []
        for index in 1..<Int(CommandLine.argc) {
            guard let pointer = CommandLine.unsafeArgv[index] else { continue }
            argv.append(CString.bytes(pointer))
        }
        return RawArguments(argv)
    }

    /// The bytes of the argument that `value` was parsed from; its UTF-8 when none matches.
    package mutating func bytes(for value: String) -> [UInt8] {
        for (index, argument) in arguments.enumerated() where !used.contains(index) {
            if argument.text == value {
                used.insert(index)
                return argument.bytes
            }
            // `--output=VALUE`
            if argument.text.hasPrefix("--"), let equals = argument.bytes.firstIndex(of: UInt8(ascii: "=")),
                String(decoding: argument.bytes[(equals + 1)...], as: UTF8.self) == value
            {
                used.insert(index)
                return Array(argument.bytes[(equals + 1)...])
            }
            // `-tDIR`
            if !argument.text.hasPrefix("--"), argument.text.hasPrefix("-"), argument.bytes.count > 2,
                String(decoding: argument.bytes.dropFirst(2), as: UTF8.self) == value
            {
                used.insert(index)
                return Array(argument.bytes.dropFirst(2))
            }
        }
        return Array(value.utf8)
    }

    /// The path that `value` was parsed from.
    package mutating func path(for value: String) -> FilePath { FilePath(bytes: bytes(for: value)) }
}
