import ArchiverCore
import Glibc
import Platform
import SystemPackage

/// What a finished compression made.
public struct CompressResult: Sendable {
    public var output: FilePath
    /// The archive's size in bytes.
    public var size: Int64
    /// The bytes of all regular files read.
    public var inputBytes: Int64
    public var files: Int
    public var folders: Int
    public var symlinks: Int
    /// Every file made: the archive, or its parts in order when it was split.
    public var parts: [FilePath] = []
    /// Items skipped or changed while being read.
    public var warnings: [JobWarning]
    /// What the leave-out rules left out; nil when none were asked for.
    public var leftOut: LeaveOutReport?
    /// What may stop the archive from opening where it goes (`--check`, `--portable`, `--fix`), what the
    /// chosen fixes leave; with `--check` nothing was written.
    public var problems: [PortabilityProblem] = []
    /// The fixes' renames, each once.
    public var renames: [CaseFoldedNames.Renaming] = []
}

/// Whether the plan is checked for the places archives usually go, and what is done about it.
public enum PortabilityMode: Sendable, Equatable {
    case off
    /// Check what the archive would hold after `fixes`, and write nothing (`--check`); `encrypted`: the
    /// archive would be (no password is asked).
    case check(encrypted: Bool, fixes: Set<PortabilityProblem.Kind>)
    /// Make `fixes` (`--portable`, `--fix`: see `Portability.fixable`), and check what they leave.
    case fix(Set<PortabilityProblem.Kind>)

    var fixes: Set<PortabilityProblem.Kind> {
        switch self {
        case .off: []
        case .check(_, let fixes), .fix(let fixes): fixes
        }
    }
}

/// Files and folders → one archive, written under a temporary name and published when complete.
public enum Compressor {
    /// Compresses `inputs`.
    /// - Parameters:
    ///   - inputs: paths as given (relative ones resolve against the current folder).
    ///   - format: the output format.
    ///   - level: the compression level.
    ///   - destination: the `--name`/`--output` choice.
    ///   - control: cancellation and time budget, checked between blocks.
    ///   - password: encrypts the archive (zip: AES-256); formats without encryption are refused.
    ///   - partSize: splits the archive into `NAME.001`, `NAME.002`, … of this many bytes (the last
    ///     smaller), published together or not at all.
    ///   - preflight: called with the input's total size once it is known, before anything is written;
    ///     what it throws stops the job (the time budget's early estimate).
    ///   - progress: called often with bytes read so far and the total.
    ///   - leaveOut: the rules that leave items out of the archive (never an input itself); nil: none.
    ///   - followSymlinks: a symlink is stored as the file or folder it points to.
    ///   - comment: the zip's archive comment (UTF-8, at most 65,535 bytes); a split archive has none.
    ///   - beforePublishing: called with the finished archive (a split one's first part) under its hidden
    ///     name, and the name it is to take, before it takes its final name: a comment is added, the archive is verified. What it throws
    ///     fails the job, and the archive is removed.
    /// - Returns: what was made.
    /// - Throws: `ArchiverError`; nothing is left behind under any name when it throws.
    public static func run(
        inputs: [FilePath], format: ArchiveFormat, level: CompressionLevel,
        destination: CompressPlan.Destination = .automatic, control: JobControl, password: Secret? = nil,
        partSize: Int64? = nil, preflight: (Int64) throws(ArchiverError) -> Void = { _ in },
        progress: (Int64, Int64?) -> Void = { _, _ in }, leaveOut: LeaveOutChoice? = nil, followSymlinks: Bool = false,
        portability: PortabilityMode = .off, comment: String? = nil, beforePublishing: (_ written: FilePath, _ name: String) throws(ArchiverError) -> Void = { _, _ in }
    ) throws(ArchiverError) -> CompressResult {
        ArchiveEngineSetup.ensureLocale()
        PendingOutputs.beginJob()
        defer { PendingOutputs.endJob() }
        if password != nil { try EncryptionSupport.checkCanEncrypt(format, sevenZipInstalled: canEncrypt7z) }
        var planned: [CompressPlan.Input] = []
        for input in inputs {
            let path = input.madeAbsolute
            guard let info = FileSystem.status(path) else {
                throw ArchiverError(
                    .inputUnreadable, tr("“%@” does not exist.", input), hint: tr("Check the name and try again."),
                    path: input.string)
            }
            planned.append(.init(path: path, isDirectory: FileSystem.isDirectory(info)))
        }
        var resolvedDestination = destination
        if case .path(let output) = destination {
            resolvedDestination = .path(output.madeAbsolute)
        }
        let plan = try CompressPlan.make(inputs: planned, format: format, destination: resolvedDestination)

        // The folder may be reached through a symlink (~/Documents on another disk); follow it.
        guard let folderInfo = FileSystem.resolve(plan.folder).flatMap(FileSystem.status), FileSystem.isDirectory(folderInfo)
        else {
            throw ArchiverError(
                .destination, tr("The folder “%@” does not exist.", plan.folder), hint: tr("Create it first, or choose another."),
                path: plan.folder.string)
        }
        let scan = try leaveOut.map { choice throws(ArchiverError) in
            try LeaveOutScan.run(plan.items.map(\.source), choice: choice, control: control)
        }
        let leavingOut = scan?.leftOut ?? []
        let tree = try FileTree.walk(plan.items, leavingOut: leavingOut, followSymlinks: followSymlinks, control: control)
        // 7-Zip is handed the inputs and reads them itself: what is left out, renamed or followed needs the
        // writer that is handed each item, which cannot encrypt 7z.
        let renaming = !portability.fixes.isDisjoint(with: Portability.portable)
        let sevenZipAllowed = leavingOut.isEmpty && !renaming && tree.followedSymlinks == 0
        if !sevenZipAllowed, format == .sevenZip, password != nil {
            throw ArchiverError(
                .usage, tr("An encrypted 7z archive cannot leave items out, rename them or follow symbolic links yet."),
                hint: tr("Use --format zip, or turn the rules off (--no-exclude-junk, …) and leave out --portable, --fix and --follow-symlinks."))
        }
        if format.isSingleStream, let only = tree.first, only.kind != .file {
            throw ArchiverError(
                // TRANSLATORS: %1$@ is a format name (gz, xz, zst …), %2$@ the item given.
                .usage, tr("The %1$@ format compresses one regular file, and “%2$@” is not one.", format.rawValue, only.source),
                // TRANSLATORS: %@ is a format name such as tar.gz; “--format” is the command-line option.
                hint: tr("Use --format %@ instead.", format.tarEquivalent.rawValue))
        }

        var names: [[UInt8]?]?
        var problems: [PortabilityProblem] = []
        var renames: [CaseFoldedNames.Renaming] = []
        let fixes = portability.fixes
        let encrypted = if case .check(let encrypted, _) = portability { encrypted } else { password != nil }
        // The recipient's Explorer and Archive Utility open ZipCrypto; only ever when asked (it is weak).
        let zipCrypto = fixes.contains(.encryptedZip) && format.container == .zip && encrypted
        if portability != .off {
            let entries = tree.portabilityEntries
            let fixed = Portability.fix(entries, fixes: fixes)
            let after = zip(entries, fixed.paths).compactMap { entry, path in
                path.map { Portability.Entry(path: $0, kind: entry.kind, size: entry.size) }
            }
            let target = Portability.Target(
                stem: ArchiveNaming.stem(plan.archiveName), format: format, encrypted: encrypted && !zipCrypto,
                destination: FileSystem.traits(of: plan.folder))
            problems = Portability.check(after, target: target)
            if case .check = portability {
                // What the walk could not store is a problem here, said once.
                let skipped = Set(tree.skipped.map(\.kind.rawValue))
                return CompressResult(
                    output: plan.folder.appending(bytes: plan.archiveName), size: 0, inputBytes: tree.totalBytes,
                    files: tree.count(.file), folders: tree.count(.directory),
                    symlinks: fixes.contains(.symlink) ? 0 : tree.count(.symlink),
                    warnings: tree.warnings.filter { !skipped.contains($0.code) } + (scan?.notes ?? []), leftOut: scan?.report,
                    problems: problems + tree.skipped)
            }
            if renaming { (names, renames) = (fixed.paths, fixed.renames) }
        }

        try preflight(tree.totalBytes)
        // 7z names are UTF-16: bytes that are not UTF-8 cannot survive, whoever writes them.
        let renamed = format.container != .sevenZip ? [] : tree.filter { String(validating: $0.nameInArchive, as: UTF8.self) == nil }.map {
            // TRANSLATORS: %1$@ is a file name, %2$@ the replacement character “�”.
            JobWarning("name-not-utf8", tr("“%1$@” is stored with “%2$@” in place of the bytes that are not UTF-8: 7z names are Unicode. Use zip or tar to keep the name exactly.", $0.nameInArchive.displayName, "\u{FFFD}"))
        }
        var result = CompressResult(
            output: plan.folder.appending(bytes: plan.archiveName), size: 0, inputBytes: tree.totalBytes,
            files: tree.count(.file), folders: tree.count(.directory),
            symlinks: fixes.contains(.symlink) ? 0 : tree.count(.symlink),
            warnings: tree.warnings + renamed + (scan?.notes ?? []), leftOut: scan?.report, problems: problems, renames: renames)
        let backend = Backend(
            tree: tree, items: plan.items, format: format, level: level, password: password, control: control,
            destination: plan.folder, sevenZipAllowed: sevenZipAllowed, names: names, zipCrypto: zipCrypto,
            comment: format == .zip && partSize == nil ? comment.map { Array($0.utf8) } : nil)

        if let partSize {
            // Parts are written in a private staging folder, then moved out together.
            let staging = try FileSystem.makeStaging(in: plan.folder)
            var withdrawn = false
            defer { if !withdrawn { PendingOutputs.discard(staging) } }
            let parts = try backend.writeParts(into: staging, name: plan.archiveName, size: partSize, progress: progress)
            try beforePublishing(parts[0], plan.archiveName.displayName)
            result.size = FileSystem.size(of: parts)
            withdrawn = true
            guard PendingOutputs.claim(staging) else { throw ArchiverError(.cancelled, tr("Cancelled.")) }
            defer {
                FileSystem.removeTree(staging)
                PendingOutputs.release(staging)
            }
            result.parts = try FileSystem.publishParts(parts, in: plan.folder, as: plan.archiveName, exact: plan.exact)
            result.output = result.parts[0]
            return result
        }

        FileSystem.removeStaleTemporaries(in: plan.folder)
        let pending = try PendingFile(in: plan.folder)
        defer { withExtendedLifetime(pending) {} }  // its descriptor and clean-up live until the job ends
        try backend.write(to: pending.path, descriptor: pending.descriptor, progress: progress)
        try beforePublishing(pending.path, plan.archiveName.displayName)
        result.size = pending.size
        result.output = try pending.publish(as: plan.archiveName, exact: plan.exact)
        result.parts = [result.output]
        return result
    }

    /// Whether 7z archives can be encrypted here (through 7-Zip).
    public static var canEncrypt7z: Bool { SevenZip.executable != nil }

    /// Workers for the compressors that use every core: the CPUs this process may run on, or in a debug build
    /// `ARCHIVER_TEST_WORKERS`, with which the tests compare the output of one worker and two.
    static func processorCount() -> Int {
        #if ARCHIVER_TEST_HOOKS
        if let forced = getenv("ARCHIVER_TEST_WORKERS").flatMap({ Int(String(cString: $0)) }), forced > 0 { return forced }
        #endif
        return ProcessState.usableProcessors
    }
}

/// Writes one archive's bytes with whichever writer suits the format: 7-Zip for 7z when it is installed
/// (faster on all cores, and the only way to encrypt 7z), our zip container for zip on every core
/// (`ZipCompression`, AES included), libarchive for the rest.
private struct Backend {
    let tree: FileTree
    let items: [CompressPlan.Item]
    let format: ArchiveFormat
    let level: CompressionLevel
    let password: Secret?
    let control: JobControl
    /// The folder the archive goes into, for messages.
    let destination: FilePath
    /// False when items are left out or renamed: 7-Zip reads whole folders.
    let sevenZipAllowed: Bool
    /// `--portable`'s name of each item of `tree`, nil for one left out; nil: the tree's own names.
    let names: [[UInt8]?]?
    /// Encrypted with ZipCrypto rather than AES-256 (`--fix zip-aes`).
    let zipCrypto: Bool
    /// The zip's comment.
    let comment: [UInt8]?

    private var uses7Zip: Bool { sevenZipAllowed && format == .sevenZip && SevenZip.executable != nil }

    /// The whole archive into `temporary`, open as `descriptor`.
    func write(to temporary: FilePath, descriptor: Int32, progress: (Int64, Int64?) -> Void) throws(ArchiverError) {
        if uses7Zip {
            // 7-Zip writes the file itself, so the reserved name is handed over empty; it stays registered
            // for cleanup meanwhile.
            _ = temporary.withPlatformString { unlink($0) }
            try with7Zip(output: temporary, volumeSize: nil, progress: progress)
        } else if usesContainer {
            try withContainer(OutputSink(descriptor: descriptor, in: destination, control: control), progress: progress)
        } else {
            try withLibarchive(OutputSink(descriptor: descriptor, in: destination, control: control), progress: progress)
            // libarchive writes no comment: its end record is given one (ZipCrypto zips).
            if let comment { try ZipComment.write(String(decoding: comment, as: UTF8.self), into: temporary) }
        }
    }

    /// The archive as parts `NAME.001`, … of `size` bytes in `folder`; returns them in order.
    func writeParts(into folder: FilePath, name: [UInt8], size: Int64, progress: (Int64, Int64?) -> Void)
        throws(ArchiverError) -> [FilePath]
    {
        if uses7Zip {
            try with7Zip(output: folder.appending(bytes: name), volumeSize: size, progress: progress)
            // In the order of their numbers: by bytes, `.1000` would come before `.101`.
            let made = ((try? FileSystem.entries(of: folder)) ?? []).compactMap { entry in
                VolumeName.parse(entry).map { (number: $0.number, path: folder.appending(bytes: entry)) }
            }.sorted { $0.number < $1.number }
            guard made.map(\.number) == Array(1...max(1, made.count)) else {
                throw ArchiverError(.destination, tr("7-Zip did not write the parts of “%@” as expected; nothing was made.", name.displayName))
            }
            return made.map(\.path)
        }
        let sink = try OutputSink(partsIn: folder, name: name, partSize: size, control: control)
        if usesContainer { try withContainer(sink, progress: progress) } else { try withLibarchive(sink, progress: progress) }
        try sink.finish(folder: folder)
        return sink.partPaths
    }

    private func with7Zip(output: FilePath, volumeSize: Int64?, progress: (Int64, Int64?) -> Void) throws(ArchiverError) {
        let total = tree.totalBytes
        progress(0, total)
        try SevenZip.create(
            items: items.map { Array($0.source.bytes.drop { $0 == UInt8(ascii: "/") }) }, in: "/",
            output: output, level: level, password: password, volumeSize: volumeSize, control: control
        ) { progress(Int64($0 * Double(total)), total) }
    }

    /// Zips go through our own container, compressed (and AES-encrypted) on every core; ZipCrypto, which
    /// the container does not write, stays with libarchive.
    private var usesContainer: Bool { format == .zip && !zipCrypto }

    /// The zip through `ZipCompression`, into `sink`.
    private func withContainer(_ sink: OutputSink, progress: (Int64, Int64?) -> Void) throws(ArchiverError) {
        let settings = format.settings(for: level)
        let zip = ZipCompression(
            tree: tree, names: names, level: settings.method == .store ? nil : Int32(settings.level ?? 6),
            workers: Compressor.processorCount(), control: control, password: password)
        try explained(sink) { () throws(ArchiverError) in
            try zip.write(into: sink, folder: destination, comment: comment ?? []) { progress($0, tree.totalBytes) }
        }
    }

    /// Runs `body`, saying what really happened when a write failed because the job was stopped or the
    /// disk's reserve was reached: both read as a write error.
    private func explained(_ sink: OutputSink, _ body: () throws(ArchiverError) -> Void) throws(ArchiverError) {
        do {
            try body()
        } catch {
            try control.check()
            if sink.stoppedForSpace { throw FileSystem.notEnoughSpace(destination, free: FileSystem.freeSpace(destination)) }
            throw error
        }
    }

    /// The archive through libarchive's writer, into `sink`.
    private func withLibarchive(_ sink: OutputSink, progress: (Int64, Int64?) -> Void) throws(ArchiverError) {
        let settings = format.settings(for: level)
        let writer = try ArchiveWriter(
            format: format, settings: settings, threads: Compressor.processorCount(), password: password,
            zipEncryption: zipCrypto ? "zipcrypt" : "aes256")
        let folderName = destination.string
        try writer.open(sink: sink, folder: folderName)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var done: Int64 = 0
        progress(0, tree.totalBytes)
        try explained(sink) { () throws(ArchiverError) in
            try write(with: writer, buffer: buffer, done: &done, folder: folderName) { progress($0, tree.totalBytes) }
            try writer.close(folder: folderName)
        }
    }

    /// Writes every item of `tree`, streaming file contents through `buffer`.
    private func write(
        with writer: borrowing ArchiveWriter, buffer: UnsafeMutableRawBufferPointer, done: inout Int64,
        folder folderName: String, progress: (Int64) -> Void
    ) throws(ArchiverError) {
        for (index, item) in tree.enumerated() {
            try control.check()
            let name: [UInt8]
            if let names {
                guard let renamed = names[index] else { continue }
                name = renamed
            } else {
                name = item.nameInArchive
            }
            let entry = ArchiveWriter.Entry()
            entry.fill(path: name, status: item.status.stat, symlinkTarget: item.symlinkTarget)
            guard item.kind == .file else {
                try writer.writeHeader(entry, folder: folderName)
                continue
            }
            let file = try InputFile.open(item.source)
            defer { close(file) }
            _ = posix_fadvise(file, 0, 0, POSIX_FADV_SEQUENTIAL)
            try writer.writeHeader(entry, folder: folderName)
            var remaining = item.status.size
            while remaining > 0 {
                let count = try InputFile.read(
                    file, into: buffer, count: min(buffer.count, Int(clamping: remaining)), at: item.status.size - remaining, item.source)
                try writer.writeData(UnsafeRawBufferPointer(rebasing: buffer[..<count]), folder: folderName)
                remaining -= Int64(count)
                done += Int64(count)
                progress(done)
                try control.check()
            }
        }
    }
}
