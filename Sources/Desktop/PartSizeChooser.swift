import ArchiverCore

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

    public static func ask(title: String, currentDesktop: String?) -> Outcome {
        let onKDE = currentDesktop?.split(separator: ":").contains { $0.uppercased() == "KDE" } ?? false
        let rows = PartSize.presets.map { ($0.size, $0.use.localized) } + [(other, "Other size…")]
        let zenity =
            ["zenity", "--list", "--title=\(title)", "--text=Split the archive into parts of", "--column=Size",
             "--column=For", "--hide-column=1", "--print-column=1", "--hide-header"] + rows.flatMap { [$0.0, $0.1] }
        // kdialog's menu prints the tag of the chosen row.
        let kdialog = ["kdialog", "--title", title, "--menu", "Split the archive into parts of"] + rows.flatMap { [$0.0, $0.1] }
        let order = onKDE ? [kdialog, zenity] : [zenity, kdialog]
        guard let command = order.first(where: { Programs.find($0[0]) != nil }) else { return .unavailable }
        guard let picked = answer(command) else { return .cancelled }
        guard picked == other else { return .chosen(picked) }
        let entry =
            command[0] == "kdialog"
            ? ["kdialog", "--title", title, "--inputbox", "Part size (700k, 100M, 4G):", "100M"]
            : ["zenity", "--entry", "--title=\(title)", "--text=Part size (700k, 100M, 4G):", "--entry-text=100M"]
        return answer(entry).map(Outcome.chosen) ?? .cancelled
    }

    /// The dialog's first line of output; nil when it was cancelled or printed nothing.
    private static func answer(_ command: [String]) -> String? {
        guard let output = Spawn.run(command.map { Array($0.utf8) }) else { return nil }
        let line = String(decoding: output.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        return line.isEmpty ? nil : line
    }
}
