/// The release every executable reports: `--version` and the app's About window.
public enum Release {
    public static let version = "0.1"
}
