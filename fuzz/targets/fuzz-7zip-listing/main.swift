@testable import ArchiveEngine
import ArchiverCore
import FuzzSupport

/// What 7-Zip prints, read as a listing (`7zz l -slt -ba`) and as progress (`-bsp1`): the names and
/// fields come from the archive, so the text is as hostile as the archive.
runFuzzer { data, size in
    let output = fuzzInput(data, size)
    let listed = SevenZip.parseListing(output)
    let paths = output.split(separator: UInt8(ascii: "\n")).filter { $0.starts(with: Array("Path = ".utf8)) }
    require(listed.count <= paths.count, "\(listed.count) entries from \(paths.count) Path lines")
    for entry in listed {
        let info = entry.info
        require(info.permissions <= 0o7777, "permissions \(String(info.permissions, radix: 8))")
        require(info.packedSize == nil || entry.block == nil || listed.filter { $0.block == entry.block }.count == 1,
                "a packed size for a file that shares its solid block")
    }
    var reader = SevenZip.ProgressReader()
    var last = -1.0
    output.withUnsafeBytes { bytes in
        reader.read(bytes) { fraction in
            require((0...1).contains(fraction) && fraction != last, "progress \(fraction) after \(last)")
            last = fraction
        }
    }
    return 0
}
