import ArchiverCore
import Glibc
import Platform
import SystemPackage

/// What is encrypted in an archive that another program (7-Zip, unrar) decrypts.
public enum ArchiveEncryption: Equatable, Sendable {
    case none
    /// File data only: the names can be listed without the password.
    case contents
    /// The header too (7z's `-mhe=on`, rar's `-hp`): even the names need the password.
    case names
}

/// What another program's extraction left in the staging folder once made safe.
public struct ToolExtraction: Sendable {
    /// Entries not extracted, or removed afterwards, and why.
    public var refused: [ExtractResult.Refused] = []
    /// Other problems the program reported without failing.
    public var warnings: [JobWarning] = []
    public var files = 0
    public var folders = 0
    public var symlinks = 0
    /// Bytes of file data written.
    public var bytes: Int64 = 0
    /// Whether a symlink resolves through the staging folder itself, so a single top-level item must
    /// not be moved out of it alone (see `EntryPath.symlinkReachesTop`).
    public var linksReachTop = false

    /// The refusals in the extractor's words, then the warnings.
    public var messages: [Text] { refused.map(\.text) + warnings.map(\.text) }
}

/// One finished run of 7-Zip or unrar, and the way both are run.
struct ToolRun {
    var status: Int32
    /// Standard output; only its start when it showed progress.
    var output: [UInt8]
    var errors: String

    /// UTF-8 names and passwords whatever the user's locale (both programs convert them through it);
    /// listing times in UTC.
    static let environment = [Array("LC_ALL=C.UTF-8".utf8), Array("TZ=UTC0".utf8)]

    /// Standard output kept while it shows progress: only listings are read whole.
    private static let progressOutputLimit = 64 * 1024

    /// Runs `program` to the end.
    /// - Parameters:
    ///   - password: written `times` times to standard input; without one, standard input is /dev/null so
    ///     that a prompt ends at once.
    ///   - showsProgress: standard output then holds percentages, each rubbed out with backspaces before
    ///     the next, which go to `progress`.
    static func run(
        _ program: FilePath, _ arguments: [[UInt8]], password: Secret?, times: Int = 1, control: JobControl?,
        showsProgress: Bool, progress: (Double) -> Void
    ) throws(ArchiverError) -> ToolRun {
        var kept: [UInt8] = []
        var reader = SevenZip.ProgressReader()
        let outcome = try ChildProcess.run(
            program, arguments, environment: environment,
            input: password.map { .secret($0, times: times) } ?? .nothing, control: control
        ) { chunk in
            if showsProgress {
                reader.read(chunk, report: progress)
                if kept.count < progressOutputLimit { kept += chunk.prefix(progressOutputLimit - kept.count) }
            } else {
                kept += chunk
            }
        }
        return ToolRun(status: outcome.status, output: kept, errors: String(decoding: outcome.errorOutput, as: UTF8.self))
    }
}

/// What the 7-Zip and unrar backends say alike about the archive they are given.
enum ToolArchive {
    static func displayName(_ archive: FilePath) -> String { archive.lastComponent?.string ?? archive.string }

    /// The damage 7-Zip and unrar name, in our words (the same as `--test`'s).
    typealias Damage = DamagedEntry.Problem

    static func passwordNeeded(_ archive: FilePath) -> ArchiverError {
        ArchiverError(
            .password, tr("“%@” is password-protected.", displayName(archive)), hint: tr("Give its password."),
            path: archive.string)
    }

    /// Refuses a missing or unreadable archive in our words before the program says it in its own.
    static func checkReadable(_ archive: FilePath) throws(ArchiverError) {
        let descriptor = archive.withPlatformString { open($0, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else {
            let message =
                errno == ENOENT
                ? tr("“%@” does not exist.", archive)
                // TRANSLATORS: %1$@ is a file, %2$@ the system's reason (from the C library).
                : tr("Cannot open “%1$@”: %2$@.", archive, TextValue.systemError(errno))
            throw ArchiverError(
                .inputUnreadable, message, hint: tr("Check the name and its permissions."), path: archive.string)
        }
        var info = stat()
        let isFolder = fstat(descriptor, &info) == 0 && FileSystem.isDirectory(info)
        close(descriptor)
        if isFolder {
            throw ArchiverError(
                .inputUnreadable, tr("“%@” is a folder, not an archive.", archive), hint: tr("Name an archive file."),
                path: archive.string)
        }
    }
}

extension Secret {
    /// Refuses a password that a program reading it as a line from its standard input would cut short
    /// (an archive made with "ab\ncd" would open with "ab") or misread.
    func checkFitsOneLine(for program: String) throws(ArchiverError) {
        if withBytes({ $0.contains { $0 == 0 || $0 == 10 || $0 == 13 } }) {
            throw ArchiverError(
                // TRANSLATORS: %@ is a program's name: 7-Zip or unrar.
                .password, tr("%@ cannot take a password with a line break or a NUL byte in it.", program),
                hint: tr("Choose one without."))
        }
    }
}

/// Another program wrote a tree we did not check entry by entry: these walks apply the rules that
/// `StagingSession` applies to libarchive's entries, after the fact.
enum StagingSweep {
    /// Walks `folder` without following symlinks, removing what may not stay and counting the rest.
    /// - Parameter listedLinks: the archive's symlinks. Where 7-Zip refused one it leaves an empty file.
    static func sweep(
        _ folder: FilePath, relative: [[UInt8]], listedLinks: Set<[[UInt8]]>, into report: inout ToolExtraction
    ) throws(ArchiverError) {
        for name in try FileSystem.entries(of: folder) {
            let path = folder.appending(bytes: name)
            let components = relative + [name]
            guard let info = FileSystem.status(path) else { continue }
            func refuse(_ refusal: EntryPath.Refusal) {
                FileSystem.removeTree(path)
                report.refused.append(.init(path: EntryPath.join(components).displayName, refusal: refusal))
            }
            let permissions = info.st_mode & 0o777
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                // A read-only folder from the archive must still let us remove what it holds; setting the
                // mode back afterwards also drops setgid and sticky.
                _ = path.withPlatformString { chmod($0, permissions | 0o700) }
                try sweep(path, relative: components, listedLinks: listedLinks, into: &report)
                _ = path.withPlatformString { chmod($0, permissions) }
                report.folders += 1
            case S_IFLNK:
                guard let target = FileSystem.symlinkTarget(path),
                    EntryPath.symlinkStaysInside(target: target, linkPath: components)
                else {
                    refuse(.linkLeavesDestination)
                    continue
                }
                if EntryPath.symlinkReachesTop(target: target, linkPath: components) { report.linksReachTop = true }
                report.symlinks += 1
            case S_IFREG where info.st_size == 0 && listedLinks.contains(components):
                refuse(.linkLeavesDestination)
            case S_IFREG:
                if info.st_mode & 0o7000 != 0 { _ = path.withPlatformString { chmod($0, permissions) } }
                report.files += 1
                report.bytes += Int64(info.st_size)
            case S_IFCHR: refuse(.specialFile(.characterDevice))
            case S_IFBLK: refuse(.specialFile(.blockDevice))
            case S_IFIFO: refuse(.specialFile(.namedPipe))
            default: refuse(.specialFile(.socket))
            }
        }
    }

    /// The entries that must not be extracted at all, with the reason: paths that are absolute or climb
    /// with `..`, and special files. The programs would rewrite such a path and write the entry somewhere
    /// else inside, perhaps over another, so they are told to leave these out.
    static func unsafeEntries(_ entries: [ArchiveEntryInfo]) -> [(path: [UInt8], refused: ExtractResult.Refused)] {
        entries.compactMap { entry in
            guard !entry.path.isEmpty else { return nil }
            let refusal: EntryPath.Refusal
            switch (EntryPath.components(of: entry.path), entry.kind) {
            case (.failure(let reason), _): refusal = reason
            case (_, .characterDevice): refusal = .specialFile(.characterDevice)
            case (_, .blockDevice): refusal = .specialFile(.blockDevice)
            case (_, .fifo): refusal = .specialFile(.namedPipe)
            case (_, .socket): refusal = .specialFile(.socket)
            default: return nil
            }
            return (entry.path, .init(path: entry.path.displayName, refusal: refusal))
        }
    }

    /// Takes macOS junk out of `folder`, as the libarchive path skips it, and corrects the counts.
    static func removeMacJunk(
        in folder: FilePath, below components: [[UInt8]], result: inout ExtractResult
    ) throws(ArchiverError) {
        for name in try FileSystem.entries(of: folder) {
            let path = folder.appending(bytes: name)
            let parts = components + [name]
            guard let info = FileSystem.status(path) else { continue }
            if EntryPath.isMacJunk(parts) {
                result.skippedJunk.append(EntryPath.join(parts).displayName)
                forget(path, info, from: &result)
                FileSystem.removeTree(path)
            } else if FileSystem.isDirectory(info) {
                try removeMacJunk(in: path, below: parts, result: &result)
            }
        }
    }

    /// Takes what `path` holds out of the counts.
    private static func forget(_ path: FilePath, _ info: stat, from result: inout ExtractResult) {
        if FileSystem.isRegular(info) {
            result.files -= 1
            result.bytes -= Int64(info.st_size)
        } else if FileSystem.isSymlink(info) {
            result.symlinks -= 1
        } else if FileSystem.isDirectory(info) {
            result.folders -= 1
            for name in (try? FileSystem.entries(of: path)) ?? [] {
                let child = path.appending(bytes: name)
                if let childInfo = FileSystem.status(child) { forget(child, childInfo, from: &result) }
            }
        }
    }
}

extension DamagedEntry.Problem {
    /// "“x.7z” is damaged or incomplete: it ends too early."
    func error(_ archive: String, path: String) -> ArchiverError {
        ArchiverError(
            // TRANSLATORS: %1$@ is the archive, %2$@ what is wrong with it (“it ends too early”).
            .corrupt, tr("“%1$@” is damaged or incomplete: %2$@.", archive, text),
            hint: tr("Download or copy it again; nothing was extracted."), path: path)
    }
}
