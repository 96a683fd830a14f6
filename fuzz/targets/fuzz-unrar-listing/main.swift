@testable import ArchiveEngine
import ArchiverCore
import FuzzSupport

/// What `unrar lt -v` prints, read as a listing: names are printed as they are, so a name may hold
/// anything but a line break (and a line break makes the listing garbled).
runFuzzer { data, size in
    let output = fuzzInput(data, size)
    let listing = UnRAR.parseListing(output)
    let names = output.split(separator: UInt8(ascii: "\n")).filter { line in
        line.drop { $0 == UInt8(ascii: " ") }.starts(with: Array("Name: ".utf8))
    }
    require(listing.entries.count <= names.count, "\(listing.entries.count) entries from \(names.count) Name lines")
    for entry in listing.entries {
        require(entry.permissions <= 0o7777, "permissions \(String(entry.permissions, radix: 8))")
        require(entry.linkTarget == nil || entry.kind == .symlink || entry.kind == .hardlink, "a target on a \(entry.kind)")
        require(entry.kind != .directory || entry.size == nil, "a folder with a size")
    }
    return 0
}
