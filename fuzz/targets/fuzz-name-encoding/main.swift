@testable import ArchiveEngine
import ArchiverCore
import FuzzSupport

/// Name-encoding detection and decoding: the input is an archive's names, one per line.
runFuzzer { data, size in
    let names = fuzzInput(data, size).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Array.init)
    guard let decoder = NameDecoder.guess(names) else { return 0 }
    require(names.contains(where: NameEncoding.needsDecoding), "guessed a code page for UTF-8 names")
    require(NameEncoding.candidates.contains(decoder.encoding), "guessed \(decoder.encoding), not a candidate")
    for name in names {
        let decoded = decoder(name)
        guard NameEncoding.needsDecoding(name) else {
            require(decoded == name, "changed the UTF-8 or ASCII name \(shown(name))")
            continue
        }
        // The guess reads every legacy name; a name that decodes must not gain a separator, a NUL or a `..`.
        require(NameDecoder.decode(name, from: decoder.encoding) != nil, "\(decoder.encoding) does not read \(shown(name))")
        require(String(validating: decoded, as: UTF8.self) != nil, "decoded \(shown(name)) is not UTF-8")
        for byte: UInt8 in [0, UInt8(ascii: "/")] {
            require(decoded.filter { $0 == byte }.count == name.filter { $0 == byte }.count, "\(shown(name)) gained or lost \(byte)")
        }
        let parents = { (bytes: [UInt8]) in bytes.split(separator: UInt8(ascii: "/")).filter { Array($0) == [46, 46] }.count }
        require(parents(decoded) == parents(name), "decoding \(shown(name)) made a `..`")
    }
    return 0
}
