import ArchiverTestSupport
import Foundation

/// Keeps the executables under test away from the desktop of whoever runs the tests: the schema from
/// this checkout with settings held in memory (the built-in defaults, whatever the person set), no
/// notification server, a Recent list of its own, and no display (so no password or folder dialog opens
/// on the person's screen; without one, zenity and kdialog fail like a cancel).
enum DesktopIsolation {
    /// The schema compiled from desktop-files/, once per test run.
    static var schemaFolder: String { BuiltProducts.schemaFolder }

    static var variables: [String: String] { BuiltProducts.isolation }
}
