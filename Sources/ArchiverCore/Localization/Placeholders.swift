/// Puts values into a format string with `printf`'s placeholder syntax (`%@`, `%ld`, `%2$@`, `%%`), as
/// translators know it from gettext's objc-format. Every value arrives already rendered as text, so no
/// placeholder type can crash or read the wrong memory, whatever a translation holds.
enum Placeholders {
    static func substitute(_ format: String, _ values: [String]) -> String {
        guard format.contains("%") else { return format }
        var result = ""
        var next = 0
        var scalars = format.unicodeScalars[...]
        while let percent = scalars.firstIndex(of: "%") {
            result.unicodeScalars += scalars[..<percent]
            scalars = scalars[scalars.index(after: percent)...]
            if scalars.first == "%" {
                result += "%"
                scalars = scalars.dropFirst()
                continue
            }
            // Optional "N$", then length modifiers, then the conversion letter.
            var digits = ""
            var probe = scalars
            while let c = probe.first, ("0"..."9").contains(c) {
                digits.unicodeScalars.append(c)
                probe = probe.dropFirst()
            }
            var position: Int?
            if !digits.isEmpty, probe.first == "$" {
                position = Int(digits)
                scalars = probe.dropFirst()
            }
            while let c = scalars.first, "lhqzjt".unicodeScalars.contains(c) { scalars = scalars.dropFirst() }
            guard let conversion = scalars.first, "@dius".unicodeScalars.contains(conversion) else {
                result += "%"
                continue
            }
            scalars = scalars.dropFirst()
            let index = position.map { $0 - 1 } ?? next
            next = index + 1
            if values.indices.contains(index) { result += values[index] }
        }
        result.unicodeScalars += scalars
        return result
    }
}
