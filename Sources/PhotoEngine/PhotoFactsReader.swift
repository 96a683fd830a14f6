import ArchiverCore

/// What a photo's IPTC and XMP say for the Compress Photos… filters (the date and position from EXIF come
/// from the shim, which reads the EXIF block): the place written in it, and the date and position in XMP
/// when EXIF has none. Pure, so that it is tested without a photo; nothing is looked up.
public enum PhotoFactsReader {
    /// The facts from what the header read: EXIF's date (as written) and position, the IPTC block and the XMP
    /// packet. IPTC comes first where both name a place (the IPTC-IIM fields are what most tools write and
    /// keep in step), XMP fills what it lacks.
    public static func facts(exifDate: String, exifLocated: Bool, iptc: [UInt8], xmp: String?) -> PhotoFacts {
        var facts = PhotoFacts(taken: PhotoDate(parsing: exifDate), located: exifLocated)
        let fromIPTC = iptcPlace(iptc)
        facts.city = fromIPTC.city
        facts.state = fromIPTC.state
        facts.country = fromIPTC.country
        if let xmp, !xmp.isEmpty { merge(xmpFacts(xmp), into: &facts) }
        return facts
    }

    /// Fills what `facts` lacks from `other`.
    static func merge(_ other: PhotoFacts, into facts: inout PhotoFacts) {
        facts.taken = facts.taken ?? other.taken
        facts.located = facts.located || other.located
        facts.city = facts.city ?? other.city
        facts.state = facts.state ?? other.state
        facts.country = facts.country ?? other.country
    }

    // MARK: - IPTC

    /// City (2:90), Province/State (2:95) and Country (2:101) of an IPTC-IIM block, or of the Photoshop
    /// image resources that carry one (a JPEG's APP13: "Photoshop 3.0", resource 0x0404).
    static func iptcPlace(_ bytes: [UInt8]) -> (city: String?, state: String?, country: String?) {
        let records = iimRecords(photoshopIPTC(bytes) ?? bytes[...])
        // 1:90 names the character set; ESC % G is UTF-8. Without it, text that is not UTF-8 is Latin-1.
        let utf8 = records.first { $0.record == 1 && $0.dataset == 90 }.map { Array($0.value) == [0x1B, 0x25, 0x47] } ?? false
        func text(_ dataset: UInt8) -> String? {
            guard let value = records.first(where: { $0.record == 2 && $0.dataset == dataset })?.value else { return nil }
            return cleaned(decode(Array(value), utf8: utf8))
        }
        return (text(90), text(95), text(101))
    }

    /// The IPTC block inside Photoshop image resources ("8BIM" blocks); nil when `bytes` are not those.
    static func photoshopIPTC(_ bytes: [UInt8]) -> ArraySlice<UInt8>? {
        let signature = Array("Photoshop 3.0\0".utf8)
        var at = 0
        if bytes.starts(with: signature) { at = signature.count } else if !bytes.starts(with: Array("8BIM".utf8)) { return nil }
        while at + 12 <= bytes.count, bytes[at..<(at + 4)].elementsEqual("8BIM".utf8) {
            let id = Int(bytes[at + 4]) << 8 | Int(bytes[at + 5])
            // The name: a Pascal string padded to an even length (its length byte included).
            let nameLength = Int(bytes[at + 6])
            var data = at + 6 + nameLength + 1
            if (nameLength + 1) % 2 == 1 { data += 1 }
            guard data + 4 <= bytes.count else { return nil }
            let size = Int(bytes[data]) << 24 | Int(bytes[data + 1]) << 16 | Int(bytes[data + 2]) << 8 | Int(bytes[data + 3])
            data += 4
            guard size <= bytes.count - data else { return nil }
            if id == 0x0404 { return bytes[data..<(data + size)] }
            at = data + size + size % 2
        }
        return nil
    }

    /// The datasets of an IPTC-IIM block: 0x1C, record, dataset, a length (two bytes, or with the top bit set
    /// the count of bytes holding it), the value. Stops at the first byte that is no tag marker.
    static func iimRecords(_ bytes: ArraySlice<UInt8>) -> [(record: UInt8, dataset: UInt8, value: ArraySlice<UInt8>)] {
        var records: [(record: UInt8, dataset: UInt8, value: ArraySlice<UInt8>)] = []
        var at = bytes.startIndex
        while at + 5 <= bytes.endIndex, bytes[at] == 0x1C {
            let record = bytes[at + 1], dataset = bytes[at + 2]
            var length = Int(bytes[at + 3]) << 8 | Int(bytes[at + 4])
            var value = at + 5
            if length & 0x8000 != 0 {
                let count = length & 0x7FFF
                guard count <= 4, value + count <= bytes.endIndex else { break }
                length = bytes[value..<(value + count)].reduce(0) { $0 << 8 | Int($1) }
                value += count
            }
            guard length <= bytes.endIndex - value else { break }
            records.append((record: record, dataset: dataset, value: bytes[value..<(value + length)]))
            at = value + length
        }
        return records
    }

    /// UTF-8 when it is (or when the block says so), else Latin-1: a byte each.
    private static func decode(_ bytes: [UInt8], utf8: Bool) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        if utf8 { return String(decoding: bytes, as: UTF8.self) }
        return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }

    /// Trimmed; nil when nothing is left.
    private static func cleaned(_ text: String) -> String? {
        let blank: (Character) -> Bool = { $0.isWhitespace || $0 == "\0" }
        let trimmed = text.drop(while: blank)
        var end = trimmed.endIndex
        while end > trimmed.startIndex, blank(trimmed[trimmed.index(before: end)]) { end = trimmed.index(before: end) }
        return end == trimmed.startIndex ? nil : String(trimmed[..<end])
    }

    // MARK: - XMP

    /// The place (photoshop:City, photoshop:State, photoshop:Country), the date (exif:DateTimeOriginal,
    /// else xmp:CreateDate, else photoshop:DateCreated) and whether it has a position (exif:GPSLatitude and
    /// exif:GPSLongitude) of an XMP packet.
    static func xmpFacts(_ xmp: String) -> PhotoFacts {
        let taken = ["exif:DateTimeOriginal", "xmp:CreateDate", "photoshop:DateCreated"].lazy.compactMap {
            xmpProperty(xmp, $0).flatMap { PhotoDate(parsing: $0) }
        }.first
        return PhotoFacts(
            taken: taken, located: xmpProperty(xmp, "exif:GPSLatitude") != nil && xmpProperty(xmp, "exif:GPSLongitude") != nil,
            city: xmpProperty(xmp, "photoshop:City"), state: xmpProperty(xmp, "photoshop:State"),
            country: xmpProperty(xmp, "photoshop:Country"))
    }

    /// A simple XMP property's value, as an attribute (`photoshop:City="Lisboa"`) or an element
    /// (`<photoshop:City>Lisboa</photoshop:City>`), entities decoded; nil when absent or empty. XMP written by
    /// the usual tools names these namespaces with these prefixes.
    static func xmpProperty(_ xmp: String, _ name: String) -> String? {
        var rest = Substring(xmp)
        while let range = rest.firstRange(of: name) {
            let before = rest[..<range.lowerBound].last
            rest = rest[range.upperBound...]
            // Not a longer name that ends with this one ("exif:GPSLatitudeRef" for "exif:GPSLatitude").
            guard before == "<" || before?.isWhitespace == true else { continue }
            let after = rest.drop { $0 == " " }
            if before != "<", after.first == "=" {
                let quoted = after.dropFirst().drop { $0 == " " }
                guard let quote = quoted.first, quote == "\"" || quote == "'" else { continue }
                let value = quoted.dropFirst().prefix { $0 != quote }
                return cleaned(entities(value))
            }
            if before == "<", after.first == ">" {
                let value = after.dropFirst().prefix { $0 != "<" }
                return cleaned(entities(value))
            }
        }
        return nil
    }

    /// XML's five entities and numeric references.
    private static func entities(_ text: Substring) -> String {
        guard text.contains("&") else { return String(text) }
        var result = ""
        var rest = text
        while let amp = rest.firstIndex(of: "&") {
            result += rest[..<amp]
            rest = rest[amp...]
            guard let semicolon = rest.firstIndex(of: ";"), rest.distance(from: rest.startIndex, to: semicolon) <= 10 else {
                result += "&"
                rest = rest.dropFirst()
                continue
            }
            let name = rest[rest.index(after: rest.startIndex)..<semicolon]
            let named: [Substring: String] = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'"]
            if let replacement = named[name] {
                result += replacement
            } else if name.hasPrefix("#"), let code = name.hasPrefix("#x") ? UInt32(name.dropFirst(2), radix: 16) : UInt32(name.dropFirst()),
                let scalar = Unicode.Scalar(code)
            {
                result.unicodeScalars.append(scalar)
            } else {
                result += rest[...semicolon]
            }
            rest = rest[rest.index(after: semicolon)...]
        }
        return result + rest
    }
}
