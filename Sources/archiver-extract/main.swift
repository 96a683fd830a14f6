import Glibc
import UI

// The Extract… window: `archiver-extract ARCHIVE` (menus and .desktop Exec lines start it; the CLI never does).
exit(MainActor.assumeIsolated { ExtractApp.main() })
