import ArchiverCore
import Glibc

/// Readers of what `7zz` prints: its technical listing and its progress figures.
extension SevenZip {
    /// One entry of a listing, with the solid block that holds its data (7z only).
    struct Listed {
        var info: ArchiveEntryInfo
        var block: Int?
    }

    /// The entries of `7zz l -slt -ba` output: blocks of `Key = Value` lines separated by blank lines.
    /// Lines of another shape (the password prompt) are skipped. 7-Zip prints a newline inside a name as
    /// `_`, so a name cannot forge a line.
    static func parseListing(_ output: [UInt8]) -> [Listed] {
        var records: [[String: [UInt8]]] = []
        var record: [String: [UInt8]] = [:]
        func finish() {
            if record["Path"] != nil { records.append(record) }
            record = [:]
        }
        let separator = Array(" = ".utf8)
        for line in output.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            if line.isEmpty {
                finish()
                continue
            }
            guard let split = line.firstRange(of: separator) else { continue }
            let key = String(decoding: line[..<split.lowerBound], as: UTF8.self)
            if key == "Path", record["Path"] != nil { finish() }
            record[key] = Array(line[split.upperBound...])
        }
        finish()

        let entries = records.map(entry)
        // In a solid block 7-Zip gives the whole block's packed size to its first file and none to the
        // others, so a per-file figure exists only for files alone in their block.
        var blockSizes: [Int: Int] = [:]
        for case let block? in entries.map(\.block) { blockSizes[block, default: 0] += 1 }
        return entries.map { listed in
            var listed = listed
            if let block = listed.block, blockSizes[block] != 1 { listed.info.packedSize = nil }
            return listed
        }
    }

    private static func entry(_ record: [String: [UInt8]]) -> Listed {
        func text(_ key: String) -> String { record[key].map { String(decoding: $0, as: UTF8.self) } ?? "" }
        let attributes = Attributes(text("Attributes"), folder: text("Folder") == "+")
        var kind = attributes.kind
        let hardLink = record["Hard Link"].flatMap { $0.isEmpty ? nil : $0 }
        if hardLink != nil { kind = .hardlink }
        let symbolicLink = record["Symbolic Link"].flatMap { $0.isEmpty ? nil : $0 }
        let info = ArchiveEntryInfo(
            path: record["Path"] ?? [], kind: kind, size: Int64(text("Size")), packedSize: Int64(text("Packed Size")),
            modified: seconds(text("Modified")), encrypted: text("Encrypted") == "+",
            linkTarget: hardLink ?? symbolicLink,
            permissions: attributes.permissions ?? (kind == .directory ? 0o755 : 0o644),
            crc32: kind == .file ? UInt32(text("CRC"), radix: 16) : nil)
        return Listed(info: info, block: Int(text("Block")))
    }

    /// `Attributes = D drwxr-xr-x`: Windows attribute letters, optionally followed by the POSIX mode
    /// as `ls` shows it (7-Zip's PropIDUtils.cpp).
    struct Attributes {
        var kind: ArchiveEntryInfo.Kind = .file
        var permissions: UInt32?

        init(_ text: String, folder: Bool) {
            let tokens = text.split(separator: " ")
            if folder || tokens.first?.contains("D") == true { kind = .directory }
            guard let mode = tokens.last(where: Self.isPosixMode).map(Array.init) else { return }
            switch mode[0] {
            case "d": kind = .directory
            case "l": kind = .symlink
            case "c": kind = .characterDevice
            case "b": kind = .blockDevice
            case "p": kind = .fifo
            case "s": kind = .socket
            default: kind = .file
            }
            var bits: UInt32 = 0
            for (index, character) in mode.dropFirst().enumerated()
            where character != "-" && character != "S" && character != "T" {
                bits |= 1 << UInt32(8 - index)
            }
            if "sS".contains(mode[3]) { bits |= 0o4000 }
            if "sS".contains(mode[6]) { bits |= 0o2000 }
            if "tT".contains(mode[9]) { bits |= 0o1000 }
            permissions = bits
        }

        /// `-rwxr-sr-T` and the like: a type letter and nine permission letters.
        private static func isPosixMode(_ token: Substring) -> Bool {
            let characters = Array(token)
            let allowed = ["r-", "w-", "xsS-", "r-", "w-", "xsS-", "r-", "w-", "xtT-"]
            return characters.count == 10 && "-dlcbps".contains(characters[0])
                && zip(characters.dropFirst(), allowed).allSatisfy { $1.contains($0) }
        }
    }

    /// `2020-09-13 12:26:40.1234567` in UTC (the child runs with TZ=UTC0) as seconds since 1970; unrar
    /// prints its times the same way, with a comma.
    static func seconds(_ text: String) -> Int64? {
        let numbers = text.prefix(19).split(whereSeparator: { "- :".contains($0) }).compactMap { Int32($0) }
        guard numbers.count == 6 else { return nil }
        var time = tm()
        time.tm_year = numbers[0] - 1900
        time.tm_mon = numbers[1] - 1
        time.tm_mday = numbers[2]
        time.tm_hour = numbers[3]
        time.tm_min = numbers[4]
        time.tm_sec = numbers[5]
        return Int64(timegm(&time))
    }

    /// The percentages in `-bsp1` output. Each update is `NN%`, perhaps followed by a count and a file
    /// name, and is rubbed out with backspaces before the next; only the start of an update counts, so a
    /// name such as `50% off.txt` is never read as progress.
    struct ProgressReader {
        private var update: [UInt8] = []
        private var last = -1

        mutating func read(_ bytes: UnsafeRawBufferPointer, report: (Double) -> Void) {
            for byte in bytes {
                if byte == 8 || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n") {
                    finishUpdate(report)
                } else if update.count < 8, byte != UInt8(ascii: " ") || !update.isEmpty {
                    update.append(byte)
                }
            }
        }

        private mutating func finishUpdate(_ report: (Double) -> Void) {
            defer { update.removeAll(keepingCapacity: true) }
            let digits = update.prefix(while: { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
            guard !digits.isEmpty, update.dropFirst(digits.count).first == UInt8(ascii: "%"),
                let percent = Int(String(decoding: digits, as: UTF8.self)), percent != last, percent <= 100
            else { return }
            last = percent
            report(Double(percent) / 100)
        }
    }
}
