import Foundation

/// The languages the tests run our programs in: the catalogs compiled from po/ and a German locale built
/// without root, each made once per test process.
public enum TestLanguages {
    /// Catalogs compiled from po/ into a scratch folder (de, and the pseudo-locale en@pseudo), for
    /// ARCHIVER_LOCALEDIR; nil when msgfmt/msginit could not build them (package gettext).
    public static let catalogs: String? = {
        let folder = packageRoot.appendingPathComponent(".build/test-scratch/locale-\(getpid())").path
        let script = packageRoot.appendingPathComponent("scripts/po.sh").path
        guard (try? Tool.run(["/bin/bash", script, "mo", folder]))?.status == 0,
            (try? Tool.run(["/bin/bash", script, "pseudo", folder]))?.status == 0
        else { return nil }
        return folder
    }()

    /// A de_DE.UTF-8 locale built with localedef into a scratch folder (for LOCPATH), as no root is needed for
    /// it; nil when localedef could not (package locales).
    public static let germanLocale: String? = {
        let folder = packageRoot.appendingPathComponent(".build/test-scratch/locales").path
        if FileManager.default.fileExists(atPath: folder + "/de_DE.UTF-8/LC_NUMERIC") { return folder }
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // localedef exits 1 for warnings and still writes the locale.
        _ = try? Tool.run(["/usr/bin/localedef", "-i", "de_DE", "-f", "UTF-8", folder + "/de_DE.UTF-8"])
        return FileManager.default.fileExists(atPath: folder + "/de_DE.UTF-8/LC_NUMERIC") ? folder : nil
    }()

    /// The environment of a program running in German with our German catalog.
    public static func german() throws -> [String: String] {
        guard let catalogs else { throw Unavailable("msgfmt could not build the catalogs (package gettext)") }
        guard let germanLocale else { throw Unavailable("localedef could not build de_DE.UTF-8 (package locales)") }
        return ["LOCPATH": germanLocale, "LC_ALL": "de_DE.UTF-8", "ARCHIVER_LOCALEDIR": catalogs]
    }

    /// The environment of a program running in the pseudo-locale (every translated string marked ⟦…⟧).
    public static func pseudo() throws -> [String: String] {
        guard let catalogs else { throw Unavailable("msgfmt/msginit could not build the catalogs (package gettext)") }
        return ["LANG": "C.UTF-8", "LANGUAGE": "en@pseudo", "ARCHIVER_LOCALEDIR": catalogs]
    }

    public struct Unavailable: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}
