import Glibc
import UI

// The Archiver app: Home (drop files, Compress Files…, Extract Archive…), Recent and Settings; one instance.
exit(MainActor.assumeIsolated { ArchiverApp.main() })
