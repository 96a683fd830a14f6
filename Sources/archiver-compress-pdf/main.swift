import Glibc
import UI

// The Compress PDF… window: `archiver-compress-pdf FILE.pdf…` (menus, the app's Home and the "Open with"
// handler start it; the CLI never does).
exit(MainActor.assumeIsolated { CompressPDFApp.main() })
