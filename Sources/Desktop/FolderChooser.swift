import ArchiverCore
import Platform
import SystemPackage

/// Asks for a folder with the desktop's own dialog, for "Extract to…": kdialog on KDE, else zenity.
public enum FolderChooser {
    public enum Outcome: Equatable, Sendable {
        case chosen(FilePath)
        case cancelled
        /// Neither dialog program is installed.
        case unavailable
    }

    /// - Parameters:
    ///   - title: the dialog's title, in the user's language.
    ///   - currentDesktop: `XDG_CURRENT_DESKTOP`, a colon-separated list such as `KDE` or `ubuntu:GNOME`.
    public static func ask(title: String, startingAt folder: FilePath, currentDesktop: String?) -> Outcome {
        let onKDE = currentDesktop?.split(separator: ":").contains { $0.uppercased() == "KDE" } ?? false
        let kdialog = ["kdialog", "--title", title, "--getexistingdirectory"]
        let zenity = ["zenity", "--file-selection", "--directory", "--title=\(title)", "--no-markup"]
        let order = onKDE ? [kdialog, zenity] : [zenity, kdialog]
        guard let command = order.first(where: { Programs.find($0[0]) != nil }) else { return .unavailable }
        // The starting folder goes last, as bytes: it may not be UTF-8.
        let start = command[0] == "kdialog" ? folder.bytes : Array("--filename=".utf8) + folder.bytes + [UInt8(ascii: "/")]
        guard let output = Spawn.run(command.map { Array($0.utf8) } + [start]) else { return .cancelled }
        var bytes = output
        while bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
        return bytes.first == UInt8(ascii: "/") ? .chosen(FilePath(bytes: bytes)) : .cancelled
    }
}
