import ArchiverCore
import FuzzSupport

/// Volume-name parsing and set arrangement: the input is a file name, then `\0` and the sizes of the
/// set's parts that exist on disk (one byte a part number, one a size).
runFuzzer { data, size in
    let input = fields(fuzzInput(data, size), limit: 2)
    let name = input[0]
    guard let volume = VolumeName.parse(name) else { return 0 }
    let lowered = { (bytes: [UInt8]) in bytes.map { (65...90).contains($0) ? $0 | 0x20 : $0 } }
    // The parsed name spells the file it came from, and reads back as itself.
    require(lowered(volume.name(number: volume.number)) == lowered(name), "\(shown(name)) is not part \(volume.number) of its set")
    require(VolumeName.parse(volume.name(number: volume.number)) == volume, "\(shown(name)) does not read back")
    require(!volume.setName.isEmpty, "\(shown(name)) names an empty set")

    var siblings: [VolumeName: Int64] = [volume: 1000]
    let sizes = input.count > 1 ? input[1] : []
    for pair in stride(from: 0, to: sizes.count - 1, by: 2) {
        var part = volume
        part.number = Int(sizes[pair]) - (volume.style == .rarOld ? 1 : 0)
        siblings[part] = Int64(sizes[pair + 1]) * 10
    }
    switch VolumeName.arrange(volume, siblings: siblings) {
    case .parts(let parts):
        require(!parts.isEmpty && parts.allSatisfy { $0.isSibling(of: volume) }, "a stranger in the set of \(shown(name))")
        require(parts.count == 1 || parts.allSatisfy { siblings[$0] != nil }, "a part that is not on disk")
        require(Set(parts.map(\.number)).count == parts.count, "a part twice")
        require(parts.count == 1 || parts.contains(volume), "the set of \(shown(name)) leaves it out")
    case .missing(let part):
        require(siblings[part] == nil, "part \(part.number) of \(shown(name)) is there but called missing")
    case .shortPart(let part):
        require(siblings[part] != nil, "part \(part.number) of \(shown(name)) is called short but is not there")
    }
    return 0
}
