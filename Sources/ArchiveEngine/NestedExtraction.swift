import ArchiverCore
import Glibc
import Platform
import SystemPackage

/// `--nested`: after an archive is extracted, each archive inside it (`NestedArchives.opens`) is extracted
/// in its place by the same rules, and removed only when that extraction was complete; then what came out
/// of it, down to `NestedArchives.maxDepth` levels.
public enum NestedExtraction {
    /// What the nested extractions did.
    public struct Report: Sendable {
        /// Archives extracted in their place (and removed).
        public var extracted = 0
        /// Bytes of file data they wrote.
        public var bytes: Int64 = 0
        /// Archives kept as they were, and why.
        public var warnings: [JobWarning] = []
    }

    /// Extracts the archives inside `output` (what an extraction made: a folder, or one file).
    /// - Parameters:
    ///   - written: bytes the outer extraction already wrote.
    ///   - archiveBytes: the outer archive's size, for the ratio cap.
    ///   - options: the outer extraction's (passwords, junk, encoding).
    /// - Throws: `ArchiverError` (`.destination`) when the cap is reached: the nested extraction under way
    ///   is left with nothing of it written, the ones before stay.
    public static func run(
        in output: FilePath, written: Int64, archiveBytes: Int64, options: ExtractOptions, control: JobControl
    ) throws(ArchiverError) -> Report {
        var report = Report()
        let limit = NestedArchives.byteLimit(archiveBytes: archiveBytes)
        var level: [FilePath] = [output]
        for _ in 1...NestedArchives.maxDepth {
            var next: [FilePath] = []
            for archive in level.flatMap(candidates) {
                try control.check()
                var nested = options
                nested.folder = archive.removingLastComponent()
                nested.here = true
                nested.selection = []
                nested.byteLimit = limit - written - report.bytes
                let name = archive.lastComponent?.string ?? archive.string
                let result: ExtractResult
                do throws(ArchiverError) {
                    result = try Extractor.run(archive: archive, options: nested, control: control)
                } catch where error.code == .cancelled || error.code == .budget || error.code == .destination {
                    throw error
                } catch {
                    // TRANSLATORS: %1$@ is an archive found inside the one extracted, %2$@ why it was not extracted.
                    report.warnings.append(JobWarning("nested-kept", tr("Kept “%1$@” as it is: %2$@", name, error.message)))
                    continue
                }
                report.bytes += result.bytes
                report.extracted += 1
                report.warnings += result.refused.map { JobWarning("entry-refused", $0.text) } + result.warnings
                if !result.hasWarnings { FileSystem.removeTree(archive) }
                if let made = result.output { next.append(made) }
            }
            if next.isEmpty { break }
            level = next
        }
        return report
    }

    /// The files under `path` (or `path` itself) that are archives to extract, without following links.
    private static func candidates(_ path: FilePath) -> [FilePath] {
        guard let info = FileSystem.status(path) else { return [] }
        if FileSystem.isRegular(info) { return NestedArchives.opens(path.lastComponent?.bytes ?? []) ? [path] : [] }
        guard FileSystem.isDirectory(info), let names = try? FileSystem.entries(of: path) else { return [] }
        return names.sorted { $0.lexicographicallyPrecedes($1) }.flatMap { candidates(path.appending(bytes: $0)) }
    }

    /// The error when nested archives would write more than the cap allows.
    static func tooLarge(_ archive: String) -> ArchiverError {
        ArchiverError(
            // TRANSLATORS: %1$@ is an archive found inside the one extracted; %2$ld is the cap (100).
            .destination, tr("Stopped at “%1$@”: the archives inside would come to more than %2$ld times the size of the outer archive; it was not extracted.", archive, Int(NestedArchives.ratioCap)),
            hint: tr("Extract it without --nested, then open what is inside one archive at a time."), path: archive)
    }
}
