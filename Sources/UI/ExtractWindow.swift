import ArchiverCore
import CGtk

/// `archiver-extract ARCHIVE`: the Extract… window (not built yet; it says so rather than failing silently).
public enum ExtractApp {
    @MainActor
    public static func main() -> Int32 {
        WindowApp.run(id: "io.github.archiver.Extract") { app in
            let window: UnsafeMutablePointer<GtkWindow> = cast(adw_application_window_new(app)!)
            gtk_window_set_title(window, tr("Extract").localized)
            gtk_window_present(window)
        }
    }
}
