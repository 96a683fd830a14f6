import ArchiveEngine
import ArchiverCore
import ArgumentParser
import JobKit
import SystemPackage

/// `compress-with-archiver`'s flags for what happens to a new archive before it takes its name: a zip
/// comment, and the test that reads it back (`--verify`, or the verify-after-compress setting).
struct FinishingOptions: ParsableArguments {
    @Option(help: ArgumentHelp(tr("Store this comment in the zip (UTF-8, as unzip -z and 7-Zip show it)."), valueName: "TEXT"))
    var comment: String?

    @Flag(inversion: .prefixedNo, help: ArgumentHelp(tr("Test the new archive before it takes its name, and remove it if it does not read back (default: the verify-after-compress setting, off).")))
    var verify: Bool?

    func validate(format: ArchiveFormat?, split: String?) throws {
        guard let comment else { return }
        if let format, format != .zip { throw ValidationError(tr("--comment is stored in zip archives only; add --format zip.").localized) }
        if let split, split != "0" { throw ValidationError(tr("--comment cannot go into a split archive.").localized) }
        if comment.utf8.count > 0xFFFF { throw ValidationError(tr("A zip comment holds at most 65,535 bytes.").localized) }
    }

    /// Whether to verify: the flag, else the setting.
    func verifies(_ settings: ArchiverSettings) -> Bool { verify ?? settings.verifyAfterCompress }

    /// The step the writer runs on the finished archive before publishing it (the comment is the writer's own).
    func finishing(password: Secret?, verifies: Bool, control: JobControl) -> (FilePath, String) throws(ArchiverError) -> Void {
        { archive, name throws(ArchiverError) in
            if verifies {
                try ArchiveFinishing.verify(archive, name: name, password: password, control: control)
            }
        }
    }
}

/// `compress-with-archiver --convert`: the arguments are archives, each written again in `--format` beside it.
struct ConvertOptions: ParsableArguments {
    @Flag(help: ArgumentHelp(tr("Convert each archive given into --format beside it (x.rar → x.zip), entries streamed across; the source's password is asked when needed, and the new archive is encrypted only with --encrypt.")))
    var convert = false

    func validate(format: ArchiveFormat?, each: Bool, output: String?, name: String?, split: String?) throws {
        guard convert else { return }
        guard let format else { throw ValidationError(tr("--convert needs --format: the format to convert into.").localized) }
        if format.isSingleStream {
            throw ValidationError(tr("--convert writes archives: use zip, 7z, tar or a tar.* format, not %@.", format.rawValue).localized)
        }
        if each || output != nil || name != nil || (split != nil && split != "0") {
            throw ValidationError(tr("--convert names each new archive after its source, in one file, so --each, --output, --name and --split mean nothing with it.").localized)
        }
    }
}
