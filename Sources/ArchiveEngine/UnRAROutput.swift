import ArchiverCore

/// The reader of `unrar lt -v`, its technical listing of every volume.
extension UnRAR {
    struct Listing {
        var entries: [ArchiveEntryInfo] = []
        /// Whether a file's data may depend on the files before it, so that testing a later one unpacks
        /// those too.
        var solid = false
        /// "Details: RAR 5, encrypted headers": the names themselves need the password.
        var encryptedNames = false
        /// unrar prints names as they are, so a line break in one can make lines of its own: a `Name`
        /// not followed by its `Type`, or a key twice in one entry.
        var garbled = false
    }

    /// The entries of the listing: an `Archive:` and `Details:` line for each volume, then a block of
    /// `Key: value` lines for each entry, keys right-aligned (`        Name: a.txt`). A file split across
    /// volumes is listed in each; only its first piece (`Ratio: -->`, or a percentage) counts.
    static func parseListing(_ output: [UInt8]) -> Listing {
        var listing = Listing()
        var record: [String: [UInt8]] = [:]
        func finish() {
            defer { record = [:] }
            guard let path = record["Name"], let entry = entry(path, record) else { return }
            listing.entries.append(entry)
        }
        let separator = Array(": ".utf8)
        var previousKey = ""
        for line in output.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            guard let split = line.firstRange(of: separator) else {
                if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\r") }) {
                    finish()
                } else if record["Name"] != nil {
                    listing.garbled = true
                }
                previousKey = ""
                continue
            }
            let key = String(decoding: line[..<split.lowerBound], as: UTF8.self).drop { $0 == " " }
            let value = Array(line[split.upperBound...])
            if previousKey == "Name", key != "Type" { listing.garbled = true }
            previousKey = String(key)
            switch key {
            case "Name":
                finish()
                record["Name"] = value
            case "Archive":
                finish()
            case "Details":
                let details = String(decoding: value, as: UTF8.self)
                if details.contains("encrypted headers") { listing.encryptedNames = true }
                if details.contains("solid") { listing.solid = true }
            default:
                guard record["Name"] != nil else { continue }
                if record[String(key)] != nil { listing.garbled = true }
                record[String(key)] = value
            }
        }
        finish()
        return listing
    }

    private static func entry(_ path: [UInt8], _ record: [String: [UInt8]]) -> ArchiveEntryInfo? {
        func text(_ key: String) -> String { record[key].map { String(decoding: $0, as: UTF8.self) } ?? "" }
        let ratio = text("Ratio")
        if ratio == "<--" || ratio == "<->" { return nil }
        let kind: ArchiveEntryInfo.Kind
        switch text("Type") {
        case "File", "File reference": kind = .file
        case "Directory": kind = .directory
        case "Unix symbolic link", "Windows symbolic link", "NTFS junction point": kind = .symlink
        case "Hard link": kind = .hardlink
        default: return nil
        }
        // A RAR4 link's target is its data, which is encrypted with the file: unrar shows `*<-?->`.
        let target = record["Target"].flatMap { $0.isEmpty || $0 == Array("*<-?->".utf8) ? nil : $0 }
        let attributes = SevenZip.Attributes(text("Attributes"), folder: kind == .directory)
        return ArchiveEntryInfo(
            path: path, kind: kind, size: kind == .directory ? nil : Int64(text("Size")),
            packedSize: ratio == "-->" ? nil : Int64(text("Packed size")), modified: SevenZip.seconds(text("mtime")),
            encrypted: text("Flags").contains("encrypted"), linkTarget: kind == .symlink || kind == .hardlink ? target : nil,
            permissions: attributes.permissions ?? (kind == .directory ? 0o755 : 0o644))
    }
}
