import ArchiverCore
import SystemPackage
import Testing

@Suite struct VolumeNameTests {
    func parse(_ name: String) -> VolumeName? { VolumeName.parse(Array(name.utf8)) }
    func name(_ volume: VolumeName) -> String { String(decoding: volume.name(number: volume.number), as: UTF8.self) }

    @Test func partNamesAreRecognisedAndRebuilt() {
        let cases: [(String, VolumeName.Style, Int, String)] = [
            ("x.7z.001", .numbered(width: 3), 1, "x.7z"),
            ("Photos 2024.zip.012", .numbered(width: 3), 12, "Photos 2024.zip"),
            ("movie.001", .numbered(width: 3), 1, "movie"),
            ("t.tar.gz.00", .numbered(width: 2), 0, "t.tar.gz"),
            ("t.tar.gz.ab", .lettered(width: 2), 1, "t.tar.gz"),
            ("x.part1.rar", .rarPart(width: 1), 1, "x.rar"),
            ("x.part07.rar", .rarPart(width: 2), 7, "x.rar"),
            ("x.r00", .rarOld, 0, "x.rar"),
            ("x.rar", .rarOld, -1, "x.rar"),
            ("x.z02", .zipSpanned, 2, "x.zip"),
            ("x.zip", .zipSpanned, .max, "x.zip"),
            ("OLD.R01", .rarOld, 1, "OLD.rar"),
        ]
        for (text, style, number, setName) in cases {
            let volume = parse(text)
            #expect(volume?.style == style, "\(text)")
            #expect(volume?.number == number, "\(text)")
            #expect(volume.map { String(decoding: $0.setName, as: UTF8.self) } == setName, "\(text)")
            #expect(volume.map(name) == text, "rebuilt \(text)")
        }
    }

    @Test func ordinaryNamesAreNotParts() {
        for text in ["report.pdf", "notes.01", "2024.12", "x.tar.gz", "archive.aa", ".001", "x.tar.gz.AB", "x.tar.xz"] {
            #expect(parse(text) == nil, "\(text)")
        }
    }

    /// Found by fuzz-volume-name (CI): `x.part…9223372036854775807.rar` read as part `Int.max`, the place of a
    /// spanned set's `.zip`, so the set left out the part it was given.
    @Test func aPartNumberNoToolWritesIsNotAPart() {
        let huge = "x.part" + String(repeating: "0", count: 40) + "9223372036854775807.rar"
        #expect(parse(huge)?.number == -1, "read as the plain x.part….rar, not as a numbered part")
        #expect(parse("x.7z.9223372036854775807") == nil)
        #expect(parse("x.7z.1000000") == nil)
        #expect(parse("x.7z.999999")?.number == 999_999)
        if let volume = parse(huge), case .parts(let parts) = VolumeName.arrange(volume, siblings: [volume: 10]) {
            #expect(parts == [volume])
        } else {
            Issue.record("\(huge) has no set")
        }
    }

    /// Found by fuzz-volume-name: a letter or digit with a combining mark (a decomposed "ä", as macOS
    /// writes names) is one Character that sorts between "a" and "z", and was read as part 771 of a set.
    @Test func lettersAndDigitsWithCombiningMarksAreNotPartSuffixes() {
        for text in ["n02..z.aa\u{0364}", "x.tar.gz.a\u{0061}\u{0308}", "x.zip.a\u{0308}b", "x.7z.00\u{0308}1", "x.r0\u{0308}1", "x.part1\u{0308}.rar"] {
            let volume = parse(text)
            #expect(volume == nil || volume?.style == .rarOld && volume?.number == -1, "\(text)")
        }
    }

    func arrange(_ given: String, _ present: [String: Int64]) -> VolumeName.Arrangement {
        var siblings: [VolumeName: Int64] = [:]
        for (name, size) in present { siblings[parse(name)!] = size }
        return VolumeName.arrange(parse(given)!, siblings: siblings)
    }

    func names(_ arrangement: VolumeName.Arrangement) -> [String] {
        guard case .parts(let parts) = arrangement else { return [] }
        return parts.map(name)
    }

    @Test func aWholeSetIsOrderedFromAnyPart() {
        let set: [String: Int64] = ["x.7z.001": 100, "x.7z.002": 100, "x.7z.003": 40]
        #expect(names(arrange("x.7z.002", set)) == ["x.7z.001", "x.7z.002", "x.7z.003"])
        #expect(names(arrange("x.r01", ["x.rar": 9, "x.r00": 9, "x.r01": 3])) == ["x.rar", "x.r00", "x.r01"])
        #expect(names(arrange("x.zip", ["x.z01": 9, "x.z02": 9, "x.zip": 3])) == ["x.z01", "x.z02", "x.zip"])
        #expect(names(arrange("t.tar.gz.00", ["t.tar.gz.00": 5, "t.tar.gz.01": 2])) == ["t.tar.gz.00", "t.tar.gz.01"])
        #expect(names(arrange("x.part2.rar", ["x.part1.rar": 9, "x.part2.rar": 4])) == ["x.part1.rar", "x.part2.rar"])
        // Past .999 the numbers go on: .1000 belongs to the three-digit set.
        #expect(parse("x.7z.1000")?.style == .numbered(width: 3))
        #expect(parse("x.7z.0001")?.style == .numbered(width: 4))
        #expect(names(arrange("x.7z.1000", ["x.7z.999": 5, "x.7z.1000": 2].merging((1...998).map { (String(format: "x.7z.%03d", $0), Int64(5)) }) { $1 })).count == 1000)
        // Letters without `.aa` are not split's: x.zip.bak is a plain file.
        #expect(names(arrange("x.zip.bak", ["x.zip.bak": 9])) == ["x.zip.bak"])
        // A lone x.rar or x.zip is a plain archive.
        #expect(names(arrange("x.zip", ["x.zip": 3])) == ["x.zip"])
        #expect(names(arrange("x.rar", ["x.rar": 3])) == ["x.rar"])
    }

    @Test func aHoleOrAShortPartIsNamed() {
        #expect(arrange("x.7z.003", ["x.7z.001": 100, "x.7z.003": 40]) == .missing(parse("x.7z.002")!))
        #expect(arrange("x.7z.002", ["x.7z.002": 100, "x.7z.003": 40]) == .missing(parse("x.7z.001")!))
        #expect(arrange("x.z01", ["x.z01": 9, "x.z02": 9]) == .missing(parse("x.zip")!))
        #expect(arrange("x.r00", ["x.r00": 9, "x.r01": 9]) == .missing(parse("x.rar")!))
        #expect(arrange("x.7z.001", ["x.7z.001": 100, "x.7z.002": 60, "x.7z.003": 40]) == .shortPart(parse("x.7z.002")!))
        #expect(arrange("x.7z.001", ["x.7z.001": 60, "x.7z.002": 100, "x.7z.003": 40]) == .shortPart(parse("x.7z.001")!))
        #expect(arrange("x.7z.001", ["x.7z.001": 60, "x.7z.002": 100]) == .shortPart(parse("x.7z.001")!))
        // RAR volumes may differ in size.
        #expect(names(arrange("x.part1.rar", ["x.part1.rar": 9, "x.part2.rar": 12, "x.part3.rar": 4])).count == 3)
    }

    @Test func allPartsSelectedCountOnce() {
        let given: [FilePath] = ["/a/x.7z.003", "/a/x.7z.001", "/a/y.zip", "/b/x.7z.002", "/a/x.7z.002", "/a/y.z01", "/a/notes.txt"]
        #expect(VolumeName.oncePerSet(given) == ["/a/x.7z.003", "/a/y.zip", "/b/x.7z.002", "/a/notes.txt"])
    }

    @Test func partSizesRead7ZipsWay() {
        #expect(PartSize.parse("700k") == Int64(716_800))
        #expect(PartSize.parse("100M") == Int64(104_857_600))
        #expect(PartSize.parse("4G") == Int64(4_294_967_296))
        #expect(PartSize.parse("4092m") == Int64(4092) * 1_048_576)
        #expect(PartSize.parse("2048") == 2048)
        #expect(PartSize.parse("5000b") == 5000)
        for bad in ["", "M", "1.5M", "-3k", "12X", "100", "99999999999999999G"] {
            #expect(PartSize.parse(bad) == nil, "\(bad)")
        }
        for preset in PartSize.presets { #expect(PartSize.parse(preset.size) != nil) }
        #expect(PartSize.check(1024, inputBytes: 1 << 20) == nil)
        #expect(PartSize.check(1024, inputBytes: 100 << 20)?.code == .usage)
    }
}
