extension ArchiverError {
    /// The error as said to someone opening the archive as a folder, who extracts nothing: each sentence
    /// the engines word for extraction ("…; nothing was extracted") says instead that no folder was opened,
    /// with the same values.
    public var forFolder: ArchiverError {
        var error = self
        error.message = FolderWording.reworded(message)
        error.hint = hint.map(FolderWording.reworded)
        return error
    }
}

/// The folder user's wording of the engines' extraction sentences, by their English template; sentences
/// joined into one are reworded one by one.
enum FolderWording {
    static func reworded(_ text: Text) -> Text {
        let values = text.arguments
        switch text.template {
        case .verbatim:
            // Sentences joined (`Text.sentences`, `joined`): their parts are ours.
            return Text(text.template, values.map { if case .text(let part) = $0 { .text(reworded(part)) } else { $0 } })
        case .plural(let singular, _, let count):
            guard singular == "“%2$@” has %1$ld entry with an unsafe path; nothing was extracted.", values.count == 2 else { return text }
            // TRANSLATORS: %1$ld is how many entries, %2$@ the archive.
            return ntr("“%2$@” has %1$ld entry with an unsafe path; no folder was opened.", "“%2$@” has %1$ld entries with unsafe paths; no folder was opened.", Int(count), values[1])
        case .context:
            return text
        case .message(let msgid):
            return reworded(msgid, values) ?? text
        }
    }

    private static func reworded(_ msgid: String, _ values: [TextValue]) -> Text? {
        switch (msgid, values.count) {
        case ("Download or copy it again; nothing was extracted.", 0):
            tr("Download or copy it again; no folder was opened.")
        case ("If it is one part of a multi-part set, all parts are needed; nothing was extracted.", 0):
            tr("If it is one part of a multi-part set, all parts are needed; no folder was opened.")
        case ("Put all parts in one folder; nothing was extracted.", 0):
            tr("Put all parts in one folder; no folder was opened.")
        case ("“%@” is password-protected; nothing was extracted.", 1):
            tr("“%@” is password-protected; no folder was opened.", values[0])
        case ("“%@” is password-protected, and encrypted rar archives can only be opened by unrar; nothing was extracted.", 1):
            tr("“%@” is password-protected, and encrypted rar archives can only be opened by unrar; no folder was opened.", values[0])
        case ("“%@” is password-protected, and encrypted 7z archives are opened by 7-Zip, which is not installed; nothing was extracted.", 1):
            tr("“%@” is password-protected, and encrypted 7z archives are opened by 7-Zip, which is not installed; no folder was opened.", values[0])
        case ("Wrong password for “%@”; nothing was extracted.", 1):
            tr("Wrong password for “%@”; it was not opened.", values[0])
        case ("Part “%1$@” of “%2$@” is missing, so nothing was extracted.", 2):
            // TRANSLATORS: %1$@ is one part's file name (“photos.7z.003”), %2$@ the name of the whole set.
            tr("Part “%1$@” of “%2$@” is missing, so no folder was opened.", values[0], values[1])
        case ("Part “%1$@” of “%2$@” is shorter than the others: it was cut short, so nothing was extracted.", 2):
            // TRANSLATORS: %1$@ is one part's file name (“photos.7z.003”), %2$@ the name of the whole set.
            tr("Part “%1$@” of “%2$@” is shorter than the others: it was cut short, so no folder was opened.", values[0], values[1])
        case ("“%@” has entries with unsafe names that cannot be left out; nothing was extracted.", 1):
            tr("“%@” has entries with unsafe names that cannot be left out; no folder was opened.", values[0])
        case ("“%@” has names that cannot be listed faithfully (a line break in a name); nothing was extracted.", 1):
            tr("“%@” has names that cannot be listed faithfully (a line break in a name); no folder was opened.", values[0])
        default:
            nil
        }
    }
}
