import SystemPackage

/// A folder as a window names it, the way the file manager does: "Home" for the home folder, the path below
/// it for what is inside ("Documents/Reports"), the whole path elsewhere ("/media/usb").
public enum ShortLocation {
    public static func text(_ folder: FilePath, home: FilePath) -> Text {
        let folder = folder.lexicallyNormalized(), home = home.lexicallyNormalized()
        guard home.components.count > 0 else { return .verbatim(folder.string) }
        // TRANSLATORS: the home folder, as the file manager names it in a location ("Persönlicher Ordner").
        if folder == home { return ptr("folder", "Home") }
        guard folder.starts(with: home) else { return .verbatim(folder.string) }
        let below = folder.components.dropFirst(home.components.count).map(\.string).joined(separator: "/")
        return .verbatim(below)
    }
}
