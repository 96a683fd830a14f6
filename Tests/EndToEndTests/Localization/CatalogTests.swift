import ArchiverTestSupport
import Foundation
import Testing

/// The catalogs as CI must find them: valid, complete, current, and every translating file listed.
@Suite struct CatalogTests {
    static let script = packageRoot.appendingPathComponent("scripts/po.sh").path

    static func check(sources: String? = nil) throws -> Outcome {
        try E2E.run(
            "/bin/bash", [script, "check"], in: packageRoot.path,
            environment: sources.map { ["PO_SOURCES": $0] } ?? [:])
    }

    /// msgfmt --check on every catalog, German 100 % (no untranslated, no fuzzy), the template regenerated
    /// equal to the committed one, every file that calls tr/ntr/ptr in po/POTFILES, no interpolation.
    @Test func catalogsAreValidCompleteAndCurrent() throws {
        let result = try Self.check()
        #expect(result.status == 0, "\(result.stderr)")
    }

    /// The same check fails on the mistakes it is there for.
    @Test func theCheckCatchesAnInterpolatedLiteralAndAMissingFile() throws {
        let s = try ScratchDirectory()
        try FileManager.default.createDirectory(atPath: s.sub("Sources/Bad"), withIntermediateDirectories: true)
        try #"let a = tr("Deleted \(name).")"#.write(toFile: s.sub("Sources/Bad/Bad.swift"), atomically: true, encoding: .utf8)
        let result = try Self.check(sources: s.sub("Sources"))
        #expect(result.status != 0)
        #expect(result.stderr.contains("Bad.swift calls the translation functions but is not in po/POTFILES"), "\(result.stderr)")
        #expect(result.stderr.contains("interpolated"), "\(result.stderr)")
    }
}
