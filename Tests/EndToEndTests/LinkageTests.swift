import ArchiverTestSupport
import Foundation
import Testing

/// Each executable links only the libraries of its own job: the PDF and photo tools no libarchive (nor ISA-L,
/// its gzip decoder), the archive tools no qpdf, libvips or GTK, and no command-line tool GTK or libfuse but the mount's.
/// A dependency through a shared layer would bring them back silently; `ldd` shows it.
@Suite struct LinkageTests {
    // Not the codecs: libvips itself links zstd, xz and bzip2. ISA-L is ours alone.
    static let archiveLibraries = ["libarchive", "libisal"]
    static let mediaLibraries = ["libqpdf", "libvips"]
    static let windowLibraries = ["libgtk-4", "libadwaita-1"]

    /// The sonames `ldd` lists for one built executable.
    static func libraries(of name: String) throws -> [String] {
        let path = try #require(BuiltProducts.executable(name), "build \(name) first")
        let listed = try Tool.run(["/usr/bin/ldd", path])
        #expect(listed.status == 0, "\(listed.output)")
        return listed.output.split(separator: "\n").compactMap { $0.split(whereSeparator: { $0 == " " || $0 == "\t" }).first.map(String.init) }
    }

    static func links(_ libraries: [String], _ family: [String]) -> [String] {
        libraries.filter { library in family.contains { library.hasPrefix($0 + ".") || library.hasPrefix($0 + "-") } }
    }

    @Test(arguments: ["compress-pdf-with-archiver", "compress-photos-with-archiver"])
    func mediaToolsLinkNoArchiveLibrary(_ tool: String) throws {
        let libraries = try Self.libraries(of: tool)
        #expect(Self.links(libraries, Self.archiveLibraries + Self.windowLibraries + ["libfuse3"]).isEmpty, "\(libraries)")
        #expect(!Self.links(libraries, ["libvips"]).isEmpty, "the check sees what is linked: \(libraries)")
    }

    @Test(arguments: ["compress-with-archiver", "extract-with-archiver", "edit-with-archiver", "open-with-archiver"])
    func archiveToolsLinkNoMediaOrWindowLibrary(_ tool: String) throws {
        let libraries = try Self.libraries(of: tool)
        #expect(Self.links(libraries, Self.mediaLibraries + Self.windowLibraries).isEmpty, "\(libraries)")
        #expect(!Self.links(libraries, ["libarchive"]).isEmpty, "the check sees what is linked: \(libraries)")
        if tool != "open-with-archiver" { #expect(Self.links(libraries, ["libfuse3"]).isEmpty, "\(libraries)") }
    }

    /// poppler (with NSS, lcms2 and OpenJPEG behind it) is opened at the first PDF preview, not loaded with
    /// every window: it slowed their start-up (issue 33). QuickLookTests shows a PDF's page through it.
    @Test(arguments: ["archiver-compress", "archiver-extract", "archiver-compress-pdf", "archiver-compress-photos", "archiver"])
    func windowsLoadNoPDFRendererAtStart(_ window: String) throws {
        let libraries = try Self.libraries(of: window)
        #expect(Self.links(libraries, ["libpoppler", "libpoppler-glib", "libnss3"]).isEmpty, "\(libraries)")
        #expect(!Self.links(libraries, Self.windowLibraries).isEmpty, "the check sees what is linked: \(libraries)")
    }
}
