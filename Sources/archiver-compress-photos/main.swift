import Glibc
import UI

// The Compress Photos… window: `archiver-compress-photos [PHOTO|FOLDER]…`; with none, it finds large photos.
exit(MainActor.assumeIsolated { CompressPhotosApp.main() })
