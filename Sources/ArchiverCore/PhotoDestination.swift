import SystemPackage

/// Where a Compress Photos batch's copies go. In ArchiverCore, with the journal's place, because the
/// Compress Photos… window (which never links the photo engine) must find the journal the tool writes.
public enum PhotoDestination: Equatable, Sendable {
    /// A folder's copies into `Compressed - <Folder>` beside it, mirroring its structure; a loose photo's
    /// copy beside it as `IMG_1 (compressed).jpg`.
    case beside
    /// Into this folder: a folder as `DIR/<Folder>/…`, a loose photo as `DIR/IMG_1.jpg`.
    case folder(FilePath)
    /// In place of the originals, which go to the desktop trash.
    case replace
}

/// Where a batch's resume journal lives and how it is named: one rule for `compress-photos-with-archiver`,
/// which writes it (`PhotoJournal.location`), and the Compress Photos… window, which offers Resume when
/// it finds one. Two copies of it once disagreed about a relative `$XDG_STATE_HOME`, and Resume broke.
public enum PhotoJournalPlace {
    /// The folder of a batch's journal: where the copies go, or for `.replace` the state folder.
    /// - Parameters:
    ///   - firstInput: the batch's first input, absolute.
    ///   - destination: where the copies go (a `.folder` absolute).
    ///   - stateHome: `BaseFolders.state`.
    /// - Returns: the folder.
    public static func folder(firstInput: FilePath, destination: PhotoDestination, stateHome: FilePath) -> FilePath {
        switch destination {
        case .folder(let folder): folder
        case .replace: stateHome.appending("io.github.archiver")
        // Beside the first input: where its copy, or its folder's mirror, goes.
        case .beside: firstInput.removingLastComponent()
        }
    }

    /// The journal's file name for a batch's key (`PhotoJournal.key`).
    public static func fileName(key: String) -> String { prefix + key + suffix }

    /// Whether `name` is some batch's journal.
    public static func isJournal(_ name: String) -> Bool {
        name.hasPrefix(prefix) && name.hasSuffix(suffix) && name.count > prefix.count + suffix.count
    }

    // Hidden, and not a temporary's name: the clean-up of dead runs' leftovers never takes it.
    private static let prefix = ".archiver-photos-"
    private static let suffix = ".journal"
}
