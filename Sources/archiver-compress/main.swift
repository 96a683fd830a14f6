import Glibc
import UI

// The Compress… window: `archiver-compress FILE…` (menus and .desktop Exec lines start it; the CLI never does).
exit(MainActor.assumeIsolated { CompressApp.main() })
