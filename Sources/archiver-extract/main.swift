import Glibc
import UI

// The Extract… window: `archiver-extract ARCHIVE`.
exit(MainActor.assumeIsolated { ExtractApp.main() })
