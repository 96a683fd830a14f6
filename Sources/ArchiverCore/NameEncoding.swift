/// Legacy code pages of zip entry names written without the UTF-8 flag (Windows' "Send to compressed
/// folder", old WinZip, Japanese and Chinese tools), guessed from all the names of one archive together:
/// one name is often ambiguous, an archive's worth rarely is.
public enum NameEncoding {
    /// The code pages tried, in the order that breaks ties: Western names first (a short one can read as
    /// a kanji too), and the OEM code pages Windows writes zip names in before the ANSI one.
    public static let candidates = ["CP437", "CP932", "GBK", "CP866", "CP1252"]

    /// Whether `name` needs decoding at all: ASCII and valid UTF-8 are taken as they are.
    public static func needsDecoding(_ name: [UInt8]) -> Bool {
        name.contains { $0 >= 0x80 } && String(validating: name, as: UTF8.self) == nil
    }

    /// The code page that reads `names` most plausibly; nil when every name is UTF-8 (or ASCII) or no
    /// candidate reads them all.
    /// - Parameter decode: turns bytes in a code page into text, nil when they are invalid in it.
    public static func guess(_ names: [[UInt8]], decode: (_ bytes: [UInt8], _ encoding: String) -> String?) -> String? {
        let legacy = names.filter(needsDecoding)
        guard !legacy.isEmpty else { return nil }
        var best: (encoding: String, score: Int)?
        for encoding in candidates {
            var total = 0
            var readable = true
            for name in legacy {
                guard let text = decode(name, encoding) else {
                    readable = false
                    break
                }
                total += score(name, text, encoding)
            }
            if readable, total > best?.score ?? Int.min { best = (encoding, total) }
        }
        return best?.encoding
    }

    /// How plausible `text`, decoded from `bytes` in `encoding`, is as a file name written by a person.
    static func score(_ bytes: [UInt8], _ text: String, _ encoding: String) -> Int {
        switch encoding {
        case "CP932": return shiftJISScore(bytes)
        case "GBK": return gbkScore(bytes)
        default: return singleByteScore(text, encoding)
        }
    }

    /// Shift-JIS: kana (leads 0x82, 0x83) are the surest sign of Japanese, kanji count too; half-width
    /// katakana (single bytes 0xA1–0xDF) are rare in names, and so are ASCII letters glued to a kanji.
    private static func shiftJISScore(_ bytes: [UInt8]) -> Int {
        var score = 0
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte < 0x80 {
                index += 1
            } else if (0xA1...0xDF).contains(byte) {
                score -= 1
                index += 1
            } else {
                switch byte {
                case 0x82, 0x83: score += 4
                case 0x88...0x9F, 0xE0...0xEA: score += 3
                default: score -= 1
                }
                score -= gluedToASCIILetters(bytes, from: index, to: index + 2)
                index += 2
            }
        }
        return score
    }

    /// GBK: the common hanzi are GB2312's (both bytes 0xA1 and up, leads from 0xB0); GBK's extension
    /// characters, which any stray byte pair decodes to, are rare in names.
    private static func gbkScore(_ bytes: [UInt8]) -> Int {
        var score = 0
        var index = 0
        while index < bytes.count {
            let lead = bytes[index]
            guard lead >= 0x80 else {
                index += 1
                continue
            }
            let trail = index + 1 < bytes.count ? bytes[index + 1] : 0
            score += (0xB0...0xF7).contains(lead) && trail >= 0xA1 ? 2 : (0xA1...0xA9).contains(lead) && trail >= 0xA1 ? 0 : -1
            score -= gluedToASCIILetters(bytes, from: index, to: index + 2)
            index += 2
        }
        return score
    }

    /// How many ASCII letters touch the double-byte character at `start..<end`: 0, 1 or 2.
    private static func gluedToASCIILetters(_ bytes: [UInt8], from start: Int, to end: Int) -> Int {
        func isLetter(_ index: Int) -> Bool {
            bytes.indices.contains(index) && (bytes[index] | 0x20) >= UInt8(ascii: "a") && (bytes[index] | 0x20) <= UInt8(ascii: "z")
        }
        return (isLetter(start - 1) ? 1 : 0) + (isLetter(end) ? 1 : 0)
    }

    /// Single-byte code pages: letters of the code page's script score, symbols and box drawing cost.
    /// Latin names mix accented letters into ASCII words, and rarely run several together, which
    /// double-byte names misread as Latin always do; Cyrillic names do not mix in ASCII letters.
    private static func singleByteScore(_ text: String, _ encoding: String) -> Int {
        let scalars = Array(text.unicodeScalars)
        let cyrillic = encoding == "CP866"
        func isASCIILetter(_ index: Int) -> Bool {
            scalars.indices.contains(index) && scalars[index].properties.isAlphabetic && scalars[index].value < 0x80
        }
        var score = 0
        for (index, scalar) in scalars.enumerated() where scalar.value >= 0x80 {
            let value = scalar.value
            let inScript =
                cyrillic
                ? (0x0400...0x04FF).contains(value)
                : scalar.properties.isAlphabetic && (0x00C0...0x024F).contains(value) && value != 0x00D7 && value != 0x00F7
            guard inScript else {
                score -= 2
                continue
            }
            score += 2
            let besideASCII = isASCIILetter(index - 1) || isASCIILetter(index + 1)
            if cyrillic {
                if besideASCII { score -= 3 }
            } else {
                if besideASCII { score += 1 }
                if index > 0, scalars[index - 1].value >= 0x80 { score -= 1 }
            }
        }
        return score
    }
}
