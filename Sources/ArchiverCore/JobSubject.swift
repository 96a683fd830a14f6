import SystemPackage

/// What a job works on, as its sentences name it: one input by its name, several by their count. Every
/// sentence is written out in both forms, so a translation can inflect the words around a name or a number.
public struct JobSubject {
    /// The name of the one input; nil for several.
    public let name: String?
    public let count: Int

    public init(_ inputs: [FilePath]) {
        count = inputs.count
        name = inputs.count == 1 ? inputs[0].lastComponent?.string ?? inputs[0].string : nil
    }

    /// `one` with the name, or `many` with the count: `say({ tr("Compressing “%@”", $0) }, { ntr(…, $0) })`.
    public func say(_ one: (String) -> Text, _ many: (Int) -> Text) -> Text {
        name.map(one) ?? many(count)
    }
}
