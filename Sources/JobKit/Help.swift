import ArchiverCore

/// `--version`: the release, and the library that does the work (`libarchive 3.6.2 …`, `libvips 8.14.1`).
package func archiverVersion(library: String) -> String { "Archiver \(Release.version) (\(library))" }

/// The exit codes, the last paragraph of every executable's `--help`.
private var exitCodes: Text {
    tr("Exit codes: 0 done, 1 done with warnings, 2 usage error, 3 input missing or unreadable, 4 not an archive or unsupported, 5 corrupt or truncated, 6 password needed or wrong, 7 cannot write the destination, 8 cancelled, 9 time budget exceeded.")
}

/// An executable's `--help` discussion: `body`, then the exit codes after a blank line, in the user's language.
package func helpDiscussion(_ body: Text) -> String { Text.sentences([body, exitCodes], separator: "\n\n").localized }
