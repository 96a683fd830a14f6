import ArchiverCore
import Platform

/// Asks for a part size with the desktop's own dialog, for "Compress in parts…": a list of
/// `PartSize.presets` and "Other size…", which asks for any size. kdialog on KDE, else zenity.
public enum PartSizeChooser {
    public enum Outcome: Equatable, Sendable {
        /// A `--split` value, checked by the caller like a typed one.
        case chosen(String)
        case cancelled
        /// Neither dialog program is installed.
        case unavailable
    }

    static let other = "other"

    /// - Parameter title: the dialog's title, in the user's language.
    public static func ask(title: String, currentDesktop: String?) -> Outcome {
        guard let command = commands(title: title, currentDesktop: currentDesktop, installed: { Programs.find($0) != nil })
        else { return .unavailable }
        guard let picked = answer(command.list) else { return .cancelled }
        guard picked == other else { return .chosen(picked) }
        return answer(command.entry).map(Outcome.chosen) ?? .cancelled
    }

    /// The list dialog and the "Other size…" entry dialog of the first program installed, as argv.
    static func commands(title: String, currentDesktop: String?, installed: (String) -> Bool)
        -> (list: [String], entry: [String])?
    {
        let onKDE = currentDesktop?.split(separator: ":").contains { $0.uppercased() == "KDE" } ?? false
        let rows = PartSize.presets.map { ($0.size, $0.use.localized) } + [(other, tr("Other size…").localized)]
        let question = tr("Split the archive into parts of").localized
        // TRANSLATORS: the part size the "Other size…" dialog asks for; keep the examples as they are.
        let sizeQuestion = tr("Part size (700k, 100M, 4G):").localized
        // The columns' headings are hidden, but a screen reader still names the column by them.
        // TRANSLATORS: heads the (hidden) column of part sizes such as 15M; a screen reader may say it.
        let sizeColumn = tr("Size").localized
        // TRANSLATORS: heads the (hidden) column saying what each part size is for, such as “CD (700 MB)”.
        let useColumn = tr("For").localized
        let zenity = (
            list: ["zenity", "--list", "--title=\(title)", "--no-markup", "--text=\(Markup.escaped(question))",
                   "--column=\(sizeColumn)", "--column=\(useColumn)", "--hide-column=1",
                   "--print-column=1", "--hide-header"] + rows.flatMap { [$0.0, $0.1] },
            entry: ["zenity", "--entry", "--title=\(title)", "--no-markup", "--text=\(sizeQuestion)", "--entry-text=100M"])
        // kdialog's menu prints the tag of the chosen row.
        let kdialog = (
            list: ["kdialog", "--title", title, "--menu", Markup.kdialog(question)] + rows.flatMap { [$0.0, $0.1] },
            entry: ["kdialog", "--title", title, "--inputbox", Markup.kdialog(sizeQuestion), "100M"])
        let order = onKDE ? [kdialog, zenity] : [zenity, kdialog]
        return order.first { installed($0.list[0]) }
    }

    /// The dialog's first line of output; nil when it was cancelled or printed nothing.
    private static func answer(_ command: [String]) -> String? {
        guard let output = Spawn.run(command.map { Array($0.utf8) }) else { return nil }
        let line = String(decoding: output.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        return line.isEmpty ? nil : line
    }
}
