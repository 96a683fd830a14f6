/// Our words and file names as dialog programs and notification servers must receive them to show them
/// exactly: a name such as `Tom & Jerry <1>.zip` is not markup. Window titles are plain text and need none
/// of this.
enum Markup {
    /// `&`, `<` and `>` as entities: enough for Pango markup (zenity's `--list` text, where `--no-markup`
    /// has no effect in zenity 3.44), for notification bodies and for Qt's rich text.
    static func escaped(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// For kdialog's texts: Qt's labels guess whether a text is rich, so the escaped text is marked as rich
    /// (`<qt>`), else `&amp;` would show as typed.
    static func kdialog(_ text: String) -> String {
        "<qt>" + escaped(text) + "</qt>"
    }
}
