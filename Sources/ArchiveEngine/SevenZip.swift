import ArchiverCore
import Glibc
import Platform
import SystemPackage

/// 7-Zip's `7zz` as a child process, for what libarchive cannot do: write encrypted 7z, and read
/// encrypted 7z (and whatever else 7-Zip reads). The password reaches it only through its standard
/// input, never argv or the environment, which other users can read in /proc.
public enum SevenZip {
    /// The `7zz` found on PATH (then /usr/bin/7zz), nil when 7-Zip is not installed. Relative PATH
    /// entries are skipped: they would run whatever `7zz` the current folder holds.
    public static var executable: FilePath? { Programs.installed("7zz") }

    /// Writes a 7z archive of `items`, each a name inside `folder` that becomes a top-level item of the
    /// archive. Folders are stored recursively, symlinks as links (never followed), with their mtimes.
    /// - Parameters:
    ///   - output: where the archive goes; it must not exist yet (the caller made a temporary name).
    ///   - level: as for libarchive's 7z writer (`ArchiveFormat.settings(for:)`), on all cores.
    ///   - password: encrypts with AES-256, names included.
    ///   - volumeSize: splits the archive into `output.001`, `.002`, … of this many bytes.
    ///   - control: checked while 7-Zip runs; stopping it removes `output`.
    ///   - progress: the fraction done, 0...1.
    /// - Throws: `ArchiverError`; `output` does not exist afterwards.
    public static func create(
        items: [[UInt8]], in folder: FilePath, output: FilePath, level: CompressionLevel, password: Secret?,
        volumeSize: Int64? = nil, control: JobControl, progress: (Double) -> Void
    ) throws(ArchiverError) {
        guard FileSystem.status(output) == nil else {
            throw ArchiverError(
                .destination, tr("“%@” already exists; nothing was overwritten.", output), path: output.string)
        }
        let base = folder.madeAbsolute
        // -sae: the name exactly as given (7-Zip adds .7z to a name without an extension);
        // -sse: an unreadable input stops the job instead of being left out with a warning.
        var switches = [
            "a", "-t7z", "-mx\(ArchiveFormat.sevenZip.settings(for: level).level ?? 0)", "-mmt=on", "-snl", "-sae",
            "-sse",
        ]
        if password != nil { switches += ["-p", "-mhe=on"] }
        if let volumeSize { switches.append("-v\(volumeSize)b") }
        do throws(ArchiverError) {
            progress(0)
            // 7-Zip stores each path given as its last component, so absolute paths keep the items at the top.
            let run = try run(
                switches, files: [output.madeAbsolute.bytes] + items.map { base.appending(bytes: $0).bytes },
                password: password, times: 2, control: control, showsProgress: true, progress: progress)
            try control.check()
            guard run.status == 0 else { throw creationFailure(run, output: output) }
        } catch {
            _ = output.withPlatformString { unlink($0) }
            throw error
        }
        progress(1)
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
        let (encryption, entries) = try inspect(archive, control: control)
        return (encryption, entries.map(\.info))
    }

    /// Whether `password` opens `archive`, checked without writing anything and as cheaply as 7-Zip
    /// allows: listing checks it when the names are encrypted; otherwise one file is tested, the smallest
    /// of those that start a solid block (testing a later one decodes the block up to it).
    public static func accepts(
        _ archive: FilePath, password: Secret, selection: EntrySelection = EntrySelection([]), control: JobControl? = nil
    ) throws(ArchiverError) -> Bool {
        let (encryption, entries) = try inspect(archive, control: control)
        switch encryption {
        case .none:
            return true
        case .names:
            return try opens(run(["l", "-ba"], files: [archive.bytes], password: password, control: control), archive)
        case .contents:
            var seenBlocks: Set<Int> = []
            let candidates = entries.filter { listed in
                guard listed.info.encrypted, listed.info.kind == .file, selection.includes(listed.info.path) else {
                    return false
                }
                guard let block = listed.block else { return true }
                return seenBlocks.insert(block).inserted
            }
            if let cheapest = candidates.min(by: { ($0.info.size ?? 0) < ($1.info.size ?? 0) }) {
                let single = try run(["t"], files: [archive.bytes, cheapest.info.path], password: password, control: control)
                // No prompt means the name matched nothing and nothing was checked: test everything.
                if single.status != 0 || single.askedForPassword { return try opens(single, archive) }
            }
            return try opens(run(["t"], files: [archive.bytes], password: password, control: control), archive)
        }
    }

    /// The entries of `archive`. 7-Zip reports packed sizes, but a solid block's only as a whole, so
    /// `packedSize` is set for files alone in their block (and for non-solid formats). `linkTarget` stays
    /// nil for 7z, which keeps a link's target as its data.
    /// - Throws: `ArchiverError`: `.password` when the names need a password that is missing or wrong.
    public static func list(_ archive: FilePath, password: Secret?) throws(ArchiverError) -> [ArchiveEntryInfo] {
        try listing(archive, password: password).map(\.info)
    }


    /// Extracts everything into `staging`, an existing empty private folder; the caller applies the layout
    /// rule and publishes. Nothing is written outside it: entries with absolute or `..` paths and special
    /// files are left out; 7-Zip creates symlinks last and refuses those that leave the folder or pass
    /// through another link; afterwards symlinks that are absolute or point outside are removed and
    /// setuid, setgid and sticky bits cleared.
    /// - Parameters:
    ///   - password: given to 7-Zip when it asks; nil for an archive without encryption.
    ///   - control: checked while 7-Zip runs.
    ///   - progress: the fraction done, 0...1.
    /// - Returns: a message for each entry refused or removed, and for each warning.
    /// - Throws: `ArchiverError` (`.password` for a missing or wrong password); `staging` is then empty.
    @discardableResult
    public static func extract(
        _ archive: FilePath, into staging: FilePath, password: Secret?, control: JobControl, progress: (Double) -> Void
    ) throws(ArchiverError) -> [Text] {
        try extractTree(archive, into: staging, password: password, control: control, progress: progress).messages
    }

    /// `extract`, with counts and refusals separately for the caller's report and layout decision.
    public static func extractTree(
        _ archive: FilePath, into staging: FilePath, password: Secret?, selection: EntrySelection = EntrySelection([]),
        control: JobControl, progress: (Double) -> Void
    ) throws(ArchiverError) -> ToolExtraction {
        let entries = try listing(archive, password: password, control: control).map(\.info)
        let name = ToolArchive.displayName(archive)
        try Extractor.checkBeforeWriting(entries, selection: selection, archive: name)
        try Extractor.checkFreeSpace(for: entries, selection: selection, in: staging, archive: name)
        if password == nil, entries.contains(where: { $0.encrypted && selection.includes($0.path) }) {
            throw ToolArchive.passwordNeeded(archive)
        }
        var report = ToolExtraction()
        // 7-Zip would strip `..` and `/` and write such an entry elsewhere inside, perhaps over another.
        let unsafe = StagingSweep.unsafeEntries(entries)
        // All are left out (a selected folder or pattern may reach one); only the selected are reported.
        report.refused = unsafe.filter { selection.includes($0.path) }.map(\.refused)
        let excluded = unsafe.map { Array("-x!".utf8) + $0.path }
        guard excluded.joined().count < 512 * 1024 else {
            throw ArchiverError(
                // TRANSLATORS: %1$ld is how many entries, %2$@ the archive.
                .corrupt, ntr("“%2$@” has %1$ld entry with an unsafe path; nothing was extracted.", "“%2$@” has %1$ld entries with unsafe paths; nothing was extracted.", excluded.count, name),
                path: archive.string)
        }
        do throws(ArchiverError) {
            progress(0)
            let run = try run(
                ["x", "-y"] + linkSwitches, raw: [Array("-o".utf8) + staging.madeAbsolute.bytes] + excluded,
                // A selected folder's name extracts everything under it, as --entry promises.
                files: [archive.bytes] + selection.names, password: password, control: control, showsProgress: true,
                progress: progress)
            try control.check()
            report.warnings = try extractionWarnings(run, archive: archive, staging: staging)
            let links = Set(
                entries.filter { $0.kind == .symlink }.compactMap { try? EntryPath.components(of: $0.path).get() })
            try StagingSweep.sweep(staging, relative: [], listedLinks: links, into: &report)
        } catch {
            for name in (try? FileSystem.entries(of: staging)) ?? [] {
                FileSystem.removeTree(staging.appending(bytes: name))
            }
            throw error
        }
        progress(1)
        return report
    }
}

// MARK: - Running 7zz

extension SevenZip {
    /// Runs `7zz` with `switches` (plus `raw` ones made of bytes), then `--` and `files`.
    /// - Parameters:
    ///   - password: written `times` times to standard input.
    ///   - showsProgress: standard output then holds only percentages (and a password prompt), which go
    ///     to `progress`.
    static func run(
        _ switches: [String], raw: [[UInt8]] = [], files: [[UInt8]], password: Secret?, times: Int = 1,
        control: JobControl? = nil, showsProgress: Bool = false, progress: (Double) -> Void = { _ in }
    ) throws(ArchiverError) -> ToolRun {
        try password?.checkFitsOneLine(for: "7-Zip")
        let sevenZip = try program()
        // -spd: names are never wildcards.
        let output = showsProgress ? ["-bso0", "-bsp1"] : ["-bsp0"]
        let arguments =
            (switches + output + ["-spd", "-bse2"]).map { Array($0.utf8) } + raw + [Array("--".utf8)] + files
        return try ToolRun.run(
            sevenZip, arguments, password: password, times: times, control: control, showsProgress: showsProgress,
            progress: progress)
    }

    private static func program() throws(ArchiverError) -> FilePath {
        guard let sevenZip = executable else {
            throw ArchiverError(
                .notAnArchive, tr("7-Zip is not installed; it is needed for encrypted 7z archives."),
                hint: tr("Install the 7zip package."))
        }
        return sevenZip
    }

    /// 7-Zip writing the data of the entry at `path` to its standard output as it decrypts it, with the
    /// password on its standard input, never in its arguments. A solid block is decoded up to the entry.
    static func entryData(_ archive: FilePath, path: [UInt8], password: Secret?) throws(ArchiverError) -> ChildProcess.Reading {
        try password?.checkFitsOneLine(for: "7-Zip")
        let arguments = ["x", "-so", "-bsp0", "-spd", "-y", "--"].map { Array($0.utf8) } + [archive.madeAbsolute.bytes, path]
        return try ChildProcess.startReading(
            program(), arguments, environment: ToolRun.environment, input: password.map { .secret($0, times: 1) } ?? .nothing)
    }

    /// 7-Zip 25 and later refuse every symlink that climbs with `..` (even `dir/l -> ../file`) unless
    /// given `-snld`, and with it still refuse links that leave the folder or pass through another link.
    /// Earlier versions keep such links by default, and their `-snld` drops a check instead.
    private static let linkSwitches: [String] = (majorVersion ?? 0) >= 25 ? ["-snld"] : []

    /// The major version from the banner, `7-Zip (z) 26.02 (x64) : …`.
    private static let majorVersion: Int? = {
        guard let sevenZip = executable else { return nil }
        var output: [UInt8] = []
        _ = try? ChildProcess.run(sevenZip, [], environment: ToolRun.environment, input: .nothing, control: nil) {
            output += $0
        }
        let words = String(decoding: output, as: UTF8.self).split(whereSeparator: \.isWhitespace)
        let version = words.drop { !$0.hasPrefix("7-Zip") }.first { $0.contains(".") && $0.first?.isNumber == true }
        return version.flatMap { Int($0.prefix { $0.isNumber }) }
    }()

    /// The entries of `archive`, with their blocks.
    private static func listing(_ archive: FilePath, password: Secret?, control: JobControl? = nil)
        throws(ArchiverError)
        -> [Listed]
    {
        try ToolArchive.checkReadable(archive)
        let run = try run(["l", "-slt", "-ba"], files: [archive.bytes], password: password, control: control)
        guard run.status == 0 else {
            if password == nil, run.askedForPassword { throw ToolArchive.passwordNeeded(archive) }
            throw readFailure(run, archive: archive)
        }
        return parseListing(run.output)
    }

    /// The encryption of `archive` and, unless the names are encrypted, its entries.
    private static func inspect(_ archive: FilePath, control: JobControl? = nil) throws(ArchiverError) -> (
        encryption: ArchiveEncryption, entries: [Listed]
    ) {
        do {
            let entries = try listing(archive, password: nil, control: control)
            return (entries.contains { $0.info.encrypted } ? .contents : .none, entries)
        } catch where error.code == .password {
            return (.names, [])
        }
    }

    /// `7zz t`: the entries whose data failed its CRC or could not be decoded, in 7-Zip's words
    /// (`ERROR: CRC Failed in encrypted file. Wrong password? : d/a.bin`); empty when all read back.
    /// - Throws: `ArchiverError` when 7-Zip could not test at all (headers damaged, the end missing).
    static func test(_ archive: FilePath, password: Secret?, control: JobControl?) throws(ArchiverError) -> [TestResult.Damaged] {
        let run = try run(["t"], files: [archive.bytes], password: password, control: control)
        if run.status == 0 { return [] }
        let damaged = run.errors.split(whereSeparator: \.isNewline).compactMap { line -> TestResult.Damaged? in
            guard line.hasPrefix("ERROR: "), let colon = line.ranges(of: " : ").last else { return nil }
            return TestResult.Damaged(path: String(line[colon.upperBound...]), detail: String(line[line.index(line.startIndex, offsetBy: 7)..<colon.lowerBound]))
        }
        guard !damaged.isEmpty else { throw readFailure(run, archive: archive) }
        return damaged
    }

    /// True when the run succeeded, false when 7-Zip said the password is wrong.
    private static func opens(_ run: ToolRun, _ archive: FilePath) throws(ArchiverError) -> Bool {
        if run.status == 0 { return true }
        if run.errors.contains("Wrong password") { return false }
        throw readFailure(run, archive: archive)
    }

}

// MARK: - Errors

extension SevenZip {
    /// 7-Zip's error lines without its `ERROR:` labels, for messages.
    private static func summary(_ errors: String) -> Text {
        let lines = errors.split(whereSeparator: \.isNewline).map { line in
            line.hasPrefix("ERROR: ") ? line.dropFirst(7) : line
        }
        let meaningful = lines.filter { !["ERROR:", "ERRORS:", "System ERROR:", "WARNING:", "WARNINGS:"].contains($0) }
        let text = meaningful.joined(separator: "; ")
        return text.isEmpty ? tr("it stopped without saying why") : .verbatim(String(text.prefix(300)))
    }

    /// The `errno=N` values 7-Zip printed.
    private static func errorNumbers(_ errors: String) -> [Int32] {
        errors.split(separator: "errno=").dropFirst().compactMap { Int32($0.prefix { $0.isNumber }) }
    }

    /// The error for a failed read (list, test, extract) of `archive`, optionally into `folder`.
    static func readFailure(_ run: ToolRun, archive: FilePath, writingIn folder: FilePath? = nil) -> ArchiverError {
        let name = ToolArchive.displayName(archive)
        let errors = run.errors
        if errors.contains("Wrong password") {
            return ArchiverError(
                .password, tr("Wrong password for “%@”.", name), hint: tr("Check it and try again."), path: archive.string)
        }
        if let folder, let code = errorNumbers(errors).first(where: FileSystem.diskFailures.contains) {
            return FileSystem.destinationError(code, folder)
        }
        if run.status == 255 {
            return ArchiverError(.cancelled, tr("7-Zip was stopped; nothing was left behind."))
        }
        let damage = [
            ("Unexpected end", ToolArchive.Damage.endsEarly), ("Headers Error", .headers), ("CRC Failed", .checksum), ("Data Error", .data),
        ]
        if let (_, reason) = damage.first(where: { errors.contains($0.0) }) {
            return reason.error(name, path: archive.string)
        }
        // "Cannot open the file as [7z] archive" alone, or with "Is not archive" when the name says 7z.
        if ["Cannot open the file as", "Can not open the file as", "Is not archive"].contains(where: errors.contains) {
            return ArchiverError(
                .notAnArchive, tr("“%@” is not an archive 7-Zip can read.", name),
                hint: tr("Check that the file is complete and really an archive."), path: archive.string)
        }
        if errors.contains("Unsupported") {
            return ArchiverError(
                // TRANSLATORS: %2$@ is 7-Zip's own message (English).
                .notAnArchive, tr("“%1$@” uses a feature 7-Zip cannot read: %2$@.", name, summary(errors)), path: archive.string)
        }
        // TRANSLATORS: %2$@ is 7-Zip's own message (English).
        return ArchiverError(.corrupt, tr("7-Zip could not read “%1$@”: %2$@.", name, summary(errors)), path: archive.string)
    }

    /// The error for a failed `7zz a`.
    static func creationFailure(_ run: ToolRun, output: FilePath) -> ArchiverError {
        let numbers = errorNumbers(run.errors)
        if let code = numbers.first(where: FileSystem.diskFailures.contains) {
            return FileSystem.destinationError(code, output.removingLastComponent())
        }
        if run.status == 255 {
            return ArchiverError(.cancelled, tr("7-Zip was stopped; nothing was left behind."))
        }
        // An input it cannot open: `WARNING: errno=13 : Permission denied` and the path on the next line.
        if let code = numbers.first {
            let lines = run.errors.split(whereSeparator: \.isNewline)
            let path = lines.firstIndex { $0.contains("errno=") }.flatMap {
                lines.indices.contains($0 + 1) ? lines[$0 + 1] : nil
            }
            if code == EACCES || code == ENOENT || code == EPERM, let path {
                return ArchiverError(
                    .inputUnreadable, tr("Cannot read “%1$@”: %2$@.", path, TextValue.systemError(code)),
                    hint: tr("Check its permissions; no archive was made."), path: String(path))
            }
        }
        return ArchiverError(
            // TRANSLATORS: %@ is 7-Zip's own message (English).
            .destination, tr("7-Zip could not make the archive: %@.", summary(run.errors)), path: output.string)
    }

    /// The warnings of a finished extraction, or the error when it failed. 7-Zip exits with 2 after
    /// refusing a dangerous link, which is not a failure: the sweep reports the link.
    private static func extractionWarnings(_ run: ToolRun, archive: FilePath, staging: FilePath) throws(ArchiverError)
        -> [JobWarning]
    {
        let lines = run.errors.split(whereSeparator: \.isNewline)
        let errors = lines.filter { $0.hasPrefix("ERROR:") }
        switch run.status {
        case 0:
            return []
        case 1:
            let warnings = lines.filter { $0.hasPrefix("WARNING:") }.map { $0.dropFirst(8).trimmingPrefix(" ") }
            return warnings.map { .archiveWarning(ToolArchive.displayName(archive), $0) }
        case 2 where !errors.isEmpty && errors.allSatisfy({ $0.hasPrefix("ERROR: Dangerous link") }):
            return []
        default:
            throw readFailure(run, archive: archive, writingIn: staging.removingLastComponent())
        }
    }
}

extension ToolRun {
    /// Whether 7-Zip prompted for a password (always on standard output).
    fileprivate var askedForPassword: Bool { output.firstRange(of: Array("Enter password".utf8)) != nil }
}
