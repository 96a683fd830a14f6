import Foundation

// How each file manager turns an entry's command and the selected files into the argv it runs, written
// out from the specs and sources (../shared/notes/desktop-integration.md), so the tests run exactly that.

/// A key file (.desktop, .nemo_action, DES-EMA): groups of key=value, values unescaped as GKeyFile does.
struct KeyFile {
    private(set) var groups: [String: [String: String]] = [:]

    init(path: String) throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var group: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("#") { continue }
            if line.hasPrefix("[") && line.hasSuffix("]") {
                group = String(line.dropFirst().dropLast())
                groups[group ?? ""] = groups[group ?? ""] ?? [:]
                continue
            }
            guard let group, let eq = line.firstIndex(of: "=") else {
                throw Failure("\(path): not a key file line: \(line)")
            }
            let key = line[..<eq].trimmingCharacters(in: .whitespaces)
            groups[group]?[key] = Self.unescape(String(line[line.index(after: eq)...]))
        }
    }

    subscript(group: String, key: String) -> String? { groups[group]?[key] }

    /// The key-file escapes: \s \n \t \r \\ (GKeyFile's g_key_file_get_string).
    static func unescape(_ value: String) -> String {
        var out = "", escaped = false
        for c in value {
            if escaped {
                out.append(["s": " ", "n": "\n", "t": "\t", "r": "\r", "\\": "\\"][c] ?? c)
                escaped = false
            } else if c == "\\" { escaped = true } else { out.append(c) }
        }
        return out
    }
}

enum Shell {
    /// g_shell_parse_argv (and the Desktop Entry spec's Exec rules, a subset of it): words split at blanks,
    /// '…' literal, "…" with \ escaping only " ` $ \ and newline, \ outside quotes escapes anything.
    /// No expansion of $ or `: GLib runs no shell.
    static func split(_ line: Bytes) throws -> [Bytes] {
        var words: [Bytes] = [], word = Bytes(), inWord = false, i = 0
        func at(_ k: Int) -> UInt8? { k < line.count ? line[k] : nil }
        while let c = at(i) {
            switch c {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"):
                if inWord { words.append(word); word = []; inWord = false }
            case UInt8(ascii: "'"):
                inWord = true
                i += 1
                while let d = at(i), d != UInt8(ascii: "'") { word.append(d); i += 1 }
                guard at(i) != nil else { throw Failure("unterminated ' in \(line.text)") }
            case UInt8(ascii: "\""):
                inWord = true
                i += 1
                while let d = at(i), d != UInt8(ascii: "\"") {
                    if d == UInt8(ascii: "\\"), let e = at(i + 1), Bytes("\"`$\\\n").contains(e) {
                        if e != UInt8(ascii: "\n") { word.append(e) }
                        i += 2
                    } else { word.append(d); i += 1 }
                }
                guard at(i) != nil else { throw Failure("unterminated \" in \(line.text)") }
            case UInt8(ascii: "\\"):
                inWord = true
                if let e = at(i + 1), e != UInt8(ascii: "\n") { word.append(e) }
                i += 1
            default:
                inWord = true
                word.append(c)
            }
            i += 1
        }
        if inWord { words.append(word) }
        return words
    }

    /// g_shell_quote: one single-quoted word, ' written as '\''.
    static func quote(_ word: Bytes) -> Bytes {
        var out = Bytes("'")
        for c in word { out += c == UInt8(ascii: "'") ? Bytes("'\\''") : [c] }
        return out + Bytes("'")
    }

    /// Nemo 5.6 without a Quote= key (eel_str_escape_shell_characters): a backslash before blanks, quotes,
    /// \ and #; a newline becomes '\n' (quoted, as backslash-newline would vanish).
    static func nemoEscape(_ path: Bytes) -> Bytes {
        var out = Bytes()
        for c in path {
            if c == UInt8(ascii: "\n") { out += Bytes("'\n'"); continue }
            if Bytes(" \t'\"\\#").contains(c) { out.append(UInt8(ascii: "\\")) }
            out.append(c)
        }
        return out
    }
}

/// The argv (or, for Thunar, the shell command line) each mechanism runs for `files`.
enum Launch {
    /// Desktop Entry spec (GIO, KIO for Dolphin): split Exec into words, then %F becomes one word per file.
    static func desktopEntry(exec: String, files: [Bytes]) throws -> [Bytes] {
        try Shell.split(Bytes(exec)).flatMap { $0 == Bytes("%F") ? files : [$0] }
    }

    /// Nemo: %F is replaced in the string by the escaped paths, then g_spawn_command_line_async splits it.
    static func nemo(exec: String, files: [Bytes]) throws -> [Bytes] {
        let list = files.map(Shell.nemoEscape).joined(separator: Bytes(" "))
        return try Shell.split(replacing(Bytes("%F"), in: Bytes(exec), with: Bytes(list)))
    }

    /// DES-EMA (caja-actions, libfm): %F becomes the g_shell_quote'd paths, then the line is split.
    static func fileManagerAction(exec: String, files: [Bytes]) throws -> [Bytes] {
        let list = files.map(Shell.quote).joined(separator: Bytes(" "))
        return try Shell.split(replacing(Bytes("%F"), in: Bytes(exec), with: Bytes(list)))
    }

    /// Thunar (thunar-uca-model.c): %F becomes the g_shell_quote'd paths, and /bin/sh -c runs the line.
    static func thunar(command: String, files: [Bytes]) -> [Bytes] {
        let list = files.map(Shell.quote).joined(separator: Bytes(" "))
        return [Bytes("/bin/sh"), Bytes("-c"), replacing(Bytes("%F"), in: Bytes(command), with: Bytes(list))]
    }

    private static func replacing(_ token: Bytes, in line: Bytes, with value: Bytes) -> Bytes {
        var out = Bytes(), i = 0
        while i < line.count {
            if i + token.count <= line.count && Array(line[i..<i + token.count]) == token {
                out += value
                i += token.count
            } else {
                out.append(line[i])
                i += 1
            }
        }
        return out
    }
}
