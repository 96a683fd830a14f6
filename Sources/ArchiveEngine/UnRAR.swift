import ArchiverCore
import Glibc
import Platform
import SystemPackage

/// RARLAB's `unrar` as a child process, for the one thing libarchive cannot do with rar: decrypt. It is
/// non-free, so it is used when the user has it and never installed by us. The password reaches it only
/// through its standard input (`-p` without a value), never argv or the environment.
public enum UnRAR {
    /// The `unrar` found on PATH (then /usr/bin), nil when it is not installed or is not RARLAB's. Relative
    /// PATH entries are skipped, as for 7-Zip.
    public static var executable: FilePath? { rarlab }

    /// Debian's unrar-free installs a `/usr/bin/unrar` too: a libarchive front end that takes other options
    /// and cannot decrypt. RARLAB's is known by its banner, `UNRAR 7.01 freeware … Alexander Roshal`.
    private static let rarlab: FilePath? = {
        guard let unrar = Programs.installed("unrar") else { return nil }
        var output: [UInt8] = []
        _ = try? ChildProcess.run(unrar, [], environment: ToolRun.environment, input: .nothing, control: nil) {
            if output.count < 4096 { output += $0 }
        }
        return isRARLABBanner(String(decoding: output, as: UTF8.self)) ? unrar : nil
    }()

    /// Whether `unrar`'s output without arguments is RARLAB's banner.
    static func isRARLABBanner(_ banner: String) -> Bool {
        banner.contains("UNRAR") && banner.contains("Alexander Roshal")
    }

    /// What is encrypted in `archive`, found without a password and without writing anything.
    public static func encryption(of archive: FilePath, control: JobControl? = nil) throws(ArchiverError)
        -> ArchiveEncryption
    {
        try survey(archive, control: control).encryption
    }

    /// What is encrypted in `archive` and, unless the names are, its entries.
    static func survey(_ archive: FilePath, control: JobControl?) throws(ArchiverError) -> (
        encryption: ArchiveEncryption, entries: [ArchiveEntryInfo]
    ) {
        let (encryption, listed) = try inspect(archive, control: control)
        return (encryption, listed.entries)
    }

    /// The entries of `archive` (of every volume of a set, from its first part).
    /// - Throws: `ArchiverError`: `.password` when the names need a password that is missing or wrong.
    public static func list(_ archive: FilePath, password: Secret?, control: JobControl? = nil) throws(ArchiverError)
        -> [ArchiveEntryInfo]
    {
        try listing(archive, password: password, control: control).entries
    }

    /// Whether `password` opens `archive`, checked without writing anything: by listing when the names are
    /// encrypted, else by testing one encrypted file (the first of a solid archive, whose data is one
    /// stream; otherwise the smallest). An archive may give its files different passwords: the one tested
    /// decides.
    /// - Parameter selection: the entries to be extracted; the file tested is one of them.
    public static func accepts(
        _ archive: FilePath, password: Secret, selection: EntrySelection = EntrySelection([]), control: JobControl? = nil
    ) throws(ArchiverError) -> Bool {
        // RAR cannot encrypt with an empty password, and unrar takes an empty line for "no password".
        guard !password.isEmpty else { return false }
        let (encryption, listed) = try inspect(archive, control: control)
        switch encryption {
        case .none:
            return true
        case .names:
            return try opens(run("lt", ["-v"], archive: archive, password: password, control: control), archive)
        case .contents:
            let candidates = listed.entries.filter {
                $0.encrypted && $0.kind == .file && selection.includes($0.path) && !isPattern($0.path)
            }
            let probe = listed.solid ? candidates.first : candidates.min { ($0.size ?? 0) < ($1.size ?? 0) }
            let run = try run("t", archive: archive, names: probe.map { [$0.path] } ?? [], password: password, control: control)
            return try opens(run, archive)
        }
    }

    /// Extracts everything selected into `staging`, an existing empty private folder; the caller applies
    /// the layout rule and publishes. Entries with absolute or `..` paths and special files are left out;
    /// afterwards symlinks that leave the folder are removed and setuid, setgid and sticky bits cleared.
    /// Files that `password` does not open (an archive may use several) are not extracted and become
    /// warnings.
    /// - Throws: `ArchiverError` (`.password` for a missing or wrong password); `staging` is then empty.
    public static func extractTree(
        _ archive: FilePath, into staging: FilePath, password: Secret?, selection: EntrySelection = EntrySelection([]),
        control: JobControl, progress: (Double) -> Void
    ) throws(ArchiverError) -> ToolExtraction {
        let name = ToolArchive.displayName(archive)
        let entries = try listing(archive, password: password, control: control).entries
        try Extractor.checkBeforeWriting(entries, selection: selection, archive: name)
        try Extractor.checkFreeSpace(for: entries, selection: selection, in: staging, archive: name)
        if password == nil, entries.contains(where: { $0.encrypted && selection.includes($0.path) }) {
            throw ToolArchive.passwordNeeded(archive)
        }
        if selection.names.contains(where: isPattern) {
            throw ArchiverError(
                .usage, tr("Names with * or ? cannot be picked out of an encrypted rar: unrar reads them as patterns."),
                hint: tr("Extract the whole archive instead."))
        }
        var report = ToolExtraction()
        let unsafe = StagingSweep.unsafeEntries(entries)
        // All are left out (a selected folder or pattern may reach one); only the selected are reported.
        report.refused = unsafe.filter { selection.includes($0.path) }.map(\.refused)
        // unrar reads `-x` as a pattern, and `-x@NAME` as a list file to read.
        guard unsafe.count < 10_000, !unsafe.contains(where: { isPattern($0.path) || $0.path.first == UInt8(ascii: "@") })
        else {
            throw ArchiverError(
                .corrupt, tr("“%@” has entries with unsafe names that cannot be left out; nothing was extracted.", name),
                path: archive.string)
        }
        // A selected folder's name alone would extract only the folder: `name/*` brings what it holds.
        let selected = selection.names.flatMap { [$0, $0 + Array("/*".utf8)] }
        do throws(ArchiverError) {
            progress(0)
            let run = try run(
                "x", ["-o+", "-y"], raw: unsafe.map { Array("-x".utf8) + $0.path }, archive: archive,
                destination: staging, names: selected, password: password, control: control, showsProgress: true,
                progress: progress)
            try control.check()
            let unnamed: Bool
            (report.warnings, report.refused, unnamed) = try extractionReport(
                run, archive: archive, staging: staging, refused: report.refused)
            try StagingSweep.sweep(staging, relative: [], listedLinks: [], into: &report)
            reportMissing(entries, selection: selection, in: staging, wrongPasswordUnnamed: unnamed, into: &report)
        } catch {
            for entry in (try? FileSystem.entries(of: staging)) ?? [] {
                FileSystem.removeTree(staging.appending(bytes: entry))
            }
            throw error
        }
        progress(1)
        return report
    }

    /// Names what older unrar versions leave out without naming it: 6.x skips a symlink it thinks unsafe
    /// without a word, and 5.x says only "The specified password is incorrect." for a file another
    /// password protects. The listing says what should be there.
    private static func reportMissing(
        _ entries: [ArchiveEntryInfo], selection: EntrySelection, in staging: FilePath, wrongPasswordUnnamed: Bool,
        into report: inout ToolExtraction
    ) {
        for entry in entries where selection.includes(entry.path) {
            guard entry.kind == .symlink || (wrongPasswordUnnamed && entry.encrypted && entry.kind == .file),
                case .success(let parts) = EntryPath.components(of: entry.path), !parts.isEmpty,
                FileSystem.status(staging.appending(bytes: EntryPath.join(parts))) == nil
            else { continue }
            let name = EntryPath.join(parts).displayName
            if report.refused.contains(where: { $0.path == name }) { continue }
            if entry.kind == .symlink, let target = entry.linkTarget,
                !EntryPath.symlinkStaysInside(target: target, linkPath: parts)
            {
                report.refused.append(.init(path: name, refusal: .linkLeavesDestination))
            } else {
                report.warnings.append(
                    entry.kind == .symlink
                        ? JobWarning("link-not-made", tr("Could not extract “%@”: unrar did not make the link.", name))
                        : .passwordDoesNotOpen(name))
            }
        }
    }

    /// unrar reads `*` and `?` in a name as wildcards, and nothing turns that off.
    private static func isPattern(_ name: [UInt8]) -> Bool {
        name.contains { $0 == UInt8(ascii: "*") || $0 == UInt8(ascii: "?") }
    }
}

// MARK: - Running unrar

extension UnRAR {
    /// Runs `unrar command` with `switches` (plus `raw` ones made of bytes) on `archive`.
    /// - Parameters:
    ///   - destination: where `x` writes; it comes before the names, so that a name which happens to be a
    ///     folder where we run cannot become the destination.
    ///   - names: the entries to work on (all when empty).
    ///   - password: `-p` without a value makes unrar read it as one line from standard input; it is then
    ///     the password for the whole archive, so a file it does not open is reported and skipped instead
    ///     of prompting again. Without one, `-p-` says never to ask.
    ///   - showsProgress: standard output then holds percentages, which go to `progress`.
    private static func run(
        _ command: String, _ switches: [String] = [], raw: [[UInt8]] = [], archive: FilePath,
        destination: FilePath? = nil, names: [[UInt8]] = [], password: Secret?, control: JobControl? = nil,
        showsProgress: Bool = false, progress: (Double) -> Void = { _ in }
    ) throws(ArchiverError) -> ToolRun {
        let (unrar, common) = try invocation(archive, password: password)
        let folder = destination.map { [$0.madeAbsolute.bytes + [UInt8(ascii: "/")]] } ?? []
        let arguments =
            ([command] + switches + common).map { Array($0.utf8) } + raw + [Array("--".utf8), archive.bytes] + folder
            + names
        return try ToolRun.run(
            unrar, arguments, password: password, control: control, showsProgress: showsProgress, progress: progress)
    }

    /// unrar writing the data of the entry at `path` to its standard output, for a file of an archive
    /// opened as a folder; the password goes to its standard input.
    static func entryData(_ archive: FilePath, path: [UInt8], password: Secret?) throws(ArchiverError) -> ChildProcess.Reading {
        guard !isPattern(path) else {
            throw ArchiverError(.corrupt, tr("unrar cannot be given “%@”: it reads * and ? in a file name as patterns.", path.displayName))
        }
        let (unrar, common) = try invocation(archive, password: password)
        // -inul: nothing but the file's data on standard output.
        let arguments = (["p", "-inul"] + common).map { Array($0.utf8) } + [Array("--".utf8), archive.madeAbsolute.bytes, path]
        return try ChildProcess.startReading(
            unrar, arguments, environment: ToolRun.environment, input: password.map { .secret($0, times: 1) } ?? .nothing)
    }

    /// The program and the switches every run gives it, once `archive` and `password` are known to suit it.
    private static func invocation(_ archive: FilePath, password: Secret?) throws(ArchiverError) -> (FilePath, [String]) {
        try password?.checkFitsOneLine(for: "unrar")
        guard let unrar = executable else {
            throw ArchiverError(
                .notAnArchive, tr("unrar is not installed; it is needed for encrypted rar archives."),
                hint: tr("Install Debian's non-free “unrar” package."))
        }
        // unrar would open every file the name matches, other archives included.
        if isPattern(archive.bytes) {
            throw ArchiverError(
                .usage, tr("unrar cannot be given “%@”: it reads * and ? in a file name as patterns.", ToolArchive.displayName(archive)),
                hint: tr("Rename the archive (and its other parts) without * or ?, then try again."), path: archive.string)
        }
        // -cfg-: neither a .rarrc nor the RAR variable may change what the switches say; -idc: no banner;
        // -@: a name starting with @ is a name, not a list of names to read.
        return (unrar, ["-cfg-", "-idc", "-@", password == nil ? "-p-" : "-p"])
    }

    /// The technical listing of every volume.
    private static func listing(_ archive: FilePath, password: Secret?, control: JobControl?)
        throws(ArchiverError) -> Listing
    {
        try ToolArchive.checkReadable(archive)
        // -c-: no archive comment before the listing, whose lines it could otherwise imitate.
        let run = try run("lt", ["-v", "-c-"], archive: archive, password: password, control: control)
        let listed = parseListing(run.output)
        // 1 is a warning (a damaged end, say) after a listing that is still worth having: the extraction
        // meets the damage and says so.
        guard run.status == 0 || (run.status == 1 && !listed.entries.isEmpty) else {
            if listed.encryptedNames, password == nil { throw ToolArchive.passwordNeeded(archive) }
            throw readFailure(run, archive: archive)
        }
        if listed.garbled {
            throw ArchiverError(
                .corrupt, tr("“%@” has names that cannot be listed faithfully (a line break in a name); nothing was extracted.", ToolArchive.displayName(archive)),
                hint: tr("Extract it with unrar itself if you trust where it came from."), path: archive.string)
        }
        return listed
    }

    /// The encryption of `archive` and, unless the names are encrypted, its entries.
    private static func inspect(_ archive: FilePath, control: JobControl?) throws(ArchiverError) -> (
        encryption: ArchiveEncryption, listed: Listing
    ) {
        do {
            let listed = try listing(archive, password: nil, control: control)
            return (listed.entries.contains { $0.encrypted } ? .contents : .none, listed)
        } catch where error.code == .password {
            return (.names, Listing())
        }
    }

    /// Whether a listing or test said that the password is wrong: RAR5 stores a check value ("Incorrect
    /// password for …"); RAR4 has none, so a wrong password shows as a checksum error in an encrypted file.
    private static func saysWrongPassword(_ run: ToolRun) -> Bool {
        let text = (run.errors + String(decoding: run.output, as: UTF8.self)).lowercased()
        return ["incorrect password", "password is incorrect", "wrong password"].contains(where: text.contains)
    }

    /// `unrar t`: empty when every file's checksum matched; otherwise the archive as the damaged entry,
    /// with unrar's words (its report names files in sentences that change between versions).
    static func test(_ archive: FilePath, password: Secret?, control: JobControl?) throws(ArchiverError) -> [TestResult.Damaged] {
        let run = try run("t", archive: archive, password: password, control: control)
        if run.status == 0 { return [] }
        guard run.status == 3 else { throw readFailure(run, archive: archive) }
        return [TestResult.Damaged(path: ToolArchive.displayName(archive), detail: summary(run.errors).english)]
    }

    /// The archive comment, which `unrar l` shows before the listing (a RAR 2.9–4.x comment is compressed, so
    /// only unrar reads it); nil when there is none, or unrar would not show it (it hides comments holding
    /// terminal escapes).
    static func comment(_ archive: FilePath, control: JobControl?) throws(ArchiverError) -> String? {
        try ToolArchive.checkReadable(archive)
        return parseComment(try run("l", archive: archive, password: nil, control: control).output, archive: archive.bytes)
    }

    /// The comment in the output of `unrar l` on `archive` (the name as given): everything before the
    /// `Archive:` line naming it, after unrar 7's "Archive comment:" line (earlier versions have none).
    static func parseComment(_ output: [UInt8], archive: [UInt8]) -> String? {
        guard let end = output.firstRange(of: Array("\n\nArchive: ".utf8) + archive + [UInt8(ascii: "\n")]) else { return nil }
        var comment = output[..<end.lowerBound]
        for label in ["\nArchive comment:\n", "\n"] where comment.starts(with: Array(label.utf8)) {
            comment = comment.dropFirst(label.utf8.count)
            break
        }
        return comment.isEmpty ? nil : String(decoding: comment, as: UTF8.self)
    }

    /// True when the run succeeded, false when unrar said the password is wrong.
    private static func opens(_ run: ToolRun, _ archive: FilePath) throws(ArchiverError) -> Bool {
        if run.status == 0 { return true }
        if saysWrongPassword(run) { return false }
        throw readFailure(run, archive: archive)
    }
}

// MARK: - Errors

extension UnRAR {
    /// unrar's message lines, for errors.
    private static func summary(_ errors: String) -> Text {
        let lines = errors.split(whereSeparator: \.isNewline).filter {
            !$0.hasPrefix("Enter password") && !$0.hasPrefix("Total errors") && !$0.allSatisfy(\.isWhitespace)
        }
        let text = lines.map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
            .joined(separator: "; ")
        return text.isEmpty ? tr("it stopped without saying why") : .verbatim(String(text.prefix(300)))
    }

    /// The error for a failed read (list, test, extract) of `archive`. While extracting into `folder`,
    /// the password has been checked already and a file another password protects is no failure, so only
    /// disk trouble and damage are looked for.
    private static func readFailure(_ run: ToolRun, archive: FilePath, writingIn folder: FilePath? = nil) -> ArchiverError {
        let name = ToolArchive.displayName(archive)
        let errors = run.errors
        if let folder {
            // RARX_WRITE and RARX_CREATE; unrar names the cause in words, not numbers.
            let disk: [(String, Int32)] = [
                ("No space left", ENOSPC), ("Not enough disk space", ENOSPC), ("Disk quota exceeded", EDQUOT),
                ("Read-only file system", EROFS), ("File too large", EFBIG),
            ]
            if let (_, code) = disk.first(where: { errors.contains($0.0) }) {
                return FileSystem.destinationError(code, folder)
            }
            if run.status == 5 || run.status == 9 {
                return ArchiverError(
                    // TRANSLATORS: %2$@ is unrar's own message (English).
                    .destination, tr("unrar could not write in “%1$@”: %2$@.", folder, summary(errors)), path: folder.string)
            }
        } else if saysWrongPassword(run) {
            return ArchiverError(
                .password, tr("Wrong password for “%@”.", name), hint: tr("Check it and try again."), path: archive.string)
        }
        if run.status == 255 {
            return ArchiverError(.cancelled, tr("unrar was stopped; nothing was left behind."))
        }
        if errors.contains("is not RAR archive") {
            return ArchiverError(
                .notAnArchive, tr("“%@” is not an archive unrar can read.", name),
                hint: tr("Check that the file is complete and really an archive."), path: archive.string)
        }
        if errors.contains("Cannot find volume") {
            return ArchiverError(
                // TRANSLATORS: %2$@ is unrar's own message (English).
                .corrupt, tr("“%1$@” is one part of a set whose next part is missing: %2$@.", name, summary(errors)),
                hint: tr("Put all parts in one folder; nothing was extracted."), path: archive.string)
        }
        let damage = [
            ("Unexpected end of archive", ToolArchive.Damage.endsEarly), ("checksum error", .checksum),
            ("Checksum error", .checksum), ("header is corrupt", .headers), ("Corrupt header", .headers),
        ]
        if let (_, reason) = damage.first(where: { errors.contains($0.0) }) {
            return reason.error(name, path: archive.string)
        }
        // TRANSLATORS: %2$@ is unrar's own message (English).
        return ArchiverError(.corrupt, tr("unrar could not read “%1$@”: %2$@.", name, summary(errors)), path: archive.string)
    }

    /// The warnings and refusals of a finished extraction, or the error when it failed. Every message unrar
    /// printed must be one of these, else the extraction failed:
    /// - a file the password does not open (rar allows one password per file): a warning, unrar has
    ///   removed it;
    /// - a symlink unrar thought unsafe and did not make: a refusal;
    /// - an existing symlink: a warning.
    /// - Returns: also whether a file was left out for its password without being named (unrar 5).
    private static func extractionReport(
        _ run: ToolRun, archive: FilePath, staging: FilePath, refused: [ExtractResult.Refused]
    ) throws(ArchiverError) -> (warnings: [JobWarning], refused: [ExtractResult.Refused], unnamed: Bool) {
        guard run.status != 0 else { return ([], refused, false) }
        var warnings: [JobWarning] = []
        var refused = refused
        var unnamed = false
        let unopened = [
            ("Incorrect password for ", ""), ("Checksum error in the encrypted file ", ". Corrupt file or wrong password."),
        ]
        let unsafeLink = "Skipping the potentially unsafe "
        for line in run.errors.split(whereSeparator: \.isNewline) {
            if line.allSatisfy(\.isWhitespace) || line.hasPrefix("Total errors:") || line.hasPrefix("Enter password") {
                continue
            }
            if let (prefix, suffix) = unopened.first(where: { line.hasPrefix($0.0) }) {
                let rest = line.dropFirst(prefix.count)
                let file = rest.hasSuffix(suffix) ? rest.dropLast(suffix.count) : rest
                warnings.append(.passwordDoesNotOpen(String(file)))
            } else if line.hasPrefix(unsafeLink) {
                let rest = line.dropFirst(unsafeLink.count)
                let link = rest.firstRange(of: " -> ").map { rest[..<$0.lowerBound] } ?? rest
                refused.append(.init(path: String(link), refusal: .linkLeavesDestination))
            } else if line.hasPrefix("The specified password is incorrect") {
                unnamed = true
            } else if line.hasPrefix("WARNING: Symbolic link ") {
                warnings.append(.archiveWarning(ToolArchive.displayName(archive), line.dropFirst(9)))
            } else {
                throw readFailure(run, archive: archive, writingIn: staging.removingLastComponent())
            }
        }
        guard [1, 3, 11].contains(run.status) else {
            throw readFailure(run, archive: archive, writingIn: staging.removingLastComponent())
        }
        return (warnings, refused, unnamed)
    }
}

extension JobWarning {
    /// A file of a rar that the password given does not open (rar allows one password per file).
    fileprivate static func passwordDoesNotOpen(_ file: String) -> JobWarning {
        JobWarning(
            "password-does-not-open",
            tr("Could not extract “%@”: the password does not open it (it may have another one, or be damaged).", file))
    }
}
